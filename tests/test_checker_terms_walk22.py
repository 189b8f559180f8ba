"""Lesson 07's exercises, walk 22 (issue 32): the checker's refusals say what the student typed and what it is.

* ``'stopped at the cap'`` was told it "is not one of the names to choose from", though section 3 defines it as one
  of the loop's five verdicts: a term the course defines elsewhere (a verdict, a status, a desk, a key) that this
  exercise does not offer is said to be one, and not one of this exercise's choices. A word the course never
  defines is refused as before.
* ``answer_2 = 1e0`` was told "1.0 has a decimal point": the student typed none. A count typed with an exponent is
  quoted as typed and said to be the decimal number it is, in every lesson, whole or not.
"""

from __future__ import annotations

import pytest
from support.checker import said

from course_lib.capstone import CapstoneRun
from course_lib.exercises import EXERCISES, exercise

VERDICTS = ("right first time", "repaired", "partly repaired", "not repaired")


# --- finding 2: a term the course defines, not offered here ---


@pytest.mark.parametrize("answer", ["stopped at the cap", "Stopped at the cap", "stopped_at_the_cap"])
def test_a_verdict_this_exercise_does_not_offer_is_said_to_be_one(answer):
    line = said("07", "Exercise 1", answer, "right first time", f"answer_1 = {answer!r}")
    assert "is one of lesson 07's verdicts (section 3), but it is not one of this exercise's choices" in line
    assert "is not one of the names to choose from" not in line
    assert all(verdict in line for verdict in VERDICTS)  # every choice named: none pointed at


def test_the_terms_named_are_the_verdicts_lesson_07_defines():
    """The verdicts a run can get (CapstoneRun.verdict's type) are each a choice of exercise 1 or a term the checker
    names, apart from the one no lesson shows (a policy's own rule stopped it)."""
    kinds = set(CapstoneRun.model_fields["verdict"].annotation.__args__) - {"policy stopped"}
    choices = set(exercise("07", "Exercise 1").choices)
    for verdict in kinds - choices:
        line = said("07", "Exercise 1", verdict, "right first time")
        assert "lesson 07's verdicts" in line, verdict


@pytest.mark.parametrize(
    ("lesson", "label", "answer", "expected", "what"),
    [
        ("00", "Exercise 3", "stale", "rejected", "one of the host's statuses (lesson 02)"),
        ("00", "Exercise 3", "forgotten", "rejected", "one of the host's statuses (lesson 02)"),
        ("07", "Exercise 1", "accepted", "right first time", "one of the host's statuses (lesson 02)"),
        ("07", "Exercise 1", "triage", "right first time", "one of lesson 03's desks"),
        ("07", "Exercise 1", "module", "right first time", "one of the ten allowed keys (lesson 01)"),
    ],
)
def test_every_exercise_with_names_says_so_of_a_term_defined_elsewhere(lesson, label, answer, expected, what):
    line = said(lesson, label, answer, expected)
    assert f"'{answer}' is {what}, but it is not one of this exercise's choices" in line


@pytest.mark.parametrize("answer", ["banana", "first time", "stopped at cap"])
def test_a_word_the_course_does_not_define_is_refused_as_before(answer):
    line = said("07", "Exercise 1", answer, "right first time")
    assert f"'{answer}' is not one of the names to choose from" in line and "verdicts" not in line


def test_every_exercise_with_choices_is_covered():
    assert {(e.lesson, e.label) for e in EXERCISES if e.choices} >= {("00", "Exercise 3"), ("07", "Exercise 1")}


# --- finding 3: a count typed with an exponent ---

EXPONENT_WORDS = (
    "but the answer is a count: write the count you predict as a whole number in digits, "
    "with no e and no decimal point."
)


@pytest.mark.parametrize(
    ("typed", "value", "words"),
    [
        (
            "1e0",
            1e0,
            "1e0 is the decimal number 1.0, " + EXPONENT_WORDS,
        ),
        (
            "1E3",
            1e3,
            "1E3 is the decimal number 1000.0, " + EXPONENT_WORDS,
        ),
        ("10e-1", 1.0, "10e-1 is the decimal number 1.0, but the answer is a count"),
    ],
)
def test_a_whole_count_typed_with_an_exponent_is_quoted_as_typed(typed, value, words):
    line = said("07", "Exercise 2", value, 1, f"answer_1 = {typed}")
    assert words in line and "has a decimal point" not in line and "whole number, 1" not in line


@pytest.mark.parametrize(("typed", "value"), [("1e-1", 0.1), ("-1e0", -1.0), ("2.5e0", 2.5)])
def test_a_count_typed_with_an_exponent_that_is_no_count_is_quoted_as_typed(typed, value):
    line = said("07", "Exercise 2", value, 1, f"answer_1 = {typed}")
    assert f"and {typed}, the decimal number {value}, is not one" in line


def test_a_decimal_point_typed_is_still_called_one():
    assert "1.0 has a decimal point, but the answer is a count" in said("07", "Exercise 2", 1.0, 1, "answer_1 = 1.0")
    assert "1.0 has a decimal point" in said("07", "Exercise 2", 1.0, 1)  # as typed when unknown: Python's form


@pytest.mark.parametrize("lesson", ["02", "05", "06"])
def test_every_lesson_s_count_gets_the_same_words(lesson):
    label = next(e.label for e in EXERCISES if e.lesson == lesson and e.answer_type is int)
    line = said(lesson, label, 3e0, 3, "answer_1 = 3e0")
    assert "3e0 is the decimal number 3.0, " + EXPONENT_WORDS in line
