"""Lessons 05 and 06 walked again (issue 32, walk 9 of the loop lessons; this file's walk 17): what the lessons say
of MAF Python's ``AgentLoopMiddleware`` is what its installed source does, the stepper names the iteration an
evaluator reads, exercise 3's reminder names lines its section shows, and each sentence is true of what its cell
prints."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from agent_framework import Agent
from agent_framework._harness._loop import AgentLoopMiddleware
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.exercises import check
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import (
    SEED_INPUT,
    LoopTrace,
    MessageNumberer,
    NumberingChatClient,
    numbering_reminder,
    reminder_if_wrong,
    run_middleware_demo,
    run_seed_demo,
    stop_sentence,
)
from course_lib.loop_panels import LoopStepper

ROOT = Path(__file__).resolve().parents[1]

warnings.filterwarnings("ignore", message=".*AgentLoopMiddleware is experimental.*")


def _words(text: str) -> str:
    return " ".join(text.split()).replace("`", "")


def _markdown(number: str) -> str:
    return _words(
        " ".join("".join(c["source"]) for c in stored_lesson(number)["cells"] if c["cell_type"] == "markdown")
    )


async def _middleware_run(middleware: AgentLoopMiddleware, *, with_session: bool) -> LoopTrace:
    """The seed's input through ``middleware``, each model call recorded."""
    numberer, trace = MessageNumberer(), LoopTrace()
    agent = Agent(client=NumberingChatClient(numberer, trace), middleware=[middleware])
    session = agent.create_session() if with_session else None
    await agent.run([numberer.message(text, role) for text, role in SEED_INPUT], session=session)
    return trace


def _progress_sent(call: list[str]) -> list[str]:
    """The entries of the progress-log message the model received last at a call."""
    log = [text for text in call if text.startswith("Progress so far:")][-1]
    return [line.removeprefix("- ") for line in log.splitlines()[1:]]


# region 1. The progress log keeps every answer; with a session only its latest entry is sent


async def test_the_middleware_keeps_every_answer_in_its_log_and_sends_the_latest_entry_only_with_a_session():
    for with_session, sent_at_call_3 in ((True, 1), (False, 2)):
        logs: list[list[str]] = []

        def go_on(*, iteration, progress, logs=logs, **_):
            logs.append(progress)
            return iteration < 3

        trace = await _middleware_run(AgentLoopMiddleware(go_on), with_session=with_session)
        # should_continue sees the log before this iteration's entry: at iteration 3, both earlier answers
        assert logs[2] == ["[4]Response message from LLM.", "[5]Response message from LLM."], with_session
        assert len(_progress_sent(trace.calls[2])) == sent_at_call_3, with_session
        assert _progress_sent(trace.calls[2])[-1] == "[5]Response message from LLM."


async def test_lesson_06_and_the_glossary_say_the_log_keeps_every_answer_and_what_is_sent():
    said = _words(cell_source("06", "cell-15"))
    assert "the progress log holds only the latest answer" not in said
    assert (
        "With a session, the middleware sends back only the latest entry of its progress log (the earlier answers "
        "are already in the history); without a session, the whole log." in said
    )
    assert said.index("*progress log*") < said.index("With a session")  # the term is defined before it is used
    # the lesson's own run shows it: with a session call 3 got one entry, without one both
    with_session, _ = await run_middleware_demo(with_session=True)
    without, _ = await run_middleware_demo(with_session=False)
    assert len(_progress_sent(with_session.calls[2])) == 1 and len(_progress_sent(without.calls[2])) == 2
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    row = _words(next(line for line in glossary.splitlines() if line.startswith("| **progress log**")))
    assert "keeps every answer" in row and "only its latest entry" in row and "the whole log" in row


# region 2. The middleware's table is of its defaults; its own options, and its None


async def test_the_middlewares_equivalents_exist_as_the_lesson_names_them():
    # fresh_context=True: each re-run starts again from the caller's messages and the progress log
    trace = await _middleware_run(
        AgentLoopMiddleware(lambda *, iteration, **_: iteration < 3, fresh_context=True), with_session=True
    )
    first = trace.calls[0]
    assert trace.calls[2][: len(first)] == first and len(trace.calls[2]) == len(first) + 2
    assert callable(AgentLoopMiddleware.with_judge)
    # should_continue may return (True, feedback): the feedback reaches the model through a next_message function
    told = AgentLoopMiddleware(
        lambda *, iteration, **_: (iteration < 2, "name the owner"),
        next_message=lambda *, feedback, **_: f"Feedback: {feedback}",
    )
    trace = await _middleware_run(told, with_session=True)
    assert trace.calls[1][-1] == "Feedback: name the owner"
    said = _words(cell_source("06", "cell-18"))
    assert "compares the middleware at its defaults" in said
    # walk 21: section 7 names the features in one line; the hood gives their names
    hood = _words(cell_source("06", "hood-middleware-options"))
    for name in ("fresh_context=True", "AgentLoopMiddleware.with_judge(...)", "should_continue", "next_message"):
        assert name in hood, name
    takeaway = next(line for line in cell_source("06", "student-takeaways").split("\n- ") if "Middleware" in line)
    assert "At its defaults" in takeaway


