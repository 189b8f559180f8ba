"""The rule every walk's "density" finding asked for, checked on every lesson's student path at once.

A new student reads everything before a lesson's "Under the hood" section. Walks of every lesson scored 4 of 5 for
density, not errors: paragraphs of five or more sentences, sentences of 40 words, lessons of 4000 words. The rule
here is the one the lessons were rewritten to: a paragraph is at most four sentences, a sentence at most 30 words, and
each lesson's student path stays within its word budget (what is longer moves under the hood or is cut). Wording tests
pin what a sentence says; this one pins how much a student reads.
"""

from __future__ import annotations

import pytest

from tests.support.lesson_cells import paragraphs, sentences, student_path

# Words on each lesson's student path, at most: a little above what the lesson holds now, so a new sentence is a choice.
BUDGET = {"00": 1700, "01": 2200, "02": 2500, "03": 2200, "04": 3200, "05": 1600, "06": 2100, "07": 3000}


def _paragraphs(number: str) -> list[str]:
    return [p for cell in student_path(number) for p in paragraphs(cell)]


@pytest.mark.parametrize("number", sorted(BUDGET))
def test_no_paragraph_on_the_student_path_is_over_four_sentences(number: str) -> None:
    long = [p[:80] for p in _paragraphs(number) if len(sentences(p)) > 4]
    assert not long, f"lesson {number}: paragraphs over four sentences: {long}"


@pytest.mark.parametrize("number", sorted(BUDGET))
def test_no_sentence_on_the_student_path_is_over_thirty_words(number: str) -> None:
    long = [s[:80] for p in _paragraphs(number) for s in sentences(p) if len(s.split()) > 30]
    assert not long, f"lesson {number}: sentences over 30 words: {long}"


@pytest.mark.parametrize("number", sorted(BUDGET))
def test_the_student_path_stays_within_its_word_budget(number: str) -> None:
    said = sum(len(p.split()) for p in _paragraphs(number))
    assert said <= BUDGET[number], f"lesson {number}: {said} words before Under the hood, budget {BUDGET[number]}"


def test_the_rule_reads_a_long_paragraph_as_long() -> None:
    """The splitter is not blind: five short sentences are five, and a code block's words are not prose."""
    five = "One. Two is here. Three? Four! `Five` too."
    assert len(sentences(paragraphs(five)[0])) == 5
    assert paragraphs("```python\nx = 1\n```\n\nA sentence.") == ["A sentence."]
