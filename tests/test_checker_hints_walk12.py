"""The exercise checker after the fourth walks (issue 32): each form said one way for every input of its kind, right
or wrong alike, and no hint that hands over the answer or its method.

A non-text answer where the answer is one of the listed words; hints that are questions pointing where to look;
a dict answer told what is wrong in its keys, never the values; case notes that never describe the answer's letters;
a name not defined yet said without Python's raw line; a hint for a count true whichever way the count missed.
"""

import re

import pytest
from support.checker import run_in_real_kernel, said

from course_lib.exercises import EXERCISES, RUN_ALL_STOPS, _choices_in_words, exercise, not_defined_yet

CHOOSING = [e for e in EXERCISES if e.choices and e.answer_type is str]
EXPECTED_01_1 = {"database": "SQL Server 2022", "log": "a=b"}


def _one_right(e):
    """A right answer for a choice exercise, as the checker would be given it (the first choice stands in)."""
    return e.choices[0]


@pytest.mark.parametrize("answer", [1, 1.0, True, None, [1, 2], {"x": 1}])
def test_a_non_text_answer_to_a_choice_names_the_choices_alike_in_every_lesson(answer):
    """Finding 1: ``1`` for lesson 00's status got "Write it between quotes" (which reads as '1')."""
    shapes = set()
    for e in CHOOSING:
        for expected in e.choices:  # said alike whichever choice is right
            text = said(e.lesson, e.label, answer, expected)
            assert text.startswith(f"{e.label}: not checked yet.")
            assert _choices_in_words(e.choices) in text and "write one of them, in quotes" in text
            assert "Write it between quotes" not in text
            shapes.add(text.replace(_choices_in_words(e.choices), "CHOICES").replace(e.label, "LABEL"))
    assert len(shapes) == 1, shapes


def test_every_hint_is_a_question_pointing_where_to_look():
    """Finding 2: hints gave the steps (lesson 00's Exercise 3) or nearly the answer (lesson 07's Exercise 1)."""
    for e in EXERCISES:
        assert "?" in e.hint, (e.lesson, e.label, e.hint)


@pytest.mark.parametrize(
    ("lesson", "label", "wrong", "expected", "given_away"),
    [
        ("00", "Exercise 3", "rejected", "accepted", ["split it at each", "one of the ten keys, as written"]),
        ("00", "Exercise 3", "writer_failed", "accepted", ["split it at each", "rejects one with a fact more"]),
        ("01", "Exercise 3", False, True, ["not the meaning", "comes in lesson 02", "meets the store alone"]),
        ("07", "Exercise 1", "repaired", "right first time", ["the correction is the value the reader keeps"]),
    ],
)
def test_a_wrong_answer_is_not_handed_the_method_or_the_answer(lesson, label, wrong, expected, given_away):
    text = said(lesson, label, wrong, expected)
    assert text.startswith(f"{label}: not quite.")
    for words in given_away:
        assert words not in text, text


def test_every_wrong_verdict_of_lesson_07_exercise_1_gets_the_same_words():
    e = exercise("07", "Exercise 1")
    told = {said("07", "Exercise 1", wrong, "right first time") for wrong in e.choices[1:]}
    assert len(told) == 1, told


def test_lesson_03_exercise_1s_hint_assumes_no_direction_of_the_miss():
    """Finding 6: one hint for a count too high and too low, which assumed the student counted priority=P0."""
    high, low = said("03", "Exercise 1", 3, 2), said("03", "Exercise 1", 1, 2)
    assert high == low
    assert "but is priority=P0 a declaration" not in high
    for word in ("too many", "too few", "more", "fewer", "less", "higher", "lower"):
        assert not re.search(rf"\b{word}\b", high), word


@pytest.mark.parametrize(
    "answer",
    [
        {"database": "SQL Server 2022"},
        {"database": "SQL Server 2022", "log": "a"},
        {"database": "SQL Server 2022", "version": "a=b"},
        {"database": "Oracle"},
        {"database": "Oracle", "log": "a=b"},
        {"database": "MySQL", "log": "a=b"},
        {"database": "SQL Server 2022", "log": "a=b", "version": ""},
        {"log": "a=b"},
    ],
)
def test_a_dict_answer_is_told_what_is_wrong_in_its_keys_never_the_values(answer):
    """Finding 3: ``{'database': 'SQL Server 2022'}`` was pointed at "a part whose value holds an '=' of its own".

    ``{'Database': ...}`` is a form now (walk 19: tests/test_checker_dicts_walk19.py)."""
    text = said("01", "Exercise 1", answer, EXPECTED_01_1)
    assert text.startswith("Exercise 1: not quite.")
    for value in ("SQL Server 2022", "a=b", "Oracle", "MySQL", "second '='", "'='"):
        if not any(value == v for v in answer.values()):
            assert value not in text, (value, text)
    missing = sum(key not in answer for key in EXPECTED_01_1)
    assert f"{missing} key{'s' * (missing != 1)} missing from yours" in text  # counted, never named (walk 19)
    for key in answer:
        if key in EXPECTED_01_1 and answer[key] != EXPECTED_01_1[key]:  # second walk 22: a wrong value's key is named
            assert f"of {key!r} is not the right one" in text or f"{key!r} and" in text, text
        else:
            assert repr(key) not in text  # any other key is not named (walk 8)


