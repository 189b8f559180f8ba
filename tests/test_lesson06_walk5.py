"""Lesson 06's fifth student walk (issue 32): the lesson says which stops record a ``loop_exit_reason`` and which
leave none (as the loop does, after MAF .NET's ``LoopAgent``), a completion marker is seen stopping a loop, the
middleware's progress log is described as it is sent, the fake model's numbers are explained, the options table uses
no word the lesson has not met, the judge's feedback reads in words, and exercise 1's hints point where to look."""

from __future__ import annotations

import re

import pytest
from agent_framework import Agent, AgentResponse, Message
from hypothesis import given
from hypothesis import strategies as st
from test_student_path import hood_index, lesson

from course_lib.clients import make_chat_client
from course_lib.exercises import check, exercise
from course_lib.loop import (
    AIJudgeLoopEvaluator,
    CompletionMarkerLoopEvaluator,
    DelegateLoopEvaluator,
    LoopAgent,
    LoopAgentOptions,
    LoopEvaluation,
    LoopExitReason,
    SignalProtocolLoopEvaluator,
)
from course_lib.loop_demos import (
    OTHER_OPTIONS,
    OfflineDraftClient,
    exit_reason,
    options_frame,
    stop_sentence,
    verdict_sentence,
)

LESSON = "06_loop_options_compared"


def _cells() -> list:
    cells = lesson(LESSON).cells
    return cells[: hood_index(cells)]


def _cell(cell_id: str) -> dict:
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def _section(number: int) -> str:
    """The markdown of section ``number`` of the student's path (its heading cell and those up to the next)."""
    texts, inside = [], False
    for cell in _cells():
        if cell.cell_type != "markdown":
            continue
        heading = re.search(r"^## (\d+)\.", cell.source, re.M)
        if heading:
            inside = int(heading.group(1)) == number
        elif cell.source.startswith("## "):
            inside = False
        if inside:
            texts.append(cell.source)
    return "\n".join(texts)


# region Which stops record a reason


async def _stopped_by(evaluator) -> AgentResponse:
    return await LoopAgent(Agent(client=make_chat_client("worker")), evaluator).run("Write the note.")


async def test_an_evaluators_plain_stop_records_no_reason_and_the_sentence_says_so():
    judge = AIJudgeLoopEvaluator(make_chat_client("judge"), criteria=["mention: owner"])
    for evaluator in (
        DelegateLoopEvaluator(lambda context: LoopEvaluation.stop()),
        CompletionMarkerLoopEvaluator("Draft"),
        judge,
    ):
        response = await _stopped_by(evaluator)
        assert exit_reason(response) is None
        sentence = stop_sentence(response, evaluators=1)
        assert sentence.startswith("Stopped because the evaluator said stop")  # one evaluator: not "every"
        assert "no loop_exit_reason" in sentence


async def test_the_signal_protocol_cap_and_budgets_record_their_reason():
    signalled = await _stopped_by(SignalProtocolLoopEvaluator())
    assert exit_reason(signalled) == LoopExitReason.COMPLETED
    capped = await LoopAgent(
        Agent(client=make_chat_client("worker")),
        DelegateLoopEvaluator(lambda context: LoopEvaluation.continue_with("again")),
        LoopAgentOptions(max_iterations=2),
    ).run("Write the note.")
    assert exit_reason(capped) == LoopExitReason.ITERATION_CAP_REACHED


def test_the_lesson_never_says_every_stop_records_a_reason():
    said = " ".join(c.source for c in _cells() if c.cell_type == "markdown")
    assert "Whatever stops a loop" not in said
    takeaways = _cell("student-takeaways").source
    assert "loop_exit_reason` says which" not in takeaways
    assert "records none" in takeaways or "record none" in takeaways or "leave none" in takeaways


def test_section_6_names_the_stops_that_record_a_reason_and_those_that_leave_none():
    intro = _cell("a5908b9f").source
    for stop in ("cap", "budget", "signal protocol"):
        assert stop in intro, stop
    assert "none" in intro and "marker" in intro and "judge" in intro


def test_section_5_prints_why_its_judge_run_stopped():
    judge_cells = [c for c in _cells() if c.cell_type == "code" and "AIJudgeLoopEvaluator(" in c.source]
    printed = _printed(judge_cells[0])
    assert "Stopped because the evaluator said stop" in printed and "no loop_exit_reason" in printed  # one evaluator


# region A marker seen stopping a loop


@given(st.from_regex(r"[A-Z][A-Z_]{2,12}:?", fullmatch=True))
def test_the_offline_worker_ends_its_draft_with_any_marker_the_feedback_asks_for(marker):
    asked = CompletionMarkerLoopEvaluator(marker).feedback_message_template
    messages = [
        Message(role="user", contents=["Write the note."]),
        Message(role="assistant", contents=["Draft 1: covers the basics."]),
        Message(role="user", contents=[asked]),
    ]
    reply = OfflineDraftClient().answer(messages, {})
    assert reply.endswith(marker) and reply.startswith("Draft 2:")


