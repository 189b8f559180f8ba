"""Lesson 03's third walk of round 24: the words a new student met undefined, and the glossary's manual injection row.

Finding 1 and 2: a *loop* is defined where the student path first names it, in a sentence of its own (lesson 03's
rule: no italic term defined in brackets mid-sentence, tests/test_lesson03_reading_walk23.py); walk 25 moved the loop
and its example under the hood, so the student path names none. Finding 3: "tokens" and
"offline models" are said, not assumed. Finding 5: the reviewer's note is a note the program adds. Finding 6: the
glossary's row names the demo a student of lesson 03 can place.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.lesson_cells import cell_outputs, cell_source, student_path, words

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"
LOOP = "A *loop* is code that re-runs an agent until a check"


def test_a_loop_named_on_the_student_path_is_defined_where_it_is_first_named() -> None:
    """Walk 25 moved the loop under the hood, so the student path names none; if one comes back, it comes defined."""
    path = [words(cell) for cell in student_path("03")]
    first = next((i for i, cell in enumerate(path) if " loop" in cell), None)
    assert first is None or LOOP in path[first]


def test_the_hood_says_concretely_what_a_new_session_cannot_change() -> None:
    # walk 25: section 5's loop example moved under the hood, where the same example already was
    said = words(cell_source("03", "hood-filter-loop"))
    assert LOOP in said
    assert "the loop's input holds that desk's old reply, with `module=Billing`" in said
    assert "Without the filter, its next call would send that value again" in said
    assert "module=Billing" in cell_outputs("03", "attach-filter")  # true to section 5's cell


def test_section_7_names_the_note_the_program_adds() -> None:
    said = words(cell_source("03", "72291c68"))
    assert "so does a loop" not in said  # walk 25: section 5 no longer defines a loop
    assert 'a note your own program adds, here from a "reviewer" step' in said
    assert "a reviewer's note" not in said


def test_section_8_says_what_tokens_and_the_offline_models_are() -> None:
    said = words(cell_source("03", "hood-one-desk"))  # fourth walk 25: moved under the hood (word budget)
    assert "Model services count and bill *tokens*, pieces of words, not characters" in said  # third walk 25
    assert "offline models, scripted stand-ins for a real LLM" in said


def test_the_glossary_manual_injection_row_names_a_demo_lesson_03_students_can_place() -> None:
    row = next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if "| **manual injection** |" in line)
    assert "Demo150 (the seed's first program, run in lesson 02)" in row and "Demo160" in row
    assert "(Demo150)" not in row
