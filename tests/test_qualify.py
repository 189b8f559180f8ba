"""`make qualify` against the loopback server: the scorecard is what the live writer did, call by call."""

import json

import pytest
from wire_server import last_user_text, loopback_server

from course_lib import qualify
from course_lib.live import LiveSettingsError
from course_lib.memory_models import OfflineWriterClient


@pytest.fixture
def server(monkeypatch):
    with loopback_server() as state:
        for name, value in {
            "COURSE_LLM": "openai",
            "OPENAI_MODEL": "local-model",
            "OPENAI_API_KEY": "test-key",
            "OPENAI_BASE_URL": state.base_url,
            "COURSE_LLM_TIMEOUT": "10",
            "COURSE_LLM_MAX_RETRIES": "0",
        }.items():
            monkeypatch.setenv(name, value)
        yield state


async def test_a_careful_writer_scores_as_the_contract_says_with_usage_per_call(server):
    card, totals = await qualify.run()
    assert len(card) == len(qualify.BATTERY) and card["as contract"].all()
    assert set(card["kind"]) == {"declaration", "correction", "prose", "question", "injection", "over-long", "hostile"}
    over_long = card.set_index("case").loc["over-long message"]
    assert (over_long["outcome"], over_long["calls"], over_long["total_tokens"]) == ("rejected", 0, "unknown")
    called = card[card["calls"] > 0]
    assert (called["total_tokens"] == 49).all() and len(server.requests) == called["calls"].sum()
    assert totals.loc["total_tokens reported", "value"] == 49 * len(called)
    assert totals.loc["as the contract says", "value"] == len(card)


async def test_a_writer_that_infers_from_prose_is_caught_and_a_dead_one_fails_by_name(server):
    server.reply_with = lambda body: json.dumps({"facts": OfflineWriterClient("infer").propose(last_user_text(body))})
    card, totals = await qualify.run()
    prose = card.set_index("case").loc["prose is not a fact"]
    assert (prose["outcome"], prose["as contract"], prose["reason"]) == (
        "rejected",
        False,
        "not the explicit declarations",
    )
    assert totals.loc["rejected: not the explicit declarations", "value"] >= 1
    server.fault = "http_500"
    card, totals = await qualify.run()
    failed = card[card["calls"] > 0]
    assert (failed["outcome"] == "writer_failed").all() and (failed["total_tokens"] == "unknown").all()
    assert failed["reason"].str.contains("server error \\(HTTP 500").all()
    assert totals.loc["total_tokens reported", "value"] == "unknown"


async def test_qualify_refuses_to_score_the_offline_reference(monkeypatch):
    monkeypatch.setenv("COURSE_LLM", "offline")
    with pytest.raises(LiveSettingsError, match="measures a live writer"):
        await qualify.run()


def test_make_qualify_offline_exits_with_the_setting_to_change(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LLM", "offline")
    assert qualify.main() == 2 and "COURSE_LLM=openai" in capsys.readouterr().err