async def test_the_middlewares_none_is_no_limit_and_the_hood_says_so():
    calls = await _middleware_run(
        AgentLoopMiddleware(lambda *, iteration, **_: iteration < 12, max_iterations=None), with_session=True
    )
    assert len(calls.calls) == 12  # beyond the default cap of 10: None means no limit
    assert AgentLoopMiddleware(lambda **_: False).max_iterations == 10
    assert AgentLoopMiddleware.with_judge(NumberingChatClient(MessageNumberer())).max_iterations == 5
    hood = _words(cell_source("06", "29131145"))
    assert "AgentLoopMiddleware" in hood and "max_iterations=None means no limit" in hood
    assert "default cap is 10" in hood and "with_judge's is 5" in hood


# region 3. No parentheses nested two deep in a lesson's sentence (lessons 05 and 06)


def _depth(text: str) -> int:
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)  # a link's address is not a parenthesis the reader reads
    deepest = depth = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(0, depth - 1)
    return deepest


def test_no_paragraph_of_lessons_05_and_06_nests_parentheses():
    for number in ("05", "06"):
        for cell in stored_lesson(number)["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for paragraph in "".join(cell["source"]).split("\n\n"):
                assert _depth(paragraph) <= 1, (number, cell.get("id"), paragraph[:120])
    said = _words(cell_source("06", "cell-11"))
    assert 'Each is a MAF Message object, which holds a *role* (who is speaking: "user" or "assistant")' in said


# region 4. One call form of stop_sentence in lesson 06


async def test_lesson_06_calls_stop_sentence_one_way_and_every_loop_there_has_one_evaluator():
    code = ["".join(c["source"]) for c in stored_lesson("06")["cells"] if c["cell_type"] == "code" and c.get("outputs")]
    calls = [call for source in code for call in re.findall(r"stop_sentence\(([^()]*)\)", source)]
    assert len(calls) >= 6 and all("," not in call for call in calls), calls
    loops = [len(re.findall(r"LoopAgent\(", source)) for source in code if "stop_sentence(" in source]
    assert all(count <= 1 for count in loops)
    # what the argument would change: only a plain stop of several evaluators
    _, response = await run_seed_demo(allowed=1)
    assert stop_sentence(response) == stop_sentence(response, evaluators=1)
    assert "all 2 evaluators" in stop_sentence(response, evaluators=2)
    assert "evaluators=" not in cell_source("06", "cell-14")  # no cell passes it, so the comment names none


# region 5 and 6. Lesson 05, section 2: what the loop sends, and what the printout's two numbers are


async def test_section_2_names_each_calls_feedback_and_the_session_as_the_trace_shows():
    trace, _ = await run_seed_demo()
    said = _words(cell_source("05", "cell-08"))
    for call in (2, 3):
        sent = trace.calls[call - 1][-1]
        assert f"at call {call} {sent}" in said, sent
    # walk 22: "asked the inner agent for", what the code does (second walk 25: "asked the inner agent to create")
    assert "from the session's history, which the loop asked the inner agent to create" in said
    assert trace.sessions == 1  # the loop created the one session the run used


def test_section_2_says_what_message_n_and_n_are_before_the_printout():
    said = _words(cell_source("05", "response-intro"))  # second walk 23: after call 2's roles table
    printed = cell_outputs("05", "cell-09")
    positions = re.findall(r"-Message(\d+)-+\n\[(\d+)\]", printed)
    assert positions[0] == ("1", "4")
    assert "MessageN is the message's position in the response" in said and "[n] is the counter's number" in said
    count = len(re.findall(r"-Message\d+-", printed))
    assert f"(1 to {count})" in said
    assert f"so Message{positions[0][0]} is [{positions[0][1]}]" in said


# region 7. Exercise 3's reminder names lines its section shows


async def test_the_reminder_names_only_lines_that_section_2s_printed_trace_shows():
    trace, _ = await run_seed_demo()
    reminder = _words(numbering_reminder(trace))
    assert reminder.startswith("From section 2:")
    named = re.findall(r"'([^']+)'", reminder)
    assert named, reminder
    printed = cell_outputs("05", "cell-07").splitlines()
    for name in named:
        assert f"{name}:" in printed, name  # a heading line of section 2's printed trace
    wrong = check("Exercise 3", 5, 2, "Look again.", namespace={"answer_3": 0})
    assert reminder_if_wrong(wrong, numbering_reminder(trace)).endswith(numbering_reminder(trace))


# region 8. The stepper names the iteration an evaluator reads


async def test_the_stepper_names_the_evaluators_iteration_and_the_call_it_follows():
    for options in (None, LoopAgentOptions(fresh_context_per_iteration=True)):
        trace, _ = await run_seed_demo(options=options)
        stepper = LoopStepper(trace)
        for step, row in enumerate(trace.rows, start=1):
            stepper.slider.value = step
            if row.actor != "Evaluator":
                continue
            calls_before = sum(1 for r in trace.rows[:step] if r.actor == "LLM")
            who = f"the evaluator, iteration {row.call} (after call {calls_before})"
            assert stepper.summary().startswith(f"Step {step} of {len(trace.rows)}: {who}, decided:")
            assert f"<h4>Step {step} of {len(trace.rows)}: {who}</h4>" in stepper.view.value


# region 9. The seed-like client's bare yield is explained


def test_the_bare_yield_of_the_seed_like_client_says_why_it_is_there():
    lines = cell_source("05", "62353460").splitlines()
    raised = next(i for i, line in enumerate(lines) if "raise NotImplementedError" in line)
    assert lines[raised + 1].strip().startswith("yield  #") and "async generator" in lines[raised + 1]
    assert "never reached" in lines[raised + 1]
