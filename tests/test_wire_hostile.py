"""A hostile OpenAI-compatible server, through the real openai SDK: every failure names its real cause (issue 33).

Each test plays one shape a server can send that the protocol does not allow, or a setting that cannot work, and
checks that the student reads the course's own error naming that cause -- not a ``KeyError``, not "an empty
message", not "unreachable" -- and that what the course shows and logs never carries the key, in any encoding.
"""

import json
import logging
import time
from urllib.parse import quote, quote_plus

import pytest
from agent_framework import Agent
from support.wire_server import USAGE, loopback_server, use_server

from course_lib import live_client
from course_lib.clients import make_chat_client
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.live import LiveModelError, LiveSettings, LiveSettingsError, load_course_settings
from course_lib.live_client import AnswerMemo, StreamMask
from course_lib.memory import WorkingMemory
from course_lib.tracing import CallLog

KEY = "sk-test-0123456789-secret"


@pytest.fixture
def server(monkeypatch):
    with loopback_server() as state:
        use_server(monkeypatch, state, KEY)
        state.reply_with = lambda body: "Noted: module=Billing."
        yield state


async def ask(stream, role="assistant", log=None, options=None):
    agent = Agent(client=make_chat_client(role, log=log), name="desk")
    if stream:
        run = agent.run("module=Billing", stream=True, options=options or {})
        async for _ in run:
            pass
        return await run.get_final_response()
    return await agent.run("module=Billing", options=options or {})


def choices_of(payload):
    return payload.get("choices") or []


def reshaped(change):
    """A reshape that applies ``change`` to every choice's message (or delta) that carries content."""

    def reshape(payload):
        for choice in choices_of(payload):
            part = choice.get("message") or choice.get("delta") or {}
            if part.get("content"):
                change(part)
        return payload

    return reshape


# region Shapes the protocol does not allow: each named as what it is

SHAPES = {
    "choices_object": (
        lambda p: {**p, "choices": {"0": p["choices"][0]}} if choices_of(p) else p,
        "'choices' is an object, not a list",
    ),
    "content_list": (
        reshaped(lambda m: m.update(content=[{"type": "text", "text": m["content"]}])),
        "the message content is a list, not text",
    ),
    "content_number": (reshaped(lambda m: m.update(content=42)), "the message content is a number, not text"),
    "two_choices": (
        lambda p: {**p, "choices": [*p["choices"], {**p["choices"][0], "index": 1}]} if choices_of(p) else p,
        "2 choices (indexes 0 and 1); the course asks for one",
    ),
}


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_a_reply_of_the_wrong_shape_is_an_error_naming_the_shape(server, shape, stream):
    server.reshape, cause = SHAPES[shape]
    with pytest.raises(LiveModelError) as raised:
        await ask(stream)
    assert cause in str(raised.value) and raised.value.kind == "broken_reply"
    assert "empty message" not in str(raised.value) and "KeyError" not in str(raised.value)


def content_filter(payload):
    for choice in choices_of(payload):
        if choice.get("finish_reason"):
            choice["finish_reason"] = "content_filter"
    return payload


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_an_answer_stopped_by_the_content_filter_is_not_shown_as_complete(server, stream):
    server.reshape = content_filter
    with pytest.raises(LiveModelError, match=r"content filter.*finish_reason='content_filter'") as raised:
        await ask(stream)
    assert raised.value.kind == "refusal" and raised.value.partial == "Noted: module=Billing."


async def test_the_writer_names_the_content_filter_not_invalid_json(server):
    server.reply_with = lambda body: '{"facts": [{"key": "mod'
    server.reshape = content_filter
    extraction = MemoryExtraction(WorkingMemory(), ChatFactWriter(make_chat_client("writer")))
    report = await extraction.update("module=Billing")
    assert report.status == "writer_failed" and "content filter" in report.diagnostic
    assert "JSON" not in report.diagnostic.split("content filter")[0]


# region Usage that is not a plausible count is unknown

IMPLAUSIBLE = {"negative": -5, "huge": 10**15, "float": 7.5, "string": "seven", "list": [7]}


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
@pytest.mark.parametrize("what", sorted(IMPLAUSIBLE))
async def test_usage_that_is_not_a_plausible_count_is_unknown(server, monkeypatch, what, stream):
    monkeypatch.setattr("support.wire_server.USAGE", {**USAGE, "completion_tokens": IMPLAUSIBLE[what]})
    log = CallLog()
    await ask(stream, log=log)
    [call] = log.calls
    assert call.output_tokens is None and call.total_tokens == USAGE["total_tokens"]
    assert log.usage_by_role()["reported output tokens"].tolist() == ["unknown"]


# region Settings that cannot work are refused as such, before any call