def test_the_offline_worker_writes_no_marker_it_was_not_asked_for():
    reply = OfflineDraftClient().answer([Message(role="user", contents=["Write the note."])], {})
    assert reply == "Draft 1: covers the basics."


async def test_a_completion_marker_stops_the_loop_once_the_worker_writes_it():
    marked = await _stopped_by(CompletionMarkerLoopEvaluator("DONE"))
    answers = [m.text for m in marked.messages if m.role == "assistant"]
    assert len(answers) == 2 and answers[-1].endswith("DONE") and "DONE" not in answers[0]


def test_section_6_shows_a_marker_stopping_a_loop():
    runs = [c for c in _cells() if c.cell_type == "code" and "CompletionMarkerLoopEvaluator(" in c.source]
    printed = " ".join(_printed(c) for c in runs)
    assert "Stopped because the evaluator said stop" in printed  # one evaluator: not "every"
    assert "The fake model never writes the marker, so the cap" not in _section(6)


# region Section 7's progress log, section 2's numbers, section 1's words


def test_section_7_says_the_middleware_sends_only_the_latest_entry_of_its_log_with_a_session():
    said = _section(7)
    assert "the answers so far" not in said
    assert "latest entry" in said and "without a session" in said.lower()  # walk 9: the log keeps every answer


def test_section_2_says_the_feedback_is_not_numbered():
    said = _section(2)
    assert "so `[4]` is its fourth message" not in said
    assert "not numbered" in said


async def test_the_fresh_context_row_states_the_rule_and_leaves_the_figures_to_the_columns():
    """The row's words say the rule only: the 2 copies are its "sessions created" and section 1's table shows the
    3, 4, 4 messages of a fresh context (lesson 06's walk, issue 32)."""
    option = "fresh_context_per_iteration=True + the caller's session"
    what = OTHER_OPTIONS[option][2]
    assert what == (
        "the first iteration uses the caller's session; each later iteration starts on a copy of the caller's "
        "session taken before the first iteration, so the copy does not hold the first exchange"
    )
    frame = await options_frame(OTHER_OPTIONS)
    assert dict(zip(frame["option"], frame["sessions created"], strict=True))[option] == 2


@pytest.mark.parametrize("word", ["snapshot", "streaming"])
def test_the_other_options_table_uses_no_word_the_lesson_has_not_met(word):
    for option, (_, _, what) in OTHER_OPTIONS.items():
        assert word not in what, option


# region The judge's feedback in words


async def test_the_judges_feedback_says_what_is_missing_in_words():
    judge = AIJudgeLoopEvaluator(make_chat_client("judge"), criteria=["mention: rollback plan", "mention: owner"])
    response = await LoopAgent(Agent(client=make_chat_client("worker")), judge).run("Write the release note.")
    feedback = response.messages[1].text
    assert "mention:" not in feedback
    assert "a mention of rollback plan; a mention of owner." in feedback
    assert response.messages[2].text == "Draft 2: covers rollback plan, owner."


def test_a_verdict_in_words_keeps_only_what_is_missing():
    reply = '{"answered": false, "gapAnalysis": "a mention of rollback plan; a mention of owner."}'
    assert verdict_sentence(reply) == "not done; missing: rollback plan, owner."


# region Exercise 1's hints


@pytest.mark.parametrize("wrong", [5, 9, 3, 6])
def test_exercise_1_hint_points_where_to_look_without_the_answer(wrong):
    entry = exercise("06", "Exercise 1")
    said = check("Exercise 1", wrong, 4, entry.hint)
    assert "stepper" in entry.hint and "Incoming messages" in entry.hint
    assert "one feedback message" not in entry.hint and "4" not in entry.hint
    assert " 4 " not in said.replace("\n", " ")


def test_exercise_1_says_something_different_to_5_and_to_9():
    entry = exercise("06", "Exercise 1")
    five, nine = (check("Exercise 1", n, 4, entry.hint) for n in (5, 9))
    assert five != nine.replace("9", "5")


def test_a_pending_tool_approval_is_said_as_such_not_as_the_evaluators_stop():
    from agent_framework import Content

    request = Content.from_function_approval_request(
        id="req1", function_call=Content.from_function_call(call_id="c1", name="tool", arguments="{}")
    )
    waiting = AgentResponse(messages=[Message(role="assistant", contents=[request])])
    assert stop_sentence(waiting) == (
        "Stopped because the agent is waiting for the user to approve a tool call "
        "(no loop_exit_reason is recorded for that)."
    )


def test_exercise_2_hint_points_where_to_look_without_the_answer():
    hint = exercise("06", "Exercise 2").hint
    assert "sessions created" in hint and "one for each re-run" not in hint
