"""Lessons 05 and 06, second walk 24 (issue 32): what "would make it a 5" for new students of each lesson.

Lesson 05:
1. Section 4 runs ``loop.run(..., stream=True)`` with no ``await`` where section 2 awaited ``run(...)``: the lesson
   says why (it returns the stream at once; ``async for`` reads it; ``await stream.get_final_response()`` waits).
2. "The feedback is not numbered: a feedback message is a user-role message..." read as a reason and was none: the
   reason is that only the counter numbers messages, and the loop writes the feedback without it.
3. Exercises 1 and 2 name their input: section 2's demo, with ``run_seed_demo(allowed=...)``.
4. The options table's "session" and "streaming" point to where they are explained; the ``exclude_on_behalf_of``
   row says which messages are the loop's own (its feedback).
5. "The course's copy of the seed's demo... The course's copy of the seed's evaluator" said once, plainly.
6. The stepper's box: ``-1`` is a whole number out of range ("There is no step -1"), not "not a step number"; an
   optional minus sign then digits is a whole number, anything else is still refused as before.
Lesson 06:
1. One pass of the agent inside the loop is an *iteration*, said early and used on the student path.
2. ``context`` is explained in section 3, where ``decide(context)`` first uses it.
3-4. "The other options" cell: each row changes one option from the defaults; which of them come back later.
5. The opening points to the glossary's loop-half table and writes *LLM* out.
6. Section 7 quotes the one-line wiring of the middleware.
"""

from __future__ import annotations

import html
import re

import pytest
from support.lesson_cells import cell_outputs, cell_source, plain_words, student_path, words

from course_lib.loop_demos import run_seed_demo
from course_lib.loop_panels import LoopStepper, typed_step_problem

# region Lesson 05


def test_05_section_4_says_why_run_has_no_await_with_stream():
    said = words(cell_source("05", "cell-15"))
    assert (
        "With `stream=True`, `run(...)` has no `await`: it returns the stream at once. `async for` reads the stream's "
        "updates, and `await stream.get_final_response()` waits for the end." in said
    )
    code = cell_source("05", "cell-16")
    assert "stream = loop_streamed.run(messages_streamed, stream=True)" in code
    assert "await stream.get_final_response()" in code


def test_05_the_unnumbered_feedback_is_given_its_real_reason():
    said = words(cell_source("05", "cell-08"))
    assert (
        "The feedback has no `[n]`: only the counter numbers messages (your input and the model's answers), and the "
        "loop writes the feedback without it." in said
    )
    assert "The feedback is not numbered" not in said


@pytest.mark.parametrize(("cell", "allowed"), [("cell-21", 4), ("cell-23", 1)])
def test_05_exercises_1_and_2_name_the_demo_they_run(cell, allowed):
    said = words(cell_source("05", cell))
    assert f"Section 2's demo again, but its evaluator allows {allowed} iteration" in said
    assert f"(`run_seed_demo(allowed={allowed})` runs it)" in said


def test_05_exercise_code_runs_what_the_words_name():
    assert "run_seed_demo(allowed=4)" in cell_source("05", "cell-22")
    assert "run_seed_demo(allowed=1)" in cell_source("05", "cell-24")


def test_05_the_options_table_points_to_where_sessions_and_streaming_are_explained():
    after_table = words(cell_source("05", "pieces-demo"))
    # a sentence of its own, since walk 24's third round (tests/test_lesson05_06_third_walk24.py)
    assert after_table.startswith("Two words in this table come later: a *session*")
    table = words(cell_outputs("05", "options-table"))
    assert "leave the loop's own messages (its feedback) out of what the caller gets back" in table


def test_05_the_demo_s_code_is_said_to_be_the_course_s_once():
    said = words(cell_source("05", "pieces-demo"))
    # walk 25 (tests/test_lesson05_walk25.py): said under the hood, where the demo's code is shown
    hood = words(cell_source("05", "hood-code"))
    assert "The demo's fake model and its evaluator are the course's own code, in `course_lib.loop_demos`." in hood
    assert "The course's copy" not in said + hood and "course's copy" not in said + hood


