"""LoopAgent, rule by rule (MAF .NET semantics), plus the seed's trace as a golden test."""

import asyncio
import json
from pathlib import Path

import pytest
from agent_framework import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    AgentSession,
    BaseAgent,
    Content,
    Message,
    ResponseStream,
    SupportsAgentRun,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.conventions import stored_messages
from course_lib.loop import (
    AIJudgeLoopEvaluator,
    CompletionMarkerLoopEvaluator,
    DelegateLoopEvaluator,
    LoopAgent,
    LoopAgentOptions,
    LoopContext,
    LoopEvaluation,
    LoopExitReason,
)
from course_lib.loop_demos import (
    SAW_CHARS,
    TRACE_COLUMNS,
    LoopTrace,
    MessageNumberer,
    NumberingChatClient,
    OfflineDraftClient,
    OfflineJudgeClient,
    compare_with_seed,
    recent_texts,
    run_seed_demo,
)
from course_lib.tracing import CallLog

DATA = Path(__file__).resolve().parent.parent / "data"


class CaptureAgent(BaseAgent):
    """An inner agent that records what each call received and answers from a function of the call number."""

    def __init__(self, reply=lambda call: "ack", usage=None, contents=None):
        super().__init__(name="inner")
        self.reply, self.usage, self.contents = reply, usage, contents
        self.messages_per_call: list[list[Message]] = []
        self.sessions_per_call: list[AgentSession] = []
        self.created: list[AgentSession] = []

    @property
    def calls(self):
        return len(self.messages_per_call)

    def create_session(self, *, session_id=None):
        session = AgentSession(session_id=session_id)
        self.created.append(session)
        return session

    def _record(self, messages, session):
        self.messages_per_call.append(list(messages or []))
        self.sessions_per_call.append(session)
        call = self.calls
        contents = self.contents(call) if self.contents else [self.reply(call)]
        return call, Message(role="assistant", contents=contents)

    def run(self, messages=None, *, stream=False, session=None, **kwargs):
        if stream:
            return self._stream(messages, session)
        return self._run(messages, session)

    async def _run(self, messages, session):
        call, message = self._record(messages, session)
        return AgentResponse(messages=[message], response_id=f"resp-{call}", usage_details=self.usage)

    def _stream(self, messages, session):
        call, message = self._record(messages, session)

        async def updates():
            for content in message.contents:
                yield AgentResponseUpdate(contents=[content], role="assistant", response_id=f"resp-{call}")

        return ResponseStream(updates(), finalizer=AgentResponse.from_updates)


def until(predicate_continue, feedback=None):
    return DelegateLoopEvaluator(
        lambda ctx: LoopEvaluation.continue_with(feedback) if predicate_continue(ctx) else LoopEvaluation.stop()
    )


def user(text):
    return Message(role="user", contents=[text])


def texts(messages):
    return [m.text for m in messages]


# --- construction ---------------------------------------------------------------------------------


def test_bad_construction_is_refused_with_a_reason():
    inner = CaptureAgent()
    with pytest.raises(ValueError, match="at least one"):
        LoopAgent(inner, [])
    with pytest.raises(ValueError, match="None or another type"):
        LoopAgent(inner, [until(lambda c: False), None])
    with pytest.raises(ValueError, match="inner_agent is required"):
        LoopAgent(None, until(lambda c: False))
    with pytest.raises(ValueError, match="at least 1, or None for the default of 10"):
        LoopAgentOptions(max_iterations=0)


def test_evaluations_are_built_by_factories_only():
    assert LoopEvaluation.stop() is LoopEvaluation.stop() and not LoopEvaluation.stop().should_reinvoke
    assert LoopEvaluation.continue_with("  ").feedback is None
    assert LoopEvaluation.continue_with("fix").feedback == "fix"
    explicit = LoopEvaluation.continue_with_messages([user("x")])
    assert explicit.should_reinvoke and explicit.feedback is None and texts(explicit.messages) == ["x"]
    with pytest.raises(TypeError):
        LoopEvaluation(True, None, None, _token=object())


