"""The exercise checker after lessons 01 and 04's walk 22 (issue 32).

Lesson 04: ``answer_1 = "yes, True"`` was told only about its quotes ("You wrote the text 'yes, True'; the answer is a
boolean (True or False): write one of them without quotes"): the student would then write ``yes, True`` bare. Any
text that holds a truth word (True or False, in any case) beside other words is now told, in the same sentence, that
the other words do not belong either: the answer is the bool alone. Said alike for a right and a wrong value, for
every exercise whose answer is a bool.

Lesson 01: ``answer_1 = dict(database="SQL Server 2022", log="a=b")`` was refused as code that computes its value. A
``dict(...)`` call whose arguments are all keyword arguments with literal values is the dict literal written another
way: it is read as the dict literal is. A real call (a name, a method, ``**``, a positional argument, a computed
value) is still refused as before.
"""

import pytest
from support.checker import said

from course_lib.exercises import EXERCISES, exercise

TRUTH = [e for e in EXERCISES if e.answer_type is bool]
CODE = "computes its value with code"


def _id(ex):
    return f"{ex.lesson}-{ex.label}"


def _truth_said(ex, text, expected):
    return said(ex.lesson, ex.label, text, expected, line=f"answer_1 = {text!r}")


# Finding 2: a truth word with other words, in quotes


@pytest.mark.parametrize(
    ("text", "extra"),
    [
        ("yes, True", "yes"),
        ("True, yes", "yes"),
        ("yes true", "yes"),
        ("True because the window holds turn 2", "because the window holds turn 2"),
        ("no: False", "no"),
    ],
)
@pytest.mark.parametrize("expected", [True, False])
def test_lesson_04_extra_words_beside_a_truth_word_are_named(text, extra, expected):
    """The walk's own case, ``"yes, True"``, and its kin: the quotes AND the other words are said to go."""
    out = _truth_said(exercise("04", "Exercise 1"), text, expected)
    assert out.startswith("Exercise 1: not checked yet."), out
    assert "without quotes" in out, out
    assert f"the other words ({extra!r})" in out, out
    assert "True or False alone" in out, out


@pytest.mark.parametrize("ex", TRUTH, ids=_id)
def test_every_truth_exercise_says_the_extra_words_alike_right_or_wrong(ex):
    """The words never tell a right answer from a wrong one: the same sentence for either expected value."""
    assert _truth_said(ex, "yes, True", True) == _truth_said(ex, "yes, True", False)
    assert "the other words ('yes')" in _truth_said(ex, "yes, True", True)


@pytest.mark.parametrize("text", ["True", "true", "FALSE", " False "])
@pytest.mark.parametrize("ex", TRUTH, ids=_id)
def test_a_truth_word_alone_in_quotes_is_told_only_about_its_quotes(ex, text):
    """No other words: the sentence stays what it was (only the quotes, and the capital letter)."""
    out = _truth_said(ex, text, True)
    assert "without quotes, with a capital first letter" in out, out
    assert "other words" not in out, out


@pytest.mark.parametrize("text", ["yes", "no", "nope"])
def test_text_without_a_truth_word_is_not_told_about_other_words(text):
    out = _truth_said(exercise("04", "Exercise 1"), text, True)
    assert "other words" not in out, out


# Finding 6: dict(...) with literal keyword arguments is a dict literal

EXPECTED_01 = {"database": "SQL Server 2022", "log": "a=b"}


@pytest.mark.parametrize(
    "line",
    [
        'answer_1 = dict(database="SQL Server 2022", log="a=b")',
        "answer_1 = dict(database='SQL Server 2022', log='a=b')  # the dict I predict",
        'answer_1 = dict(\n    database="SQL Server 2022",\n    log="a=b",\n)',
    ],
)
def test_lesson_01_a_dict_call_of_literal_keywords_is_graded_as_the_literal(line):
    ex = exercise("01", "Exercise 1")
    out = said(ex.lesson, ex.label, EXPECTED_01, EXPECTED_01, line=line)
    literal = said(ex.lesson, ex.label, EXPECTED_01, EXPECTED_01, line=f"answer_1 = {EXPECTED_01!r}")
    assert CODE not in out, out
    assert out == literal
    assert out.startswith("Exercise 1: correct."), out


def test_lesson_01_a_wrong_dict_call_is_graded_as_the_wrong_literal():
    ex = exercise("01", "Exercise 1")
    wrong = {"database": "Oracle", "log": "a=b"}
    out = said(ex.lesson, ex.label, wrong, EXPECTED_01, line='answer_1 = dict(database="Oracle", log="a=b")')
    assert CODE not in out, out
    assert out == said(ex.lesson, ex.label, wrong, EXPECTED_01, line=f"answer_1 = {wrong!r}")


@pytest.mark.parametrize(
    "code",
    [
        'dict(database="SQL Server 2022".strip(), log="a=b")',
        'dict(database=name, log="a=b")',
        'dict(**{"database": "SQL Server 2022"}, log="a=b")',
        'dict([("database", "SQL Server 2022")], log="a=b")',
        "dict(sorted(pairs))",
        'dict(database="SQL " + "Server 2022", log="a=b")',
        'dict.fromkeys(["database"], "SQL Server 2022")',
    ],
)
def test_lesson_01_a_dict_call_that_computes_is_still_refused(code):
    ex = exercise("01", "Exercise 1")
    out = said(ex.lesson, ex.label, EXPECTED_01, EXPECTED_01, line=f"answer_1 = {code}")
    assert out.startswith("Exercise 1: not checked yet."), out
    assert CODE in out, out


def test_a_dict_call_in_a_shell_where_dict_is_not_the_builtin_is_refused():
    """A notebook that rebinds ``dict`` computes with its own function: that call is code."""
    ex = exercise("01", "Exercise 1")
    line = 'answer_1 = dict(database="SQL Server 2022", log="a=b")'
    cell = line + "\nprint(check('Exercise 1', answer_1, expected, hint))"
    from course_lib.exercises import check

    out = check("Exercise 1", EXPECTED_01, EXPECTED_01, ex.hint, namespace={"In": ["", cell], "dict": lambda **k: k})
    assert CODE in " ".join(out.split())
