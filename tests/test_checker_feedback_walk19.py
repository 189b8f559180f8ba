"""The exercise checker after lesson 07's walk 19 (issue 32), each finding fixed at its rule, for every exercise of
every lesson:

1. a wrong answer is told in the same shape as a right one: ``Exercise N: not quite.``, then a labelled ``Hint:``
   line, as ``Exercise N: correct.`` is followed by a labelled ``Why:`` line;
2. an answer to a choice exercise that is none of the names the question lists (after the readings of a case slip,
   spaces, a close typo, a name among other words) is told so, before any grading, as a number or a tuple is:
   "first time" and "stopped at the cap" were graded "not quite" and given the hint.
"""

import pytest
from support.checker import said

from course_lib.exercises import EXERCISES, check, exercise

_RIGHT_AND_WRONG = {  # a right and a wrong value of each kind of answer, the wrong one of the same kind and form
    int: (4, 1234),
    float: (61.5, 99.5),
    bool: (True, False),
    dict: ({"database": "SQL Server 2022"}, {"database": "Oracle"}),
}


def _right_and_wrong(named):
    if named.choices:
        return named.choices[0], named.choices[1]
    if named.known:
        return named.known[0], named.known[1]
    return _RIGHT_AND_WRONG[named.answer_type]


def _lines(text: str) -> list[str]:
    """The checker's lines, each logical line whole again (a long one is broken between words)."""
    lines: list[str] = []
    for line in text.split("\n"):
        if lines and not line.startswith(("Why: ", "Hint: ")):
            lines[-1] += " " + line
        else:
            lines.append(line)
    return lines


EVERY = [pytest.param(e, id=f"{e.lesson}-{e.label}") for e in EXERCISES]
CHOICE = [pytest.param(e, id=f"{e.lesson}-{e.label}") for e in EXERCISES if e.choices]


@pytest.mark.parametrize("named", EVERY)
def test_a_wrong_answer_has_a_hint_line_as_a_right_one_has_a_why_line(named):
    """Finding 1: "Exercise 2: not quite. The facts run's store is …" ran the hint on after the verdict, unlabelled,
    while a right answer's reason stands on a "Why:" line of its own: the two shapes told apart right from wrong
    before the words were read. Both are now the verdict on its own line, then one labelled line."""
    right, wrong = _right_and_wrong(named)
    correct = _lines(check(named.label, right, right, named.hint, namespace={}))
    missed = _lines(check(named.label, wrong, right, named.hint, namespace={}))
    assert correct[0] == f"{named.label}: correct." and correct[1].startswith("Why: "), correct
    assert missed[0] == f"{named.label}: not quite.", missed
    assert len(missed) == 2 and missed[1].startswith("Hint: "), missed


def test_an_exercise_of_a_cell_of_its_own_has_the_same_shape():
    """A checking cell's own exercise (no entry in EXERCISES) follows the same rule; with no hint, no Hint line."""
    assert check("Ex", 8, 9, "Count again.", namespace={}) == "Ex: not quite.\nHint: Count again."
    assert check("Ex", 9, 9, "Count again.", why="Nine.", namespace={}) == "Ex: correct.\nWhy: Nine."
    assert check("Ex", 8, 9, "", namespace={}) == "Ex: not quite."


@pytest.mark.parametrize("value", [4, 5])
def test_an_arithmetic_answer_is_said_back_on_the_verdict_line_right_or_wrong(value):
    """The sum said back stays on the verdict's line, right or wrong alike, and the Why or Hint line follows it."""
    hint = exercise("02", "Exercise 3").hint
    cell = f"answer_3 = 2 + {value - 2}\nprint(check('Exercise 3', answer_3, expected, hint))"
    lines = _lines(check("Exercise 3", value, 4, hint, namespace={"In": ["", cell]}))
    verdict = "correct" if value == 4 else "not quite"
    assert lines[0] == f"Exercise 3: {verdict}. Your sum 2 + {value - 2} is {value}."
    assert lines[1].startswith("Why: " if value == 4 else "Hint: ")


