"""The exercise checker after the twelfth walk's second round (issue 32): a form is said one way for every input of
its kind, right or wrong alike.

A decimal comma in text, a misspelt dict key, a hedged dict typed without quotes, words of doubt Python cannot read,
a negative or fractional count, a number word among other words; and two exercises' own words (lessons 06 and 07).
"""

import pytest
from support.checker import run_in_shell, said

from course_lib.exercises import RUN_ALL_STOPS, exercise
from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.policies import load_timeline

EXPECTED_1 = {"database": "SQL Server 2022", "log": "a=b"}


@pytest.mark.parametrize("answer", ["61,5", "60,5", " 62,0 "])
def test_a_decimal_comma_in_text_is_told_to_use_a_dot_alike(answer):
    """Finding 1: '61,5' was told it gives several numbers, the tuple 61,5 to use a dot."""
    text = said("00", "Exercise 1", answer, 61.5)
    whole, part = answer.strip().split(",")
    assert text.startswith("Exercise 1: not checked yet.")
    assert f"use a dot for decimals ({whole}.{part})" in text and "several numbers" not in text
    assert text.replace(repr(answer), "A").replace(f"{whole}.{part}", "B") == said(
        "00", "Exercise 1", "61,5", 61.5
    ).replace("'61,5'", "A").replace("61.5", "B")


def test_several_numbers_in_text_still_pick_one():
    assert "several numbers: pick one" in said("00", "Exercise 1", "61, 62", 61.5)
    # walk 9 (test_checker_walk17): two numbers joined by 'or' are a hedge
    assert "hedges (two answers joined by 'or')" in said("00", "Exercise 1", "61 or 62", 61.5)


@pytest.mark.parametrize(
    "answer",
    [
        {"databse": "SQL Server 2022", "log": "a=b"},
        {"databse": "Oracle", "log": "x"},
        {"databse": "SQL Server 2022"},
    ],
)
def test_a_misspelt_dict_key_is_a_form_said_alike_whatever_the_values(answer):
    """Finding 2: {'databse': ...} was "not quite ... reads as 'database'", Exercise 2's 'custmer' "not checked"."""
    text = said("01", "Exercise 1", answer, EXPECTED_1)
    assert text == (  # walk 21: worded alike for a slip of any key the message or the allowed keys spell
        "Exercise 1: not checked yet. The key 'databse' reads as 'database': write each key exactly as the message "
        "or the list of the ten allowed keys (product, module, priority, database, constraint, customer, version, "
        "environment, symptom, log) spells it, case included. Then run the cell again."
    )


def test_a_dict_key_in_the_wrong_case_is_still_a_form():
    """A form since walk 19; since walk 21 a key the exercise's message writes ('Database') is graded instead, and a
    case slip of another key is told the key it reads as, never the rule the message's trap tests."""
    text = said("01", "Exercise 1", {"LOG": "a=b", "database": "SQL Server 2022"}, {"log": "a=b"})
    assert "not checked yet" in text and "The key 'LOG' reads as 'log'" in text and "case-sensitive" not in text


@pytest.mark.parametrize("value", ["{'database': 'SQL Server 2022', 'log': 'a=b'}", "{'database': 'Oracle'}"])
def test_a_hedged_dict_typed_without_quotes_is_not_told_to_drop_quotes(capsys, value):
    """Finding 3: ``answer_1 = {...}?`` was told "without quotes around it", but had none."""
    cell = f"answer_1 = {value}?\nprint(check('Exercise 1', answer_1, expected, hint))"
    out = run_in_shell(capsys, cell, expected=EXPECTED_1, hint=exercise("01", "Exercise 1").hint)
    assert "hedges" in out and "without quotes around it" not in out and "no '?'" in out
    quoted = run_in_shell(capsys, cell.replace(f"{value}?", f'"{value}?"'), expected=EXPECTED_1, hint="")
    assert "hedges" in quoted and "Write the dict itself, without quotes around it" in quoted


