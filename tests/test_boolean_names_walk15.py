"""A True/False answer typed as a word Python does not know (issue 32, walk 7 of lesson 04, finding 1).

``answer_1 = true`` and ``answer_1 = Flase`` were told first that the word "has no quotes", which sent the student
to quote it (and a quoted 'true' is text, another wrong kind). For every exercise whose answer is True or False, in
every lesson, the checker now leads with "true is not a Python value: Python writes True or False, with a capital
letter and no quotes", a misspelling named the same way, and says it in the same words whether the answer the
cell computes is True or False.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from support.checker import exercise_cells, run_each_in_a_fresh_shell, run_in_shell

from course_lib.exercises import EXERCISES, unquoted_name_guidance

LEAD = "is not a Python value: Python writes True or False, with a capital letter and no quotes."
BOOLEAN_EXERCISES = {(one.lesson, one.label) for one in EXERCISES if one.answer_type is bool}
CELLS = [(lesson, label, source) for lesson, label, source in exercise_cells() if (lesson, label) in BOOLEAN_EXERCISES]
WORDS = ["true", "Flase", "FALSE", "ture", "yes"]
ANSWER_LINE = re.compile(r"^(answer_\d+) = .*$", re.MULTILINE)


def _typed(source: str, word: str) -> str:
    """The checking cell with its answer line set to ``word``, typed bare."""
    return ANSWER_LINE.sub(lambda line: f"{line.group(1)} = {word}", source, count=1)


def test_every_boolean_exercise_has_its_checking_cell():
    assert {(lesson, label) for lesson, label, _ in CELLS} == BOOLEAN_EXERCISES
    assert {"01", "04", "07"} <= {lesson for lesson, _, _ in CELLS}


@pytest.fixture(scope="module")
def fresh_runs() -> dict[tuple[str, str, str], str]:
    """Each boolean exercise cell with each word, run first in a fresh kernel (the answer's kind read from the cell)."""
    keys = [(lesson, label, word) for lesson, label, _ in CELLS for word in WORDS]
    sources = [_typed(source, word) for _, _, source in CELLS for word in WORDS]
    return {key: " ".join(said.split()) for key, said in zip(keys, run_each_in_a_fresh_shell(sources), strict=True)}


@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize(("lesson", "label"), sorted(BOOLEAN_EXERCISES))
def test_a_bare_word_for_a_true_false_answer_leads_with_not_a_python_value(fresh_runs, lesson, label, word):
    said = fresh_runs[(lesson, label, word)]
    assert said.startswith(f"{label}: not checked yet. '{word}' {LEAD}"), said[:300]
    assert "has no quotes" not in said and "put it in quotes" not in said
    assert f"NameError: name '{word}' is not defined" in said  # Python's own line, still shown and explained


CHECKED_AFTER = "whether it is the right answer is checked after that."
"""Said after the spelling advice (walk 9): "Write True." read as being told the answer, then graded "not quite"."""


@pytest.mark.parametrize(
    ("word", "advice"),
    [
        ("true", f"If you meant True, write True; {CHECKED_AFTER}"),
        ("FALSE", f"If you meant False, write False; {CHECKED_AFTER}"),
    ],
)
def test_python_s_spelling_missed_is_given_its_spelling(fresh_runs, word, advice):
    assert all(advice in fresh_runs[(lesson, label, word)] for lesson, label, _ in CELLS)


@pytest.mark.parametrize(("word", "meant"), [("Flase", "False"), ("ture", "True")])
def test_a_misspelling_is_named_as_one(fresh_runs, word, meant):
    for lesson, label, _ in CELLS:
        said = fresh_runs[(lesson, label, word)]
        assert f"'{word}' looks like {meant} misspelled: if you meant {meant}, write {meant}; {CHECKED_AFTER}" in said


@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize(("lesson", "label"), sorted(BOOLEAN_EXERCISES))
def test_the_words_are_the_same_whether_the_answer_is_true_or_false(capsys, lesson, label, word):
    """Run again after the cell computed its answer once (its ``right`` readable): one form for either answer."""
    source = next(source for one, named, source in CELLS if (one, named) == (lesson, label))
    told = {}
    for value in (True, False):
        names = {"right": value, "admitted": value, "run6": SimpleNamespace(final_correct=value)}
        told[value] = run_in_shell(capsys, _typed(source, word), **names)
    assert told[True] == told[False]
    assert f"'{word}' {LEAD}" in told[True], told[True][:300]


def test_a_word_of_unknown_kind_spelled_as_a_boolean_leads_the_same_and_keeps_the_text_option():
    """When the cell's expected value cannot be read at all, ``true`` may still be text: both are said, the Python
    value first."""
    said = " ".join(unquoted_name_guidance(NameError("x", name="true")).split())
    assert said.startswith(f"The word 'true' {LEAD}") or said.startswith(f"'true' {LEAD}"), said
    assert "If your answer is the text true, put it in quotes: 'true'." in said
    text = " ".join(unquoted_name_guidance(NameError("x", name="Billing")).split())
    assert "Billing has no quotes around it" in text  # a word that is no boolean keeps its words


def test_a_long_bare_word_for_a_true_false_answer_leads_the_same_way():
    word = "t" * 80
    said = " ".join(unquoted_name_guidance(NameError("x", name=word), True, "answer_1").split())
    assert said.startswith(f"'{'t' * 60}… (80 characters)' {LEAD}"), said[:200]
    assert "has no quotes" not in said
