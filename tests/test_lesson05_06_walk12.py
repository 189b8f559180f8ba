"""Lessons 05 and 06 walked (issue 32, walk 12): an update is a piece of an answer or the loop's feedback, in the
glossary as in the lessons; the streamed run's updates are counted by kind, from the run; the stepper says which
steps it takes; the hood names the evaluator's scratch dict."""

from __future__ import annotations

import re
from pathlib import Path

import ipywidgets as widgets
import nbformat
import pytest
from agent_framework import AgentResponse, AgentResponseUpdate

from course_lib.exercises import FEEDBACK_WIDTH
from course_lib.loop import LoopAgentOptions, LoopContext
from course_lib.loop_demos import run_seed_demo, seed_loop, stream_seed_demo, updates_sentence
from course_lib.loop_panels import LoopStepper

ROOT = Path(__file__).resolve().parent.parent
LESSON_05 = ROOT / "notebooks" / "05_loop_agent_traced.ipynb"
LESSON_06 = ROOT / "notebooks" / "06_loop_options_compared.ipynb"


def _cell(lesson: Path, cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in nbformat.read(lesson, as_version=4).cells if c.get("id") == cell_id)


def _words(text: str) -> str:
    return " ".join(text.split())


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


# 1. The glossary's "update" and lesson 05's section 4 say the same thing, and it is true of the run.


def test_the_glossarys_update_row_says_an_update_is_part_of_an_answer_or_the_loops_feedback():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    row = next(line for line in glossary.splitlines() if line.startswith("| **update** "))
    assert "part of an answer" in row and "or the loop's feedback" in row
    assert "part of an answer, or the loop's feedback" in _words(_cell(LESSON_05, "cell-15").source)


async def test_a_streamed_loops_updates_hold_the_answers_pieces_and_each_feedback():
    _, _, updates = await stream_seed_demo()
    feedback = [u.text for u in updates if u.role == "user"]
    assert feedback == ["Feedback for iteration 1", "Feedback for iteration 2"]
    assert {u.role for u in updates} == {"assistant", "user"}


# 2. The stepper says which steps it takes, computed from the trace, in lessons 05 and 06.


@pytest.mark.parametrize(
    ("allowed", "options", "last"),
    [(3, None, 6), (2, None, 4), (1, None, 2), (3, LoopAgentOptions(fresh_context_per_iteration=True), 6)],
)
async def test_the_stepper_shows_its_range_of_steps_beside_the_slider(allowed, options, last):
    trace, _ = await run_seed_demo(allowed, options)
    stepper = LoopStepper(trace)
    [controls] = [child for child in stepper.children if isinstance(child, widgets.HBox)]
    labels = [child.value for child in controls.children if isinstance(child, widgets.Label)]
    assert labels == [f"steps 1 to {last}"]
    for typed in (99, 0, -4, 3):  # what the student typed does not change what the range says
        stepper.slider.value = max(min(typed, stepper.slider.max), stepper.slider.min)
        assert [c.value for c in controls.children if isinstance(c, widgets.Label)] == labels


def test_both_lessons_steppers_are_the_course_class():
    for lesson, cell_id in ((LESSON_05, "cell-19"), (LESSON_06, "cell-20")):
        assert "LoopStepper(" in _cell(lesson, cell_id).source


# 3. The scratch dict has its name, and it is the attribute LoopContext has.


def test_the_hood_names_the_evaluators_scratch_dict_by_its_attribute():
    hood = _words(_cell(LESSON_05, "hood-pieces").source)
    named = re.search(r"`(\w+)` \(a dict an evaluator may keep state in between iterations", hood)
    assert named and named.group(1) == "additional_properties"
    agent, messages = seed_loop()
    context = LoopContext(agent.inner_agent, agent.create_session(), messages, AgentResponse(messages=[]))
    assert context.additional_properties == {}
    exit_reason = _words(_cell(LESSON_06, "hood-exit-reason").source)
    assert "`LoopContext.additional_properties`" in exit_reason


# 4. How many updates came, and of which kinds, in one sentence computed from the run.


def _update(role: str, text: str, message_id: str) -> AgentResponseUpdate:
    return AgentResponseUpdate(role=role, contents=[text], message_id=message_id)


async def test_the_updates_sentence_counts_the_seed_runs_updates_by_kind():
    _, _, updates = await stream_seed_demo()
    assert _words(updates_sentence(updates)) == (
        "14 updates came: 12 pieces of the model's 3 answers (4 pieces each) and 2 feedback messages from the "
        "loop, each sent as one update; joined, they make 5 messages."
    )
    _, _, once = await stream_seed_demo(allowed=1)
    assert _words(updates_sentence(once)) == (
        "4 updates came: 4 pieces of the model's 1 answer and no feedback; joined, they make 1 message."
    )


def test_the_updates_sentence_is_computed_for_any_run():
    updates = [
        _update("assistant", "Hi", "a"),
        _update("user", "More", "f1"),
        _update("user", "please", "f1"),
        _update("assistant", "Done", "b"),
    ]
    assert _words(updates_sentence(updates, model="the worker")) == (
        "4 updates came: 2 pieces of the worker's 2 answers (1 piece each) and 1 feedback message from the loop, "
        "in 2 updates; joined, they make 3 messages."
    )
    assert updates_sentence([]) == "No updates came."
    assert max(len(line) for line in updates_sentence(updates).splitlines()) <= FEEDBACK_WIDTH


async def test_both_lessons_print_the_updates_sentence_of_their_run():
    _, _, updates = await stream_seed_demo()
    said = updates_sentence(updates)
    assert "updates_sentence(updates)" in _cell(LESSON_05, "cell-16").source
    assert said in _printed(_cell(LESSON_05, "cell-16"))
    assert "updates_sentence(updates)" in _cell(LESSON_06, "cell-08").source
    assert said in _printed(_cell(LESSON_06, "cell-08"))
    assert "14 pieces" not in _printed(_cell(LESSON_06, "cell-08"))
