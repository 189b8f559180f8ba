"""The exercise checker after the walks of lessons 02 and 05 (walk 19, issue 32), each finding fixed at its rule, for
every exercise of every lesson, in the same words whether the answer is right or wrong:

1. a miss and the hint never point at the same place (a section's table, a column) twice;
2. an answer line of plain arithmetic on numbers (``2 + 2``) is graded by its value, and its value is said back;
3. the Run All note under a cell that stopped says that this cell stopped with an error, wrapped as the rest;
4. an answer line written with ``==`` is told that one ``=`` sets an answer;
5. an example in the checker's words says it is one ("for example 42"), never a bare "(42)";
6. lesson 06's exercise 1: the misses say what a fresh context does not send again, true of message [2].
"""

import re

import pytest
from IPython.core.interactiveshell import InteractiveShell
from support.checker import said

from course_lib.exercises import EXERCISES, FEEDBACK_WIDTH, check, exercise, explain_unquoted_names


def _raw_shell_output(capsys, cell: str, **names) -> str:
    """What a notebook cell prints, as printed (its line breaks kept), in a shell set up as the lessons set it up."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, exercise=exercise, **names)
        shell.run_cell(cell, store_history=True)
        return capsys.readouterr().out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _wrong_value(named):
    """A value of the exercise's kind that no exercise expects."""
    return {int: 999, float: 999.5, bool: None, dict: {"zzz": "zzz"}}.get(named.answer_type, "zzz")


_PLACE = re.compile(
    r"section \d+'s (?:first |second )?(?:table|chart|trace|stepper|cell|list of \w+)|column ['\"][^'\"]+['\"]",
    re.IGNORECASE,
)
"""A place a hint or a miss sends the student to look: section 5's table, its column 'store unchanged'."""


@pytest.mark.parametrize(
    ("lesson", "label", "wrong"),
    [(e.lesson, e.label, wrong) for e in EXERCISES for wrong, _ in e.misses]
    + [(e.lesson, e.label, None) for e in EXERCISES],
)
def test_no_feedback_names_the_same_place_twice(lesson, label, wrong):
    """Finding 1: 'nothing' was sent to section 5's table and its column 'store unchanged' by its miss, then again
    by the hint. Every registered miss, and every hint alone, names each place once."""
    named = exercise(lesson, label)
    if wrong is None:  # the hint alone, as a wrong answer with no miss gets it
        text = named.hint
    else:
        text = _one_line(check(label, wrong, _wrong_value(named), named.hint, namespace={}))
    places = [place.casefold() for place in _PLACE.findall(text)]
    assert len(places) == len(set(places)), text


def test_lesson_02_exercise_2_nothing_is_sent_to_the_table_once():
    text = said("02", "Exercise 2", "nothing", "Payments")
    assert text.startswith("Exercise 2: not quite. Hint: Does the store lose a fact it held? Look in section 5's table")
    assert text.count("'store unchanged'") == 1 and text.count("section 5's table") == 1


@pytest.mark.parametrize(("line", "value", "sum_said"), [("2 + 2", 4, "Your sum 2 + 2 is 4."), ("(1+1) * 2", 4, "")])
@pytest.mark.parametrize("expected", [4, 6])
def test_an_arithmetic_answer_line_is_graded_by_its_value_and_said_back_alike(line, value, sum_said, expected):
    """Finding 2: ``answer_3 = 2 + 2``, the reasoning the Why itself writes, was refused as "code that computes it".
    Plain arithmetic on numbers is graded as its digits would be, and its value is said back, right or wrong alike."""
    text = said("02", "Exercise 3", value, expected, f"answer_1 = {line}")
    assert "computes its value with code" not in text
    assert text.startswith("Exercise 3: correct." if value == expected else "Exercise 3: not quite.")
    echo = sum_said or f"Your calculation {line} is {value}."
    assert echo in text
    assert text.index(echo) == len("Exercise 3: correct. " if value == expected else "Exercise 3: not quite. ")


def test_lesson_00_exercise_1_the_terms_written_out_are_graded():
    text = said("00", "Exercise 1", 61.5, 61.5, "answer_1 = 3*20+0.5+1")
    assert text.startswith("Exercise 1: correct. Your calculation 3*20+0.5+1 is 61.5. Why:")
    wrong = said("00", "Exercise 1", 60.5, 61.5, "answer_1 = 3*20+0.5")
    assert wrong.startswith("Exercise 1: not quite. Your calculation 3*20+0.5 is 60.5.")


