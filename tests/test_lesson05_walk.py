"""Lesson 05's student walk (issue 32): hints that cannot confirm a wrong count, every term the options table uses
defined, the evaluator's input shown the same way in the trace, the table and the stepper, and readable cells."""

from __future__ import annotations

from pathlib import Path

import nbformat

from course_lib.exercises import check, exercise

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "05_loop_agent_traced.ipynb"


def _path_cells() -> list[nbformat.NotebookNode]:
    """The cells of the student's path: every cell before "Under the hood"."""
    cells = nbformat.read(LESSON, as_version=4).cells
    return cells[: next(i for i, c in enumerate(cells) if c.source.startswith("## Under the hood"))]


def test_exercise_1_tells_the_count_that_adds_the_last_iteration_from_the_right_one():
    first = exercise("05", "Exercise 1")
    said = check("Exercise 1", 11, 9, first.hint)
    assert "not quite" in said and "before" in said  # 3 + 2 x 4 counts the last call's own answer and feedback
    assert "per iteration" not in first.hint and "3, 5, 7" in first.hint


def test_exercises_2_and_3_name_their_tempting_wrong_counts():
    assert "input" in check("Exercise 2", 4, 1, exercise("05", "Exercise 2").hint)  # the caller's 3 + 1 answer
    assert "call" in check("Exercise 3", 5, 2, exercise("05", "Exercise 3").hint).split("not quite.")[1].split(".")[0]