def test_no_dict_exercise_has_a_miss_of_its_own():
    """A dict's miss named what a value should hold; the keys' words (missing, extra, wrong value) are said alike."""
    assert all(not e.misses for e in EXERCISES if e.answer_type is dict)


CASES = [
    ("02", "Exercise 2", "payments", "Payments"),
    ("02", "Exercise 2", "REPORTING", "Payments"),
    ("02", "Exercise 2", "reporting", "Payments"),
    ("02", "Exercise 1", "Accepted", "accepted"),
    ("02", "Exercise 1", "REJECTED", "accepted"),
    ("01", "Exercise 2", "Customer", "customer"),
    ("01", "Exercise 2", "PRODUCT", "customer"),
    ("00", "Exercise 3", "Accepted", "accepted"),
    ("03", "Exercise 2", "Triage", "triage"),
    ("07", "Exercise 1", "Right First Time", "right first time"),
]


@pytest.mark.parametrize(("lesson", "label", "answer", "expected"), CASES)
def test_a_case_note_never_describes_the_answers_letters(lesson, label, answer, expected):
    """Finding 4: lesson 02's Exercise 2 said "the answer here is a name with a capital first letter". Since walk 9
    (test_checker_walk17) the note says the case of the listed names, which every name of the exercise shares."""
    text = said(lesson, label, answer, expected)
    assert text.startswith(f"{label}: not checked yet. Mind the case"), text
    assert "Python compares text exactly, case included" in text
    case = (
        "with the capitals the lesson uses" if expected != expected.lower() else "in lower case, as the question does"
    )
    assert case in text, text
    for words in ("capital first letter", "upper case", "has no", "in capitals", repr(expected)):
        assert words not in text.replace(repr(answer), ""), (words, text)


def test_a_case_note_is_said_alike_in_every_lesson_right_or_wrong():
    shapes = {
        said(lesson, label, answer, expected)
        .replace(repr(answer), "ANSWER")
        .replace(label, "LABEL")
        .replace("with the capitals the lesson uses", "CASE")
        .replace("in lower case, as the question does", "CASE")
        for lesson, label, answer, expected in CASES
    }
    assert len(shapes) == 1, shapes


def test_a_case_note_with_spaces_around_is_neutral_too():
    text = said("02", "Exercise 2", " payments ", "Payments")
    assert "Mind the case and the spaces around it" in text and "with the capitals the lesson uses" in text
    assert text == said("02", "Exercise 2", " reporting ", "Payments").replace("reporting", "payments")


def test_a_name_not_defined_yet_is_said_without_pythons_raw_line():
    """Finding 5: "NameError: name 'run_seed_demo' is not defined" stood unexplained inside the advice."""
    try:
        run_seed_demo  # noqa: B018
    except NameError as error:
        text = not_defined_yet(error)
    assert "NameError" not in text and "run_seed_demo is not defined in this kernel yet" in text
    assert text.endswith("Run the cells above first (Run > Run All Above Selected Cell), then this cell again.")


def test_lesson02s_awaiting_exercise_checks_in_a_new_kernel_as_it_needs_no_cell_above():
    """Lesson 02's exercise cells work their expected value out in course_lib (providers.worked_out), so run first
    after a restart one checks the answer instead of asking for the cells above."""
    from test_fresh_kernel_exercises import CELLS

    label, source = next((label, s) for les, label, s in CELLS if les == "02" and "await " in s)
    reply, out = run_in_real_kernel(source)
    assert reply["status"] == "ok" and out.startswith(f"{label}: not answered yet."), out


@pytest.mark.parametrize("lesson", ["05"])
def test_in_a_real_kernel_the_advice_shows_no_raw_line_and_run_all_still_stops(lesson):
    """Run All stops at a cell whose reply is an error: the reply stays one, with no traceback (the [*] fix)."""
    from test_fresh_kernel_exercises import CELLS

    label, source = next((label, s) for les, label, s in CELLS if les == lesson and "await " in s)
    reply, out = run_in_real_kernel(source)
    assert reply["status"] == "error" and reply["ename"] == "NameError"
    assert out.startswith(f"{label}: not checked yet.") and "is not defined in this kernel yet" in out
    assert "NameError" not in out and RUN_ALL_STOPS not in out  # Run All would have run the cells above