@pytest.mark.parametrize(
    "value", ["True, I think", "maybe False", "probably True", "False, I guess", "perhaps true", "False?"]
)
def test_words_of_doubt_python_cannot_read_get_the_hedge_message(capsys, value):
    """Finding 4: 'True ?' got the hedge message, 'True, I think' a SyntaxError note."""
    cell = f"answer_1 = {value}\nprint(check('Exercise 1', answer_1, True, exercise('04', 'Exercise 1').hint))"
    out = run_in_shell(capsys, cell)
    assert out.removesuffix(" " + RUN_ALL_STOPS) == (
        f"Exercise 1: not checked yet. Your answer {value} (as typed, without quotes) hedges "
        "(a '?' or a word of doubt): write one answer on "
        "its own, as sure as you can be. Write True or False alone: no '?', no quotes, no other words, with a "
        "capital first letter. Then run the cell again."
    )


@pytest.mark.parametrize("value", ["True I", "I think so", "I think it is", "maybe product"])
def test_an_answer_line_with_no_answer_word_beside_its_doubt_keeps_the_syntax_note(capsys, value):
    cell = f"answer_1 = {value}\nprint(check('Exercise 1', answer_1, expected))"
    out = run_in_shell(capsys, cell, expected=True)
    assert "not a Python value yet" in out and "hedges" not in out


@pytest.mark.parametrize(("value", "expected"), [("61.5, I think", 61.5), ("maybe 2", 2), ("maybe product", "log")])
def test_a_number_or_a_word_with_words_of_doubt_gets_the_hedge_message(capsys, value, expected):
    cell = f"answer_1 = {value}\nprint(check('Exercise 1', answer_1, expected))"
    out = run_in_shell(capsys, cell, expected=expected)
    assert (
        out.startswith(f"Exercise 1: not checked yet. Your answer {value} (as typed, without quotes) hedges")
        and "SyntaxError" not in out
    )


@pytest.mark.parametrize(("label", "expected"), [("Exercise 1", 9), ("Exercise 2", 1), ("Exercise 3", 2)])
@pytest.mark.parametrize("answer", [-1, 1.5, -2.0, 8.5])
def test_a_negative_or_fractional_count_is_a_form_said_alike(label, expected, answer):
    """Finding 5: -1 and 1.5 were graded "not quite", '9' and None "not checked yet"."""
    text = said("05", label, answer, expected)
    assert text == (
        f"{label}: not checked yet. A count is a whole number, 0 or more (how many), and {answer} is not one: write "
        "the count you predict in digits, with no minus sign and no decimal point. Then run the cell again."
    )


def test_a_whole_count_with_a_decimal_point_keeps_its_note():
    assert "has a decimal point" in said("05", "Exercise 1", 9.0, 9)


@pytest.mark.parametrize("answer", ["two calls", "9 messages", "nine messages", "twice more"])
def test_a_number_word_among_words_is_a_number_with_words_around_it(answer):
    """Finding 6: 'two calls' was "text (a string)", '9 messages' "a number with words around it"."""
    text = said("05", "Exercise 3", answer, 2)
    assert f"You wrote the text {answer!r}, a number with words around it" in text


def test_lesson_06_exercise_2_misses_ask():
    """Finding 7: the misses for 1 and 3 gave the reasoning away; they ask instead (3's question is the hint's, said
    once since walk 13)."""
    misses = dict(exercise("06", "Exercise 2").misses)
    assert misses[3] == "That counts three runs."
    assert "That counts three runs. " in said("06", "Exercise 2", 3, 2)
    assert "how many runs does max_iterations=2 allow" in said("06", "Exercise 2", 3, 2)
    assert misses[1].endswith("?") and "new one for each" not in misses[1]


def test_lesson_07_exercise_3_why_names_the_six_facts_kept():
    """Finding 8: "Six places keep turns 4 to 9" read as six turns, six facts; turn 5 declares none, turn 6 two."""
    memory = WorkingMemory(max_facts=6)
    for turn in load_timeline().turns[:9]:
        lines = [part.strip() for chunk in turn.user.split("\n") for part in chunk.split(";")]
        facts = [FactCandidate(key=k, value=v, evidence=f"{k}={v}") for k, _, v in (p.partition("=") for p in lines)]
        memory.apply(memory.begin_turn(turn.user), [f for f in facts if f.value and " " not in f.key])
    kept = {fact.key: fact.turn for fact in memory.facts}
    assert kept == {"version": 4, "module": 6, "database": 6, "environment": 7, "symptom": 8, "log": 9}
    why = exercise("07", "Exercise 3").why
    assert "version (turn 4), module and database (turn 6), environment, symptom and log (turns 7 to 9)" in why
    assert "constraint of turn 2 is evicted" in why
