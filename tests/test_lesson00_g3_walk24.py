"""Lesson 00, the third new-student walk of round 24 (issue 32, score 4/5): findings 1-4.

1. Section 6's misses showed ``declares: environment=staging.`` without the message it answered: a student
   could not see why ``database`` is not declared. :func:`course_lib.qualify.misses_in_words` prints each case's
   message, shortened if long, as typed, above its ``declares:`` line.
2. The usage table's assistant row, 29 characters sent for a 14-character message, is said as the sum it is.
3. Section 2's ``local`` bullet points to its set-up (section 3) and its recording (section 6).
4. Section 6's prose says what "135M" means.
"""

from __future__ import annotations

from pathlib import Path

from course_lib.qualify import BATTERY, Case, misses_in_words
from course_lib.recordings import load_qualification
from tests.support.lesson_cells import cell_outputs, cell_source, student_path, words

# --- 1. each miss shows the message it answered ---


def test_each_missed_case_shows_its_message_above_what_it_declares():
    said = misses_in_words(load_qualification().cases).splitlines()
    declares = [i for i, line in enumerate(said) if line.strip().startswith("declares:")]
    assert declares
    for i in declares:
        assert said[i - 1].strip().startswith("message: "), said[i - 1]
    at = said.index("      declares: environment=“staging.”")  # third walk 25: values quoted
    assert said[at - 1] == "      message: We are on database=SQL Server 2022; environment=staging.", said[at - 1]


def test_the_message_is_shown_as_typed_and_shortened_when_long():
    missed = next(c for c in load_qualification().cases if c.case == "words before a key")
    typed = (Case("words before a key", "declaration", 'module=Bill\u200bing\ndatabase="SQL"'),)
    said = misses_in_words([missed], typed)
    assert "message: module=Bill[U+200B]ing" in said  # hidden characters made visible, as in the battery table
    assert "'module" not in said and "\\n" not in said  # no repr
    assert "\n" + " " * 15 + 'database="SQL"' in said  # the second typed line, under the first
    long = (Case("words before a key", "declaration", "module=Billing " + "x" * 500),)
    shown = next(line for line in misses_in_words([missed], long).splitlines() if "message:" in line)
    assert len(shown) < 130 and "(515 characters)" in shown, shown


def test_the_lesson_prints_the_message_in_section_6_and_under_the_hood():
    message = next(c.text for c in BATTERY if c.name == "words before a key")
    assert f"message: {message}" in cell_outputs("00", "section-6-run")
    assert "message: " in cell_outputs("00", "misses-middle-run")


# --- 2. the assistant's chars sent, as a sum ---


def test_the_usage_cell_says_the_assistants_29_as_a_sum():
    assert "The assistant's 29 = its instructions 'Answer briefly.' (15) + the message (14)." in cell_outputs(
        "00", "e9786665"
    )


# --- 3 and 4: section 2's local bullet, section 6's 135M ---


def path() -> str:
    return words(" ".join(student_path("00")))


def test_the_local_bullet_points_to_its_set_up_and_its_recording():
    assert "a small real model on this machine (set-up: section 3; a recording of it: section 6)" in path()


def test_section_6_says_what_135m_means():
    section_6 = words(next(p for p in student_path("00") if p.startswith("## 6.")))
    assert "(a model of 135 million parameters, small enough for a laptop)" in section_6


# --- 5. the hood's recording paragraph, 7. one wording of "contract" ---


def test_the_hoods_recording_paragraph_points_back_to_section_6_and_to_the_failure_list():
    hood = words(cell_source("00", "22bec7af"))
    assert "So far every model was offline" not in hood
    assert hood.startswith("Four rows") and "Section 6 showed the last of these recordings." in hood
    assert "(a description of the exact JSON shape the reply must have)" in hood  # walk 25: said where it is used


CONTRACT = "the rule for which words of a message count as a fact"


def test_the_lesson_and_the_glossary_say_contract_in_lesson_01s_words():
    assert f"the *contract*, {CONTRACT}." in path()
    lesson_01 = words(" ".join(student_path("01")))
    assert f"**contract**: {CONTRACT}" in lesson_01
    glossary = Path("docs/glossary.md").read_text(encoding="utf-8").splitlines()
    row = next(line for line in glossary if line.startswith("| **contract** |"))
    assert row.startswith(f"| **contract** | {CONTRACT} (a *declaration*)")


# --- 6. exercise 1: a negative wait is told it cannot be one ---


def test_a_negative_wait_is_told_a_wait_cannot_be_negative():
    from tests.support.checker import said

    for negative in (-61.5, -1, -0.5, -60):
        told = said("00", "Exercise 1", negative, 61.5)
        assert "not quite" in told and "a wait cannot be negative" in told.lower(), told
    for other in (62.5, 0, 40):
        assert "cannot be negative" not in said("00", "Exercise 1", other, 61.5)
