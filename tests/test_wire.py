"""Wire tests: the real openai SDK, through MAF's OpenAI client and the course factory, on loopback HTTP.

The server (``wire_server.py``) computes its reply from the request body with the offline writer's
logic, so these tests check what really crosses the wire -- instructions, messages, the JSON schema,
usage -- and how every way an endpoint can fail reaches a student: a clear error naming the cause (for
the writer, a ``writer_failed`` report), the store unchanged, no fallback to the offline model.
"""

import json
import logging
import socket
import time

import pytest
from agent_framework import Agent
from pydantic import ValidationError
from support.wire_server import FAULTS, USAGE, loopback_server, text_of, use_server, writer_reply

from course_lib.clients import make_chat_client
from course_lib.extraction import WRITER_EXAMPLES, ChatFactWriter, FactBatch, MemoryExtraction
from course_lib.live import LOCAL_ROLE_SAMPLING, ROLES, Backends, LiveModelError, load_course_settings
from course_lib.live_client import LiveChatClient
from course_lib.loop import AIJudgeLoopEvaluator, CompletionMarkerLoopEvaluator, LoopAgent, LoopAgentOptions
from course_lib.memory import WorkingMemory
from course_lib.policies import Timeline, TimelineTurn, compare_policies, course_policies
from course_lib.presentation import cost_table
from course_lib.tracing import EST_TOKENS, CallLog

KEY = "sk-test-0123456789-secret"


@pytest.fixture
def server(monkeypatch):
    with loopback_server() as state:
        use_server(monkeypatch, state, KEY)
        yield state


# region What crosses the wire when all goes well

TEXT_PART = {"type": "text", "text": "module=Billing; database=SQL Server 2022"}


async def test_live_writer_sends_instructions_the_examples_the_message_and_a_counted_json_schema(server):
    client = make_chat_client("writer")
    assert isinstance(client, LiveChatClient) and client.model == "local-model"
    extraction = MemoryExtraction(WorkingMemory(), ChatFactWriter(client))
    report = await extraction.update("module=Billing; database=SQL Server 2022")
    assert report.status == "accepted"
    assert [(f.key, f.value) for f in report.facts] == [("database", "SQL Server 2022"), ("module", "Billing")]
    [request] = server.requests
    body = request["body"]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == f"Bearer {KEY}"
    assert body["model"] == "local-model"
    assert [m["role"] for m in body["messages"]] == ["system", *["user", "assistant"] * len(WRITER_EXAMPLES), "user"]
    assert "key=value" in json.dumps(body["messages"][0])
    assert body["messages"][-1]["content"] in ("module=Billing; database=SQL Server 2022", [TEXT_PART])
    assert body["response_format"]["type"] == "json_schema"
    facts = body["response_format"]["json_schema"]["schema"]["properties"]["facts"]
    assert (facts["minItems"], facts["maxItems"]) == (2, 2)  # the two declarations, never which ones
    assert facts["items"]["properties"]["key"]["enum"][0] == "product"
    assert body["response_format"]["json_schema"]["name"] == "FactBatch"


async def test_a_roles_sampling_goes_with_its_requests_only_and_a_callers_own_wins(server):
    """The local model's writer decodes greedily (LOCAL_ROLE_SAMPLING); other roles keep the server's sampling."""
    settings = load_course_settings().live
    assert settings is not None and "writer" not in settings.role_sampling  # an endpoint gets none by default
    sampled = Backends(backend="openai", live=settings.model_copy(update={"role_sampling": LOCAL_ROLE_SAMPLING}))
    await ChatFactWriter(make_chat_client("writer", backends=sampled)).propose("module=Billing")
    await ChatFactWriter(make_chat_client("writer", backends=sampled), options={"temperature": 0.8}).propose("x")
    await Agent(client=make_chat_client("reader", backends=sampled)).run("hello")
    assert [r["body"].get("temperature") for r in server.requests] == [0.0, 0.8, None]


