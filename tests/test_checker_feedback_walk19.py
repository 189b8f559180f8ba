"""The exercise checker after lesson 07's walk 19 (issue 32), each finding fixed at its rule, for every exercise of
every lesson:

1. a wrong answer is told in the same shape as a right one: ``Exercise N: not quite.``, then a labelled ``Hint:``
   line, as ``Exercise N: correct.`` is followed by a labelled ``Why:`` line;
2. an answer to a choice exercise that is none of the names the question lists (after the readings of a case slip,
   spaces, a close typo, a name among other words) is told so, before any grading, as a number or a tuple is:
   "first time" and "stopped at the cap" were graded "not quite" and given the hint.
"""

import pytest

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
