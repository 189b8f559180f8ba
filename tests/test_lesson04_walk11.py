"""Lesson 04's eleventh walk (issue 32): sections 3b and 4 say their facts in short sentences, with no parenthesis
inside another; the note of meeting lines under the prompt plot says each group in the fewest names, turn first."""

from __future__ import annotations

import re

from test_lesson04_walk10 import _reader_calls  # one builder of reader calls for both walks
from test_student_path import lesson

from course_lib.presentation import lines_named, meeting_lines_note

LESSON = "04_memory_policies_compared"


def test_a_group_holding_most_lines_is_named_by_the_lines_it_leaves_out():
    every = ["full history", "last 3 turns", "summary", "facts"]
    assert lines_named(["full history", "last 3 turns", "summary"], every) == "every line except facts"
    assert lines_named(["full history", "last 3 turns"], every) == "full history and last 3 turns"
    assert lines_named(every[:2], every[:2]) == "full history and last 3 turns"  # all of them: listed


def test_the_note_says_the_turns_first_and_each_group_shortly():
    calls = _reader_calls(
        {
            "full history": [142, 302, 415, 900],
            "last 3 turns": [142, 302, 415, 400],
            "summary": [142, 243, 229, 242],
            "facts": [303, 598, 751, 845],
        }
    )
    assert meeting_lines_note(calls, "turn", "chars_sent") == (
        "Lines that meet hide one another: at turn 1, every line except facts; "
        "at turns 2 to 3, full history and last 3 turns."
    )


def _prose(cell_id: str) -> str:
    return " ".join(next(c.source for c in lesson(LESSON).cells if c.get("id") == cell_id).split())


def _depth(text: str) -> int:
    """The deepest nesting of round brackets in ``text``, code spans left out (a link's address counts: inside a
    parenthesis, it is one more)."""
    deepest = depth = 0
    for char in re.sub(r"`[^`]*`", "", text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, depth)
    return deepest


def test_sections_3b_and_4_nest_no_parenthesis_and_keep_their_facts():
    cells = ["44536822", "d28c1efa", "b4954903", "21ec9618", "cell-11", "l04-before-prompt-plot", "28c1a801"]
    for cell in cells:
        assert _depth(_prose(cell)) <= 1, cell
        sentences = re.split(r"(?<=[.:;])\s+(?=[A-Z*])", re.sub(r"`[^`]*`|\*[^*]*\*", "", _prose(cell)))
        assert all(sentence.count("(") <= 1 for sentence in sentences), cell  # one aside a sentence at most
    summarizer = _prose("44536822")
    # the cap itself is told there (walk 17)
    assert "Section 4 shows how a small real model" not in summarizer  # second walk 25 cut the pointer
    costs = _prose("21ec9618")
    assert "letters, digits, spaces and signs" in costs and "about 4 characters of English" in costs
    episode = _prose("d28c1efa")
    assert "oublier une interdiction ancienne" in episode and "glossary entry" in episode
    # walk 25: the episode's provenance is said under the hood
    assert "the article does not include it" in _prose("hood-reducer")