async def test_a_role_can_use_its_own_model(server, monkeypatch):
    monkeypatch.setenv("COURSE_WRITER_MODEL", "small-writer")
    await ChatFactWriter(make_chat_client("writer")).propose("module=Billing")
    await Agent(client=make_chat_client("assistant")).run("hello")
    assert [r["body"]["model"] for r in server.requests] == ["small-writer", "local-model"]


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_reported_usage_is_logged_per_call_and_per_role(server, stream):
    log = CallLog()
    writer = ChatFactWriter(make_chat_client("writer", log=log))
    server.reply_with = lambda body: "Noted: module=Billing."
    desk = Agent(client=make_chat_client("assistant", log=log), instructions="Be brief.")
    if stream:
        run = desk.run("module=Billing", stream=True)
        streamed = "".join([u.text async for u in run])
        response = await run.get_final_response()
        assert streamed == response.text == "Noted: module=Billing."
    else:
        response = await desk.run("module=Billing")
    server.reply_with = lambda body: json.dumps({"facts": []})
    await writer.propose("a question?")
    assert response.usage_details["input_token_count"] == USAGE["prompt_tokens"]
    assistant, writer_call = log.calls
    assert (assistant.client, assistant.reply, assistant.instructions) == (
        "assistant",
        "Noted: module=Billing.",
        "Be brief.",
    )
    assert (assistant.input_tokens, assistant.output_tokens, assistant.total_tokens) == (42, 7, 49)
    assert writer_call.client == "writer" and "key=value" in writer_call.instructions
    by_role = log.usage_by_role().set_index("role")
    assert by_role.loc["writer", "reported total tokens"] == 49 and by_role.loc["assistant", "calls"] == 1


async def test_usage_is_unknown_where_the_endpoint_reports_none(server, monkeypatch):
    monkeypatch.setattr("support.wire_server.USAGE", None)
    log = CallLog()
    server.reply_with = lambda body: "fine"
    await Agent(client=make_chat_client("assistant", log=log)).run("hello")
    assert log.calls[0].input_tokens is None
    assert log.usage_by_role()["reported total tokens"].tolist() == ["unknown"]
    assert log.to_frame()["reported input tokens"].tolist() == ["unknown"]


def numbered_answer(body):
    """The n-th answer of a conversation: counts the assistant messages the request carries."""
    return f"answer {1 + sum(m['role'] == 'assistant' for m in body['messages'])}"


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_loop_agent_over_the_wire_sends_history_and_feedback(server, stream):
    server.reply_with = numbered_answer
    inner = Agent(client=make_chat_client("worker"), name="worker")
    evaluator = CompletionMarkerLoopEvaluator("answer 3", feedback_message_template="Not yet: go on.")
    agent = LoopAgent(inner, evaluator, LoopAgentOptions(on_behalf_of_author_name="loop"))
    if stream:
        run = agent.run("Write three answers.", stream=True)
        updates = [u async for u in run]
        response = await run.get_final_response()
        assert "".join(u.text for u in updates) == "".join(m.text for m in response.messages)
    else:
        response = await agent.run("Write three answers.")
    assert [m.text for m in response.messages] == [
        "answer 1",
        "Not yet: go on.",
        "answer 2",
        "Not yet: go on.",
        "answer 3",
    ]
    sent = [[(m["role"], text_of(m)) for m in r["body"]["messages"]] for r in server.requests]
    assert sent[0] == [("user", "Write three answers.")]
    assert sent[2] == [
        ("user", "Write three answers."),
        ("assistant", "answer 1"),
        ("user", "Not yet: go on."),
        ("assistant", "answer 2"),
        ("user", "Not yet: go on."),
    ]
    assert all(r["body"].get("stream", False) == stream for r in server.requests)
    assert response.usage_details["input_token_count"] == 3 * 42


async def test_lesson_04_policies_go_live_and_report_usage_beside_the_estimate(server):
    server.reply_with = lambda body: writer_reply(body) if "response_format" in body else "Noted."
    timeline = Timeline(name="one turn", turns=[TimelineTurn(user="module=Billing")])
    factories = course_policies()
    comparison = await compare_policies(timeline, {"facts": factories["facts"]}, rules=["latest"])
    assert [r["body"]["model"] for r in server.requests] == ["local-model", "local-model"]  # reader, then writer
    costs = cost_table(comparison.calls).loc["facts"]
    assert (costs["reported input tokens"], costs["reported total tokens"]) == (2 * 42, 2 * 49)
    assert costs[EST_TOKENS] > 0


