"""Lessons 00 and 01, twelfth walk (issue 32): the words a student reads agree with the course and with the outputs.

Lesson 00 names the loop lessons as the course map does, and marks the exercise that needs lesson 02; lesson 01
labels the pairs it prints, counts the facts block's lines by their parts, and lists the words its objectives use.
"""

import re
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def lesson(name: str) -> nbformat.NotebookNode:
    return nbformat.read(next(NOTEBOOKS.glob(f"{name}_*.ipynb")), as_version=4)


def outputs(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


def test_lesson_00_names_the_loop_lessons_as_the_course_map_does():
    top = lesson("00").cells[0].source
    # walk 25: the seeds' sentence moved under the hood; it names the loop lessons the same way there
    hood = " ".join(next(c.source for c in lesson("00").cells if c.source.startswith("## Under the hood")).split())
    assert "one in Chinese on loops (lessons 05-06; lesson 07 joins both)." in hood
    assert "05-07" not in top and "05-07" not in hood


def test_lesson_00_exercise_3_and_section_6_are_for_day_0_like_the_rest():
    # walk 25: section 6 and Exercise 3 now state what they need; neither is sent after lesson 02
    cells = lesson("00").cells
    assert "best done after lesson 02" not in cells[0].source
    exercise = next(c.source for c in cells if c.source.startswith("**Exercise 3"))
    assert exercise.startswith("**Exercise 3.** A live writer") and "lesson 02" not in exercise


def test_lesson_01_labels_the_value_and_evidence_pairs_it_prints():
    cell = next(c for c in lesson("01").cells if "utf16_length(evidence)" in c.source)
    printed = [line for line in outputs(cell).splitlines() if "UTF-16 units = " in line]
    assert printed and all("value/evidence len() = " in line for line in printed)


def test_lesson_01_counts_the_blocks_lines_by_their_parts():
    cell = next(c for c in lesson("01").cells if "parse_prompt_block(fenced)" in c.source)
    found = re.search(r"lines: (\d+) \(the header, (\d+) facts, the footer\)", outputs(cell))
    assert found and int(found[1]) == int(found[2]) + 2


def test_lesson_01_lists_the_words_its_objectives_use():
    cells = lesson("01").cells
    assert "batch" in cells[0].source
    words = next(c.source for c in cells if c.source.startswith("### Words used"))
    assert "- **batch**:" in words and "- **candidate**:" in words


def test_lesson_01_names_the_rule_a_candidate_was_refused_under_for_every_row():
    from course_lib.memory import CANDIDATE_RULES

    cell = next(c for c in lesson("01").cells if '"refused under": refused_under' in c.source)
    rows = str(cell.outputs[-1].data["text/plain"]).splitlines()[1:]  # under the header
    # walk 21: a row shows the size checked first, a refusal of the whole batch that names no candidate
    named = (*(f"#1: {rule}" for rule in CANDIDATE_RULES), "the batch: too many candidates")
    assert rows and all(line.rstrip().endswith(named) for line in rows), rows
