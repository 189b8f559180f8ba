"""The exercise checker after the sixth walk (issue 32): no note hands over the other side of a tie, an echo shows
what was typed, a number word and a letter among digits are said at the rule, a comment that doubts the answer is a
hedge, and the kind of a True/False answer is said one way.
"""

import pytest
from support.checker import run_in_shell, said

from course_lib.exercises import _KEYS, exercise

TRUTH_KIND = "a boolean (True or False)"


def _cell(line, lesson, label="Exercise 1"):
    return f"{line}\nprint(check({label!r}, answer_1, expected, exercise({lesson!r}, {label!r}).hint))"


@pytest.mark.parametrize("key", [k for k in _KEYS if k not in ("customer", "symptom")])
def test_lesson_01_exercise_2_every_old_wrong_key_gets_the_same_words_naming_no_pair(key):
    """Finding 1: 'product' was told the tie rule decides between two facts, which named the other one."""
    text = said("01", "Exercise 2", key, "customer")
    assert text == said("01", "Exercise 2", "module", "customer")
    assert "Two facts share" not in text and not any(other in text for other in _KEYS)


def test_lesson_01_exercise_2_product_gets_the_hint_alone():
    """Walk 9 (test_checker_walk17): "apply both steps" told 'product' its first step was right."""
    text = said("01", "Exercise 2", "product", "customer")
    assert text == "Exercise 2: not quite. Hint: " + " ".join(exercise("01", "Exercise 2").hint.split())


@pytest.mark.parametrize("line", ["answer_1 = {'log': 'a=b'} or maybe not", "answer_1 = {'log': 'x'} and more words"])
def test_words_after_a_dict_are_named_not_cut_off(capsys, line):
    """Finding 2: the echo was cut at 60 characters and hid the words that caused the error."""
    out = run_in_shell(capsys, _cell(line, "01"), expected={"log": "a=b"})
    assert "there are extra words after your dict: write it alone" in out
    assert "…" not in out


def test_words_after_a_number_are_named_too(capsys):
    out = run_in_shell(capsys, _cell("answer_1 = 9 messages please", "05"), expected=9)
    assert "there are extra words after your value: write it alone" in out


def test_an_operator_left_open_keeps_pythons_reading(capsys):
    out = run_in_shell(capsys, _cell("answer_1 = 3 +", "05"), expected=9)
    assert "extra words" not in out and "Python cannot read the line" in out


@pytest.mark.parametrize("value", [True, False])
def test_an_unquoted_hedge_is_echoed_as_typed(capsys, value):
    """Finding 3: `answer_3 = True?` was echoed as 'True?', with quotes the student never typed."""
    out = run_in_shell(capsys, _cell("answer_1 = True?", "01", "Exercise 3"), expected=value)
    assert "Your answer True? (as typed, without quotes) hedges" in out and "'True?'" not in out


def test_a_quoted_hedge_is_echoed_with_its_quotes(capsys):
    out = run_in_shell(capsys, _cell("answer_1 = 'True?'", "01", "Exercise 3"), expected=True)
    assert "Your answer 'True?' hedges" in out


@pytest.mark.parametrize("wrong", [0])
def test_lesson_03_exercise_3_misses_that_leave_only_the_answer_are_gone(wrong):
    """Finding 4: the misses for 4 and 0 together left only the answer. Lesson 03's third walk 25 gave 4 its own
    miss back (the logs question went to operations, tests/test_lesson03_third_walk25.py); 0 keeps the hint alone."""
    text = said("03", "Exercise 3", wrong, 2)
    assert text == f"Exercise 3: not quite. Hint: {exercise('03', 'Exercise 3').hint}"


@pytest.mark.parametrize(("word", "digits", "expected"), [("four", 4, 4), ("four", 4, 9), ("eleven", 11, 4)])
def test_a_number_word_is_said_as_the_student_word_in_digits(capsys, word, digits, expected):
    """Finding 6: "The answer is a number: write it in digits: 4." read as revealing when the guess was right."""
    out = run_in_shell(capsys, _cell(f"answer_1 = {word}", "06"), expected=expected)
    assert f"Your word '{word}' in digits is {digits}: write that" in out
    assert "The answer is a number" not in out


@pytest.mark.parametrize("expected", [4, 9])
def test_a_quoted_number_word_is_said_the_same_way(expected):
    text = said("06", "Exercise 1", "four", expected)
    assert "Your word 'four' in digits is 4: write that" in text