def test_lesson_05_reminder_still_follows_a_wrong_answer_only():
    from course_lib.loop_demos import reminder_if_wrong

    wrong = check("Exercise 3", 5, 2, exercise("05", "Exercise 3").hint, namespace={})
    right = check("Exercise 3", 2, 2, exercise("05", "Exercise 3").hint, namespace={})
    assert reminder_if_wrong(wrong, "REMINDER").endswith("\nREMINDER")
    assert "REMINDER" not in reminder_if_wrong(right, "REMINDER")


OFF_THE_LIST = [  # none of them a name of any choice exercise, nor a slip, case or spacing of one
    "first time",
    "stopped at the cap",
    "the loop stopped",
    "banana split",
    "banana",
    "first-time",
    "it stopped after one pass",
    "banana: split",
]


def _names_said(named) -> list[str]:
    return [f"'{choice}'" if named.choice_noun else choice for choice in named.choices]


@pytest.mark.parametrize("answer", OFF_THE_LIST)
@pytest.mark.parametrize("named", CHOICE)
def test_an_answer_off_the_list_is_told_the_names_before_any_grading(named, answer):
    """Finding 2: any text that is none of the listed names is told so, "not checked yet", with every name listed
    (naming one would point at it), the way a number or a tuple already was; the hint, about the reasoning, is not
    given. Said alike whichever name is right."""
    told = {said(named.lesson, named.label, answer, right) for right in named.choices}
    assert len(told) == 1, told
    (text,) = told
    assert text.startswith(f"{named.label}: not checked yet. "), text
    assert "not quite" not in text and "Hint:" not in text
    assert "is not one of" in text or "is not a desk name" in text, text
    assert all(name in text for name in _names_said(named)), text


@pytest.mark.parametrize("named", CHOICE)
def test_text_and_a_number_off_the_list_are_told_the_same_names(named):
    """A number and a text that is no name are told the same list of names, in the same form."""
    right = named.choices[0]
    for answer in (3, (1, 2), "first time"):
        text = said(named.lesson, named.label, answer, right)
        assert text.startswith(f"{named.label}: not checked yet. ")
        assert all(choice in text for choice in named.choices), text


@pytest.mark.parametrize("answer", [["first time"], ("banana",), ["stopped at the cap"]])
@pytest.mark.parametrize("named", CHOICE)
def test_one_item_holding_no_name_is_told_the_names(named, answer):
    """``['first time']`` was told to remove the brackets and "write 'first time' on its own", which is no name
    either: an item that is none of the names is told the names, as the text alone is."""
    text = said(named.lesson, named.label, answer, named.choices[0])
    assert text.startswith(f"{named.label}: not checked yet. ") and "on its own" not in text, text
    assert all(choice in text for choice in named.choices), text


@pytest.mark.parametrize("named", CHOICE)
def test_one_item_holding_a_name_is_still_told_to_remove_the_brackets(named):
    for choice in named.choices[:2]:
        text = said(named.lesson, named.label, [choice], named.choices[0])
        assert "remove the square brackets" in text and f"write {choice!r} on its own" in text, text


def test_lesson_07_exercise_1_keeps_its_readings_of_a_name():
    """The readings the checker already makes of a listed name stay: a case slip, a close typo, spaces, a name
    among other words, a full stop, several names."""
    ex = exercise("07", "Exercise 1")
    for right in ex.choices:
        assert "Mind the case" in said("07", "Exercise 1", "Repaired", right)
        assert "reads as 'repaired'" in said("07", "Exercise 1", "repaird", right)
        assert "reads as 'right first time'" in said("07", "Exercise 1", "right-first-time", right)
        assert "spaces around it" in said("07", "Exercise 1", " repaired ", right)
        assert "among other words" in said("07", "Exercise 1", "it repaired", right)
        assert "ends with '.'" in said("07", "Exercise 1", "repaired.", right)
        assert "lists several choices" in said("07", "Exercise 1", "repaired or not repaired", right)


def test_lesson_07_exercise_1_a_listed_name_that_is_wrong_is_still_graded():
    text = said("07", "Exercise 1", "not repaired", "right first time")
    assert text.startswith("Exercise 1: not quite. Hint: ")
