"""Lesson 04's tenth walk (issue 32): each item checked at its rule.

A label pushed above its line in the zoomed scaling plot carries its line's value; lines that meet at some turns
only are named under the prompt plot, with those turns; "turn" and "session" are defined where first used, and the
progress bar's red marks where it first shows; the recording's plain fold names no maintainer's command (the exact
caption under the hood keeps it).
"""

from __future__ import annotations

import html

import pandas as pd
from test_student_path import lesson

from course_lib.presentation import (
    LAST_READER_CHARS,
    meeting_lines_note,
    plot_prompt_sizes,
    plot_scaling,
    turns_in_words,
)
from course_lib.recordings import load_policy_costs, load_qualification

LESSON = "04_memory_policies_compared"


def _scaling() -> pd.DataFrame:
    ends = {"full history": (900, 15500), "last 3 turns": (380, 383), "summary": (390, 385), "facts": (840, 859)}
    return pd.DataFrame(
        [
            {"policy": policy, "turns": turns, LAST_READER_CHARS: value}
            for policy, (first, last) in ends.items()
            for turns, value in ((10, first), (200, last))
        ]
    )


def test_each_zoomed_label_ends_with_its_lines_last_value_so_a_pushed_label_is_not_read_as_its_height():
    fig = plot_scaling(_scaling())
    zoom = fig.axes[1]
    labels = {text.get_text() for text in zoom.texts}
    assert labels == {"last 3 turns: 383", "summary: 385", "facts: 859"}
    summary = next(text for text in zoom.texts if text.get_text().startswith("summary"))
    assert summary.xy[1] == 385  # the leader starts at the line's end, the value the label says


def test_the_plain_recording_fold_names_no_command_and_the_exact_caption_keeps_it():
    for recording in (load_policy_costs(), load_qualification()):
        plain = recording.details_html(plain=True)
        assert "record-local" not in plain and "Reproduce" not in plain and "command" not in plain
        assert html.escape(recording.plain_caption()) in plain
        lines = recording.caption().splitlines()
        assert "Reproduce:" in lines and "  make local && make record-local" in lines  # each command on its own line
        assert not any("Reproduce: " in line for line in lines)  # no command inside a sentence


def _reader_calls(chars: dict[str, list[int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"policy": policy, "rule": "latest", "call": "reader", "turn": turn, "chars_sent": sent}
            for policy, sizes in chars.items()
            for turn, sent in enumerate(sizes, start=1)
        ]
    )


def test_lines_that_meet_at_some_turns_are_named_with_those_turns_under_the_prompt_plot():
    calls = _reader_calls({"full history": [142, 302, 415, 900, 1000], "last 2 turns": [142, 302, 380, 390, 400]})
    note = meeting_lines_note(calls, "turn", "chars_sent")  # printed under the plot since walk 22, not drawn in it
    assert note == "Lines that meet hide one another: at turns 1 to 2, full history and last 2 turns."
    assert plot_prompt_sizes(calls).texts == []


def test_a_twin_equal_at_every_turn_gets_no_note_its_rings_say_it():
    calls = _reader_calls({"last 3 turns": [142, 302, 415], "reducer (3 turns)": [142, 302, 415], "facts": [1, 2, 3]})
    assert meeting_lines_note(calls, "turn", "chars_sent") == ""
    assert plot_prompt_sizes(calls).texts == []


def test_turns_are_said_in_runs():
    assert turns_in_words([1]) == "turn 1"
    assert turns_in_words([3, 1, 2, 7]) == "turns 1 to 3 and 7"


def test_the_lesson_defines_turn_and_session_where_it_first_uses_them_and_says_what_the_bars_red_marks_are():
    cells = lesson(LESSON).cells
    objectives = " ".join(cells[0].source.split())
    assert "a *turn* is one user message and the answer that follows it" in objectives
    section_2 = " ".join(next(c.source for c in cells if c.get("id") == "cell-02").split())
    # walk 21: not in a bracket of section 2; walk 23: in a sentence of section 2, where it is first used
    assert "MAF keeps one conversation in an object called a *session*" in section_2
    hood = " ".join(" ".join(c.source for c in cells if c.get("id") == "hood-after-f37").split())
    assert "keeps no MAF session" in hood  # third walk 25: moved under the hood
    assert 'with nothing to click (its red broken-link marks mean "not connected yet")' in section_2
    later = " ".join(" ".join(c.source for c in cells[1:] if c.cell_type == "markdown").split())
    assert "a *turn* is" not in later and later.count("a *session*") == 1  # one definition each, the first