async def test_lesson_06_worker_and_judge_go_live(server):
    def answer(body):
        return (
            json.dumps({"answered": True, "gapAnalysis": ""}) if "response_format" in body else "Draft: rollback plan."
        )

    server.reply_with = answer
    log = CallLog()
    judge = AIJudgeLoopEvaluator(make_chat_client("judge", log=log), criteria=["mention: rollback plan"])
    loop = LoopAgent(Agent(client=make_chat_client("worker", log=log), name="worker"), judge)
    result = await loop.run("Write the release note.")
    assert [m.text for m in result.messages] == ["Draft: rollback plan."]
    assert log.usage_by_role().set_index("role")["reported total tokens"].to_dict() == {"worker": 49, "judge": 49}


# region Every failure is an error that names its cause

CAUSES = {
    "timeout": "Raise COURSE_LLM_TIMEOUT (now 0.5) for a slow model",
    "http_401": "the endpoint refused the key (HTTP 401). Check OPENAI_API_KEY",
    "http_429": "rate limited (HTTP 429) after 1 attempt",
    "http_500": "server error (HTTP 500: simulated 500)",
    "html_body": ("non-JSON body ('<!DOCTYPE html>", "no server-sent event"),
    "malformed_json": "malformed JSON",
    "empty_choices": ("no choices", "carried no choices"),
    "refusal": 'the model refused: "I can\'t help with that."',
    "sse_cut": ("malformed JSON", "the stream was cut mid-way"),
    "chunked_cut": "the connection was cut before the answer was complete (peer closed connection",
    "error_in_200": (
        "answered HTTP 200 with an error instead of an answer: The model is overloaded",
        "sent an error instead of an answer: The model is overloaded",
    ),
    "no_message": ("a choice without a message", "the stream carried no text"),
    "tool_call": "answered with a tool call ('lookup') though the course offered it no tool",
    "slow_drip": "the call's deadline of 0.5 s passed before the answer was complete",
    "keep_alive": "the call's deadline of 0.5 s passed before the answer was complete",
}
"""What the student reads for each fault (plain, streamed); the slow faults run with a 0.5 s deadline."""
SLOW = ("timeout", "slow_drip", "keep_alive")


def expected_cause(fault, stream):
    cause = CAUSES[fault]
    return cause[stream] if isinstance(cause, tuple) else cause


async def ask(stream):
    agent = Agent(client=make_chat_client("assistant"), name="desk")
    if stream:
        run = agent.run("module=Billing", stream=True)
        async for _ in run:
            pass
        return await run.get_final_response()
    return await agent.run("module=Billing")


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
@pytest.mark.parametrize("fault", sorted(CAUSES))
async def test_each_fault_is_an_error_naming_its_cause(server, monkeypatch, fault, stream, caplog):
    server.fault = fault
    if fault in SLOW:
        monkeypatch.setenv("COURSE_LLM_TIMEOUT", "0.5")
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LiveModelError) as raised:
        await ask(stream)
    message = str(raised.value)
    assert expected_cause(fault, stream) in message
    assert message.startswith(f"assistant model 'local-model' at {server.base_url}: ")
    assert message.endswith("No offline fallback is used.")
    assert KEY not in message and KEY not in caplog.text


