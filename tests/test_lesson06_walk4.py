"""Lesson 06's fourth student walk (issue 32): the first options table shows what its sentence says the caller
gets back, the exercise checker breaks its lines between words, the completion-marker run says why it stopped,
the explicit-messages detail counts the messages the model received, and the lesson says why its tables put a space
after a message number."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from course_lib.exercises import FEEDBACK_WIDTH, check, exercise, readable_lines

LESSON = "06_loop_options_compared"


# words: text without line breaks, as the checker's parts are; a quote may stand anywhere
_WORDS = st.text(st.sampled_from("ab '\"=.:"), max_size=300)


@given(_WORDS, st.integers(min_value=10, max_value=120))
def test_readable_lines_only_turn_single_spaces_between_words_into_line_breaks(text, width):
    wrapped = readable_lines(text, width)
    assert wrapped.replace("\n", " ") == text
    for line in wrapped.split("\n"):
        breaks = [m.start() for m in re.finditer(r"(?<=[^ '\"]) (?=[^ '\"])", line)]
        assert len(line) <= width or not breaks or breaks[0] > width, f"{line!r} could have been broken"


def test_the_spaces_inside_a_quoted_answer_are_never_where_a_line_breaks():
    said = check("Exercise 9", "   Billing   ", "Billing", "x" * 60)
    assert "('   Billing   ')" in said


def test_every_line_the_checker_prints_fits_the_width_and_breaks_between_words():
    entry = exercise("06", "Exercise 3")
    for answer in (2, 0, 3, 7, "2", 1):
        said = check("Exercise 3", answer, 1, entry.hint)
        assert all(len(line) <= FEEDBACK_WIDTH for line in said.split("\n")), said
        words = re.findall(r"\S+", said)
        assert words == re.findall(r"\S+", " ".join(said.split("\n"))), said
    assert check("Exercise 3", 1, 1, entry.hint).startswith("Exercise 3: correct.\nWhy: ")


def test_every_exercise_message_is_wrapped_between_words():
    for entry in exercise("06", "Exercise 1"), exercise("07", "Exercise 3"), exercise("00", "Exercise 3"):
        for answer in (..., 10**6, "wrong", entry.misses[0][0] if entry.misses else None):
            said = check(entry.label, answer, 4, entry.hint)
            assert max(len(line) for line in said.split("\n")) <= FEEDBACK_WIDTH, said
