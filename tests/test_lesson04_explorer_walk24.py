"""Lesson 04's walk 24, findings 5 and 6 (issue 32): the explorer's notes say what is true.

5. Window 9, rule latest: the note said turn 6 twice with overlapping pairs ("full history (857) and facts (5) (858);
   facts (5) (858) and compaction (9 turns) (857)") and left out the other lines at 857. Lines a few characters
   apart are now said once per turn, grouped by value: "at turn 6, facts (5) at 858 against 857 for ...".
6. The number box said it "reads a whole number in digits, up to the first other character", but the slider's own
   box read in the browser with JavaScript's ``parseInt``: "0x5" became 5 and "0xA" 10. Each slider's box is now read
   in the kernel by that rule (only the leading run of ASCII digits 0-9), so "0x5" reads as 0, shown as 1.
"""

from __future__ import annotations

import asyncio
import re
from itertools import pairwise

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.policies import compare_policies, course_policies, load_timeline
from course_lib.presentation import NEAR_CHARS, meeting_lines_note, prompt_sizes_note
from course_lib.widgets import PolicyExplorer, slider_reads, slider_takes

NEAR = f"Lines within {NEAR_CHARS} characters of each other look as if they meet: "


def _near_part(note: str) -> str:
    return note.split(NEAR, 1)[1] if NEAR in note else ""


# region Finding 5: one line per turn


def test_window_9_says_turn_6_once_with_every_line_at_857():
    policies = course_policies(window=9, name_the_bound=True)
    comparison = asyncio.run(compare_policies(load_timeline(), policies, rules=["latest"]))
    near = _near_part(prompt_sizes_note(comparison.calls, rule="latest"))
    assert near == "at turn 6, facts (5) at 858 against 857 for the other lines except summary."
    assert near.count("turn 6") == 1


def test_the_lesson_default_names_its_one_near_pair_by_value():
    comparison = asyncio.run(compare_policies(load_timeline(), course_policies(), rules=["latest"]))
    near = _near_part(prompt_sizes_note(comparison.calls, rule="latest"))
    assert near == "at turn 6, facts at 858 against 857 for full history."


def _frame(values: dict[str, list[int]]) -> pd.DataFrame:
    rows = [
        {"policy": policy, "turn": turn, "chars_sent": value}
        for policy, line in values.items()
        for turn, value in enumerate(line, start=1)
    ]
    return pd.DataFrame(rows)


def test_three_values_at_one_turn_are_one_entry():
    frame = _frame({"a": [100, 200], "b": [102, 300], "c": [104, 400], "d": [500, 600]})
    near = _near_part(meeting_lines_note(frame, "turn", "chars_sent"))
    assert near == "at turn 1, c at 104 against 102 for b, 100 for a."  # ties: the highest first


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(min_value=100, max_value=112), min_size=3, max_size=3),
        min_size=2,
        max_size=5,
    )
)
def test_each_turn_is_said_at_most_once_and_every_near_line_is_in_it(lines):
    frame = _frame({f"policy {i}": line for i, line in enumerate(lines)})
    near = _near_part(meeting_lines_note(frame, "turn", "chars_sent"))
    said = re.findall(r"at turn (\d+), ", near)
    assert len(said) == len(set(said))  # one entry per turn
    for turn in range(1, 4):
        values = sorted({line[turn - 1] for line in lines})
        close = any(0 < b - a <= NEAR_CHARS for a, b in pairwise(values))
        assert (str(turn) in said) == close  # a twin line has its twin's values: it adds no pair of its own
        if close:
            entry = near.split(f"at turn {turn}, ", 1)[1].split("; at turn", 1)[0]
            for a, b in pairwise(values):
                if 0 < b - a <= NEAR_CHARS:
                    assert str(a) in entry and str(b) in entry  # both values of a near pair are said


# endregion

# region Finding 6: the box reads only the leading run of ASCII digits


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("0x5", 0),
        ("0xA", 0),
        ("0b1", 0),
        ("0o7", 0),
        ("1_000", 1),
        ("3.7", 3),
        ("1e3", 1),
        (" 7", 7),
        ("7 turns", 7),
        ("-5", None),
        ("+3", None),
        (".5", None),
        ("abc", None),
        ("", None),
        ("\uff13", None),  # a fullwidth 3: not an ASCII digit
    ],
)
def test_the_box_reads_the_leading_ascii_digits_only(typed, read):
    assert slider_reads(typed) == read


def test_the_sliders_have_no_browser_box_and_each_has_a_box_read_in_the_kernel():
    explorer = PolicyExplorer(load_timeline())
    for slider, box in ((explorer.window, explorer.window_box), (explorer.max_facts, explorer.max_facts_box)):
        assert slider.readout is False  # its box read with JavaScript's parseInt: "0x5" was 5
        assert box.value == str(slider.value)
        for typed in ("0x5", "0xA", "0b1", "0o7"):
            slider.value = 4
            box.value = typed
            assert slider.value == slider_takes(slider, typed) == 1 and box.value == "1"  # read 0, shown as 1
        box.value = "1_000"
        assert slider.value == 1 and box.value == "1"
        slider.value = 4
        box.value = "abc"
        assert slider.value == 4 and box.value == "4"  # nothing read: no change, the box shows the value again
        box.value = "999"
        assert slider.value == slider.max and box.value == str(slider.max)
        slider.value = 2
        assert box.value == "2"  # a dragged slider shows its value in its box


def test_a_typed_value_clears_the_result_like_a_moved_slider():
    explorer = PolicyExplorer(load_timeline())
    explorer.window_box.value = "0x5"
    assert explorer.window.value == 1
    assert "window 1 (the smallest it can be)" in explorer.message.value


# endregion
