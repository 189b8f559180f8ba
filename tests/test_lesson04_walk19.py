"""Lesson 04 after its nineteenth walk (issue 32): *offline* is defined where the lesson first uses it, the demo
panel's code chooses the fact bound before the policy it names, the explorer's status line says when a slider sits
at one of its limits (true of every input: the kernel receives only the value, never the text typed), and section
3b's computation lives in :mod:`course_lib.policies`, its cell a few lines with the same output.
"""

from __future__ import annotations

import re

import pytest

from course_lib.policies import (
    SummaryAtQuestion,
    load_timeline,
    summary_at_final_question,
    summary_keys,
    summary_sizes,
)
from course_lib.widgets import PolicyExplorer, slider_at_limit
from tests.support.lesson_cells import cell_outputs, cell_source, stored_lesson


def _words(text: str) -> str:
    return " ".join(text.split())


def _printed(cell_id: str) -> str:
    """What the cell printed: its stored stream outputs, as one text."""
    outputs = stored_lesson("04")["cells"]
    cell = next(c for c in outputs if c.get("id") == cell_id)
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o["output_type"] == "stream")


def _markdown() -> list[str]:
    cells = stored_lesson("04")["cells"]
    return [_words("".join(c["source"])) for c in cells if c["cell_type"] == "markdown"]


# region Finding 1: "offline" is defined where it is first used


def test_offline_is_defined_in_the_sentence_that_first_uses_it():
    cells = _markdown()
    first = next(words for words in cells if re.search(r"\boffline\b", words))
    sentence = next(s for s in re.split(r"(?<=[.;:])\s", first) if "offline" in s)
    assert "*offline*" in sentence, sentence
    assert "not a real" in sentence and "COURSE_LLM" in sentence, sentence
    # the definition comes before any other use of the word in that cell
    assert first.index("*offline*") <= first.index("offline") + 1


# endregion
# region Finding 2: the demo panel's code reads in the order of what it shows


def test_the_demo_panel_sets_the_bound_before_choosing_the_policy_it_names():
    code = cell_source("04", "cell-19")
    assert "facts (5)" not in code
    bound = code.index("demo_explorer.max_facts.value = 4")
    chosen = code.index('demo_explorer.policies.value = ("full history", "facts (4)")')
    assert bound < chosen
    assert "facts (4)" in cell_outputs("04", "cell-19")


def test_the_demo_panels_settings_choose_what_its_code_names():
    explorer = PolicyExplorer(load_timeline())
    explorer.max_facts.value = 4
    explorer.policies.value = ("full history", "facts (4)")
    assert explorer.policies.value == ("full history", "facts (4)")


# endregion
# region Finding 3: the status line says when a slider sits at one of its limits


@pytest.mark.parametrize("value", [10, 99, 10_000])
def test_a_window_at_its_largest_is_said_so_whatever_was_asked(value):
    explorer = PolicyExplorer(load_timeline())
    explorer.window.value = value
    assert "window 10 (the largest it can be)," in explorer.message.value


@pytest.mark.parametrize("value", [1, 0, -5])
def test_a_fact_bound_at_its_smallest_is_said_so_whatever_was_asked(value):
    explorer = PolicyExplorer(load_timeline())
    explorer.max_facts.value = value
    assert "fact bound 1 (the smallest it can be)." in explorer.message.value


def test_a_value_inside_the_limits_reads_as_before():
    explorer = PolicyExplorer(load_timeline())
    explorer.window.value = 9
    assert "Press Run to compute with rule latest, window 9, fact bound 5." in explorer.message.value
    assert "can be" not in explorer.message.value


async def test_the_caption_of_a_run_says_the_limit_the_same_way():
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("facts (5)",)
    explorer.max_facts.value = 10
    explorer.run_button.click()
    await explorer.idle()
    assert "Computed with rule latest, window 3, fact bound 10 (the largest it can be)." in explorer.message.value


def test_a_slider_with_one_value_says_it_is_the_only_one():
    explorer = PolicyExplorer(load_timeline())
    explorer.window.min = explorer.window.max = 10
    explorer.max_facts.value = 4  # any change of a control writes the status line again
    assert slider_at_limit(explorer.window) == " (the only value it can be)"
    assert "window 10 (the only value it can be), fact bound 4." in explorer.message.value


# endregion
# region Finding 4: section 3b's computation is a course_lib function; the cell is short, its output the same


def test_summary_keys_reads_one_key_per_declaration_on_either_separator():
    assert summary_keys("module=Reporting/Billing; database=PostgreSQL\nlog=x.log\nno declaration") == [
        "module",
        "database",
        "log",
    ]
    assert summary_keys("") == []


async def test_each_modes_summary_answer_and_grade_are_what_the_lesson_printed():
    timeline = load_timeline()
    runs = [await summary_at_final_question(timeline, mode) for mode in ("abstractive", "extractive")]
    assert all(isinstance(run, SummaryAtQuestion) and run.stop is None for run in runs)
    printed = "".join(f"{run.in_words()}\n" for run in runs) + summary_sizes(runs) + "\n"  # as print() writes
    assert printed == _printed("6f3be19a")
    abstractive, extractive = runs
    assert abstractive.answer is not None and not abstractive.answer.correct
    assert extractive.answer is not None and extractive.answer.correct
    only_abstractive = set(summary_keys(abstractive.summary)) - set(summary_keys(extractive.summary))
    assert only_abstractive == {"product"}


async def test_a_stopped_mode_says_why_and_no_sizes_are_compared():
    from course_lib.policies import generate_timeline

    run = await summary_at_final_question(generate_timeline(40), "abstractive", budget=5000)
    assert run.stop is not None and run.summary is None and run.answer is None
    assert run.in_words().startswith("--- abstractive: The summary policy stopped: the summary ran to 705 characters")
    assert summary_sizes([run]) == "No characters or keys to compare: a summary policy stopped before the question."


def test_the_cell_is_a_few_lines_and_leaves_its_note_on_a_live_summarizer_to_3c():
    code = cell_source("04", "6f3be19a")
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 10, len(lines)
    assert "re.split" not in code and "for part in" not in code
    assert "700 characters" not in code  # walk 21: section 3c says it, in words the offline run makes true


# endregion
