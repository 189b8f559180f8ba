"""One policy for every dict answer (walk 19, issue 32; the policy is in ``course_lib.exercises``' docstring).

The feedback may say what is wrong with the answer's form (not a dict, a key or a value of another kind, a key that
is not an allowed key name at all, an invisible character) and how many keys are missing, extra or hold a wrong
value; never which value is right, and one wrong dict is told in the same form as any other. Second walk 22: the
keys whose value is wrong are then named (their right values never are): a key's name is in the question.
"""

import re

import pytest
from support.checker import said

import course_lib.exercises as exercises
from course_lib.assertions import parse_assertions
from course_lib.exercises import check, near_miss_hint

MESSAGE_1 = "database = SQL Server 2022 ; version=; log=a=b\nHello! database=Oracle; Database=MySQL"
EXPECTED = parse_assertions(MESSAGE_1)

WRONG_IN_CONTENT = [  # every key an allowed key, every value text: graded, never told which part is wrong
    {},
    {"database": "SQL Server 2022"},
    {"log": "a=b"},
    {"database": "Oracle", "log": "a=b"},
    {"database": "MySQL", "log": "a=b"},
    {"database": "SQL Server 2022", "log": "A=B"},  # a value right but for its case: no case note
    {"database": "SQL Server 2022", "log": "a=b", "version": None},  # third walk 23: None is graded, not a form
    {"database": "SQL Server 2022", "log": "a"},
    {"database": "SQL Server 2022", "log": "a=b", "version": ""},
    {"database": "SQL Server 2022", "log": "a=b", "module": "Billing"},
    {"database": "Oracle"},
    {"log": "a=b", "version": ""},
]


WRONG_KEYS = re.compile(r" The values? of .*? (?:is|are) not the right ones?\.")


def _shape(text: str) -> str:
    return WRONG_KEYS.sub("", re.sub(r"\d+ keys?\b", "N keys", " ".join(text.split())))


def _wrong_keys(answer: dict) -> set:
    return {key for key in EXPECTED if key in answer and answer[key] != EXPECTED[key]}


def test_the_policy_is_written_in_the_module_docstring():
    doc = " ".join(exercises.__doc__.split())
    assert "Dict answers" in doc and "then WHICH keys hold a wrong value, by name only: never the right value" in doc
    assert "HOW MANY keys are missing, extra, or hold a wrong value" in doc


@pytest.mark.parametrize("answer", WRONG_IN_CONTENT)
def test_a_wrong_dict_names_no_value_and_only_the_keys_whose_value_is_wrong(answer):
    assert answer != EXPECTED
    text = said("01", "Exercise 1", answer, EXPECTED)
    assert text.startswith("Exercise 1: not quite. Hint: Compared key by key with the right dict: ")
    for key in _wrong_keys(answer):  # second walk 22
        assert repr(key) in text, (key, text)
    for word in {*EXPECTED, *EXPECTED.values(), *answer, *answer.values()} - {""} - _wrong_keys(answer):
        assert repr(word) not in text and f'"{word}"' not in text, (word, text)
    assert "case" not in text.replace("exercise", "")  # no case tell for a value


def test_every_wrong_dict_is_told_in_one_form():
    """The same sentence whichever parts are wrong: only the counts differ."""
    shapes = {_shape(said("01", "Exercise 1", answer, EXPECTED)) for answer in WRONG_IN_CONTENT}
    assert len(shapes) == 1, shapes


@pytest.mark.parametrize(
    ("answer", "counts"),
    [
        ({}, (2, 0, 0)),
        ({"database": "SQL Server 2022"}, (1, 0, 0)),
        ({"database": "Oracle", "log": "a=b"}, (0, 0, 1)),
        ({"database": "Oracle", "log": "A=B"}, (0, 0, 2)),
        ({"database": "SQL Server 2022", "log": "a=b", "version": ""}, (0, 1, 0)),
        ({"database": "MySQL", "version": "", "module": "x"}, (1, 2, 1)),
    ],
)
def test_the_counts_are_how_many_keys_are_missing_extra_or_hold_a_wrong_value(answer, counts):
    missing, extra, wrong = counts
    text = WRONG_KEYS.sub("", near_miss_hint(answer, EXPECTED))  # the keys named after the counts: above

    def keys(n):
        return f"{n} key{'s' * (n != 1)}"

    assert text == (
        f"Compared key by key with the right dict: {keys(missing)} missing from yours, {keys(extra)} in yours "
        f"that should not be there, {keys(wrong)} with a wrong value."
    )


def test_a_dict_of_other_keys_is_held_to_the_same_policy():
    """The rule is the dict's, not lesson 01's: any dict exercise is counted the same way."""
    text = near_miss_hint({"a": 0, "b": 2, "d": 4}, {"a": 1, "b": 2, "c": 3})
    assert text == (
        "Compared key by key with the right dict: 1 key missing from yours, 1 key in yours that should not be "
        "there, 1 key with a wrong value. The value of 'a' is not the right one."
    )


@pytest.mark.parametrize(
    ("key", "words"),
    [
        # walk 21: 'Database' and 'Hello! database', keys the message writes, are graded (test_lesson01_walk21.py)
        ("DATABASE", "reads as 'database': write each key exactly as the message"),
        ("LOG", "reads as 'log': write each key exactly as the message"),
        ("owner", "is in neither the message nor the list of the ten allowed keys"),
        ("databse", "reads as 'database': write each key exactly as the message"),
        (" log", "has spaces around it: write the key alone"),
    ],
)
@pytest.mark.parametrize(
    "rest",
    [EXPECTED, {}, {"database": "Oracle"}, {"database": "SQL Server 2022", "log": "x", "version": ""}],
)
def test_a_key_that_is_no_allowed_key_is_a_form_said_alike_whatever_the_rest_holds(key, words, rest):
    text = said("01", "Exercise 1", {**rest, key: "MySQL"}, EXPECTED)
    assert text.startswith(f"Exercise 1: not checked yet. The key {key!r} ") and words in text
    assert text == said("01", "Exercise 1", {key: "MySQL"}, EXPECTED)  # the same words, right rest or wrong


@pytest.mark.parametrize("value", ["SQL Server\u200b 2022", "Orac\u200ble"])
def test_an_invisible_character_in_a_value_is_a_form_right_word_or_wrong(value):
    text = said("01", "Exercise 1", {"database": value, "log": "a=b"}, EXPECTED)
    assert text.startswith("Exercise 1: not checked yet. The value of 'database' holds an invisible character")
    assert "not quite" not in text and "Section 1" not in text  # no grading, no hint


def test_a_right_dict_is_correct_and_the_same_dict_with_one_wrong_value_names_its_key_only():
    assert check("Exercise 1", dict(EXPECTED), EXPECTED, namespace={}).startswith("Exercise 1: correct.")
    wrong = " ".join(said("01", "Exercise 1", {**EXPECTED, "log": "a"}, EXPECTED).split())
    assert "1 key with a wrong value. The value of 'log' is not the right one." in wrong
    assert "'a=b'" not in wrong
