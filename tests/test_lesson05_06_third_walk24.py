"""Lessons 05 and 06 walked a third time (issue 32, walk 24): the stepper's "Go to step" box has a row of its own,
before and after its cell runs; 05 says when its table's two later words come, why exercise 3 calls seed_loop, and
answers a 3 in exercise 2; 06 says what the hood runs, what the numbering model is, and says "iteration" for a re-run.
"""

from __future__ import annotations

import json
from pathlib import Path

import ipywidgets as widgets
import nbformat
import pytest

from course_lib.exercises import check, exercise
from course_lib.loop_demos import run_seed_demo
from course_lib.loop_panels import LoopStepper

ROOT = Path(__file__).resolve().parent.parent
LESSON_05 = ROOT / "notebooks" / "05_loop_agent_traced.ipynb"
LESSON_06 = ROOT / "notebooks" / "06_loop_options_compared.ipynb"


def _student_path(lesson: Path) -> list[str]:
    texts = []
    for cell in nbformat.read(lesson, as_version=4).cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("## Under the hood"):
            break
        if cell.cell_type == "markdown":
            texts.append(" ".join(cell.source.split()))
    return texts


def _said(lesson: Path) -> str:
    return " ".join(_student_path(lesson))


# 1. "Go to step" and its box on their own row, below the row of buttons, slider and range.


@pytest.mark.parametrize("allowed", [1, 3])
async def test_the_go_to_step_box_has_a_row_of_its_own(allowed):
    trace, _ = await run_seed_demo(allowed)
    stepper = LoopStepper(trace)
    [controls] = [child for child in stepper.children if isinstance(child, widgets.HBox)]
    assert stepper.step_box not in controls.children  # never after "steps 1 to 6" in the same row
    assert stepper.steps_label in controls.children
    rows = list(stepper.children)
    assert rows.index(stepper.step_box) == rows.index(controls) + 1  # the row under the controls
    assert rows.index(stepper.help_note) == rows.index(stepper.step_box) + 1  # then its note


@pytest.mark.parametrize("lesson", [LESSON_05, LESSON_06])
def test_the_saved_picture_shows_the_box_on_its_own_row(lesson):
    state = json.loads(lesson.read_text())["metadata"]["widgets"]
    models = state["application/vnd.jupyter.widget-state+json"]["state"]
    boxes = [
        key
        for key, m in models.items()
        if m["model_name"] == "TextModel" and m["state"].get("description") == "Go to step"
    ]
    assert boxes
    for key in boxes:
        parents = [m for m in models.values() if f"IPY_MODEL_{key}" in m["state"].get("children", [])]
        assert [p["model_name"] for p in parents] == ["VBoxModel"]  # a row of the stepper, not in the HBox


# 2. Lesson 05 says the table's two later words in a sentence.


def test_lesson_05_says_when_the_tables_later_words_come():
    said = _said(LESSON_05)
    assert "Sessions: section 2; streaming: section 4." not in said
    assert (
        "Two words in this table come later: a *session* (one conversation's history) in section 2, *streaming* "
        "in section 4." in said
    )


# 3. Exercise 3 says why it calls seed_loop.


def test_lesson_05s_exercise_3_says_why_it_calls_seed_loop():
    # walk 25 (tests/test_lesson05_walk25.py): what seed_loop sets up afresh says why the cell calls it
    assert "seed_loop(...) sets up section 2's demo afresh: a new counter, the numbering model" in _said(
        LESSON_05
    ).replace("`", "")


# 4. Lesson 06 says what the hood runs, all of it.


def test_lesson_06_says_which_options_come_back_and_what_the_hood_runs():
    said = _said(LESSON_06)
    assert "only `on_behalf_of_author_name` comes back" not in said
    # walk 25 (tests/test_lesson06_walk25.py) cut the student's-path note of what section 5 and the hood run
    # (cross-reference bookkeeping); the hood still runs each of those options, as checked below
    assert "Section 5 uses" not in said and "*Under the hood* runs" not in said
    hood = " ".join(
        c.source
        for c in nbformat.read(LESSON_06, as_version=4).cells
        if c.cell_type == "code" and c.get("id") in ("20f7d158", "3ce05afb", "5b60f168")
    )
    assert "max_iterations=None" in hood and "exclude_on_behalf_of_messages=True" in hood
    assert "create_session()" in hood and "fresh_context_per_iteration=True" in hood


# 5. Lesson 06 says what the numbering model is at its first use.


def test_lesson_06_says_what_the_numbering_model_is():
    said = _said(LESSON_06)
    assert "the numbering fake model, an offline stand-in that numbers every message." in said  # walk 25: shorter
    assert said.index("numbering fake model,") <= said.index("numbering")


# 6. "re-run" is not on lesson 06's student path: it says "iteration", which it defines.


def test_lesson_06s_student_path_says_iteration_not_re_run():
    said = _said(LESSON_06)
    assert "re-run" not in said
    assert "*iteration*" in said


# 7. Exercise 2 of lesson 05: a 3 (the three input messages counted) gets a hint aimed at it.


def test_lesson_05s_exercise_2_answers_a_3_with_the_input_messages():
    hint = exercise("05", "Exercise 2").hint
    said = " ".join(check("Exercise 2", 3, 1, hint).split())
    assert "leaves out your three input messages" in said
    generic = " ".join(check("Exercise 2", 7, 1, hint).split())
    assert "three input messages" not in generic
    [slip] = [text for value, text in exercise("05", "Exercise 2").misses if value == 3]
    assert "1" not in slip and "one" not in slip.lower()  # never the answer
