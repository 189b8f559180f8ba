"""Lesson 06's third student walk (issue 32): the options tables fit a laptop's notebook width, the stepper says
which session each model call ran on, the judge's table names the worker, and exercise 3 answers its likely wrong
answers."""

from __future__ import annotations

from agent_framework import Message

from course_lib.exercises import check, exercise
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import OTHER_OPTIONS, messages_frame, options_frame, run_seed_demo
from course_lib.loop_panels import LoopStepper, session_words


async def test_the_options_tables_count_in_numbers_and_say_model_calls():
    first = await options_frame({"defaults": LoopAgentOptions(), "two": LoopAgentOptions(max_iterations=2)})
    measured = ["model calls", "messages sent per call", "messages returned", "sessions created"]
    assert list(first.columns) == ["option", *measured]  # numbers only: narrow enough beside the option names
    assert list(first["model calls"]) == [3, 2]
    other = await options_frame(OTHER_OPTIONS)
    assert list(other.columns) == ["option", "what it does", "returned to the caller", "sessions created"]


def _model_steps(stepper: LoopStepper) -> list[str]:
    return [session_words(stepper.trace, r.step) for r in stepper.trace.rows if r.actor == "LLM"]


async def test_the_stepper_says_a_fresh_context_is_a_new_session_and_the_default_the_same():
    fresh, _ = await run_seed_demo(options=LoopAgentOptions(fresh_context_per_iteration=True))
    assert [w.split("</b>: ")[1] for w in _model_steps(LoopStepper(fresh))] == [
        "new (session 1 of 3 this run creates)</div>",
        "new (session 2 of 3 this run creates)</div>",
        "new (session 3 of 3 this run creates)</div>",
    ]
    plain, _ = await run_seed_demo()
    stepper = LoopStepper(plain)
    words = [w.split("</b>: ")[1] for w in _model_steps(stepper)]
    assert words == ["new (the only one this run creates)</div>", *["the same as the call before</div>"] * 2]
    stepper.slider.value = 1
    assert "<b>Session</b>: new (the only one this run creates)" in stepper.view.value
    stepper.slider.value = 2  # an evaluator's step says nothing of sessions
    assert "Session" not in stepper.view.value


async def test_with_the_callers_session_the_first_call_runs_on_it():
    fresh, _ = await run_seed_demo(options=LoopAgentOptions(fresh_context_per_iteration=True), caller_session=True)
    words = [w.split("</b>: ")[1] for w in _model_steps(LoopStepper(fresh))]
    assert words == [
        "the caller's (the loop created none)</div>",
        "new (session 1 of 2 this run creates)</div>",
        "new (session 2 of 2 this run creates)</div>",
    ]


def test_the_judges_table_can_name_the_worker():
    messages = [Message(role="assistant", contents=["Draft 1."]), Message(role="user", contents=["more"])]
    assert list(messages_frame(messages, model="the worker")["from"]) == ["the worker", "the loop (feedback)"]
    assert messages_frame(messages)["from"].iloc[0] == "the model"


def test_exercise_3_answers_two_and_zero_with_their_own_hints():
    entry = exercise("06", "Exercise 3")
    two, zero = check("Exercise 3", 2, 1, entry.hint), check("Exercise 3", 0, 1, entry.hint)
    assert "section 3's first table" in two and "Does a stop from A end the loop by itself?" in zero


def test_no_claim_label_shows_in_the_lessons_text():
    """Claim labels (L27, F31) are the claim map's names for cells; a reader never met them."""
    import json
    import re
    from pathlib import Path

    lesson = Path(__file__).resolve().parents[1] / "notebooks" / "06_loop_options_compared.ipynb"
    for cell in json.loads(lesson.read_text(encoding="utf-8"))["cells"]:
        text = "".join(cell["source"])
        assert not re.search(r"\b[LF]\d\d\b", text), f"cell {cell.get('id')}: a claim label in the text"