def test_loop_agent_is_a_maf_agent_and_takes_sessions_from_the_inner_agent():
    inner = CaptureAgent()
    agent = LoopAgent(inner, until(lambda c: False))
    assert isinstance(agent, SupportsAgentRun) and agent.name == "inner"
    session = agent.create_session()
    assert inner.created == [session]


# --- the run -------------------------------------------------------------------------------------


async def test_stops_after_one_run_when_every_evaluator_says_stop():
    inner = CaptureAgent(lambda call: "done")
    response = await LoopAgent(inner, [until(lambda c: False), until(lambda c: False)]).run(
        [user("go")], session=AgentSession()
    )
    assert inner.calls == 1 and response.text == "done"


async def test_transcript_aggregates_responses_and_feedback_without_echoing_input():
    inner = CaptureAgent(lambda call: f"iteration {call}")
    agent = LoopAgent(inner, until(lambda c: c.last_response.text != "iteration 3", "more"))
    response = await agent.run([user("go")], session=AgentSession())
    assert texts(response.messages) == ["iteration 1", "more", "iteration 2", "more", "iteration 3"]


async def test_default_flow_sends_only_the_latest_feedback_on_the_same_session():
    inner = CaptureAgent()
    evaluator = DelegateLoopEvaluator(
        lambda c: (
            LoopEvaluation.continue_with("feedback 1" if c.iteration == 1 else None)
            if c.iteration < 3
            else LoopEvaluation.stop()
        )
    )
    session = AgentSession()
    await LoopAgent(inner, evaluator).run([user("original")], session=session)
    assert [texts(m) for m in inner.messages_per_call] == [["original"], ["feedback 1"], []]
    assert inner.sessions_per_call == [session, session, session]


async def test_cap_is_inclusive_and_evaluators_are_not_asked_after_the_last_run():
    inner = CaptureAgent(lambda call: "working")
    asked = []
    evaluator = DelegateLoopEvaluator(lambda c: asked.append(c.iteration) or LoopEvaluation.continue_with("again"))
    response = await LoopAgent(inner, evaluator, LoopAgentOptions(max_iterations=3)).run([user("go")])
    assert inner.calls == 3 and asked == [1, 2]
    assert texts(response.messages) == ["working", "again", "working", "again", "working"]


async def test_none_cap_falls_back_to_the_default_of_ten_as_in_dotnet():
    inner = CaptureAgent()
    evaluator = until(lambda c: c.iteration < 25, "again")
    await LoopAgent(inner, evaluator, LoopAgentOptions(max_iterations=None)).run([user("go")])
    assert inner.calls == 10
    streamed = CaptureAgent()
    await collect(LoopAgent(streamed, evaluator, LoopAgentOptions(max_iterations=None)).run("go", stream=True))
    assert streamed.calls == 10


async def test_default_cap_is_ten():
    inner = CaptureAgent()
    await LoopAgent(inner, until(lambda c: True, "again")).run([user("go")])
    assert inner.calls == 10


async def test_feedback_log_is_one_entry_per_reinvocation_none_allowed_and_read_only():
    logs = []

    def decide(c: LoopContext):
        logs.append(c.feedback)
        if c.iteration == 1:
            return LoopEvaluation.continue_with("needs work")
        if c.iteration == 2:
            return LoopEvaluation.continue_with_messages([user("explicit")])
        return LoopEvaluation.stop()

    inner = CaptureAgent()
    await LoopAgent(inner, DelegateLoopEvaluator(decide)).run([user("go")])
    assert logs == [(), ("needs work",), ("needs work", None)]
    assert texts(inner.messages_per_call[2]) == ["explicit"]


async def test_context_carries_initial_messages_run_options_and_scratch_state():
    contexts = []

    def decide(c):
        c.additional_properties["seen"] = c.additional_properties.get("seen", 0) + 1
        contexts.append(c)
        return LoopEvaluation.continue_with("x") if c.iteration < 2 else LoopEvaluation.stop()

    inner = CaptureAgent()
    caller = [user("task")]
    await LoopAgent(inner, DelegateLoopEvaluator(decide)).run(caller, options={"temperature": 0})
    context = contexts[-1]
    assert contexts[0] is context and context.additional_properties == {"seen": 2}
    assert texts(context.initial_messages) == ["task"] and context.initial_messages[0] is caller[0]
    assert context.run_options == {"options": {"temperature": 0}} and context.agent is inner


