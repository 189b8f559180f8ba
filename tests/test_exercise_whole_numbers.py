"""A count is a whole number: the checker's "close" hint never narrows a count down (issue 32, lessons 05-06 walk).

A fractional answer to a count (8.5 messages) was told "less than 1 away from the answer. Count every part exactly,
fractions included": a count has no fractions, and "less than 1 away" gives the answer away (8 or 9). The checker
now says the answer is a whole number and nothing of where it lies. A fractional answer (lesson 00's 61.5 s) is not
told how near a wrong number came either: "less than 1 away" for 61 and for 62 found it by trial (lesson 00's walk).
"""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.exercises import EXERCISES, check, near_miss_hint


@pytest.mark.parametrize(("answer", "expected"), [(8.5, 9), (9.5, 9), (2.5, 61), (0.5, 1), (8.5, np.int64(9))])
def test_a_fraction_for_a_count_is_told_the_answer_is_whole_and_not_where_it_lies(answer, expected):
    said = " ".join(check("Ex", answer, expected, "", namespace={}).split())
    assert said.startswith("Ex: not checked yet.") and "whole number" in said and "count" in said
    assert "fraction" not in said  # no advice to count fractions
    assert "less than 1" not in said and "away" not in said  # nothing that narrows the answer down
    assert str(int(expected)) not in said.replace(str(answer), "")


def test_a_number_near_a_fractional_answer_is_not_told_how_near():
    assert near_miss_hint(61, 61.5) == near_miss_hint(62, 61.5) == ""


@pytest.mark.parametrize(("answer", "expected"), [(7, 9), (8.0, 9), (True, 1), (61.0, 61.5 + 5)])
def test_a_whole_wrong_count_or_a_far_fraction_gets_no_close_hint(answer, expected):
    assert near_miss_hint(answer, expected) == ""


@pytest.mark.parametrize("lesson", sorted({e.lesson for e in EXERCISES}))
def test_every_lessons_count_exercise_says_whole_number_to_a_fraction(lesson):
    """Every exercise whose answer is a count gets the same words, through check(): the rule, not one input."""
    for item in (e for e in EXERCISES if e.lesson == lesson):
        said = check(item.label, 2.5, 3, item.hint).replace("\n", " ")
        assert "not checked yet" in said and "whole number" in said and "fractions included" not in said


@pytest.mark.parametrize("answer", [1.0, 2.0])
def test_a_whole_number_with_a_decimal_point_for_a_count_is_a_form_to_fix_alike_right_or_wrong(answer):
    """Lesson 07's walk: ``answer_2 = 1.0`` was "correct" while ``1.5`` was told a count is whole."""
    from course_lib.exercises import check

    typed = {
        "In": ["", f"answer_2 = {answer}"]
    }  # typed with its point (out of sight: tests/test_checker_exponent_walk23.py)
    told = " ".join(check("Exercise 2", answer, 1, "HINT", namespace=typed).split())
    assert told == (
        f"Exercise 2: not checked yet. {answer} has a decimal point, but the answer is a count: write it as a whole "
        "number, without the decimal point. Then run the cell again."
    )
