"""A count the checker cannot see typed (issue 32, lesson 03's walk 23): ``answer_3 = 1e3`` was told "1000.0 has a
decimal point, but the answer is a count: write it as a whole number, 1000." The student typed no point, and 1000 is
no answer the student meant.

Where the cell's text is unknown (no IPython history), the float may have been typed with a point or with an exponent:
the note says what the value is, as Python shows it, and names both forms to avoid, without claiming either and
without offering a whole number. Where the text is known, the exponent rule of walk 22 quotes it as typed, in every
lesson; a point typed is still called one (its whole number no longer offered: lesson 07's walk 24).
"""

from __future__ import annotations

import pytest
from support.checker import said

from course_lib.exercises import EXERCISES, check, exercise

UNKNOWN_WORDS = (
    "is the decimal number {shown}, but the answer is a count: write the count you predict as a whole number in "
    "digits, with no decimal point and no e."
)


@pytest.mark.parametrize("value", [1e3, 1.0, 2.0, 1e16])
def test_a_whole_float_typed_out_of_sight_is_never_said_to_have_a_point_nor_offered_a_whole_number(value):
    told = " ".join(check("Exercise 3", value, 2, exercise("03", "Exercise 3").hint, namespace={}).split())
    assert f"Your answer {UNKNOWN_WORDS.format(shown=value)}" in told
    assert "has a decimal point" not in told and "whole number, " not in told
    assert f"{int(value)}." not in told.replace(f"{value}", "")


def test_lesson_03_exercise_3_quotes_1e3_as_typed():
    cell = 'answer_3 = 1e3\nprint(check("Exercise 3", answer_3, await worked_out("03", "Exercise 3"), hint))'
    told = " ".join(
        check("Exercise 3", 1e3, 2, exercise("03", "Exercise 3").hint, namespace={"In": ["", cell]}).split()
    )
    assert "1e3 is the decimal number 1000.0, but the answer is a count" in told
    assert "1000." not in told.replace("1000.0", "") and "whole number, 1000" not in told


@pytest.mark.parametrize("item", [e for e in EXERCISES if e.answer_type is int], ids=lambda e: f"{e.lesson}-{e.label}")
def test_every_count_exercise_says_the_same_out_of_sight(item):
    told = " ".join(check(item.label, 1e3, 2, item.hint, namespace={}).split())
    assert UNKNOWN_WORDS.format(shown=1000.0) in told


def test_a_point_typed_is_still_called_one():
    """Its whole number is no longer offered: it may be the answer itself (lesson 07's walk 24)."""
    told = said("03", "Exercise 3", 1.0, 2, "answer_1 = 1.0")
    assert "1.0 has a decimal point, but the answer is a count: write it as a whole number, without the decimal" in told