async def test_approval_request_returns_at_once():
    request = Content.from_function_approval_request(
        id="req1", function_call=Content.from_function_call(call_id="c1", name="tool", arguments="{}")
    )
    inner = CaptureAgent(contents=lambda call: [request])
    response = await LoopAgent(inner, until(lambda c: True, "again")).run([user("go")])
    assert inner.calls == 1 and response.user_input_requests


async def test_usage_is_summed_over_iterations():
    inner = CaptureAgent(usage={"input_token_count": 10, "output_token_count": 2})
    response = await LoopAgent(inner, until(lambda c: c.iteration < 3, "more")).run([user("go")])
    assert response.usage_details["input_token_count"] == 30 and response.usage_details["output_token_count"] == 6


async def test_last_response_only_and_exclude_on_behalf_of():
    evaluator = until(lambda c: c.iteration < 2, "fix it")
    only_last = await LoopAgent(
        CaptureAgent(lambda c: f"r{c}"), evaluator, LoopAgentOptions(non_streaming_returns_last_response_only=True)
    ).run([user("go")])
    assert texts(only_last.messages) == ["r2"]
    inner = CaptureAgent(lambda c: f"r{c}")
    excluded = await LoopAgent(inner, evaluator, LoopAgentOptions(exclude_on_behalf_of_messages=True)).run([user("go")])
    assert texts(excluded.messages) == ["r1", "r2"] and texts(inner.messages_per_call[1]) == ["fix it"]


async def test_author_name_is_stamped_on_synthesized_feedback_only():
    inner = CaptureAgent()
    options = LoopAgentOptions(on_behalf_of_author_name="loop")
    response = await LoopAgent(inner, until(lambda c: c.iteration < 2, "fix it"), options).run([user("original")])
    assert response.messages[1].author_name == "loop" and str(response.messages[1].role) == "user"
    assert inner.messages_per_call[1][0].author_name == "loop"
    explicit = Message(role="user", contents=["explicit"], author_name="evaluator")
    evaluator = DelegateLoopEvaluator(
        lambda c: LoopEvaluation.continue_with_messages([explicit]) if c.iteration < 2 else LoopEvaluation.stop()
    )
    response = await LoopAgent(CaptureAgent(), evaluator, options).run([user("original")])
    assert texts(response.messages) == ["ack", "explicit", "ack"] and response.messages[1].author_name == "evaluator"


# --- sessions and fresh context -------------------------------------------------------------------


async def test_loop_owned_session_is_created_once_and_reported():
    inner, reported = CaptureAgent(), []
    options = LoopAgentOptions(session_created_callback=reported.append)
    await LoopAgent(inner, until(lambda c: c.iteration < 3, "more"), options).run([user("go")])
    assert len(inner.created) == 1 and reported == inner.created
    assert inner.sessions_per_call == inner.created * 3


async def test_callback_never_fires_for_a_caller_session_without_fresh_context():
    inner, reported = CaptureAgent(), []
    options = LoopAgentOptions(session_created_callback=reported.append)
    await LoopAgent(inner, until(lambda c: c.iteration < 3, "more"), options).run([user("go")], session=AgentSession())
    assert reported == [] and inner.created == []


async def test_fresh_context_rebuilds_input_from_initial_messages_and_the_feedback_log():
    inner, reported = CaptureAgent(), []
    options = LoopAgentOptions(fresh_context_per_iteration=True, session_created_callback=reported.append)
    evaluator = DelegateLoopEvaluator(
        lambda c: (
            LoopEvaluation.continue_with(None if c.iteration == 2 else f"fb {c.iteration}")
            if c.iteration < 4
            else LoopEvaluation.stop()
        )
    )
    response = await LoopAgent(inner, evaluator, options).run([user("original task")])
    assert [texts(m) for m in inner.messages_per_call] == [
        ["original task"],
        ["original task", "## Feedback\n\n- fb 1"],
        ["original task", "## Feedback\n\n- fb 1"],
        ["original task", "## Feedback\n\n- fb 1\n- fb 3"],
    ]
    assert len(set(map(id, inner.sessions_per_call))) == 4 and reported == inner.sessions_per_call
    assert "original task" not in texts(response.messages)


