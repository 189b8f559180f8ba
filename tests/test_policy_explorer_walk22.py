"""Lesson 04's policy explorer after walk 22 (issue 32).

- Window 1: "compaction (1 turn)" showed "(nothing)" under "values the reader could see" at both graded turns, and
  nothing on screen said why (compaction counts the question as one of its turns). A note says so, computed from the
  run: only for a compaction policy whose reader saw no value at a graded turn.
- The number box's line gave "3e2 becomes 3": true, but "1e3" (1000 to anyone) becoming 1 is the surprise worth
  naming, as lessons 05 and 06's stepper line does ("1.7 or 1e3 -> 1").
- The note under the prompt-size plot (lines that meet) was small figure text; it is now normal-size text beside the
  picture, never drawn inside it.
"""

from __future__ import annotations

import asyncio
import re

from course_lib.policies import load_timeline
from course_lib.presentation import meeting_lines_note, plot_prompt_sizes, prompt_sizes_note
from course_lib.widgets import PolicyExplorer, slider_takes, slider_typing_hint


async def _ran(window: int, policies: tuple[str, ...] | None = None) -> PolicyExplorer:
    explorer = PolicyExplorer(load_timeline())
    explorer.window.value = window
    if policies is not None:
        explorer.policies.value = policies
    await explorer.run()
    return explorer


# region Finding 4: window 1, compaction sends the question alone


def test_window_1_says_why_compaction_saw_nothing():
    explorer = asyncio.run(_ran(1))
    assert explorer.comparison is not None
    seen = explorer.comparison.calls
    compaction = seen[(seen["policy"] == "compaction (1 turn)") & (seen["visible"] != "")]
    assert set(compaction["visible"]) == {"(nothing)"}  # what the note explains
    message = explorer.message.value
    assert (
        "compaction (1 turn) counts the question as one of its turns: with a window of 1 it sends the question "
        "alone, so its reader could see no earlier value (“(nothing)” in the table)"
    ) in message


def test_no_note_when_compaction_sees_values():
    explorer = asyncio.run(_ran(3))
    assert "counts the question as one of its turns" not in explorer.message.value


def test_no_note_when_compaction_is_not_chosen():
    explorer = asyncio.run(_ran(1, ("full history", "last 1 turn")))
    assert "counts the question as one of its turns" not in explorer.message.value


# endregion

# region Finding 5: the typing line's example is 1e3


def test_the_typing_line_names_1e3_becoming_1():
    explorer = PolicyExplorer(load_timeline())
    hint = slider_typing_hint([explorer.window, explorer.max_facts])
    assert "up to the first other character (so 1.7 and 1e3 are read as 1)" in hint  # walk 24: the rule, then 1e3
    for slider in (explorer.window, explorer.max_facts):
        assert slider_takes(slider, "1e3") == 1 and slider_takes(slider, "1.7") == 1


def test_the_example_stays_a_value_every_slider_can_take():
    explorer = PolicyExplorer(load_timeline())
    explorer.window.min = explorer.window.max = 10
    hint = explorer.typing_hint.value
    assert "10.7 and 10e3 are read as 10" in hint
    assert slider_takes(explorer.window, "10e3") == 10


# endregion

# region Finding 6: the plot's note is normal-size text, not figure text


def _calls():
    import pandas as pd

    chars = {"full history": [142, 302, 415, 900, 1000], "last 2 turns": [142, 302, 380, 390, 400]}
    return pd.DataFrame(
        [
            {"policy": policy, "rule": "latest", "call": "reader", "turn": turn, "chars_sent": sent}
            for policy, sizes in chars.items()
            for turn, sent in enumerate(sizes, start=1)
        ]
    )


def test_the_plot_draws_no_note_and_the_note_is_given_as_text():
    calls = _calls()
    assert plot_prompt_sizes(calls).texts == []
    note = prompt_sizes_note(calls, rule="latest")
    assert note == "Lines that meet hide one another: at turns 1 to 2, full history and last 2 turns."
    assert note == meeting_lines_note(calls, "turn", "chars_sent")


def test_the_explorer_shows_the_note_as_normal_size_text_under_the_plot():
    explorer = asyncio.run(_ran(3))
    assert explorer.comparison is not None
    note = prompt_sizes_note(explorer.comparison.calls, rule="latest")
    assert note
    shown = explorer.plot_note.value
    assert note.split(":")[0] in shown
    assert not re.search(r"font-size|<small|<sub", shown)
    children = list(explorer.children)
    assert children.index(explorer.plot_note) == children.index(explorer.plot) + 1


def test_a_changed_setting_takes_the_note_away_with_the_plot():
    explorer = asyncio.run(_ran(3))
    explorer.rule.value = "earliest"
    assert explorer.plot_note.value == ""


def test_the_lesson_prints_the_note_under_its_plot():
    from support.lesson_cells import cell_outputs, cell_source

    assert "prompt_sizes_note(" in cell_source("04", "cell-10")
    assert "Some lines meet at turn" in cell_outputs("04", "cell-10")  # the full list: the explorer (walk 24)


# endregion
