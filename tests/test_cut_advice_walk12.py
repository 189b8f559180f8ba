"""A cut answer's advice names what can help (issue 32, lesson 04's walk): at the local server's own output cap,
"raise COURSE_LLM_MAX_TOKENS" sent the student to a setting the course then refuses above that cap."""

from __future__ import annotations

import pytest
from agent_framework import Agent
from support.wire_server import loopback_server, run_agent, use_server

from course_lib.live import LiveSettings, LocalRequest, local_bounds
from course_lib.live_client import LiveChatClient, LiveModelError, cut_advice
from course_lib.recordings import load_policy_costs


def test_below_a_servers_own_cap_the_advice_is_the_setting_and_at_it_a_shorter_answer():
    assert cut_advice(64) == "raise COURSE_LLM_MAX_TOKENS (now 64) or ask for a shorter answer"
    assert cut_advice(64, server_cap=256).startswith("raise COURSE_LLM_MAX_TOKENS (now 64)")
    at_cap = cut_advice(256, server_cap=256)
    assert "the server's own cap, which no setting raises: ask for a shorter answer" in at_cap
    assert "COURSE_LLM_MAX_TOKENS" not in at_cap


def test_the_local_settings_carry_the_servers_own_cap():
    bounds = local_bounds(LocalRequest(), 256)
    settings = LiveSettings.checked(model="local", api_key="local", base_url="http://127.0.0.1:1/v1", **bounds)
    assert settings.server_max_tokens == settings.max_tokens == 256


@pytest.mark.parametrize("stream", [False, True], ids=["non-streaming", "streaming"])
async def test_a_cut_at_the_servers_own_cap_says_no_setting_raises_it_on_the_wire(monkeypatch, stream):
    with loopback_server() as server:
        use_server(monkeypatch, server, "sk-test")
        server.fault = "length"
        settings = LiveSettings.checked(
            model="local-model", api_key="sk-test", base_url=server.base_url, max_tokens=64, server_max_tokens=64
        )
        agent = Agent(client=LiveChatClient("summarizer", settings))
        with pytest.raises(LiveModelError, match="64 tokens is the server's own cap, which no setting raises"):
            await run_agent(agent, "module=Billing", stream=stream)


def test_lesson_04s_recorded_stop_shows_what_the_client_says_now():
    details = load_policy_costs().stop_details()
    assert "raise COURSE_LLM_MAX_TOKENS (now 256)" not in details  # replaced, not retracted (walk 19)
    assert "256 tokens is the server's own cap, which no setting raises: ask for a shorter answer" in details
    assert "(Advice as the course's client gives it now; the recording, made earlier, said to raise" in details