async def test_fresh_context_without_feedback_sends_just_the_initial_messages():
    inner = CaptureAgent()
    options = LoopAgentOptions(fresh_context_per_iteration=True)
    await LoopAgent(inner, until(lambda c: c.iteration < 2), options).run([user("task")])
    assert [texts(m) for m in inner.messages_per_call] == [["task"], ["task"]]


async def test_fresh_context_restores_a_caller_session_from_one_snapshot():
    numberer = MessageNumberer()
    inner = Agent(client=NumberingChatClient(numberer))
    caller = inner.create_session()
    await inner.run("earlier turn", session=caller)  # the caller's session already holds two messages
    reported, seen = [], []

    def decide(c):
        seen.append((c.session, len(stored_messages(c.session))))
        return LoopEvaluation.continue_with(f"fb {c.iteration}") if c.iteration < 3 else LoopEvaluation.stop()

    options = LoopAgentOptions(fresh_context_per_iteration=True, session_created_callback=reported.append)
    await LoopAgent(inner, DelegateLoopEvaluator(decide), options).run("task", session=caller)
    sessions = [s for s, _ in seen]
    assert sessions[0] is caller and caller not in sessions[1:] and sessions[1] is not sessions[2]
    # every iteration starts from the snapshot (2 messages) and adds its input and its response
    assert [n for _, n in seen] == [4, 5, 5]
    assert reported == sessions[1:]


# --- streaming ------------------------------------------------------------------------------------


async def collect(stream):
    updates = [u async for u in stream]
    return updates, await stream.get_final_response()


async def test_streaming_yields_every_update_with_feedback_before_each_reinvocation():
    inner = CaptureAgent(lambda c: f"r{c}")
    options = LoopAgentOptions(on_behalf_of_author_name="loop")
    agent = LoopAgent(inner, until(lambda c: c.iteration < 3, "fix it"), options)
    updates, final = await collect(agent.run([user("original")], stream=True))
    assert [u.text for u in updates] == ["r1", "fix it", "r2", "fix it", "r3"]
    feedback = updates[1]
    assert feedback.author_name == "loop" and str(feedback.role) == "user"
    assert feedback.response_id == "resp-2" and feedback.message_id and not feedback.agent_id
    assert texts(final.messages) == ["r1", "fix it", "r2", "fix it", "r3"]


async def test_streaming_and_non_streaming_agree_on_the_seed_demo():
    trace_a, plain = await run_seed_demo()
    trace_b, streamed = await run_seed_demo(stream=True)
    assert texts(plain.messages) == texts(streamed.messages)
    assert trace_a.text() == trace_b.text()


async def test_streaming_exclude_and_cap():
    inner = CaptureAgent()
    options = LoopAgentOptions(exclude_on_behalf_of_messages=True, max_iterations=4)
    updates, _ = await collect(LoopAgent(inner, until(lambda c: True, "again"), options).run("go", stream=True))
    assert [u.text for u in updates] == ["ack"] * 4 and inner.calls == 4


async def test_an_exit_reason_stamped_by_an_earlier_pass_does_not_survive_it():
    """.NET clears ``loop_exit_reason`` at the start of every evaluation pass: only the last pass says why."""

    def stamp_then_stop(ctx):
        if ctx.iteration == 1:
            ctx.additional_properties[LoopExitReason.ADDITIONAL_PROPERTIES_KEY] = LoopExitReason.COMPLETED
        return LoopEvaluation.stop()

    seen = []

    def continue_once(ctx):
        seen.append(dict(ctx.additional_properties))
        return LoopEvaluation.continue_with("again") if ctx.iteration == 1 else LoopEvaluation.stop()

    inner = CaptureAgent()
    loop = LoopAgent(inner, [DelegateLoopEvaluator(stamp_then_stop), DelegateLoopEvaluator(continue_once)])
    response = await loop.run([user("go")], session=AgentSession())
    assert inner.calls == 2
    assert seen[1] == {}  # the second pass starts without the first pass's stamp
    assert LoopExitReason.ADDITIONAL_PROPERTIES_KEY not in (response.additional_properties or {})


