"""The exercise checker after the ninth walk (issue 32): every wrong key in lesson 01's exercise 2 gets the one
registered hint, a dict value of the wrong kind is a form to fix, "X or Y" is a hedge, an empty answer line is told
to put the three dots back, number words are words, and a case slip of a listed name says which case to write.
"""

import pytest
from support.checker import run_in_shell, said

from course_lib.exercises import _KEYS, answer_syntax_guidance, exercise

LESSON_01_DICT = {"database": "SQL Server 2022", "log": "a=b"}


# --- finding 1: lesson 01 exercise 2, one form for every wrong key ---


@pytest.mark.parametrize("wrong", [key for key in _KEYS if key not in ("customer", "symptom")])
def test_lesson_01_exercise_2_every_wrong_key_gets_the_registered_hint_alone(wrong):
    """Every wrong key but the new fact's, which the second walk 24 tells it is never the one pushed out
    (tests/test_lesson01_story_walk24.py)."""
    hint = " ".join(exercise("01", "Exercise 2").hint.split())
    assert said("01", "Exercise 2", wrong, "customer") == f"Exercise 2: not quite. Hint: {hint}"


def test_lesson_01_exercise_2_says_nothing_about_which_step_was_right():
    for wrong in [key for key in _KEYS if key != "symptom"]:  # the new fact's key: its own sentence (walk 24)
        text = said("01", "Exercise 2", wrong, "customer" if wrong != "customer" else "product")
        assert "both steps" not in text and "new fact" not in text


# --- finding 2: a dict value of the wrong kind, right words or wrong ---


@pytest.mark.parametrize("words", ["SQL Server 2022", "Oracle"])
@pytest.mark.parametrize(
    ("value", "kind"),
    [(["{}"], "a list"), (2022, "a number"), (("{}",), "a tuple")],  # None: graded (walk 23)
)
def test_lesson_01_exercise_1_a_value_of_another_kind_is_a_form_to_fix(words, value, kind):
    typed = value if not isinstance(value, list | tuple) else type(value)(v.format(words) for v in value)
    text = said("01", "Exercise 1", {"database": typed, "log": "a=b"}, LESSON_01_DICT)
    assert text == (
        f"Exercise 1: not checked yet. The value of 'database' is {kind}; each value is text in quotes, e.g. "
        "{'key': 'value'}. Then run the cell again."
    )


def test_lesson_01_exercise_1_a_value_of_another_kind_under_any_key_is_said_alike():
    text = said("01", "Exercise 1", {**LESSON_01_DICT, "log": ["a=b"]}, LESSON_01_DICT)
    assert "The value of 'log' is a list; each value is text in quotes" in text and "right" not in text
    text = said("01", "Exercise 1", {**LESSON_01_DICT, "version": ["x"]}, LESSON_01_DICT)
    assert "The value of 'version' is a list; each value is text in quotes" in text


# --- finding 3: "X or Y" is a hedge ---


@pytest.mark.parametrize("answer", ["one or two", "1 or 2", "4 or 5", "two or 3", "1 OR 2"])
@pytest.mark.parametrize("expected", [1, 2])
def test_lesson_06_exercise_3_two_numbers_joined_by_or_hedge(answer, expected):
    text = said("06", "Exercise 3", answer, expected)
    assert text == (
        f"Exercise 3: not checked yet. Your answer {answer!r} hedges (two answers joined by 'or'): write one answer "
        "on its own, as sure as you can be. Write the number alone, in digits: no 'or', no quotes, no other words. "
        "Then run the cell again."
    )


@pytest.mark.parametrize("typed", ["one or two", "two or 3"])
@pytest.mark.parametrize("expected", [1, 2])
def test_number_words_joined_by_or_typed_without_quotes_hedge_too(capsys, typed, expected):
    cell = f"answer_3 = {typed}\nprint(check('Exercise 3', answer_3, expected, exercise('06', 'Exercise 3').hint))"
    out = run_in_shell(capsys, cell, expected=expected)
    assert out.startswith(
        f"Exercise 3: not checked yet. Your answer {typed} (as typed, without quotes) hedges (two answers joined by "
        "'or'): write one answer on its own, as sure as you can be. Write the number alone, in digits: no 'or', no "
        "quotes, no other words. Then run the cell again."
    ), out
    assert "in digits is" not in out


def test_several_numbers_without_or_still_pick_one():
    assert "gives several numbers: pick one" in said("06", "Exercise 3", "1, 2", 1)


# --- finding 4: an empty answer line puts the three dots back ---


def test_an_empty_answer_line_is_told_to_put_back_the_three_dots():
    try:
        compile("answer_1 = \n", "<cell>", "exec")
    except SyntaxError as error:
        text = " ".join(answer_syntax_guidance(error).split())
    assert "To leave it for later, put back the three dots (...)." in text
    assert "write ... there" not in text


# --- finding 5: number words are words, not a number ---


@pytest.mark.parametrize("answer", [" ".join(["nine"] * 80), "nine nine", "two three", "twenty one"])
@pytest.mark.parametrize("expected", [9, 11])
def test_several_number_words_are_words_not_a_number(answer, expected):
    text = said("05", "Exercise 1", answer, expected)
    assert "a number with words around it" not in text
    assert ": words, not a number: the answer is a number, so write only the number you choose, in digits" in text
    assert text.startswith("Exercise 1: not checked yet.")


@pytest.mark.parametrize("expected", [9, 11])
def test_one_number_word_keeps_its_own_note(expected):
    assert "Your word 'nine' in digits is 9" in said("05", "Exercise 1", "nine", expected)


# --- finding 6: a case slip of a listed name says which case ---


@pytest.mark.parametrize("answer", ["Triage", "TRIAGE", "Operations", "OPERATIONS", "opeRations"])
@pytest.mark.parametrize("expected", ["triage", "operations"])
def test_lesson_03_exercise_2_a_case_slip_is_told_to_write_lower_case(answer, expected):
    text = said("03", "Exercise 2", answer, expected)
    assert text == (
        f"Exercise 2: not checked yet. Mind the case: Python compares text exactly, case included ({answer!r}). "
        "Write your answer in lower case, as the question does; whether the answer itself is right is checked after "
        "that. "
        "Then run the cell again."
    )


@pytest.mark.parametrize("answer", ["payments", "BILLING"])
@pytest.mark.parametrize("expected", ["Payments", "Billing"])
def test_lesson_02_exercise_2_a_case_slip_of_a_module_is_told_to_use_the_lessons_capitals(answer, expected):
    text = said("02", "Exercise 2", answer, expected)
    assert "Write your answer with the capitals the lesson uses;" in text and "not checked yet" in text


def test_number_words_joined_by_other_words_are_words_too():
    assert ": words, not a number:" in said("05", "Exercise 1", "nine and then nine", 9)


# --- lesson 00's walk 9: a model's name is text, not a letter among digits nor a number among words ---


@pytest.mark.parametrize("name", ["gpt-4o-mini", "llama3", "qwen2.5"])
def test_a_name_holding_digits_is_told_it_is_text_as_any_name_is(name):
    assert said("00", "Exercise 2", name, 5) == (
        "Exercise 2: not checked yet. Your answer is text (a string); the answer is a number. Write a number in "
        "digits, without quotes. Then run the cell again."
    )


@pytest.mark.parametrize("typed", ["6l.5", "9 messages", "3s"])
def test_a_number_with_a_slip_or_a_unit_is_not_a_name(typed):
    assert "Your answer is text (a string)" not in said("00", "Exercise 1", typed, 61.5)
