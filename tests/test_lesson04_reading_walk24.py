"""Lesson 04's second walk 24 (issue 32): what a new student read in the order Run All shows it.

1. The cell before the prompt-size plot said "the sentence under the plot names them", but cell-10 prints its
   sentences before the figure is drawn: they show ABOVE the plot.
4. Section 2's compaction bullet did not say that compaction sends one earlier exchange fewer than *last 3 turns*,
   though both are called "3 turns".
6. Section 4's token column used the word *token* before defining it in the same bullet.
3. Cell-10's printed note listed every turn where lines meet, line by line, and the student read it three times: the
   lesson prints one short sentence (``prompt_sizes_note(..., brief=True)``), the explorer keeps the full list.
"""

from __future__ import annotations

import asyncio
import re

import pandas as pd
import pytest
from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson
from support.policy_runs import sizes_frame

from course_lib.policies import compare_policies, course_policies, load_timeline
from course_lib.presentation import NEAR_CHARS, prompt_sizes_note


def _markdown_with(phrase: str) -> str:
    cells = stored_lesson("04")["cells"]
    return next(plain_words("".join(c["source"])) for c in cells if phrase in plain_words("".join(c["source"])))


# region Finding 1: the sentences are above the plot


def test_the_plot_intro_points_above_where_the_sentences_print():
    said = plain_words(cell_source("04", "l04-before-prompt-plot"))
    assert "under the plot" not in said
    assert "the sentence above the plot names both" in said


def test_cell_10_still_prints_before_the_figure_shows():
    # the figure shows when the cell ends, after every print: "above" is true only while the prints stay
    code = cell_source("04", "cell-10")
    assert code.index("plot_prompt_sizes(") < code.index("print(")
    assert "display(fig" not in code and "plt.show" not in code


# endregion

# region Finding 4: compaction sends one earlier exchange fewer


def test_the_compaction_bullet_says_it_sends_one_exchange_fewer_than_the_window():
    # walk 25: said in exchanges before the question, in the compaction bullet (tests/test_lesson04_walk25.py
    # checks its numbers against a replay)
    section = plain_words(cell_source("04", "cell-02"))
    assert (  # second walk 25: one bullet says what the numbers in the names count
        "compaction (3 turns) sends 3 user messages in all, the question included (2 exchanges plus the question)."
        in section
    )
    assert "send the 3 exchanges before the question, plus the question (4 user messages)." in section


def test_section_2_sentences_stay_under_31_words():
    text = _markdown_with("## 2. Run every policy")
    for sentence in re.split(r"(?<=[.:;!?])\s+|\s+-\s+", text):
        assert len(sentence.split()) <= 30, sentence


# endregion

# region Finding 6: token defined before it is used


def test_the_token_bullet_defines_token_first():
    section = _markdown_with("## 4. What it cost")
    bullet = section.split("estimated tokens (chars / 4)", 1)[1].split("reported input", 1)[0]
    assert bullet.index("token is the unit") < bullet.index("tokens under")
    assert bullet.index("token is the unit") < bullet.index("summed per call")


# endregion

# region Finding 3: cell-10's note is one short sentence; the per-turn list stays in the explorer


def _lesson_calls() -> pd.DataFrame:
    return asyncio.run(compare_policies(load_timeline(), course_policies(), rules=["latest"])).calls


def test_the_brief_note_is_one_short_sentence_from_the_same_data():
    calls = _lesson_calls()
    brief = prompt_sizes_note(calls, rule="latest", brief=True)
    assert brief == (  # third walk 25: the lines named here, two short sentences
        "Some lines meet at turns 1 to 4: every line except facts, not all at every turn. "
        f"At turn 6, full history and facts come within {NEAR_CHARS} characters."
    )
    assert all(len(sentence.split()) <= 30 for sentence in brief.split(". "))


def test_the_full_note_stays_the_explorers():
    calls = _lesson_calls()
    full = prompt_sizes_note(calls, rule="latest")
    assert full.startswith("Lines that meet hide one another: at turn 1, every line except facts;")


def test_the_brief_note_says_only_what_happens():
    meet_only = sizes_frame({"a": [100, 200, 300], "b": [100, 250, 400]})
    assert prompt_sizes_note(meet_only, brief=True) == "Some lines meet at turn 1: a and b."
    near_only = sizes_frame({"a": [100, 200, 300], "b": [102, 250, 400]})
    assert prompt_sizes_note(near_only, brief=True) == f"At turn 1, a and b come within {NEAR_CHARS} characters."
    apart = sizes_frame({"a": [100, 200, 300], "b": [150, 250, 400]})
    assert prompt_sizes_note(apart, brief=True) == prompt_sizes_note(apart) == ""


def test_cell_10_prints_the_brief_note():
    code = cell_source("04", "cell-10")
    assert 'prompt_sizes_note(calls, rule="latest", brief=True)' in code
    shown = cell_outputs("04", "cell-10")
    assert "Some lines meet at turns 1 to 4" in shown
    assert "Lines that meet hide one another" not in shown


def test_the_markdown_after_the_plot_quotes_the_brief_note():
    said = plain_words(cell_source("04", "l04-after-prompt-plot"))
    assert "begins 'Some lines meet'" in said
    assert "Lines that meet" not in said


# endregion

# region Finding 7: after a restart, cell-03 shows no dead bar above its friendly line


def _run_cell_03(namespace: dict) -> None:
    import ast

    code = compile(cell_source("04", "cell-03"), "cell-03", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, namespace)
    if asyncio.iscoroutine(result):
        asyncio.run(result)


def test_after_a_restart_cell_03_stops_before_its_bar_shows():
    shown: list[object] = []
    with pytest.raises(NameError, match="timeline"):
        _run_cell_03({"display": shown.append})  # the imports cell ran, section 1's cell did not
    assert shown == []


def test_with_the_timeline_the_bar_shows_and_counts_every_replay():
    shown: list[object] = []
    namespace = {"display": shown.append, "timeline": load_timeline()}
    _run_cell_03(namespace)
    (bar,) = shown
    assert bar is namespace["bar"]
    assert namespace["comparison"].answers["rule"].nunique() == 3


# endregion