def free_port():
    """A port that was free a moment ago: nothing listens there."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_a_failed_call_is_logged_with_its_error_and_no_usage(server):
    server.fault = "http_500"
    log = CallLog()
    with pytest.raises(LiveModelError):
        await Agent(client=make_chat_client("assistant", log=log)).run("module=Billing")
    [call] = log.calls
    assert "server error (HTTP 500" in call.error and KEY not in call.error
    assert (call.reply, call.total_tokens) == ("", None) and [m.text for m in call.messages] == ["module=Billing"]


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_an_endpoint_that_is_down_says_which_setting_to_check(server, monkeypatch, stream):
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    with pytest.raises(
        LiveModelError,
        match=r"cannot connect \(.*\)\. No connection to the endpoint could be opened, so no request was sent\. "
        r"Is the server running\? Check OPENAI_BASE_URL",
    ):
        await ask(stream)


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_a_base_url_without_v1_is_a_404_naming_the_base_url(server, monkeypatch, stream):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url.removesuffix("/v1"))
    with pytest.raises(LiveModelError, match=r"not found \(HTTP 404\).*OPENAI_BASE_URL .*ends in /v1"):
        await ask(stream)


async def test_retries_are_bounded_by_the_setting(server, monkeypatch):
    monkeypatch.setenv("COURSE_LLM_MAX_RETRIES", "2")
    server.fault = "http_500"
    with pytest.raises(LiveModelError, match=r"HTTP 500"):
        await ask(stream=False)
    assert len(server.requests) == 3


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_structured_output_that_does_not_fit_the_schema_is_refused(server, stream):
    server.fault = "schema_mismatch"
    agent = Agent(client=make_chat_client("writer"))
    with pytest.raises(ValidationError, match=r"validation errors? for FactBatch"):
        if stream:
            run = agent.run("module=Billing", stream=True, options={"response_format": FactBatch})
            _ = (await run.get_final_response()).value
        else:
            _ = (await agent.run("module=Billing", options={"response_format": FactBatch})).value


@pytest.mark.parametrize("fault", [*FAULTS, "down"])
async def test_a_failing_writer_is_reported_and_the_store_is_unchanged(server, monkeypatch, fault):
    extraction = MemoryExtraction(WorkingMemory(), ChatFactWriter(make_chat_client("writer")))
    assert (await extraction.update("module=Billing")).status == "accepted"
    before = extraction.memory.facts
    if fault == "down":
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    if fault in SLOW:
        monkeypatch.setenv("COURSE_LLM_TIMEOUT", "0.5")
    extraction.writer = ChatFactWriter(make_chat_client("writer"))
    server.fault = fault
    report = await extraction.update("module=Reporting")
    assert report.status == "writer_failed"
    assert "no fallback" in report.diagnostic and KEY not in report.diagnostic
    assert extraction.memory.facts == before
    if fault in CAUSES:
        assert expected_cause(fault, False) in report.diagnostic
    if fault == "length":  # the writer's JSON, cut by the output cap, is reported as cut, not as a bad batch
        assert "the JSON was cut at the output cap of 512 tokens (finish_reason='length')" in report.diagnostic
        assert "not a valid fact batch" not in report.diagnostic


async def test_a_live_client_refuses_tools_before_sending_anything(server):
    def lookup(key: str) -> str:
        """A tool no course model is given."""
        return key

    client = make_chat_client("reader")
    with pytest.raises(ValueError, match="without MAF's tool loop"):
        await Agent(client=client, tools=[lookup]).run("module=Billing")
    assert server.requests == []


# region The key never shows; one deadline per call; no empty success (issue 22)

LONG_KEY = "sk-proj-" + "".join(f"{i:02d}abcdefgh"[i % 7 :][:4] for i in range(32))[:128]
"""A 136-character key, as OpenAI's project keys are: long enough that a 200-character cut can fall inside it."""


def key_runs(text, key, run=8):
    """Every run of ``run`` characters of the key that ``text`` shows (empty: the key does not leak)."""
    return sorted({key[i : i + run] for i in range(len(key) - run + 1) if key[i : i + run] in text})


@pytest.fixture
def long_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", LONG_KEY)
    return LONG_KEY


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
@pytest.mark.parametrize(
    ("fault", "pad"), [("echo_key_500", 65), ("echo_key_html", 20), ("echo_key_event", 70)], ids=str
)
async def test_the_key_is_masked_before_any_cut_in_an_error(server, long_key, fault, pad, stream):
    server.fault, server.echo_pad = fault, pad  # the cut (200 or 60 characters) falls inside the echoed key
    with pytest.raises(LiveModelError) as raised:
        await ask(stream)
    message = str(raised.value)
    assert key_runs(message, long_key) == []
    if (fault, stream) != ("echo_key_html", True):  # a streamed HTML body is 'no server-sent event', no preview
        assert "x" * 8 + "**********" in message
    assert raised.value.__context__ is None and raised.value.__cause__ is None  # no chain back to the raw error


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
@pytest.mark.parametrize("fault", ["echo_key_401", "echo_key_event"])
async def test_no_log_handler_receives_the_key(server, long_key, caplog, fault, stream):
    server.fault = fault
    caplog.set_level(logging.DEBUG)
    with pytest.raises(LiveModelError):
        await ask(stream)
    raw = [r for r in caplog.records if r.name == "agent_framework" and "service failed" in r.getMessage()]
    assert raw, "MAF logs the provider's raw error at DEBUG: the test must see that record"
    assert "**********" in caplog.text
    for record in caplog.records:
        shown = record.getMessage() + (record.exc_text or "") + (record.stack_info or "")
        if record.exc_info:
            shown += logging.Formatter().formatException(record.exc_info)
        assert key_runs(shown, long_key) == [], record.name


