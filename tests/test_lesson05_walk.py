"""Lesson 05's student walk (issue 32): hints that cannot confirm a wrong count, every term the options table uses
defined, the evaluator's input shown the same way in the trace, the table and the stepper, and readable cells."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from course_lib.exercises import check, exercise
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import options_rows, run_seed_demo
from course_lib.loop_panels import LoopStepper

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "05_loop_agent_traced.ipynb"


def _path_cells() -> list[nbformat.NotebookNode]:
    """The cells of the student's path: every cell before "Under the hood"."""
    cells = nbformat.read(LESSON, as_version=4).cells
    return cells[: next(i for i, c in enumerate(cells) if c.source.startswith("## Under the hood"))]


def test_exercise_1_tells_the_count_that_adds_the_last_iteration_from_the_right_one():
    first = exercise("05", "Exercise 1")
    said = check("Exercise 1", 11, 9, first.hint)
    assert "not quite" in said and "before" in said  # 3 + 2 x 4 counts the last call's own answer and feedback
    # no per-iteration step and none of the chart's numbers: lesson 05's fourth walk found "3, 5, 7" made it sums
    assert "per iteration" not in first.hint and "3, 5, 7" not in first.hint and "section 3's chart" in first.hint


def test_exercises_2_and_3_name_their_tempting_wrong_counts():
    # the caller's 3 + 1 answer: the hint asks what the response leaves out, without the subtraction (walk 5)
    assert "leaves out" in " ".join(check("Exercise 2", 4, 1, exercise("05", "Exercise 2").hint).split())
    assert "call" in check("Exercise 3", 5, 2, exercise("05", "Exercise 3").hint).split("not quite.")[1].split(".")[0]


def test_the_options_table_says_what_a_session_and_a_token_are():
    notes = {row["option"]: row["what it does"] for row in options_rows(LoopAgentOptions())}
    # the first row that names a session says what one is (lesson 05's fifth walk: the row above it did not)
    assert "session (a new conversation history)" in notes["fresh_context_per_iteration"]
    assert "word" in notes["max_tokens"]  # a token: a piece of a word


async def test_every_evaluator_row_of_the_trace_table_names_the_initial_messages():
    trace, _ = await run_seed_demo()
    evaluations = trace.to_frame().query("actor == 'Evaluator'")["saw"]
    assert all("3 initial messages" in saw for saw in evaluations)


async def test_the_stepper_shows_the_evaluators_initial_messages_once_then_says_they_are_the_same():
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    stepper.slider.value = 2
    assert "Initial messages" in stepper.view.value and "[1] Original message from user." in stepper.view.value
    stepper.slider.value = 4
    assert "the same 3 messages as at step 2" in stepper.view.value and "[1] Original" not in stepper.view.value


async def test_no_step_repeats_the_feedback_it_already_lists_as_feedback_so_far():
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    for step in range(1, stepper.slider.max + 1):
        stepper.slider.value = step
        assert "Feedback so far" not in stepper.view.value, f"step {step}"
    assert stepper.view.value.split("Previous feedback")[1].count("<li>") == 2  # step 6 lists both, once


def test_the_lesson_says_maf_python_has_no_loop_agent_and_uses_no_jargon_for_its_own_code():
    text = "\n".join(c.source for c in _path_cells() if c.cell_type == "markdown")
    assert "MAF for Python has none" in text and "scenario code" not in text  # walk 25's shorter words


def test_the_lesson_says_why_feedback_is_not_numbered_and_leaves_the_seeds_format_under_the_hood():
    path = _path_cells()
    text = "\n".join(c.source for c in path if c.cell_type == "markdown")
    # walk 24: the reason, not a restatement ("not numbered: a feedback message is a user-role message...")
    assert "The feedback has no `[n]`: only the counter numbers messages" in " ".join(text.split())
    assert "`Feedback:Feedback for iteration 1`" not in text
    hood = nbformat.read(LESSON, as_version=4).cells[len(path) :]
    assert any("`Feedback:Feedback for iteration 1`" in c.source for c in hood if c.cell_type == "markdown")


def test_no_code_line_of_the_lesson_needs_horizontal_scrolling():
    """100 characters fit a code cell beside JupyterLab's file browser; the Colab cell is collapsed and shared."""
    cells = [c for c in nbformat.read(LESSON, as_version=4).cells if "colab-setup" not in c.metadata.get("tags", [])]
    long = [line for c in cells if c.cell_type == "code" for line in c.source.splitlines() if len(line) > 100]
    assert not long, long


def test_the_exercise_3_cell_introduces_seed_loop_in_words_first():
    cells = _path_cells()
    index = next(i for i, c in enumerate(cells) if "seed_loop(" in c.source and c.cell_type == "code")
    assert "seed_loop" in cells[index - 1].source and "inner_agent" in cells[index - 1].source


def test_no_heading_carries_a_bare_claim_id():
    cells = nbformat.read(LESSON, as_version=4).cells
    headings = [line for c in cells if c.cell_type == "markdown" for line in c.source.splitlines() if line[:1] == "#"]
    assert not [h for h in headings if re.search(r"\([A-Z]\d+\)", h)]


@pytest.mark.parametrize("wrong", ["hello", None, [1, 2]])
def test_the_stepper_refuses_what_is_not_a_trace_in_words(wrong):
    with pytest.raises(TypeError, match=r"steps through a loop's trace .* not a") as refused:
        LoopStepper(wrong)
    assert "No stepper was made." in str(refused.value)
