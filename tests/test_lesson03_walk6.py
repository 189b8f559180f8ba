"""Lesson 03 as a newcomer met it on the sixth walk (issue 32): the checker's words for a message line written
without quotes, a right value of the wrong type, a hedged number or a number word, and exercise 2's desk names."""

import pytest

from course_lib.exercises import check, exercise
from course_lib.providers import route_by_topic


def words(text: str) -> str:
    return text.replace("\n", " ")


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    from course_lib.exercises import explain_unquoted_names

    shell = InteractiveShell.instance()
    explain_unquoted_names(shell)
    try:
        yield shell
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


@pytest.mark.parametrize(
    "line",
    [
        "message_1 = priority=P0",  # Python reads a chained assignment: NameError for P0
        "message_1 = module=Billing priority=P0",  # a SyntaxError
        "message_1 = hello",  # a NameError for the whole message
    ],
)
def test_a_message_line_without_quotes_is_told_to_quote_the_whole_message(shell, capsys, line):
    shell.run_cell(line)
    said = words(capsys.readouterr().out)
    assert "Traceback" not in said and "^" not in said
    assert said.startswith("message_1 is not text yet")  # the plain sentence first, not "NameError: ..."
    assert "A message is text, so put the whole message in quotes" in said
    # a neutral example, the same whatever was typed: echoing 'priority=P0' suggested a message the exercise refuses
    advice = said[said.index("A message is text") :].strip()
    assert advice == "A message is text, so put the whole message in quotes, e.g. message_1 = 'your words here'. " + (
        "Then run the cell again."
    )


def test_an_answer_line_keeps_its_own_guidance(shell, capsys):
    shell.run_cell("answer_2 = Billing")
    assert "put it in quotes: 'Billing'" in capsys.readouterr().out


@pytest.mark.parametrize(("answer", "expected"), [("False", False), ("2", 2), (" 2 ", 2), (3, "3")])
def test_a_right_value_of_the_wrong_type_gets_no_reasoning_hint(answer, expected):
    said = words(check("Exercise 3", answer, expected, "Count the messages again."))
    assert "quotes" in said and "Count the messages again" not in said


def test_a_value_of_the_wrong_type_is_told_its_form_alone_right_or_wrong():
    """Lesson 04's walk: the reasoning hint beside a wrong value only would tell a student which one they wrote."""
    for value in ("5", "2"):
        said = words(check("Exercise 3", value, 2, "Count the messages again."))
        assert "not checked yet" in said and "text" in said and "Count the messages again" not in said


@pytest.mark.parametrize("hedged", ["2?", "2 ?", "~2", "2 maybe", "maybe 2", "about 2", "2!"])
def test_a_hedged_number_is_recognised_and_asked_for_in_digits(hedged):
    said = words(check("Exercise 3", hedged, 2, "Count the messages again."))
    assert "number" in said and "2" in said and "quotes" in said
    assert "Count the messages again" not in said  # the number under the hedge is right: only the form is wrong
    wrong = words(check("Exercise 3", hedged, 4, "Count the messages again."))
    assert "quotes" in wrong and "Count the messages again" not in wrong  # alike, right or wrong


@pytest.mark.parametrize(("word", "digits"), [("two", "2"), ("Four", "4"), ("zero", "0")])
def test_a_number_word_is_asked_for_in_digits(shell, capsys, word, digits):
    said = words(check("Exercise 3", word, 2, "Count the messages again."))
    assert f"Your word '{word}' in digits is {digits}: write that, without quotes" in said  # walk 6
    shell.run_cell(f"answer_3 = {word}")  # the cell's expected value is not readable: the advice still fits
    out = words(capsys.readouterr().out)
    assert f"write it in digits, with no quotes: {digits}" in out and out.index("digits") < out.index("quotes: '")


def test_exercise_2_tests_the_whole_word_rule_with_a_near_miss():
    question = "The catalog page of my blog is down"
    assert route_by_topic(question) == "triage"  # "catalog" and "blog" hold "log" but are not the word log
    hint = exercise("03", "Exercise 2").hint
    assert "deploy" not in hint and "logs" not in hint
    assert words(check("Exercise 2", "triage", route_by_topic(question), hint)).startswith("Exercise 2: correct.")
    said = words(check("Exercise 2", "operations", route_by_topic(question), hint))
    assert "whole word" in said


@pytest.mark.parametrize("typo", ["operatons", "ops", "support desk"])
def test_exercise_2_says_an_answer_that_is_no_desk_name_is_not_one(typo):
    hint = exercise("03", "Exercise 2").hint
    said = words(check("Exercise 2", typo, "triage", hint))
    assert f"{typo!r} is not a desk name: the two desks are 'triage' and 'operations'." in said
    assert hint not in said  # the reasoning is not what went wrong


@pytest.mark.parametrize("near", ["Triage", " triage", "the triage desk"])
def test_exercise_2_near_misses_of_a_desk_name_keep_their_own_words(near):
    said = words(check("Exercise 2", near, "triage", exercise("03", "Exercise 2").hint))
    assert "is not a desk name" not in said


def test_any_number_in_quotes_is_told_to_lose_the_quotes():
    assert "You wrote the text '5'; the answer is a number: write it without quotes." in words(check("Ex", "5", 2))
    said = words(check("Ex", "2.0", 2, "Count again."))
    assert "write it without quotes" in said and "Count again" not in said
