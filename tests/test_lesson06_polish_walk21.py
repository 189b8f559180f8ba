"""Lesson 06 walked a second time (issue 32, walk 21, all polish): section 7 names the middleware's other features in
one short line and leaves their details (``next_message``, ``record_feedback``) to the hood, section 1 says "a run
with ``stream=True``" instead of "with it", the comment on ``stop_sentence`` says what its count changes, and the
saved stepper shows the line on typed steps."""

from __future__ import annotations

import html
import re
import warnings
from pathlib import Path

import ipywidgets as widgets
from agent_framework._harness._loop import AgentLoopMiddleware
from support.lesson_cells import cell_source, stored_lesson
from test_lesson06_polish_walk19 import _middleware_calls  # one runner for both walks' middleware tests

from course_lib.loop_demos import (
    run_seed_demo,
    stop_sentence,
)
from course_lib.loop_panels import steps_help

warnings.filterwarnings("ignore", message=".*AgentLoopMiddleware is experimental.*")

NEW_NAMES = (
    "fresh_context=True",
    "AgentLoopMiddleware.with_judge",
    "(True, feedback)",
    "next_message",
    "record_feedback",
)


def _words(text: str) -> str:
    return " ".join(text.replace("*", "").split()).replace("`", "")


# region 1. Section 7: one short line on the middleware's other features; their details under the hood


def test_section_7_names_the_middlewares_other_features_in_one_line_and_no_new_names():
    said = _words(cell_source("06", "cell-18"))
    for name in NEW_NAMES:
        assert name not in said, name
    assert (
        "The table compares the middleware at its defaults. It also has a fresh-context mode, a judge and "
        "feedback of your own; Under the hood shows them." in said
    )


def test_the_hood_gives_the_middlewares_other_features_with_the_names_section_7_left_out():
    cells = stored_lesson("06")["cells"]
    ids = [c.get("id") for c in cells]
    hood = _words(cell_source("06", "hood-middleware-options"))
    assert ids.index("hood-head") < ids.index("hood-middleware-options")
    for name in NEW_NAMES:
        assert name in hood, name
    assert (
        "a should_continue that returns (True, feedback): the middleware hands that feedback text to two functions "
        "you may give it, next_message, which writes the next input, and record_feedback, which writes each run's "
        "entry in the progress log; the text reaches the model only through what they write. At the defaults, that "
        "text reaches the model nowhere." in hood
    )


async def test_what_the_hood_says_of_a_should_continues_feedback_is_what_the_middleware_does():
    plain = await _middleware_calls()
    assert not any("name the owner" in text for text in plain[1])  # at the defaults: nowhere
    told = await _middleware_calls(next_message=lambda *, feedback, **_: f"Feedback: {feedback}")
    assert told[1][-1] == "Feedback: name the owner"
    logged = await _middleware_calls(record_feedback=lambda *, feedback, **_: feedback)
    assert "Progress so far:\n- name the owner" in logged[1]
    fresh = await _middleware_calls(fresh_context=True)
    assert fresh[1][: len(fresh[0])] == fresh[0]  # each re-run starts again from the caller's messages
    assert callable(AgentLoopMiddleware.with_judge)


# region 2. Section 1: "a run with stream=True", never "with it"


def test_section_1_says_which_run_section_2_shows():
    above = _words(cell_source("06", "other-options"))
    assert "section 2 shows a run with it" not in above
    assert "Every run so far is one; section 2 shows a run with stream=True." in above  # walk 22: short sentences


# region 3. The comment on stop_sentence says what its count changes


async def test_the_stop_sentence_comment_says_what_the_count_changes_and_it_does():
    comment = " ".join(
        line.removeprefix("#").strip() for line in cell_source("06", "cell-14").splitlines() if line.startswith("#")
    )
    assert "for a loop of several, pass evaluators=N)" not in comment
    assert "every loop here that uses it has one evaluator" not in comment
    # the fourth walk of lesson 06: no cell passes evaluators=, so the comment no longer speaks of it
    assert "stop_sentence(response): why the loop stopped, in words" in comment and "evaluators=" not in comment
    _, response = await run_seed_demo(allowed=1)
    assert "the evaluator said stop" in stop_sentence(response)
    assert "all 3 evaluators said stop" in stop_sentence(response, evaluators=3)


# region 4. The saved stepper shows the line on typed steps


def test_lesson_06s_saved_stepper_shows_the_line_on_typed_steps():
    state = stored_lesson("06")["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    shown = [m["state"].get("value", "") for m in state.values() if m["model_name"] in ("LabelModel", "HTMLModel")]
    help_line = html.escape(steps_help(widgets.IntSlider(min=1, max=6)), quote=False)
    assert any(help_line in value for value in shown), shown  # an HTML note now, so it wraps (lesson 05's walk 21)


def test_exercise_3s_hint_for_0_points_at_the_iteration_where_a_stop_does_not_end_the_loop():
    """Walk 21 (third walk of lesson 06): the hint for 0 pointed at iteration 3, where both evaluators say stop and
    the loop ends, which a student who answered 0 reads as a confirmation. Iteration 2 shows the point."""
    import nbformat

    from course_lib.exercises import check, exercise

    text = " ".join(check("Exercise 3", 0, 1, exercise("06", "Exercise 3").hint, namespace={}).split())
    assert "iteration 2 in section 3's first table" in text, text
    cells = nbformat.read(next(Path("notebooks").glob("06_*.ipynb")), as_version=4).cells
    heading = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## 3"))
    html = next(o["data"]["text/html"] for o in cells[heading + 1].outputs if "text/html" in o.get("data", {}))
    rows = re.findall(r"<td[^>]*>\s*(\w+)\s*</td>\s*<td[^>]*>\s*(\w+)\s*</td>\s*<td[^>]*>\s*(\w+)\s*</td>", html)
    assert ("2", "first", "stop") in rows and ("2", "second", "continue") in rows, rows
