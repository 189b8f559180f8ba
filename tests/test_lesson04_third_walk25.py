"""Lesson 04's third walk 25 (4/5), one region per finding (issue 32).

1. Section 2's list: the reducer's bullet follows compaction's; what the numbers in the names count is a short
   paragraph under the list, not a bullet between them.
2. The window's and compaction's definitions say what the policy does, not how the code does it (the plain list and
   "no MAF session" move under the hood).
3. Section 3b's sentence on the extractive summary has one "because", and its turns are the timeline's.
4. Exercise 2's hint names the eviction rule the exercise states.
5. The note under the prompt plot names the lines that meet, from the data, and no longer points to the explorer.
"""

from __future__ import annotations

import asyncio

import pandas as pd

from course_lib.exercises import exercise
from course_lib.memory_models import find_declarations
from course_lib.policies import compare_policies, course_policies, load_timeline
from course_lib.presentation import NEAR_CHARS, prompt_sizes_note
from tests.support.lesson_cells import cell_outputs, cell_source, plain_words, words
from tests.support.policy_runs import last_reader_call, sizes_frame

# region Finding 1: the reducer's bullet follows compaction's; the numbers note is a paragraph under the list


def _section_2() -> str:
    return cell_source("04", "cell-02").split("## 2. Run every policy under every rule")[1]


def test_the_reducer_bullet_follows_compaction_and_the_numbers_note_is_a_paragraph():
    lines = _section_2().splitlines()
    bullets = [i for i, line in enumerate(lines) if line.startswith("- ")]
    starts = [lines[i][2:] for i in bullets]
    assert [s.split("*")[1] for s in starts] == [
        "full history",
        "last 3 turns",
        "summary",
        "facts",
        "compaction",
        "reducer",
    ]
    note = next(i for i, line in enumerate(lines) if line.startswith("The numbers in the names count"))
    assert note > bullets[-1] and not lines[note - 1].strip()  # a paragraph of its own, under the list


# endregion

# region Finding 2: the definitions say what each policy does


async def test_the_window_and_compaction_say_what_they_send():
    exchanges = (await last_reader_call("last 3 turns"))[1]
    section = plain_words(_section_2())
    assert f"- last 3 turns (the window) sends only the {exchanges} latest exchanges and the question." in section
    assert (
        "- compaction keeps the whole conversation stored in the session, but sends the model only the last turns."
    ) in section
    assert "plain list" not in section and "cuts what is sent" not in section
    hood = words(cell_source("04", "hood-after-f37"))
    assert "cuts the conversation from a plain list: it keeps no MAF session" in hood


# endregion

# region Finding 3: one "because", and the turns the timeline declares


def test_the_extractive_sentence_has_one_because_and_the_timelines_turns():
    timeline = load_timeline()
    keys = [[d.key for d in find_declarations(turn.user)] for turn in timeline.turns[:2]]
    assert keys == [["product", "module", "database"], ["constraint"]]
    said = words(cell_source("04", "b4954903")).replace("`", "")
    sentence = (
        "It kept the prohibition only because the lines it dropped were older: turn 1's product, module and "
        "database, declared before the prohibition of turn 2."
    )
    assert sentence in said
    assert said.split("Exercise 3")[0].count("because") == 1


# endregion

# region Finding 4: Exercise 2's hint names the rule the exercise states


def test_exercise_2s_hint_names_the_eviction_rule():
    hint = exercise("04", "Exercise 2").hint
    assert "the question's rule" not in hint
    assert "under the eviction rule the exercise states (oldest turn first, ties by key name)" in hint
    stated = words(cell_source("04", "cell-22"))
    assert "evicts the fact of the oldest turn, ties by key name" in stated


# endregion

# region Finding 5: the note under the prompt plot names the lines, from the data


def _lesson_calls() -> pd.DataFrame:
    return asyncio.run(compare_policies(load_timeline(), course_policies(), rules=["latest"])).calls


def test_the_brief_note_names_the_lines_that_meet():
    brief = prompt_sizes_note(_lesson_calls(), rule="latest", brief=True)
    assert brief == (
        "Some lines meet at turns 1 to 4: every line except facts, not all at every turn. "
        f"At turn 6, full history and facts come within {NEAR_CHARS} characters."
    )
    assert "explorer" not in brief


def test_the_brief_note_names_lines_from_any_data():
    meet = sizes_frame({"a": [100, 200, 300], "b": [100, 250, 400], "c": [90, 260, 410]})
    assert prompt_sizes_note(meet, brief=True) == "Some lines meet at turn 1: every line except c."
    near = sizes_frame({"a": [100, 200, 300], "b": [102, 250, 400], "c": [150, 249, 500]})
    assert prompt_sizes_note(near, brief=True) == (
        f"At turn 1, a and b come within {NEAR_CHARS} characters. "
        f"At turn 2, b and c come within {NEAR_CHARS} characters."
    )


def test_the_lesson_prints_the_named_lines_and_drops_the_explorer_pointer():
    shown = cell_outputs("04", "cell-10")
    assert "Some lines meet at turns 1 to 4: every line except facts" in shown
    assert "the explorer below names them" not in shown
    after = words(cell_source("04", "l04-after-prompt-plot"))
    assert "the explorer names the lines" not in after
    assert "names the lines that meet or nearly meet, and where" in after


# endregion