def echo_key_pieces(key):
    """An answer that echoes the key whole, a prefix of it and a suffix of it (each 8 characters or more)."""
    return lambda body: f"Your key is {key}. Prefix {key[:12]} and suffix {key[-9:]}, fine."


@pytest.mark.parametrize("chunk_chars", [0, 3, 7], ids=["per-word", "3-chars", "7-chars"])
async def test_a_key_echoed_in_a_streamed_answer_is_masked_even_split_over_chunks(server, long_key, chunk_chars):
    server.reply_with, server.chunk_chars = echo_key_pieces(long_key), chunk_chars
    log = CallLog()
    run = Agent(client=make_chat_client("assistant", log=log)).run("module=Billing", stream=True)
    pieces = [u.text async for u in run]
    final = await run.get_final_response()
    shown = "".join(pieces)
    assert shown == final.text == log.calls[0].reply
    assert key_runs(shown, long_key) == [] and shown.count("**********") == 3
    assert shown.startswith("Your key is **********. Prefix ********** and suffix **********, fine.")


async def test_a_key_echoed_in_an_answer_never_reaches_the_desk_console_or_the_call_log(server, long_key):
    from course_lib.memory_models import OfflineWriterClient
    from course_lib.providers import ManualInjectionDesk

    server.reply_with = echo_key_pieces(long_key)
    log = CallLog()
    desk = Agent(client=make_chat_client("assistant", log=log), name="desk")
    console = ManualInjectionDesk(desk, MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient())))
    event = await console.handle("module=Billing")
    frame = log.to_frame()
    for text in (event.output, event.reply, frame.to_string(), "".join(frame["reply"])):
        assert key_runs(text, long_key) == []
    assert event.reply == "Your key is **********. Prefix ********** and suffix **********, fine."


