"""Lesson 05 walked at 4 of 5 (issue 32, walk 9): section 2 and the hood count the same layout details, every
exercise cell run first after a restart says to run the cells above, exercise 3's reminder is wrapped as the check's
message under it, and the demo's model has one name, the glossary's."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from course_lib.exercises import FEEDBACK_WIDTH
from course_lib.loop_demos import numbering_reminder, run_seed_demo

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "05_loop_agent_traced.ipynb"
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4}


def _cells() -> list[nbformat.NotebookNode]:
    return nbformat.read(LESSON, as_version=4).cells


def _cell(cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in _cells() if c.get("id") == cell_id)


def test_section_2_and_the_hood_count_the_same_details_of_the_layout():
    """The walker read "two details ... under the hood" in section 2 and "Three details" under the hood."""
    promised = re.search(r"\((\w+) details of that layout are explained under the", _cell("cell-06").source)
    hood = _cell("hood-format").source
    listed = re.match(r"(\w+) details of the layout", hood)
    assert promised and listed
    bullets = [line for line in hood.splitlines() if line.startswith("* ")]
    assert NUMBERS[promised.group(1).lower()] == NUMBERS[listed.group(1).lower()] == len(bullets)


def test_the_demos_model_has_one_name_defined_in_section_1_as_the_glossary_has_it():
    """The glossary said "numbering model", the lesson "fake LLM" and "fake model"."""
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    row = next(line for line in glossary.splitlines() if line.startswith("| **numbering model**"))
    assert "`NumberingChatClient`" in row and "section 1" in row
    defining = _cell("pieces-demo").source
    assert "is the *numbering model* ([glossary](../docs/glossary.md#numbering-model))" in defining
    text = " ".join(" ".join(c.source.split()) for c in _cells() if c.cell_type == "markdown")
    # one "fake model": walk 24's "The demo's fake model and its evaluator are the course's own code", under the
    # hood since walk 25, after the sentence that names it the numbering model
    assert len(re.findall(r"fake (?:LLM|model)", text)) == 1
    assert text.index("is the *numbering model*") < text.index("The demo's fake model")
    assert "The demo's fake model" in " ".join(_cell("hood-code").source.split())
    # walk 23: exercise 3 asks for model calls and names the numbering model in its set-up (walk 25's words)
    assert text.index("*numbering model*") < text.index("a new counter, the numbering model and")


async def test_exercise_3s_reminder_is_broken_into_lines_as_the_check_message_is():
    """The reminder was one 190-character line the browser wrapped; the check's message under it is at most
    FEEDBACK_WIDTH characters a line."""
    trace, _ = await run_seed_demo()
    said = numbering_reminder(trace)
    assert len(said.splitlines()) > 1 and max(len(line) for line in said.splitlines()) <= FEEDBACK_WIDTH
    assert " ".join(said.split()).startswith("From section 2: the input messages were numbered [1] to [3].")
    printed = "".join(o.get("text", "") for o in _cell("cell-26").outputs)
    assert max(len(line) for line in printed.splitlines()) <= FEEDBACK_WIDTH


EXERCISE_CELLS = [c.get("id") for c in _cells() if c.cell_type == "code" and 'check("Exercise' in c.source]


def test_the_lesson_has_three_exercise_cells():
    assert len(EXERCISE_CELLS) == 3


# A fresh kernel's exercise cells, for every lesson: tests/test_fresh_kernel_exercises.py.


def test_exercise_3s_text_does_not_call_the_reminder_one_line():
    """The reminder now takes several lines: the text above the cell must not say "the first line it prints"."""
    assert "first line it prints" not in " ".join(_cell("cell-25").source.split())
    # the reminder comes with a wrong answer only (tests/test_loop_lessons_walk12.py)
    said = " ".join(_cell("cell-25").source.split())
    assert "A wrong answer also gets a reminder of how section 2's run was numbered." in said
