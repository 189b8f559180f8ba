"""The exercise checker after the twelfth walk (issue 32): form notes said alike, right or wrong, for every lesson.

A listed choice among other words, a key written as key=value, a case note for a word that is no listed value, an
answer line that computes its value, two texts side by side, a number with a leading zero, a long answer echoed in
full, a miss that repeats the hint, and a deleted message line: each is said the same way whatever the value is.
"""

import re

import pytest
from IPython.core.interactiveshell import InteractiveShell

from course_lib.exercises import _KEYS, EXERCISES, check, exercise, explain_unquoted_names


def said(lesson, label, answer, expected, line=None):
    """What a checking cell of ``lesson``'s ``label`` prints, as one line; ``line`` is the answer line typed."""
    cell = (line or f"answer_1 = {answer!r}") + f"\nprint(check({label!r}, answer_1, expected, hint))"
    hint = exercise(lesson, label).hint
    return " ".join(check(label, answer, expected, hint, namespace={"In": ["", cell]}).split())


def alike(text, *answers):
    """``text`` with each of ``answers`` (as echoed) replaced by one mark: what is left must not depend on them."""
    for answer in answers:
        text = text.replace(repr(answer), "ANSWER")
    return text


WITH_CHOICES = [e for e in EXERCISES if e.choices]


@pytest.mark.parametrize("ex", WITH_CHOICES, ids=lambda e: f"{e.lesson}-{e.label}")
def test_a_listed_choice_among_other_words_is_not_graded_and_is_said_alike(ex):
    """Lesson 07's walk: 'it is right first time' was graded "not quite" (finding 1)."""
    right, wrong = ex.choices[0], ex.choices[1]
    told = {alike(said(ex.lesson, ex.label, f"it is {c} here", right), f"it is {c} here") for c in (right, wrong)}
    assert len(told) == 1
    [text] = told
    assert text.startswith(f"{ex.label}: not checked yet.") and "not quite" not in text
    assert "write only the name, as the question spells it" in text


def test_lesson_07_exercise_1_a_choice_inside_a_sentence_is_not_graded():
    for answer in ("it is right first time", "it was partly repaired", "It is Right First Time"):
        text = said("07", "Exercise 1", answer, "right first time")
        assert text.startswith("Exercise 1: not checked yet.") and "write only the name" in text


@pytest.mark.parametrize("key", ["customer", "product"])
def test_a_key_written_as_key_value_is_told_to_write_the_key(key):
    """Lesson 01's walk: 'customer=C' was told "the question asks for the value alone" (finding 2)."""
    text = said("01", "Exercise 2", f"{key}=C", "customer")
    assert "the question asks for the key: write only the key" in text and "value alone" not in text


@pytest.mark.parametrize("answer", ["C", "c", "P", "Q"])
def test_a_word_that_is_no_key_is_told_so_before_any_case_note(answer):
    text = said("01", "Exercise 2", answer, "customer")
    assert "is not one of the ten allowed keys" in text and "Mind the case" not in text


@pytest.mark.parametrize("answer", ["Customer", "PRODUCT"])
def test_a_key_in_the_wrong_case_gets_the_case_note(answer):
    assert "Mind the case" in said("01", "Exercise 2", answer, "customer")


def test_a_misspelt_key_still_reads_as_the_key():
    assert "'costumer' reads as 'customer'" in said("01", "Exercise 2", "costumer", "customer")


def test_lesson_02_exercise_2_a_word_that_is_no_module_gets_no_case_note():
    """Finding 3: 'rejected' was told to take a capital, then 'Rejected' was "not quite": two rounds."""
    text = said("02", "Exercise 2", "rejected", "Billing")
    assert "Mind the case" not in text and "capital" not in text


@pytest.mark.parametrize("answer", ["billing", "reporting"])
def test_lesson_02_exercise_2_a_module_in_lower_case_gets_the_case_note_alike(answer):
    assert alike(said("02", "Exercise 2", answer, "Billing"), answer).startswith(
        "Exercise 2: not checked yet. Mind the case"
    )


def test_lesson_02_exercise_2_a_slip_from_a_module_the_lesson_uses_is_said_alike():
    """Finding 4: 'Biling' got a plain "not quite", 'acepted' in Exercise 1 a slip note."""
    right = said("02", "Exercise 2", "Biling", "Billing")
    wrong = said("02", "Exercise 2", "Reportng", "Billing")
    assert "'Biling' reads as 'Billing'" in right and "'Reportng' reads as 'Reporting'" in wrong
    assert right.startswith("Exercise 2: not checked yet.") and wrong.startswith("Exercise 2: not checked yet.")
    assert alike(right, "Biling", "Billing") == alike(wrong, "Reportng", "Reporting")


EXPECTED_1 = {"database": "SQL Server 2022", "log": "a=b"}


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("message_1 = 'a=b'\nanswer_1 = parse_assertions(message_1)", EXPECTED_1),
        ("answer_1 = parse_assertions(line_2)", {}),
        ("answer_1 = dict(EXPECTED)", EXPECTED_1),
        ("answer_1 = {'database': line_1.split('=')[1]}", {"database": " SQL Server 2022 ; version"}),
    ],
)
def test_an_answer_line_that_computes_its_value_is_not_graded(line, value):
    """Finding 5: ``answer_1 = parse_assertions(message_1)`` was graded "correct"."""
    text = said("01", "Exercise 1", value, EXPECTED_1, line)
    assert text.startswith("Exercise 1: not checked yet.") and "correct" not in text
    assert "Write the dict you predict, each key and value in quotes: no call, no name, no other code." in text


