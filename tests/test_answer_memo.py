"""The local model's answer memo, on the wire: the real openai SDK through MAF's client to a loopback server.

The same request again gets the endpoint's first answer back, marked in the log, and never any other request's
answer; a failure, a streamed call, and an endpoint whose settings do not ask for it are each sent again.
"""

import pytest
from agent_framework import Agent
from support.wire_server import loopback_server, text_of

from course_lib import live_client
from course_lib.clients import make_chat_client
from course_lib.extraction import ChatFactWriter
from course_lib.live import Backends, LiveModelError, LiveSettings, LiveSettingsError, _switch
from course_lib.live_client import AnswerMemo, answer_memo
from course_lib.policies import Timeline, TimelineTurn, course_policies, run_policy
from course_lib.tracing import CallLog

KEY = "sk-test-0123456789-secret"


@pytest.fixture(autouse=True)
def fresh_memos(monkeypatch):
    """Each test starts with no answer kept: a port the system hands out again must not find another test's."""
    monkeypatch.setattr(live_client, "_MEMOS", {})


@pytest.fixture
def server():
    with loopback_server() as state:
        yield state


def backends(server, reuse=True):
    settings = LiveSettings.checked(
        model="local-model", api_key=KEY, base_url=server.base_url, timeout=10, max_retries=0, reuse_answers=reuse
    )
    return Backends(backend="local", live=settings)


def echo(body):
    """A reply computed from the request: its last user message, and how many messages came with it."""
    return f"{len(body['messages'])} messages; last: {text_of(body['messages'][-1])}"


async def ask(server, text, *, log=None, reuse=True, stream=False, instructions="Be brief."):
    agent = Agent(
        client=make_chat_client("reader", log=log, backends=backends(server, reuse)), instructions=instructions
    )
    if stream:
        run = agent.run(text, stream=True)
        async for _ in run:
            pass
        return (await run.get_final_response()).text
    return (await agent.run(text)).text


async def test_the_same_request_again_gets_the_first_answer_marked_reused_with_its_usage(server):
    server.reply_with = echo
    log = CallLog()
    first = await ask(server, "module=Billing", log=log)
    again = await ask(server, "module=Billing", log=log)
    assert again == first == "2 messages; last: module=Billing"
    assert len(server.requests) == 1
    assert [c.reused for c in log.calls] == [False, True]
    assert log.calls[1].total_tokens == log.calls[0].total_tokens is not None
    assert log.calls[1].chars_sent == log.calls[0].chars_sent


@pytest.mark.parametrize(
    "other",
    [
        {"text": "module=Billing "},  # one character more in the message
        {"text": "module=Billing", "instructions": "Be very brief."},  # other instructions
    ],
    ids=["message", "instructions"],
)
async def test_a_request_that_differs_in_anything_is_sent(server, other):
    server.reply_with = echo
    await ask(server, "module=Billing")
    await ask(server, **other)
    assert len(server.requests) == 2


async def test_another_role_with_another_output_cap_is_another_request(server):
    server.reply_with = echo
    settings = backends(server).live.model_copy(update={"role_max_tokens": {"reader": 64}})
    for role in ("reader", "assistant"):
        await Agent(client=make_chat_client(role, backends=Backends(backend="local", live=settings))).run("hi")
    assert [r["body"]["max_tokens"] for r in server.requests] == [64, settings.max_tokens]


async def test_a_failed_call_is_not_remembered_it_is_sent_again(server):
    server.fault = "http_500"
    with pytest.raises(LiveModelError):
        await ask(server, "module=Billing")
    server.fault = None
    server.reply_with = echo
    assert await ask(server, "module=Billing") == "2 messages; last: module=Billing"
    assert len(server.requests) == 2


@pytest.mark.parametrize("fault", ["length", "refusal", "tool_call"])
async def test_an_answer_the_course_refuses_is_the_models_whole_answer_refused_again_without_a_call(server, fault):
    """A cut JSON batch (or a refusal, a tool call) is what the seeded model writes for these words: asked again, the
    same error comes back, marked reused in the log with what the first one kept, and nothing is sent."""
    server.fault = fault
    log = CallLog()
    writer = ChatFactWriter(make_chat_client("writer", log=log, backends=backends(server)))
    errors = []
    for _ in range(2):
        with pytest.raises(LiveModelError) as raised:
            await writer.propose("module=Billing")
        errors.append(raised.value)
    assert len(server.requests) == 1
    assert (errors[1].kind, errors[1].partial, errors[1].usage) == (errors[0].kind, errors[0].partial, errors[0].usage)
    assert errors[1] is not errors[0] and [c.reused for c in log.calls] == [False, True]
    assert str(errors[1]).startswith(str(errors[0]))  # what the first said, then that it is given again
    assert "earlier answer to this very request, given again: COURSE_LOCAL_REUSE=0 asks it anew" in str(errors[1])
    assert log.calls[1].partial_reply == log.calls[0].partial_reply


async def test_two_roles_sending_the_same_request_are_each_asked(server):
    """What the course makes of one reply depends on the role (a cut answer is marked for the reader, an error for
    the judge): one role's outcome is never another's, even when the caps and the words are the same."""
    server.reply_with = echo
    settings = backends(server).live.model_copy(update={"role_max_tokens": {}})
    for role in ("reader", "judge"):
        await Agent(client=make_chat_client(role, backends=Backends(backend="local", live=settings))).run("hi")
    assert len(server.requests) == 2 and server.requests[0]["body"] == server.requests[1]["body"]


