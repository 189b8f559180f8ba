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

from course_lib.exercises import EXERCISES, check, exercise

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


# Finding 2: a one-item tuple is told what the student typed


@pytest.mark.parametrize("value", [9, 11])
@pytest.mark.parametrize("ex", NUMERIC, ids=_id)
def test_a_trailing_comma_is_told_to_go_alike_right_or_wrong(ex, value):
    text = said(ex.lesson, ex.label, (value,), 9, line=f"answer_1 = {value},")
    assert text == (
        f"{ex.label}: not checked yet. Your answer {value}, (as typed) is a tuple holding one item (a comma after a "
        f"value makes one): remove the comma after {value}: write {value} on its own. Then run the cell again."
    )
    assert "parentheses" not in text


def test_the_comma_is_quoted_as_typed_with_its_spaces_and_comment():
    text = said("05", "Exercise 1", (9,), 9, line="answer_1 = 9 ,  # from the trace")
    assert "Your answer 9 , (as typed) is a tuple" in text and "remove the comma after 9: write 9 on" in text


@pytest.mark.parametrize(("line", "item"), [("answer_1 = (9,)", "9"), ("answer_1 = ( 9, )", "9")])
def test_typed_parentheses_keep_the_parentheses_words_and_are_quoted_as_typed(line, item):
    typed = line.partition("= ")[2]
    text = said("05", "Exercise 1", (9,), 9, line=line)
    assert text == (
        f"Exercise 1: not checked yet. Your answer {typed} is a tuple holding one item: remove the parentheses and "
        f"the comma: write {item} on its own. Then run the cell again."
    )


def test_a_text_item_is_quoted_with_the_students_own_quotes():
    text = said("02", "Exercise 1", ("accepted",), "accepted", line='answer_1 = "accepted",')
    assert 'Your answer "accepted", (as typed) is a tuple' in text
    assert 'remove the comma after "accepted": write "accepted" on its own.' in text


@pytest.mark.parametrize("ex", TRUTH, ids=_id)
def test_a_truth_value_with_a_comma_is_told_alike(ex):
    right = said(ex.lesson, ex.label, (True,), True, line="answer_1 = True,")
    wrong = said(ex.lesson, ex.label, (True,), False, line="answer_1 = True,")
    assert right == wrong and "remove the comma after True: write True on its own." in right


@pytest.mark.parametrize(
    ("line", "answer", "echo"),
    [
        ('answer_1 = [ "accepted" ]', ["accepted"], 'Your answer [ "accepted" ] is a list holding one item'),
        ('answer_1 = {"accepted"}', {"accepted"}, 'Your answer {"accepted"} is a set holding one item'),
    ],
)
def test_lists_and_sets_are_quoted_as_typed(line, answer, echo):
    text = said("02", "Exercise 1", answer, "rejected", line=line)
    assert echo in text and 'write "accepted" on its own' in text


def test_an_item_off_the_list_is_quoted_as_typed():
    text = said("07", "Exercise 1", ("first time",), "repaired", line='answer_1 = "first time",')
    assert text.startswith('Exercise 1: not checked yet. Your answer "first time", (as typed) is not one of')
    assert "('first time',)" not in text


@pytest.mark.parametrize("line", ["answer_1 = 61,5", "answer_1 = (61, 5)"])
def test_a_decimal_comma_is_quoted_as_typed(line):
    typed = line.partition("= ")[2]
    text = said("00", "Exercise 1", (61, 5), 61.5, line=line)
    assert f"Python reads {typed} as a tuple of two numbers: use a dot for decimals (61.5)." in text


def test_several_items_are_never_shown_as_pythons_display():
    for line, answer, expected in [
        ("answer_1 = 9, 10", (9, 10), 9),
        ('answer_1 = "accepted", "rejected"', ("accepted", "rejected"), "accepted"),
    ]:
        lesson, label = ("05", "Exercise 1") if expected == 9 else ("02", "Exercise 1")
        assert repr(answer) not in said(lesson, label, answer, expected, line=line)


def test_without_the_cells_text_the_value_is_shown_as_python_shows_it():
    """Outside a notebook (no cell text to quote) the words are those of before: nothing typed is known."""
    text = " ".join(check("Exercise 1", (4,), 4, exercise("05", "Exercise 1").hint, namespace={}).split())
    assert "Your answer (4,) is a tuple holding one item: remove the parentheses and the comma: write 4 on" in text


def test_a_cell_whose_answer_line_is_another_value_is_not_quoted():
    """The answer checked is not the line's (an earlier cell set it): Python's display, never the wrong line."""
    text = said("05", "Exercise 1", (4,), 4, line="answer_1 = 5,")
    assert "Your answer (4,) is a tuple" in text and "5," not in text.replace("Exercise 1", "")


def test_a_one_item_tuple_in_a_shell(capsys):
    out = run_in_shell(capsys, _cell("answer_1 = 9,", "05", "Exercise 1"), expected=9)
    assert "Your answer 9, (as typed) is a tuple holding one item" in out and "parentheses" not in out