def test_a_division_of_whole_numbers_is_graded_as_the_count_it_makes():
    """``8 / 2`` is 4.0 to Python; the student wrote no decimal point, so it is the count 4."""
    assert said("02", "Exercise 3", 4.0, 4, "answer_1 = 8 / 2").startswith(
        "Exercise 3: correct. Your calculation 8 / 2 is 4."
    )


@pytest.mark.parametrize(
    ("line", "value"),
    [("keys_lost(turns)[0]", "customer"), ("len(found)", 2), ("2 ** 2", 4), ("True + 3", 4), ("'2' + '2'", "22")],
)
def test_code_that_is_no_plain_arithmetic_is_still_refused(line, value):
    text = said("02", "Exercise 3", value, 4, f"answer_1 = {line}")
    assert text.startswith("Exercise 3: not checked yet.") and "computes its value with code" in text
    assert "plain arithmetic with + - * /" in text and "no call, no name, no other code" in text


@pytest.mark.parametrize("line", ["answer_1 = rejected", "answer_1 =", "answer_1 = maybe 3"])
def test_the_run_all_note_says_this_cell_stopped_with_an_error_and_is_wrapped(capsys, line):
    """Finding 3: the note ran past the lines above it, and did not say that this cell is the one with an error."""
    out = _raw_shell_output(capsys, f"{line}\nprint(check('Exercise 1', answer_1, 4, 'HINT'))")
    assert "not checked yet" in out
    assert all(len(row) <= FEEDBACK_WIDTH for row in out.splitlines()), out
    assert "If you use Run All, it stops at this cell" in _one_line(out)


@pytest.mark.parametrize(("lesson", "label"), [(e.lesson, e.label) for e in EXERCISES])
def test_an_answer_written_with_two_equals_signs_is_told_one_sets_it(lesson, label):
    """Finding 4: ``answer_1 == 9`` was told only that the cell no longer sets answer_1. The cause is said, for every
    exercise, the same words whether the value compared is the right one or not."""
    named = exercise(lesson, label)
    expected = _wrong_value(named)
    cell = f"answer_1 == 9\nprint(check({label!r}, answer_1, expected, hint))"
    texts = {
        _one_line(check(label, held, expected, named.hint, namespace={"In": ["", cell]})) for held in (9, expected)
    }
    (text,) = texts
    assert text.startswith(f"{label}: not checked yet.")
    assert "use one = to set your answer; == compares" in text and "answer_1 = 9" in text


@pytest.mark.parametrize("held", [9, 4])
def test_two_equals_signs_in_a_fresh_kernel_are_said_the_same_way(capsys, held):
    out = _one_line(_raw_shell_output(capsys, f"answer_1 == {held}\nprint(check('Exercise 1', answer_1, 9, 'HINT'))"))
    assert out.startswith("Exercise 1: not checked yet.")
    assert "use one = to set your answer; == compares" in out and f"answer_1 = {held}" in out


@pytest.mark.parametrize(
    ("expected", "example"),
    [
        ("len(found)", "(for example 42)"),
        ("undefined_thing.count", "(for example 42 or 0.5)"),
        ("half", "(for example 42.5)"),
        ("right", "True or False"),
        ("word", "(for example 'some text')"),
        ("found_dict", "(for example {'key': 'value'})"),
    ],
)
def test_an_example_in_the_words_is_said_to_be_one(capsys, expected, example):
    """Finding 5: "a number in digits, no quotes (42)" read as a suggested value."""
    cell = f"answer_1 =\nprint(check('Exercise 1', answer_1, {expected}))"
    names = {"found": [1, 2], "half": 0.5, "right": True, "word": "x", "found_dict": {"log": "a=b"}}
    out = _one_line(_raw_shell_output(capsys, cell, **names))
    assert example in out
    assert not re.search(r"\((?:42|42\.5|'some text'|\{'key': 'value'\})\)", out), out


@pytest.mark.parametrize("wrong", [9, 11])
def test_lesson_06_exercise_1_misses_are_true_of_the_callers_messages(wrong):
    """Finding 6: "the earlier answers are not re-sent" forgot message [2], a caller's message sent at every call."""
    text = said("06", "Exercise 1", wrong, 4)
    assert "the answers the model wrote in this loop are not sent again" in text
    assert "re-sent" not in text and " 4 " not in text