@pytest.mark.parametrize("line", ["answer_1 = 4", "answer_1 = -1", "answer_1 = {'log': 'a=b'}", "answer_1 = ..."])
def test_a_value_written_out_is_still_graded(line):
    text = said("01", "Exercise 1", eval(line.partition("=")[2]), EXPECTED_1, line)
    assert "computes its value with code" not in text


def test_a_dict_missing_an_entry_is_not_told_which_entry():
    """Finding 6: "'log=a=b' is a declaration too" named the missing entry."""
    text = said("01", "Exercise 1", {"database": "SQL Server 2022"}, EXPECTED_1)
    assert "1 key missing from yours" in text and "'='" not in text
    assert "log" not in text


@pytest.mark.parametrize(("typo", "key"), [("databse", "database"), ("priorty", "priority"), ("modul", "module")])
def test_a_misspelt_dict_key_reads_as_the_allowed_key_alike(typo, key):
    text = said("01", "Exercise 1", {typo: "x", "log": "a=b"}, EXPECTED_1)
    assert f"{typo!r} reads as {key!r}" in text


def test_two_texts_side_by_side_are_said_to_be_joined():
    """Finding 7: 'acceptedrejected' was said to be no name, with no word of why."""
    text = said("02", "Exercise 1", "acceptedrejected", "accepted", 'answer_1 = "accepted" "rejected"')
    assert text.startswith("Exercise 1: not checked yet.") and "side by side" in text and "one answer" in text
    other = said("02", "Exercise 1", "rejectedaccepted", "accepted", 'answer_1 = "rejected" "accepted"')
    assert alike(text, "acceptedrejected").replace('"accepted" "rejected"', "CODE") == alike(
        other, "rejectedaccepted"
    ).replace('"rejected" "accepted"', "CODE")


def run_in_shell(capsys, cell):
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, exercise=exercise)
        shell.run_cell(cell, store_history=True)
        return " ".join(capsys.readouterr().out.split())
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


@pytest.mark.parametrize(("number", "digits"), [("04", "4"), ("007", "7")])
def test_a_number_with_a_leading_zero_is_told_to_drop_it(capsys, number, digits):
    """Finding 8: ``answer_3 = 04`` showed Python's note on octal integers."""
    out = run_in_shell(capsys, f"answer_3 = {number}\nprint(check('Exercise 3', answer_3, 4))")
    assert f"a number cannot start with 0 in Python: write {digits}" in out and "octal" not in out


@pytest.mark.parametrize("ex", [e for e in EXERCISES if e.answer_type is str], ids=lambda e: f"{e.lesson}-{e.label}")
def test_a_long_answer_is_echoed_shortened(ex):
    """Finding 9: 5000 x's were echoed in full."""
    expected = ex.choices[0] if ex.choices else "Billing"
    for answer in ("x" * 5000, "it is " + "x" * 5000, "x" * 5000 + "?", "x" * 5000 + "."):
        text = said(ex.lesson, ex.label, answer, expected)
        assert "x" * 61 not in text and len(text) < 900
        assert "x" * 10 not in text or re.search(r"… \(\d+ characters\)", text)


def test_a_long_dict_value_is_echoed_shortened():
    text = said("01", "Exercise 1", {"database": "y" * 5000 + "?", "log": "a=b"}, EXPECTED_1)
    assert "y" * 61 not in text and "(5001 characters)" in text


@pytest.mark.parametrize(("answer", "expected"), [(3, 4), (8, 4)])
def test_a_miss_that_asks_its_own_question_is_not_followed_by_the_hint(answer, expected):
    """Finding 10: lesson 02's Exercise 3 asked the same question twice."""
    text = said("02", "Exercise 3", answer, expected).casefold()
    assert text.count("section 6's table") <= 1 and text.count("user turns") <= 1
    # walk 6 (test_checker_walk14): the miss for 8 is said alone, without the hint's writer question
    assert text.count("declares nothing") <= 1 and text.count("?") == (2 if answer == 3 else 1)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: f"{e.lesson}-{e.label}")
def test_no_feedback_to_a_miss_asks_a_question_twice(ex):
    for wrong, _ in ex.misses:
        text = said(ex.lesson, ex.label, wrong, object())
        questions = [q.strip().casefold() for q in re.findall(r"[^.?:]*\?", text)]
        assert len(questions) == len(set(questions))


def test_a_deleted_message_line_is_not_graded_on_an_earlier_run():
    """Finding 11: deleting ``message_1 = ...`` reused the earlier run's message and graded."""
    cell = "answer_1 = True\nattempt = try_smuggling(message_1)\nprint(check('Exercise 1', answer_1, True))"
    text = " ".join(check("Exercise 1", True, True, namespace={"In": ["", cell], "message_1": "x"}).split())
    assert text.startswith("Exercise 1: not checked yet. This cell no longer sets message_1")
    whole = "message_1 = 'a'\n" + cell
    assert check("Exercise 1", True, True, namespace={"In": ["", whole]}).startswith("Exercise 1: correct.")


def test_a_deleted_message_line_in_a_fresh_kernel_is_told_to_write_it_back(capsys):
    out = run_in_shell(capsys, "answer_1 = True\nprint(check('Exercise 1', answer_1, len(message_1)))")
    assert "message_1 has no value yet: this cell does not set it" in out and "cells above" not in out


def test_the_keys_exercise_lists_the_ten_keys():
    assert set(exercise("01", "Exercise 2").choices) == set(_KEYS)


@pytest.mark.parametrize("line", ["answer_1 = " + "x" * 500, "message_1 = " + "x" * 500])
def test_a_long_unquoted_word_is_echoed_shortened_by_the_shell(capsys, line):
    """Finding 9, on the shell's path: a 500-letter word without quotes was echoed three times in full."""
    out = run_in_shell(capsys, f"{line}\nprint(check('Exercise 1', answer_1, 'accepted'))")
    assert "x" * 61 not in out and "…" in out