@pytest.mark.parametrize(
    ("variable", "value", "cause"),
    [
        ("OPENAI_API_KEY", "sk-abc\ndef-123456", "OPENAI_API_KEY holds a line break or another control character"),
        ("OPENAI_API_KEY", "sk-abc\rdef-123456", "OPENAI_API_KEY holds a line break or another control character"),
        ("OPENAI_API_KEY", "sk-abcdéf-123456", "OPENAI_API_KEY holds a non-ASCII character"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:99999/v1", "OPENAI_BASE_URL has port 99999; a port is 1 to 65535"),
        ("OPENAI_BASE_URL", "http://127.0.0.1:0/v1", "OPENAI_BASE_URL has port 0; a port is 1 to 65535"),
        ("COURSE_LLM_TIMEOUT", "nan", "COURSE_LLM_TIMEOUT='nan' is not a finite number"),
        ("COURSE_LLM_TIMEOUT", "inf", "COURSE_LLM_TIMEOUT='inf' is not a finite number"),
        ("COURSE_LLM_MAX_RETRIES", "1e3", "COURSE_LLM_MAX_RETRIES='1e3' is not a whole number"),
    ],
    ids=repr,
)
def test_a_setting_that_cannot_work_is_refused_naming_it(server, monkeypatch, variable, value, cause):
    monkeypatch.setenv(variable, value)
    with pytest.raises(LiveSettingsError) as raised:
        load_course_settings()
    assert cause in str(raised.value)
    assert "sk-abc" not in str(raised.value)


# region No key in any encoding, in any content

URL_KEY = "Zm9v+YmFy/ab=cd ef+gh/ij=="


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_a_key_in_the_base_urls_query_is_masked_in_every_encoding_in_the_logs(
    server, monkeypatch, caplog, stream
):
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}?api-key={quote(URL_KEY, safe='')}")
    caplog.set_level(logging.DEBUG)
    await ask(stream)
    assert "api-key=" in server.requests[0]["path"]  # the request itself carries the key
    logged = caplog.text
    assert "HTTP Request: POST" in logged  # httpx logs the URL it sent at INFO: the test must see it
    for encoded in {URL_KEY, quote(URL_KEY, safe=""), quote_plus(URL_KEY, safe=""), quote(URL_KEY)}:
        runs = [encoded[i : i + 8] for i in range(len(encoded) - 7)]
        assert not [run for run in runs if run in logged], encoded


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_a_key_echoed_in_the_reasoning_is_masked_in_the_responses_messages(server, stream):
    def reasoning(payload):
        for choice in choices_of(payload):
            part = choice.get("message") or choice.get("delta")
            if part is not None and part.get("content"):
                part["reasoning_details"] = [{"type": "reasoning.text", "text": f"the key is {KEY}"}]
        return payload

    server.reshape = reasoning
    response = await ask(stream)
    shown = [(c.text or "") + (c.protected_data or "") for m in response.messages for c in m.contents]
    assert any("**********" in text for text in shown)
    assert not [text for text in shown if KEY[:8] in text or KEY[-8:] in text]


# region Masking is linear, the deadline covers the body, an answer longer than the cap could make is refused


def test_masking_a_stream_is_linear_in_its_length(monkeypatch):
    scanned = []
    real = live_client.secret_coverage

    def counting(text, secrets):
        scanned.append(len(text))
        return real(text, secrets)

    monkeypatch.setattr(live_client, "secret_coverage", counting)
    costs = {}
    for chunks in (500, 2000):
        scanned.clear()
        masker = StreamMask([KEY])
        for index in range(chunks):
            masker.feed(f"{index:019d} ")
        masker.flush()
        costs[chunks] = sum(scanned)
    assert costs[2000] <= 4 * costs[500] * 1.1  # 4 times the chunks, 4 times the work (not 16)
    assert costs[2000] <= 2 * 2000 * 20 + 2000 * 30


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_an_answer_far_longer_than_the_cap_could_make_is_refused_as_such(server, monkeypatch, stream):
    monkeypatch.setenv("COURSE_LLM_MAX_TOKENS", "64")
    server.reply_with = lambda body: "word " * 20_000
    server.chunk_chars = 2000
    with pytest.raises(LiveModelError, match=r"far longer than the output cap of 64 tokens could make") as raised:
        await ask(stream)
    assert raised.value.kind == "broken_reply"


async def test_the_deadline_covers_checking_and_masking_the_body(server, monkeypatch):
    monkeypatch.setenv("COURSE_LLM_TIMEOUT", "0.5")

    def slow_mask(self, text):
        time.sleep(0.6)
        return text

    monkeypatch.setattr(LiveSettings, "mask", slow_mask)
    server.reply_with = lambda body: "one two three four five"
    start = time.perf_counter()
    with pytest.raises(LiveModelError, match=r"deadline of 0.5 s passed") as raised:
        await ask(stream=False)
    assert raised.value.kind == "deadline" and time.perf_counter() - start < 3


# region The memo is bounded in bytes as well as in count


def test_the_answer_memo_is_bounded_in_bytes():
    from agent_framework import ChatResponse, Message

    memo = AnswerMemo(size=4096, max_bytes=1_000_000)
    for index in range(100):
        memo.put(f"request {index}", ChatResponse(messages=[Message(role="assistant", contents=["x" * 40_000])]))
    assert memo.bytes <= 1_000_000 and 20 <= len(memo.answers) <= 25
    assert memo.get("request 99") is not None and memo.get("request 0") is None


def test_the_memo_keeps_what_it_measured():
    answer = json.dumps({"facts": []})
    memo = AnswerMemo()
    from agent_framework import ChatResponse, Message

    memo.put("k", ChatResponse(messages=[Message(role="assistant", contents=[answer])]))
    assert memo.bytes >= len("k") + len(answer)
