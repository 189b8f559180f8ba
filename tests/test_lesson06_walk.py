"""Lesson 06's second student walk (issue 32): the stepper's words, the judge's verdicts, the input tables'
single header row, the middleware's two messages shown apart, and the exercise checker's words for None."""

from __future__ import annotations

import re

import pytest

from course_lib.exercises import check
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import (
    OTHER_OPTIONS,
    call_input_frame,
    flow_summary,
    options_frame,
    run_middleware_demo,
    run_seed_demo,
    verdict_sentence,
)
from course_lib.loop_panels import WORDS_WIDTHS, LoopStepper, options_table
from course_lib.presentation import plain_table


async def _fresh_stepper() -> LoopStepper:
    trace, _ = await run_seed_demo(options=LoopAgentOptions(fresh_context_per_iteration=True))
    return LoopStepper(trace)


async def test_the_stepper_spaces_message_numbers_as_the_tables_do():
    stepper = await _fresh_stepper()
    for step in range(1, stepper.slider.max + 1):
        stepper.slider.value = step
        assert not re.search(r"\[\d+\][A-Z]", stepper.view.value), f"step {step}: a glued message number"
    stepper.slider.value = 1
    assert "[4] Response message from LLM." in stepper.view.value


async def test_the_stepper_says_who_answered_or_decided_and_lists_the_feedback_plainly():
    stepper = await _fresh_stepper()
    assert "The model answered" in stepper.view.value and "Did" not in stepper.view.value
    stepper.slider.value = 2
    value = stepper.view.value
    assert "The evaluator decided" in value and "Did" not in value
    previous = value.split("<b>Previous feedback")[1].split("<b>")[0]
    assert "(none)" in previous and "<li>" not in previous  # no lone dash in a bullet
    stepper.slider.value = stepper.slider.max  # the last evaluation: it saw two feedback texts
    seen = stepper.view.value.split("<b>Previous feedback")[1].split("<b>")[0]
    assert "continue:" not in seen and " / " not in seen and seen.count("<li>") == 2


async def test_the_stepper_counts_the_messages_the_model_received():
    stepper = await _fresh_stepper()
    for step, row in enumerate(stepper.trace.rows, start=1):
        if row.actor == "LLM":
            stepper.slider.value = step
            count = len(stepper.trace.calls[row.call - 1])
            assert f"({count} messages)" in stepper.view.value, f"step {step}"


def test_a_judges_verdict_reads_as_done_or_what_is_missing():
    assert verdict_sentence('{"answered": true, "gapAnalysis": null}') == "done."
    missing = '{"answered": false, "gapAnalysis": "mention: rollback plan; mention: owner"}'
    assert verdict_sentence(missing) == "not done; missing: rollback plan, owner."
    assert verdict_sentence('{"answered": false, "gapAnalysis": "no owner."}') == "not done; missing: no owner."
    assert verdict_sentence('{"answered": false, "gapAnalysis": null}') == "not done (the judge said not what)."


async def test_a_calls_input_table_has_one_header_row():
    trace, _ = await run_seed_demo(options=LoopAgentOptions(fresh_context_per_iteration=True))
    frame = call_input_frame(trace.calls[2])
    assert list(frame.columns) == ["message", "text"] and frame.index.name is None
    html = plain_table(frame, lines=["text"]).to_html()
    assert html.split("</thead>")[0].count("<tr>") == 1


async def test_the_middlewares_two_added_messages_are_shown_apart_and_counted():
    trace, response = await run_middleware_demo(with_session=True)
    # walk 25 (tests/test_lesson06_walk25.py): the count is a column of its own, the messages are numbered
    row = flow_summary("middleware", trace, response)
    added = str(row["what was added"])
    assert row["messages added before call 2"] == 2
    assert added.startswith("1) Progress so far:") and "\n2) Continue working" in added
    loop_trace, loop_response = await run_seed_demo()
    loop_row = flow_summary("loop", loop_trace, loop_response)
    assert loop_row["messages added before call 2"] == 1
    assert loop_row["what was added"] == "1) Feedback for iteration 1"


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (None, "You wrote None; the answer is a number."),
        ([4], "Your answer [4] is a list holding one item: remove the square brackets: write 4 on its own."),
        ({"a": 1}, "Your answer is a dictionary; the answer is a number."),
        ((4,), "Your answer (4,) is a tuple holding one item: remove the parentheses and the comma: write 4 on"),
    ],
)
def test_the_checker_names_none_and_containers_in_words(answer, words):
    said = " ".join(check("Exercise 1", answer, 4).split())
    assert words in said and "NoneType" not in said


async def test_the_other_options_table_gives_its_words_room_and_short_option_names():
    frame = await options_frame(OTHER_OPTIONS)
    html = options_table(frame).to_html()
    assert all(f"min-width: {width}" in html for width in WORDS_WIDTHS.values()) and "row_heading" not in html
    assert all("," not in name for name in frame["option"])  # one name, no sentence beside it
