"""Lesson 05's Exercise 1, twelfth walk (issue 32): the tempting wrong answer 7 gets a miss of its own.

7 is section 2's last call (3 iterations allowed); Exercise 2 already names its own section-2 mistake. The miss asks
a question and never gives the answer away.
"""

from course_lib.exercises import check, exercise


def told(answer: int) -> str:
    ex = exercise("05", "Exercise 1")
    return " ".join(check("Exercise 1", answer, 9, ex.hint).split())


def test_seven_is_told_it_is_section_2s_last_call_as_a_question():
    said = told(7)
    assert "section 2's last call" in said and "3 iterations" in said
    miss = next(text for wrong, text in exercise("05", "Exercise 1").misses if wrong == 7)
    assert miss.rstrip().endswith("?") and "9" not in miss


def test_an_answer_no_miss_names_still_gets_the_generic_hint_only():
    assert "section 2's last call" not in told(6)