async def test_two_endpoints_are_each_asked_the_same_request():
    with loopback_server() as first, loopback_server() as second:
        for state in (first, second):
            state.reply_with = echo
            await ask(state, "module=Billing")
        assert (len(first.requests), len(second.requests)) == (1, 1)


def test_a_request_that_is_not_plain_json_has_no_key_and_is_never_reused():
    assert AnswerMemo.key({"messages": [{"role": "user", "content": "hi"}]}) is not None
    assert AnswerMemo.key({"messages": [], "extra": object()}) is None


async def test_a_streamed_call_is_sent_each_time(server):
    server.reply_with = echo
    for _ in range(2):
        assert await ask(server, "module=Billing", stream=True) == "2 messages; last: module=Billing"
    assert len(server.requests) == 2


async def test_settings_that_do_not_ask_for_it_send_every_request(server):
    server.reply_with = echo
    log = CallLog()
    for _ in range(2):
        await ask(server, "module=Billing", log=log, reuse=False)
    assert len(server.requests) == 2 and [c.reused for c in log.calls] == [False, False]


async def test_a_policy_replayed_again_is_answered_alike_without_a_call(server):
    """Lesson 07 replays a policy's turns under another store bound: the reader's requests do not change with it."""
    server.reply_with = echo
    timeline = Timeline(name="four turns", turns=[TimelineTurn(user=f"symptom=case {n}") for n in range(1, 5)])
    policies = course_policies(backends=backends(server))
    replies = []
    for _ in range(2):
        log = CallLog()
        await run_policy(timeline, policies["full history"]("latest", log), log, "latest")
        replies.append([(c.reply, c.reused) for c in log.calls])
    assert [r for r, _ in replies[1]] == [r for r, _ in replies[0]]
    assert [reused for _, reused in replies[0]] == [False] * 4 and [reused for _, reused in replies[1]] == [True] * 4
    assert len(server.requests) == 4


def test_the_memo_keeps_at_most_its_size_the_oldest_going_first():
    from agent_framework import ChatResponse, Message

    memo = AnswerMemo(size=2)
    for n in range(3):
        memo.put(str(n), ChatResponse(messages=[Message(role="assistant", contents=[f"answer {n}"])]))
    assert memo.get("0") is None and memo.get("2").text == "answer 2" and memo.reused == 1


def test_a_returned_answer_is_a_copy_a_caller_cannot_change_the_kept_one(server):
    from agent_framework import ChatResponse, Message

    memo = answer_memo(backends(server).live)
    memo.put("k", ChatResponse(messages=[Message(role="assistant", contents=["kept"])]))
    memo.get("k").messages[0].contents.clear()
    assert memo.get("k").text == "kept"


@pytest.mark.parametrize(("text", "on"), [(None, True), ("", True), ("0", False), ("off", False), ("Yes", True)])
def test_course_local_reuse_reads_on_and_off(text, on):
    assert _switch("COURSE_LOCAL_REUSE", text, default=True) is on


def test_course_local_reuse_refuses_anything_else_naming_the_variable():
    with pytest.raises(LiveSettingsError, match=r"COURSE_LOCAL_REUSE='maybe' is neither 1 \(on\) nor 0 \(off\)"):
        _switch("COURSE_LOCAL_REUSE", "maybe", default=True)


def test_every_failure_kind_is_the_endpoints_the_models_whole_answer_or_a_refused_request():
    from typing import get_args

    from course_lib.live import ENDPOINT_FAILURES, MODEL_ANSWER_FAILURES, FailureKind

    assert not ENDPOINT_FAILURES & MODEL_ANSWER_FAILURES
    assert ENDPOINT_FAILURES | MODEL_ANSWER_FAILURES | {"request_refused"} == set(get_args(FailureKind))


async def test_the_call_tables_say_which_calls_were_answered_again_and_only_when_one_was(server):
    server.reply_with = echo
    log = CallLog()
    await ask(server, "module=Billing", log=log)
    assert "answered again (memo)" not in log.to_frame() and "answered again (memo)" not in log.usage_by_role()
    await ask(server, "module=Billing", log=log)
    assert list(log.to_frame()["answered again (memo)"]) == [False, True]
    assert list(log.usage_by_role()["answered again (memo)"]) == [1]


async def test_a_window_policy_is_answered_from_the_full_historys_calls_within_its_window(server):
    """Within the window the last turns are the whole history: the very requests, sent once for both policies."""
    server.reply_with = echo
    timeline = Timeline(name="five turns", turns=[TimelineTurn(user=f"symptom=case {n}") for n in range(1, 6)])
    policies = course_policies(window=3, backends=backends(server))
    reused = {}
    for name in ("full history", "last 3 turns"):
        log = CallLog()
        await run_policy(timeline, policies[name]("latest", log), log, "latest")
        reused[name] = [c.reused for c in log.calls]
    # turn 4 still sends the 3 earlier turns, all of them; turn 5 drops turn 1: another request
    assert reused == {"full history": [False] * 5, "last 3 turns": [True] * 4 + [False]}
    assert len(server.requests) == 6
