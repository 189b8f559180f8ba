"""The case note of a choice answer after the nineteenth walk (issue 32): lesson 03's ``"Triage"`` was told "Write
'Triage' in lower case, as the question does", which reads as if the capitalised word is what to write. The note
now says "Write your answer ..." and is the same for a right and a wrong name.
"""

import pytest
from support.checker import said

CASE_SLIPS = [
    ("03", "Exercise 2", "Triage", "triage"),
    ("03", "Exercise 2", "TRIAGE", "operations"),
    ("03", "Exercise 2", "Operations", "triage"),
    ("02", "Exercise 2", "payments", "Billing"),
    ("02", "Exercise 2", "BILLING", "Billing"),
]


@pytest.mark.parametrize(("lesson", "label", "answer", "expected"), CASE_SLIPS)
def test_a_case_slip_says_write_your_answer_not_the_typed_word(lesson, label, answer, expected):
    text = said(lesson, label, answer, expected)
    assert "Write your answer " in text, text
    assert f"Write {answer!r}" not in text, text


def test_lesson_03_case_note_is_one_sentence_for_right_and_wrong_names():
    shapes = {
        said("03", "Exercise 2", answer, expected).replace(repr(answer), "ANSWER")
        for answer in ("Triage", "Operations", "TRIAGE")
        for expected in ("triage", "operations")
    }
    assert shapes == {
        "Exercise 2: not checked yet. Mind the case: Python compares text exactly, case included (ANSWER). Write "
        "your answer in lower case, as the question does; whether the answer itself is right is checked after that. "
        "Then run the cell again."
    }