@pytest.mark.parametrize("answer", ["True", "yes", 3, None])
def test_the_kind_of_a_truth_answer_is_said_one_way(answer):
    """Finding 7: "a boolean (True or False)" and "True or False, Python's two truth values" for the same kind."""
    text = said("04", "Exercise 1", answer, True)
    assert TRUTH_KIND in text and "truth values" not in text


def test_an_unquoted_truth_word_is_said_in_the_same_words(capsys):
    out = run_in_shell(capsys, _cell("answer_1 = yes", "04"), expected=True)
    assert TRUTH_KIND in out


def test_lesson_02_exercise_3_eight_is_asked_only_about_user_turns():
    """Finding 8: the miss for 8 was followed by a question about a step the student got right."""
    text = said("02", "Exercise 3", 8, 4)
    assert "user turns?" in text and "declares nothing" not in text


@pytest.mark.parametrize("value", ["6l.5", "6O.5", "61.5l"])
@pytest.mark.parametrize("expected", [61.5, 60.0])
def test_a_letter_among_digits_is_not_called_several_numbers(value, expected):
    """Finding 9: '6l.5' (a letter l) was told it "gives several numbers"."""
    text = said("00", "Exercise 1", value, expected)
    assert "this is not a number: check for a letter typed among the digits" in text
    assert "several numbers" not in text and "61.5" not in text.replace(value, "")


def test_two_real_numbers_still_give_several_numbers():
    assert "several numbers" in said("00", "Exercise 1", "61.5 and 60", 61.5)
    # walk 9 (test_checker_walk17): two numbers joined by 'or' are a hedge
    assert "hedges (two answers joined by 'or')" in said("00", "Exercise 1", "61.5 or 60", 61.5)


DOUBT = "your comment doubts the answer: write one answer, as sure as you can be, or remove the comment"


@pytest.mark.parametrize("comment", ["# maybe 11?", "# maybe 11", "# not sure", "# 11", "# or 11", "# I think"])
@pytest.mark.parametrize("expected", [9, 11])
def test_a_doubting_comment_is_a_hedge_right_or_wrong(capsys, comment, expected):
    """Finding 10: `answer_1 = 9  # maybe 11?` was graded "correct." while `9?` was told it hedges."""
    out = run_in_shell(capsys, _cell(f"answer_1 = 9  {comment}", "05"), expected=expected)
    assert DOUBT in out.casefold() and "correct" not in out and "not quite" not in out


@pytest.mark.parametrize("comment", ["# I think", "# or False", "# probably"])
@pytest.mark.parametrize("expected", [True, False])
def test_a_doubting_comment_on_a_truth_answer_is_a_hedge(capsys, comment, expected):
    out = run_in_shell(capsys, _cell(f"answer_1 = True  {comment}", "04"), expected=expected)
    assert DOUBT in out.casefold()


@pytest.mark.parametrize(
    "comment", ["# from section 3", "# your prediction: how many facts mem lists (a number)", "# counted twice"]
)
def test_a_plain_comment_stays_fine(capsys, comment):
    out = run_in_shell(capsys, _cell(f"answer_1 = 9  {comment}", "05"), expected=9)
    assert out.startswith("Exercise 1: correct.")


async def test_lesson_03_exercise_1_not_answered_yet_is_one_line_like_every_exercise():
    """Finding 5: lesson 03's "not answered yet" broke mid-sentence ("in / quotes"); the others print one line."""
    from course_lib.providers import try_smuggling

    cell = "message_1 = ...\nattempt = await try_smuggling(message_1)"
    attempt = await try_smuggling(..., namespace={"In": ["", cell]})
    assert "\n" not in attempt.feedback and attempt.feedback.startswith("Exercise 1: not answered yet.")
    assert "in quotes" in attempt.feedback


@pytest.mark.parametrize("value", ["6l.5", "61.5l", "6O.5"])
def test_a_letter_among_digits_typed_bare_is_said_the_same_way(capsys, value):
    """Finding 9's sibling path: `answer_1 = 6l.5` without quotes is a SyntaxError, said by the same rule."""
    out = run_in_shell(capsys, _cell(f"answer_1 = {value}", "00"), expected=61.5)
    assert "this is not a number: check for a letter typed among the digits" in out
