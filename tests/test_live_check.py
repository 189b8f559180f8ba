"""Lesson 00's "does your live model answer?" cell: every outcome said in words, never a traceback (issue 32)."""

import socket

import pytest
from support.wire_server import loopback_server, use_server

from course_lib.clients import live_model_check

KEY = "sk-test-0123456789-secret"


async def test_offline_there_is_no_live_model_to_ask(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_LLM", "offline")
    said = await live_model_check(env_file=tmp_path / ".env")
    assert said.startswith("COURSE_LLM is offline (the default): every role uses the course's offline models")
    assert said.endswith("then choose Kernel > Restart Kernel and Run All Cells.")  # a bare restart loses imports


@pytest.mark.parametrize(
    ("variables", "reason"),
    [
        ({"COURSE_LLM": "ollama"}, "COURSE_LLM='ollama' is not supported"),
        (
            {"COURSE_LLM": "openai", "OPENAI_MODEL": "m", "OPENAI_API_KEY": "replace-me"},
            "OPENAI_API_KEY is still the placeholder from .env.example",
        ),
    ],
)
async def test_refused_settings_are_said_and_no_model_is_asked(monkeypatch, tmp_path, variables, reason):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    said = await live_model_check(env_file=tmp_path / ".env")
    assert said.startswith("No model was asked: your settings were refused.") and reason in said


async def test_a_dead_endpoint_is_said_with_the_setting_to_check(monkeypatch, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for name, value in {
        "COURSE_LLM": "openai",
        "OPENAI_MODEL": "m",
        "OPENAI_API_KEY": KEY,
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "COURSE_LLM_TIMEOUT": "2",
        "COURSE_LLM_MAX_RETRIES": "0",
    }.items():
        monkeypatch.setenv(name, value)
    said = await live_model_check(env_file=tmp_path / ".env")
    assert said.startswith("The live model did not answer one short question, so every lesson would stop")
    assert "assistant model 'm' at http://127.0.0.1:" in said
    assert "cannot connect" in said and "Check OPENAI_BASE_URL" in said and KEY not in said


async def test_a_live_model_that_answers_is_said_with_its_reply(monkeypatch):
    with loopback_server() as state:
        use_server(monkeypatch, state, KEY)
        said = await live_model_check()
    assert said.startswith("The live model answers: the assistant model ") and "replied '" in said
