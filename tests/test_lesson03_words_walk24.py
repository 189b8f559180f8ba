"""Lesson 03's third walk of round 24: the words a new student met undefined, and the glossary's manual injection row.

Finding 1 and 2: a *loop* is defined where the student path first names it (section 5's concrete example of a run a
new session cannot clean), in a sentence of its own (lesson 03's rule: no italic term defined in brackets
mid-sentence, tests/test_lesson03_reading_walk23.py), and section 7 points back to it. Finding 3: "tokens" and
"offline models" are said, not assumed. Finding 5: the reviewer's note is a note the program adds. Finding 6: the
glossary's row names the demo a student of lesson 03 can place.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.lesson_cells import cell_outputs, cell_source, student_path, words

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"
LOOP = "A *loop* is code that re-runs an agent until a check passes (lessons 05-06)."


def test_the_first_loop_on_the_student_path_is_defined_there() -> None:
    path = [words(cell) for cell in student_path("03")]
    first = next(i for i, cell in enumerate(path) if " loop" in cell)
    assert LOOP in path[first]
    assert path[first] == words(cell_source("03", "attach-filter-md"))


def test_section_5_says_concretely_what_a_new_session_cannot_change() -> None:
    said = words(cell_source("03", "attach-filter-md"))
    example = "For example, a loop that is re-running the operations desk still holds that desk's old reply"
    assert f"{LOOP} {example}" in said
    assert "which says `module=Billing`" in said
    assert "A new session does not change what that loop is about to send." in said
    assert "module=Billing" in cell_outputs("03", "attach-filter")  # true to the cell below


def test_section_7_points_back_to_the_loop_and_names_the_note_the_program_adds() -> None:
    said = words(cell_source("03", "72291c68"))
    assert "and so does a loop (section 5)" in said
    assert 'a note your own program adds, here from a "reviewer" step' in said
    assert "a reviewer's note" not in said


def test_section_8_says_what_tokens_and_the_offline_models_are() -> None:
    said = words(cell_source("03", "cell-22"))
    assert "tokens, the units model services count and bill" in said
    assert "offline models, scripted stand-ins for a real LLM" in said


def test_the_glossary_manual_injection_row_names_a_demo_lesson_03_students_can_place() -> None:
    row = next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if "| **manual injection** |" in line)
    assert "Demo150 (the seed's first program, run in lesson 02)" in row and "Demo160" in row
    assert "(Demo150)" not in row