async def test_a_base_url_that_carries_a_key_is_masked_wherever_it_is_shown(server, monkeypatch):
    url_key = "url-secret-0123456789"
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}?api-key={url_key}")
    client = make_chat_client("assistant")
    await Agent(client=client).run("hello")
    assert server.requests[0]["path"] == f"/v1/chat/completions?api-key={url_key}"  # the request itself keeps it
    server.fault = "http_500"
    with pytest.raises(LiveModelError) as raised:
        await Agent(client=client).run("hello")
    settings = client.settings
    for text in (str(raised.value), repr(client), repr(settings), str(settings), settings.endpoint):
        assert url_key not in text and "api-key=**********" in text


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
@pytest.mark.parametrize("fault", ["slow_drip", "keep_alive"])
async def test_one_deadline_bounds_the_whole_call_however_the_server_drips(server, monkeypatch, fault, stream):
    """Each byte (or keep-alive comment) comes well within the read timeout; the call still ends at its deadline."""
    monkeypatch.setenv("COURSE_LLM_TIMEOUT", "0.5")
    monkeypatch.setenv("COURSE_LLM_MAX_RETRIES", "1")  # deadline: 0.5 s x 2 attempts + 0.5 s backoff = 1.5 s
    server.fault, server.drip = fault, 0.1
    start = time.perf_counter()
    with pytest.raises(LiveModelError) as raised:
        await ask(stream)
    elapsed = time.perf_counter() - start
    assert "the call's deadline of 1.5 s passed before the answer was complete" in str(raised.value)
    assert raised.value.kind == "deadline"
    assert 1.4 <= elapsed < 1.5 + 2.0  # the bound, plus room for a loaded machine
    assert server.dripped >= 5  # the server was still sending when the deadline stopped the call


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_an_answer_cut_at_the_output_cap_is_marked_where_a_student_reads_it(server, stream):
    server.fault = "length"
    server.reply_with = lambda body: "The rollback plan has three steps: stop, restore, verify."
    response = await ask(stream)
    assert (
        response.text
        == "The rollback plan has three [cut: this answer reached the output cap of 512 tokens, COURSE_LLM_MAX_TOKENS]"
    )


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
@pytest.mark.parametrize("role", ["writer", "summarizer", "judge"])
async def test_an_answer_cut_at_the_output_cap_is_an_error_where_the_program_reads_it(
    server, monkeypatch, role, stream
):
    monkeypatch.setenv("COURSE_LLM_MAX_TOKENS", "64")
    server.fault = "length"
    agent = Agent(client=make_chat_client(role))
    options = {"response_format": FactBatch} if role == "writer" else {}
    what = "the JSON was cut" if role == "writer" else "the answer was cut"
    with pytest.raises(LiveModelError, match=rf"{what} at the output cap of 64 tokens .*raise COURSE_LLM_MAX_TOKENS"):
        if stream:
            run = agent.run("module=Billing", stream=True, options=options)
            async for _ in run:
                pass
            await run.get_final_response()
        else:
            await agent.run("module=Billing", options=options)


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_a_cut_answer_that_fails_keeps_its_usage_and_partial_text_on_the_error_and_in_the_log(server, stream):
    """The provider billed the tokens of a cut JSON answer and the model wrote something before the cut: the error
    carries both, and the failed call's log row keeps them (a student sees what the model wrote), streamed or not."""
    server.fault = "length"
    server.reply_with = lambda body: '{"facts": [{"evidence": "' + KEY + '", "key": "module", "value": "Billing"}]}'
    log = CallLog()
    agent = Agent(client=make_chat_client("writer", log=log))
    with pytest.raises(LiveModelError, match="the JSON was cut") as raised:
        if stream:
            run = agent.run("module=Billing", stream=True, options={"response_format": FactBatch})
            async for _ in run:
                pass
            await run.get_final_response()
        else:
            await agent.run("module=Billing", options={"response_format": FactBatch})
    partial = raised.value.partial
    assert partial is not None and partial.startswith('{"facts": [{"evidence": "') and KEY[:12] not in partial
    [call] = log.calls
    assert call.error and "cut" in call.error and call.partial_reply == partial
    assert (call.input_tokens, call.output_tokens, call.total_tokens) == (
        USAGE["prompt_tokens"],
        USAGE["completion_tokens"],
        USAGE["total_tokens"],
    )


@pytest.mark.parametrize("fault", ["http_500", "error_in_200", "tool_call"])
async def test_a_failed_streamed_call_is_logged_as_a_failed_row_with_its_error(server, fault):
    """A stream that fails builds no final response: its call is still logged, with the error (key masked)."""
    server.fault = fault
    log = CallLog()
    run = Agent(client=make_chat_client("assistant", log=log)).run("module=Billing", stream=True)
    with pytest.raises(LiveModelError) as raised:
        async for _ in run:
            pass
        await run.get_final_response()
    [call] = log.calls
    assert call.error == str(raised.value) and KEY not in call.error
    assert (call.reply, call.partial_reply, call.total_tokens) == ("", "", None)
    assert [m.text for m in call.messages] == ["module=Billing"]


@pytest.mark.parametrize("role", ROLES)
async def test_every_request_of_every_role_carries_the_output_cap(server, monkeypatch, role):
    server.reply_with = lambda body: writer_reply(body) if "response_format" in body else "fine"
    await Agent(client=make_chat_client(role)).run("module=Billing")
    monkeypatch.setenv("COURSE_LLM_MAX_TOKENS", "100")
    run = Agent(client=make_chat_client(role)).run("module=Billing", stream=True)
    async for _ in run:
        pass
    await Agent(client=make_chat_client(role)).run("module=Billing", options={"max_tokens": 30})
    sent = [(r["body"].get("max_tokens"), "max_completion_tokens" in r["body"]) for r in server.requests]
    assert sent == [(512, False), (100, False), (30, False)]  # a caller's smaller cap is kept
