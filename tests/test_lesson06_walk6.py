"""Lesson 06's sixth student walk (issue 32): the completion marker's section reads true with the offline worker and
with a live model that never writes the marker: the prose says what the offline worker does and that a live model may
not, and the cell's output says, computed from the run, whether the marker was written and why the loop stopped."""

from __future__ import annotations

from agent_framework import Message
from test_lesson06_walk5 import _cell, _printed

from course_lib.loop_demos import marker_sentence


def _answers(*texts: str) -> list[Message]:
    """A loop's returned messages: each answer followed by a feedback message, as the loop returns them."""
    messages: list[Message] = []
    for text in texts:
        messages += [Message(role="assistant", contents=[text]), Message(role="user", contents=["add DONE"])]
    return messages[:-1]


def test_the_marker_sentence_says_in_which_answer_the_marker_came_or_that_it_never_did():
    assert marker_sentence(_answers("draft", "final DONE"), "DONE") == "The worker wrote DONE in answer 2 of 2."
    never = marker_sentence(_answers(*["draft"] * 10), "DONE")
    assert never == "The worker never wrote DONE in its 10 answers."
    assert (
        marker_sentence(_answers("draft"), "DONE", model="the model") == "The model never wrote DONE in its 1 answer."
    )
    # the feedback asks for DONE: a marker in the caller's or the loop's messages is not the worker's
    assert marker_sentence([Message(role="user", contents=["end with DONE"])], "DONE") == (
        "The worker never wrote DONE in its 0 answers."
    )


def test_the_marker_cell_is_introduced_truly_for_an_offline_and_a_live_worker_and_prints_which_happened():
    intro = _cell("a5908b9f").source
    assert "offline" in intro.lower() and "a live model may not" in intro
    cell = _cell("marker-found")
    assert "marker_sentence(" in cell.source and "stop_sentence(" in cell.source
    assert _printed(cell).startswith("The worker wrote DONE in answer 2 of 2.")


def test_no_code_line_on_the_student_path_of_lessons_04_and_06_is_cut_off_at_1300_pixels():
    """JupyterLab at 1300 pixels shows about 100 characters of a code line; past that the line runs under the edge."""
    from test_student_path import hood_index, lesson

    long = []
    for name in ("04_memory_policies_compared", "06_loop_options_compared"):
        cells = lesson(name).cells
        for cell in cells[: hood_index(cells)]:
            if cell.cell_type == "code" and "colab-setup" not in cell.metadata.get("tags", []):
                long += [f"{name} {cell.get('id')}: {line}" for line in cell.source.splitlines() if len(line) > 90]
    assert not long


async def test_the_stepper_on_the_fresh_context_run_shows_each_piece_of_feedback_once_per_step():
    from course_lib.loop import LoopAgentOptions
    from course_lib.loop_demos import run_seed_demo
    from course_lib.loop_panels import LoopStepper

    trace, _ = await run_seed_demo(options=LoopAgentOptions(fresh_context_per_iteration=True))
    stepper = LoopStepper(trace)
    for step in range(1, stepper.slider.max + 1):
        stepper.slider.value = step
        shown = stepper.view.value
        assert "Feedback so far" not in shown, f"step {step}"
        for number in (1, 2):  # sent after step 2 and step 4; the last evaluation lists both once
            assert shown.count(f"Feedback for iteration {number}") <= 1, f"step {step}"


def test_lesson_06_says_what_a_tables_columns_mean_before_the_table():
    from test_student_path import lesson

    cells = lesson("06_loop_options_compared").cells
    ids = [c.get("id") for c in cells]
    for table, columns in (
        ("cell-03", ("model calls", "messages sent per call", "messages returned", "sessions created")),
        (
            "cell-17",
            (
                "messages sent per call",
                "history kept",
                "messages added before call 2",  # walk 25: the count, a column of its own
                "what was added",
                "messages returned",
            ),
        ),
    ):
        before = cells[ids.index(table) - 1]
        assert before.cell_type == "markdown" and all(column in before.source for column in columns), table
