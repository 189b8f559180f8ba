"""The exercise checker after lessons 05 and 07's walk 21 (issue 32): a comment that restates the answer doubts
nothing, and a one-item tuple typed without parentheses is told to drop the comma the student typed.

Lesson 07: ``answer_2 = 1  # one`` and ``answer_2 = 1  # 1`` were told "Your comment doubts the answer": the comment
says the same value again. A comment whose value is the student's OWN answer (a number in digits or in words, the
same truth value, the same text apart from its case) is no second answer, for every exercise; it is compared with
what the student wrote, never with the expected value, so the words never tell a right answer from a wrong one.

Lesson 05: ``answer_1 = 9,`` was told "Your answer (9,) is a tuple holding one item: remove the parentheses and the
comma": the parentheses are Python's display, the student typed none. The one-item message now quotes the answer
as typed (and its item), and says "remove the comma after 9" when no parentheses were typed.
"""

import pytest
from support.checker import run_in_shell, said

from course_lib.exercises import EXERCISES

DOUBT = "Your comment doubts the answer"

NUMERIC = [e for e in EXERCISES if e.answer_type is int]
TRUTH = [e for e in EXERCISES if e.answer_type is bool]
LISTED = [e for e in EXERCISES if e.answer_type is str and (e.choices or e.known)]


def _id(ex):
    return f"{ex.lesson}-{ex.label}"


def _cell(line, lesson, label):
    return f"{line}\nprint(check({label!r}, answer_1, expected, exercise({lesson!r}, {label!r}).hint))"


# Finding 1: a comment that restates the answer is no doubt


@pytest.mark.parametrize("comment", ["# 1", "# one", "#one", "# 'one'", "# ONE", "# 1  "])
@pytest.mark.parametrize("expected", [1, 2])
@pytest.mark.parametrize("ex", NUMERIC, ids=_id)
def test_a_comment_restating_a_number_is_graded_as_without_it(ex, expected, comment):
    """Lesson 07's ``answer_2 = 1  # one``: graded as ``answer_2 = 1`` is, right or wrong."""
    text = said(ex.lesson, ex.label, 1, expected, line=f"answer_1 = 1  {comment}")
    assert DOUBT not in text
    assert text == said(ex.lesson, ex.label, 1, expected, line="answer_1 = 1")


@pytest.mark.parametrize("value", [3, 9, 20])
@pytest.mark.parametrize("ex", NUMERIC, ids=_id)
def test_every_number_word_restates_its_own_number(ex, value):
    word = ("three", "nine", "twenty")[(3, 9, 20).index(value)]
    for expected in (value, value + 1):
        text = said(ex.lesson, ex.label, value, expected, line=f"answer_1 = {value}  # {word}")
        assert text == said(ex.lesson, ex.label, value, expected, line=f"answer_1 = {value}")


@pytest.mark.parametrize("comment", ["# True", "# true", "# TRUE"])
@pytest.mark.parametrize("expected", [True, False])
@pytest.mark.parametrize("ex", TRUTH, ids=_id)
def test_a_comment_restating_a_truth_value_is_graded_as_without_it(ex, expected, comment):
    text = said(ex.lesson, ex.label, True, expected, line=f"answer_1 = True  {comment}")
    assert text == said(ex.lesson, ex.label, True, expected, line="answer_1 = True")


@pytest.mark.parametrize("ex", LISTED, ids=_id)
def test_a_comment_restating_a_text_answer_is_graded_as_without_it(ex):
    value = (ex.choices + ex.known)[0]
    for comment in (value, value.upper(), f"'{value}'"):
        for expected in (value, (ex.choices + ex.known)[1]):
            text = said(ex.lesson, ex.label, value, expected, line=f"answer_1 = {value!r}  # {comment}")
            assert text == said(ex.lesson, ex.label, value, expected, line=f"answer_1 = {value!r}"), comment


@pytest.mark.parametrize("comment", ["# two", "# 2", "# maybe", "# 1 or 2", "# one?", "# perhaps one"])
@pytest.mark.parametrize("expected", [1, 2])
@pytest.mark.parametrize("ex", NUMERIC, ids=_id)
def test_a_comment_with_another_value_or_a_hedge_still_doubts(ex, expected, comment):
    """The comment is compared with the student's own 1: ``# 2`` doubts it even where 2 is the expected answer."""
    text = said(ex.lesson, ex.label, 1, expected, line=f"answer_1 = 1  {comment}")
    assert text == (
        f"{ex.label}: not checked yet. Your comment doubts the answer: write one answer, as sure as you can be, "
        "or remove the comment. Then run the cell again."
    )


@pytest.mark.parametrize("comment", ["# False", "# false", "# or False", "# True?"])
@pytest.mark.parametrize("ex", TRUTH, ids=_id)
def test_a_comment_with_the_other_truth_value_still_doubts(ex, comment):
    for expected in (True, False):
        assert DOUBT in said(ex.lesson, ex.label, True, expected, line=f"answer_1 = True  {comment}")


@pytest.mark.parametrize("comment", ["# only the database", "# database or log", "# log", "# database?"])
@pytest.mark.parametrize("expected", ["database", "log"])
def test_a_comment_naming_another_listed_value_still_doubts(expected, comment):
    text = said("01", "Exercise 2", "database", expected, line=f"answer_1 = 'database'  {comment}")
    assert DOUBT in text


@pytest.mark.parametrize("expected", [1, 2])
def test_lesson_07_exercise_2_in_a_shell_restating_comment(capsys, expected):
    out = run_in_shell(capsys, _cell("answer_1 = 1  # one", "07", "Exercise 2"), expected=expected)
    assert DOUBT not in out and out.startswith("Exercise 2: ")
    assert ("correct" in out) == (expected == 1)