async def test_a_reason_stamped_by_the_pass_that_stops_is_reported():
    def stamp_at_two(ctx):
        if ctx.iteration == 1:
            return LoopEvaluation.continue_with("again")
        ctx.additional_properties[LoopExitReason.ADDITIONAL_PROPERTIES_KEY] = LoopExitReason.NEED_INPUT
        return LoopEvaluation.stop()

    response = await LoopAgent(CaptureAgent(), DelegateLoopEvaluator(stamp_at_two)).run([user("go")])
    assert response.additional_properties[LoopExitReason.ADDITIONAL_PROPERTIES_KEY] == LoopExitReason.NEED_INPUT


async def test_evaluator_errors_propagate():
    def boom(context):
        raise RuntimeError("judge unavailable")

    with pytest.raises(RuntimeError, match="judge unavailable"):
        await LoopAgent(CaptureAgent(), DelegateLoopEvaluator(boom)).run("go")


async def test_cancellation_propagates():
    started = asyncio.Event()

    async def slow(context):
        started.set()
        await asyncio.sleep(10)

    task = asyncio.create_task(LoopAgent(CaptureAgent(), DelegateLoopEvaluator(slow)).run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# --- evaluators shipped and the seed --------------------------------------------------------------


async def test_completion_marker_evaluator_stops_on_the_marker():
    inner = CaptureAgent(lambda c: "DONE" if c == 3 else "working")
    response = await LoopAgent(inner, CompletionMarkerLoopEvaluator("DONE")).run("go")
    assert inner.calls == 3 and response.messages[1].text.startswith("Continue working on the request.")
    assert "'DONE'" in response.messages[1].text
    with pytest.raises(ValueError, match="completion_marker"):
        CompletionMarkerLoopEvaluator(" ")
    with pytest.raises(TypeError, match="completion_marker must be a string"):
        CompletionMarkerLoopEvaluator(42)


async def test_fresh_context_with_last_response_in_the_template_shows_the_agent_its_previous_attempt():
    inner = CaptureAgent(lambda c: "DONE" if c == 3 else f"attempt {c}")
    evaluator = CompletionMarkerLoopEvaluator(
        "DONE", feedback_message_template="You wrote: {last_response}. Finish with {completion_marker}."
    )
    await LoopAgent(inner, evaluator, LoopAgentOptions(fresh_context_per_iteration=True)).run([user("task")])
    assert texts(inner.messages_per_call[2]) == [
        "task",
        "## Feedback\n\n- You wrote: attempt 1. Finish with DONE.\n- You wrote: attempt 2. Finish with DONE.",
    ]


async def test_seed_trace_and_final_messages_are_reproduced_exactly():
    trace, response = await run_seed_demo()
    assert compare_with_seed(trace, response) == {"trace": True, "final_messages": True}
    assert len(response.messages) == 5
    other_trace, other_response = await run_seed_demo(allowed=2)
    assert compare_with_seed(other_trace, other_response) == {"trace": False, "final_messages": False}


def test_golden_file_is_a_verbatim_excerpt_of_the_seed():
    seed_file = DATA.parent.parent / "shared" / "seeds" / "loop-engineering-loopagent.zh.txt"
    if not seed_file.exists():
        pytest.skip("the seed documents (../shared/seeds) are not beside this checkout")
    seed = json.loads((DATA / "loopagent_seed_output.json").read_text(encoding="utf-8"))
    text = seed_file.read_text(encoding="utf-8")
    assert seed["trace"] in text and seed["final_messages"] in text


def test_trace_table_has_one_row_per_step():
    trace = LoopTrace()
    trace.llm(["[1]a"], "[2]b")
    assert trace.to_frame().to_dict("records") == [{"step": 1, "actor": "LLM", "call": 1, "saw": "[1]a", "did": "[2]b"}]
    assert list(trace.to_frame().columns) == list(TRACE_COLUMNS)
    assert trace.rows[0].sections == (("Incoming messages", ("[1]a",)),) and not trace.rows[0].continues


def test_a_long_history_is_shown_as_its_last_messages_after_a_count_of_the_rest():
    history = [f"message {i} " + "x" * 90 for i in range(1, 21)]
    shown = recent_texts(history)
    assert shown.startswith("(17 earlier messages) | message 18") and "message 20" in shown
    assert len(shown) <= SAW_CHARS + 40 and "message 17 " not in shown
    assert recent_texts(["[1]a", "[2]b"]) == "[1]a | [2]b"  # a short history is shown whole
    assert recent_texts(["y" * 500, "z"]).startswith("y")  # two messages, both kept: nothing to count
    assert recent_texts(["w" * 300] * 4).startswith("(1 earlier message) | ")


def test_a_folded_history_cuts_each_message_between_words_never_inside_one():
    """The capstone's trace showed ``mo…`` and ``module=Bil…``: a cut inside a word reads as a wrong value."""
    feedback = 'Answer again, holding to: - module = "Billing" (evidence: "module=Billing"; turn 6) ' * 3
    shown = recent_texts([f"turn {i} " + "y " * 80 for i in range(5)] + [feedback])
    words = {*feedback.split(), "turn", "y", "2", "3", "4"}
    for part in shown.split(" | ")[1:]:
        assert part.endswith("\u2026") and set(part[:-1].split()) <= words, part


async def test_every_seed_evaluation_lists_what_it_saw_and_marks_the_initial_messages_as_unchanged():
    trace, _ = await run_seed_demo()
    evaluations = [s for s in trace.rows if s.actor == "Evaluator"]
    assert [s.continues for s in evaluations] == [True, True, False]
    assert [t for t, _ in evaluations[0].sections] == ["Initial messages", "Last response", "Previous feedback"]
    assert evaluations[0].unchanged == ("Initial messages",)
    assert trace.text().count("Initial messages:") == 3 and trace.text() == "\n".join(trace.lines)


async def test_a_trace_text_can_list_only_each_calls_last_messages_after_a_count_of_the_rest():
    trace, _ = await run_seed_demo()
    folded = trace.text(last=2).split("Incoming messages:")[3].split("Outgoing response:")[0].splitlines()
    assert folded[1:] == ["    (5 earlier messages)", *("    " + t for t in trace.calls[2][-2:])]
    assert trace.text(last=10) == trace.text()  # nothing to fold: the seed's layout, line for line


JUDGE_FEEDBACK = AIJudgeLoopEvaluator.DEFAULT_FEEDBACK_MESSAGE_TEMPLATE


async def test_ai_judge_feedback_drives_the_worker_until_every_criterion_is_met():
    judge_log = CallLog()
    evaluator = AIJudgeLoopEvaluator(
        OfflineJudgeClient(log=judge_log), criteria=["mention: rollback plan", "mention: owner"]
    )
    agent = LoopAgent(Agent(client=OfflineDraftClient(), name="worker"), evaluator)
    response = await agent.run("Write the release note.")
    assert texts(response.messages) == [
        "Draft 1: covers the basics.",
        JUDGE_FEEDBACK.replace("{gap_analysis}", "a mention of rollback plan; a mention of owner."),
        "Draft 2: covers rollback plan, owner.",
    ]
    last = judge_log.calls[-1]
    assert len(judge_log) == 2 and [m.role for m in last.messages] == ["system", "user"]
    assert last.messages[1].text.endswith("## Agent's latest response:\nDraft 2: covers rollback plan, owner.")


async def test_offline_judge_never_assumes_an_uncheckable_criterion_is_met():
    agent = LoopAgent(
        Agent(client=OfflineDraftClient()),
        AIJudgeLoopEvaluator(OfflineJudgeClient(), criteria=["be polite"]),
        LoopAgentOptions(max_iterations=2),
    )
    response = await agent.run("Write it.")
    assert response.messages[1].text == JUDGE_FEEDBACK.replace("{gap_analysis}", "be polite.")


@pytest.mark.parametrize("criterion", ["mention:", "mention:   ", "mention :"])
async def test_offline_judge_reads_a_mention_with_no_word_as_uncheckable_not_as_met(criterion):
    """Every answer contains the empty word: read as met, the criterion would stop the loop at its first answer."""
    agent = LoopAgent(
        Agent(client=OfflineDraftClient()),
        AIJudgeLoopEvaluator(OfflineJudgeClient(), criteria=[criterion]),
        LoopAgentOptions(max_iterations=2),
    )
    response = await agent.run("Write it.")
    assert response.messages[1].text == JUDGE_FEEDBACK.replace("{gap_analysis}", f"{criterion.strip()}.")


async def test_a_judge_without_a_structured_verdict_is_read_for_the_markers_and_keeps_looping_when_unsure():
    no_verdict = AIJudgeLoopEvaluator(NumberingChatClient(MessageNumberer()))  # answers "[n]Response ..."
    inner = CaptureAgent()
    response = await LoopAgent(inner, no_verdict, LoopAgentOptions(max_iterations=3)).run("go")
    assert inner.calls == 3 and response.messages[1].text == JUDGE_FEEDBACK.replace("{gap_analysis}", "<unknown>")
    offline_without_criteria = AIJudgeLoopEvaluator(OfflineJudgeClient())
    context = LoopContext(inner, AgentSession(), [user("go")], AgentResponse(messages=[Message("assistant", ["x"])]))
    assert (await offline_without_criteria.evaluate(context)).should_reinvoke


@pytest.mark.parametrize(
    "options",
    [
        LoopAgentOptions(),
        LoopAgentOptions(fresh_context_per_iteration=True),
        LoopAgentOptions(on_behalf_of_author_name="loop", exclude_on_behalf_of_messages=True),
        LoopAgentOptions(max_iterations=2),
    ],
    ids=["defaults", "fresh", "author+exclude", "cap"],
)
async def test_streaming_sends_the_same_inputs_and_returns_the_same_messages_as_non_streaming(options):
    evaluator = until(lambda c: c.iteration < 3, "fix it")
    plain_inner, streamed_inner = CaptureAgent(lambda c: f"r{c}"), CaptureAgent(lambda c: f"r{c}")
    plain = await LoopAgent(plain_inner, evaluator, options).run([user("task")])
    updates, streamed = await collect(LoopAgent(streamed_inner, evaluator, options).run([user("task")], stream=True))
    assert [texts(m) for m in plain_inner.messages_per_call] == [texts(m) for m in streamed_inner.messages_per_call]
    assert texts(plain.messages) == texts(streamed.messages) == [u.text for u in updates]


decisions = st.lists(st.sampled_from(["stop", "feedback", "blank", "messages"]), min_size=1, max_size=8)
option_sets = st.builds(
    LoopAgentOptions,
    max_iterations=st.one_of(st.none(), st.integers(min_value=1, max_value=6)),
    fresh_context_per_iteration=st.booleans(),
    exclude_on_behalf_of_messages=st.booleans(),
    non_streaming_returns_last_response_only=st.booleans(),
)


def scripted(plan):
    def decide(context):
        choice = plan[context.iteration - 1] if context.iteration <= len(plan) else "stop"
        if choice == "feedback":
            return LoopEvaluation.continue_with(f"fb {context.iteration}")
        if choice == "blank":
            return LoopEvaluation.continue_with("   ")
        if choice == "messages":
            return LoopEvaluation.continue_with_messages([user(f"explicit {context.iteration}")])
        return LoopEvaluation.stop()

    return DelegateLoopEvaluator(decide)


@settings(max_examples=60, deadline=None)
@given(plan=decisions, options=option_sets)
def test_any_plan_respects_the_cap_the_feedback_log_and_agrees_across_modes(plan, options):
    async def both():
        plain_inner, streamed_inner = CaptureAgent(lambda c: f"r{c}"), CaptureAgent(lambda c: f"r{c}")
        plain = await LoopAgent(plain_inner, scripted(plan), options).run("task")
        updates, streamed = await collect(LoopAgent(streamed_inner, scripted(plan), options).run("task", stream=True))
        return plain_inner, plain, streamed_inner, updates, streamed

    plain_inner, plain, streamed_inner, updates, streamed = asyncio.run(both())
    wanted = next((i + 1 for i, choice in enumerate(plan) if choice == "stop"), len(plan) + 1)
    cap = options.max_iterations
    calls = min(wanted, 10 if cap is None else cap)
    assert plain_inner.calls == streamed_inner.calls == calls
    assert [texts(m) for m in plain_inner.messages_per_call] == [texts(m) for m in streamed_inner.messages_per_call]
    responses = [f"r{i}" for i in range(1, calls + 1)]
    assert texts(streamed.messages) == [u.text for u in updates]
    if options.non_streaming_returns_last_response_only:
        assert texts(plain.messages) == responses[-1:]
    else:
        assert [t for t in texts(plain.messages) if t.startswith("r")] == responses
        assert texts(plain.messages) == texts(streamed.messages) == [u.text for u in updates]
        if options.exclude_on_behalf_of_messages:
            assert texts(plain.messages) == responses


# --- attribution: every message the loop adds names the loop --------------------------------------

LOOP_ATTRIBUTION = {"source_id": "loop", "source_type": "LoopAgent"}


def attribution(message):
    return message.additional_properties.get("_attribution")


@pytest.mark.parametrize("stream", [False, True], ids=["run", "stream"])
async def test_feedback_messages_carry_loop_attribution_and_a_fresh_id_each(stream):
    inner = CaptureAgent(lambda c: f"r{c}")
    agent = LoopAgent(inner, until(lambda c: c.iteration < 3, "fix it"))
    caller = [user("original")]
    if stream:
        _, response = await collect(agent.run(caller, stream=True))
    else:
        response = await agent.run(caller)
    sent = [inner.messages_per_call[1][0], inner.messages_per_call[2][0]]
    assert [attribution(m) for m in sent] == [LOOP_ATTRIBUTION] * 2
    assert sent[0].message_id and sent[1].message_id and sent[0].message_id != sent[1].message_id
    surfaced = [m for m in response.messages if m.role == "user"]
    assert texts(surfaced) == ["fix it", "fix it"] and all(attribution(m) == LOOP_ATTRIBUTION for m in surfaced)
    assert attribution(caller[0]) is None and attribution(inner.messages_per_call[0][0]) is None
    assert all(attribution(m) is None for m in response.messages if m.role == "assistant")


async def test_fresh_context_feedback_log_is_attributed_and_the_replayed_task_is_not():
    inner = CaptureAgent()
    options = LoopAgentOptions(fresh_context_per_iteration=True)
    await LoopAgent(inner, until(lambda c: c.iteration < 2, "fb"), options).run([user("task")])
    task, log = inner.messages_per_call[1]
    assert attribution(task) is None and attribution(log) == LOOP_ATTRIBUTION and log.text == "## Feedback\n\n- fb"


async def test_explicit_messages_are_passed_on_attributed_without_touching_the_evaluators_objects():
    own = Message(role="user", contents=["explicit"], additional_properties={"_attribution": {"source_id": "mine"}})
    plain = user("plain")
    evaluator = DelegateLoopEvaluator(
        lambda c: LoopEvaluation.continue_with_messages([own, plain]) if c.iteration < 2 else LoopEvaluation.stop()
    )
    inner = CaptureAgent()
    await LoopAgent(inner, evaluator).run("go")
    sent_own, sent_plain = inner.messages_per_call[1]
    assert attribution(sent_plain) == LOOP_ATTRIBUTION
    assert attribution(sent_own) == {"source_id": "mine", "source_type": "LoopAgent"}  # MAF merge: existing keys win
    assert attribution(plain) is None and attribution(own) == {"source_id": "mine"}


async def test_last_response_only_does_not_change_a_streamed_final_response():
    options = LoopAgentOptions(non_streaming_returns_last_response_only=True)
    agent = LoopAgent(CaptureAgent(lambda c: f"r{c}"), until(lambda c: c.iteration < 2, "fix it"), options)
    updates, final = await collect(agent.run("go", stream=True))
    assert texts(final.messages) == [u.text for u in updates] == ["r1", "fix it", "r2"]
    assert texts((await agent.run("go")).messages) == ["r4"]


async def test_the_caller_messages_are_not_copied_nor_changed_by_a_run():
    caller = [user("task")]
    before = caller[0].to_dict()
    inner = Agent(client=NumberingChatClient(MessageNumberer()))
    await LoopAgent(inner, until(lambda c: c.iteration < 3, "more")).run(caller)
    assert caller[0].to_dict() == before