async def _stepper_at(value: int) -> LoopStepper:
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    stepper.slider.value = value
    return stepper


def _shown(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


@pytest.mark.parametrize(("typed", "shown"), [("-1", "-1"), ("-2", "-2"), (" -1 ", "-1"), ("-0", "-0"), ("-06", "-06")])
async def test_05_a_negative_whole_number_is_a_step_the_run_does_not_have(typed, shown):
    stepper = await _stepper_at(4)
    stepper.step_box.value = typed
    assert stepper.slider.value == 4 and stepper.step_box.value == "4"  # refused: nothing changes
    said = _shown(stepper.typed_note.value)
    assert said == f"There is no step {shown}: the steps are 1 to 6 (the stepper stays at step 4)."


@pytest.mark.parametrize("typed", ["+3", "--1", "- 1", "-", "\u22121", "-1.5", "-0x1", "-1e3", "1-", "-abc"])
def test_05_anything_else_with_a_sign_is_still_not_a_step_number(typed):
    said = typed_step_problem(typed, 1, 6, now=4)
    assert said == f"“{typed.strip()}” is not a step number: type a whole number in digits, 1 to 6 " + (
        "(the stepper stays at step 4)."
    )


def test_05_a_long_negative_number_is_echoed_short():
    typed = "-" + "7" * 300
    said = typed_step_problem(typed, 1, 6, now=4)
    assert said is not None and said.startswith("There is no step -7") and "(301 characters)" in said
    assert len(said) < 200


# endregion

# region Lesson 06


def test_06_section_1_says_what_an_iteration_is_and_uses_the_word():
    said = plain_words(cell_source("06", "cell-02"))
    assert "`loop.run(...)` runs the whole loop; one pass of the agent inside the loop is an iteration." in said
    assert "each iteration (the first too) gets a new session" in said  # walk 25, third walk
    assert "the most times the agent may run" not in said
    assert "every run, including" not in said


def test_06_the_student_path_says_run_only_of_the_whole_loop_where_it_meant_an_iteration():
    path = plain_words(" ".join(student_path("06")))
    for old in (
        "every run, including the first",
        "a new session for each run",
        "asked in order after each run",
        "caps the runs",
        "starts each run on a new session",
        "how many times it may run",
    ):
        assert old not in path, old


def test_06_context_is_explained_in_section_3_before_its_code():
    section_3 = words(cell_source("06", "cell-09"))
    assert "`context` is the `LoopContext` each evaluator is handed" in section_3
    assert "`context` is the `LoopContext` each evaluator is handed" not in words(cell_source("06", "cell-11"))


def test_06_the_other_options_cell_says_each_row_changes_one_option_from_the_defaults():
    said = words(cell_source("06", "other-options"))
    # walk 25's polish (tests/test_lesson06_polish_walk25.py): the rows' sentence says exactly what each row does
    assert "Rows 1-4 each change one default; rows 5-6 pass the caller's session" in said
    assert "one more option" not in said
    # walk 25 (tests/test_lesson06_walk25.py) cut the cross-reference to what section 5 and the hood run
    assert "Section 5 uses" not in said
    assert "The lesson's sections use only" not in said


def test_06_the_hood_does_run_exclude_on_behalf_of_messages_once():
    assert "exclude_on_behalf_of_messages=True" in cell_source("06", "3ce05afb")


def test_06_opening_points_to_the_loop_half_table_and_writes_llm_out():
    said = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", words(cell_source("06", "cell-00")))  # a link's words only
    assert "New words are in the glossary's table for lessons 05-07, starting at its LoopAgentOptions entry." in said
    assert "from the glossary's LoopAgentOptions entry on" not in said
    section_1 = words(cell_source("06", "cell-02"))
    assert "The seed's *LLM* (large language model) is the numbering fake model" in section_1  # third round


def test_06_section_7_quotes_the_middleware_s_one_line_wiring():
    said = words(cell_source("06", "cell-15"))
    assert "`Agent(..., middleware=[AgentLoopMiddleware(...)])`" in said


# endregion
