"""The exercise checker after lesson 02's walk 21 (issue 32): code in the answer line is refused by one rule, said.

``answer_3 = 1+3`` is graded by its value (plain arithmetic on numbers is the student's own reasoning), while
``answer_2 = 'Payments'.strip()`` and ``answer_3 = len([...])`` are refused. The refusal said only "write the value
you predict, not code that computes it", so the two behaviours read as two rules. Now every refusal of code (a call,
a method, ``**``, texts joined with ``+``, a lesson's name) states the rule for the exercise's kind of answer: for a
number, that plain arithmetic with + - * / is fine; for text, a truth value or a dict, no word of arithmetic. The
words are the same whether the code's value is right or wrong, for every exercise.
"""

import pytest
from support.checker import run_in_shell

from course_lib.exercises import EXERCISES, check, exercise

ARITHMETIC = "plain arithmetic with + - * /"
"""What a numeric exercise's refusal names as allowed."""


def said(ex, line, value, expected, **lesson_names):
    """What ``ex``'s checking cell prints, as one line, for the answer line ``line`` whose value is ``value``."""
    cell = f"{line}\nprint(check({ex.label!r}, answer_1, expected, hint))"
    names = {"In": ["", cell], **lesson_names}
    return " ".join(check(ex.label, value, expected, ex.hint, namespace=names).split())


NUMERIC = [e for e in EXERCISES if e.answer_type in (int, float)]
OTHER = [e for e in EXERCISES if e.answer_type not in (int, float)]

NUMBER_FORMS = {
    "call": ("answer_1 = len([1, 2, 3, 4])", "answer_1 = len([1, 2, 3, 4, 5])"),
    "method": ("answer_1 = [1, 1, 1, 1].count(1)", "answer_1 = [1, 1, 1, 1, 1].count(1)"),
    "power": ("answer_1 = 2 ** 2", "answer_1 = 5 ** 1"),
    "joined text": ("answer_1 = '1' + '4'", "answer_1 = '1' + '5'"),
    "name in a sum": ("answer_1 = kept + 0", "answer_1 = kept + 1"),
}
"""Each refused form of code, as two answer lines: one whose value is the expected 4, one whose value is not."""


def _same_words(text, line):
    """``text`` without the echo of the answer line's code."""
    return text.replace(line.partition("=")[2].strip(), "CODE")


@pytest.mark.parametrize("form", NUMBER_FORMS)
@pytest.mark.parametrize("ex", NUMERIC, ids=lambda e: f"{e.lesson}-{e.label}")
def test_a_numeric_refusal_names_the_arithmetic_allowed_alike_right_or_wrong(ex, form):
    right_line, wrong_line = NUMBER_FORMS[form]
    right = said(ex, right_line, eval(right_line.partition("=")[2], {"kept": 4}), 4, kept=4)
    wrong = said(ex, wrong_line, eval(wrong_line.partition("=")[2], {"kept": 4}), 4, kept=4)
    for text in (right, wrong):
        assert text.startswith(f"{ex.label}: not checked yet."), text
        assert "correct" not in text and "not quite" not in text
        assert ARITHMETIC in text, text
        assert "no call, no name, no other code" in text, text
    assert _same_words(right, right_line) == _same_words(wrong, wrong_line)


@pytest.mark.parametrize("ex", NUMERIC, ids=lambda e: f"{e.lesson}-{e.label}")
@pytest.mark.parametrize("value", [4, 5])
def test_a_lesson_name_for_a_numeric_answer_names_the_arithmetic_allowed(ex, value):
    text = said(ex, "answer_1 = kept", value, 4, kept=value)
    assert text.startswith(f"{ex.label}: not checked yet.") and "variable of this lesson" in text
    assert ARITHMETIC in text
    assert text == said(ex, "answer_1 = kept", 9 - value, 4, kept=9 - value)


def test_the_arithmetic_example_is_never_the_expected_number():
    for expected in (42, 36, 27):
        text = said(exercise("02", "Exercise 3"), "answer_1 = len('abcd')", 4, expected)
        example = text.partition("(for example ")[2].partition(")")[0]
        assert example and eval(example) != expected, text


def test_arithmetic_that_the_rule_allows_is_still_graded():
    text = said(exercise("02", "Exercise 3"), "answer_1 = 1+3", 4, 4)
    assert text.startswith("Exercise 3: correct. Your sum 1+3 is 4.")


TEXT_FORMS = {
    "call": "answer_1 = str('Payments')",
    "method": "answer_1 = 'Payments'.strip()",
    "power": "answer_1 = 2 ** 2",
    "joined text": "answer_1 = 'Pay' + 'ments'",
    "name in code": "answer_1 = kept.strip()",
}
"""Each refused form of code, as a student writes it for an answer that is no number."""


@pytest.mark.parametrize("form", TEXT_FORMS)
@pytest.mark.parametrize("ex", OTHER, ids=lambda e: f"{e.lesson}-{e.label}")
def test_a_refusal_for_an_answer_that_is_no_number_says_no_word_of_arithmetic(ex, form):
    line = TEXT_FORMS[form]
    value = eval(line.partition("=")[2], {"kept": " x "})
    expected = {str: "Payments", bool: True, dict: {"log": "a=b"}}[ex.answer_type]
    text = said(ex, line, value, expected, kept=" x ")
    assert text.startswith(f"{ex.label}: not checked yet."), text
    assert "arithmetic" not in text and "+ - * /" not in text and "digits" not in text, text
    assert "no call, no name, no other code" in text, text
    kind_words = {str: "in quotes", bool: "True or False", dict: "each key and value in quotes"}
    assert kind_words[ex.answer_type] in text, text


@pytest.mark.parametrize("expected", ["Payments", "Billing"])
def test_lesson_02_exercise_2_a_method_is_refused_alike_right_or_wrong(expected):
    """The walk's own case: ``answer_2 = 'Payments'.strip()``."""
    text = said(exercise("02", "Exercise 2"), "answer_1 = 'Payments'.strip()", "Payments", expected)
    assert text == (
        "Exercise 2: not checked yet. Your answer line computes its value with code ('Payments'.strip()). Write the "
        "text you predict, in quotes: no call, no name, no other code. Then run the cell again."
    )


@pytest.mark.parametrize("expected", [4, 9])
def test_an_undefined_name_for_a_numeric_answer_names_the_arithmetic_allowed(capsys, expected):
    """The shell's words for ``answer_1 = kept_turns`` (no such variable) state the same rule."""
    cell = "answer_1 = kept_turns\nprint(check('Exercise 3', answer_1, calls, 'HINT'))"
    out = run_in_shell(capsys, cell, calls=expected)
    assert "not checked yet" in out and ARITHMETIC in out, out


def test_an_undefined_name_for_a_text_answer_says_no_word_of_arithmetic(capsys):
    cell = "answer_1 = Payments\nprint(check('Exercise 2', answer_1, module, 'HINT'))"
    out = run_in_shell(capsys, cell, module="Billing")
    assert "not checked yet" in out and "in quotes" in out and "arithmetic" not in out, out
