"""`make qualify` against the loopback server: the scorecard is what the live writer did, call by call."""

import asyncio
import json
import socket
import time

import pandas as pd
import pytest
from support.wire_server import last_user_text, loopback_server

from course_lib import qualify
from course_lib.extraction import ExtractionReport
from course_lib.live import LiveSettingsError
from course_lib.memory import FactCandidate
from course_lib.memory_models import OfflineWriterClient
from course_lib.tracing import CallLog


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
    assert (over_long["outcome"], over_long["calls"], over_long["reported total tokens"]) == ("rejected", 0, "unknown")
    called = card[card["calls"] > 0]
    assert (called["reported total tokens"] == 49).all() and len(server.requests) == called["calls"].sum()
    assert totals.loc["reported total tokens", "value"] == 49 * len(called)
    assert totals.loc["as the contract says", "value"] == len(card)
    assert "cases  " in totals.to_string() and ".00" not in totals.to_string()  # counts print as whole numbers


async def test_a_writer_that_infers_from_prose_is_caught_and_a_dead_one_fails_by_name(server):
    server.reply_with = lambda body: json.dumps({"facts": OfflineWriterClient("infer").propose(last_user_text(body))})
    card, totals = await qualify.run()
    prose = card.set_index("case").loc["prose is not a fact"]
    assert (prose["outcome"], prose["as contract"], prose["reason"]) == (
        "rejected",
        False,
        "proposed facts the message does not declare",  # the totals' words: one wording, rows and totals
    )
    assert totals.loc["rejected: proposed facts the message does not declare", "value"] >= 1
    server.fault = "http_500"
    card, totals = await qualify.run()
    failed = card[card["calls"] > 0]
    assert (failed["outcome"] == "writer_failed").all() and (failed["reported total tokens"] == "unknown").all()
    assert failed["reason"].str.contains("server error \\(HTTP 500").all()
    assert totals.loc["reported total tokens", "value"] == "unknown"


@pytest.mark.parametrize(
    ("reason", "label"),
    [
        ("Message refused: it has 4111 characters and the limit is 4096 (rule: message length)", "message too long"),
        (
            "Message refused: it holds a lone surrogate U+D800 at index 7, which no UTF-8 text can carry "
            "(rule: encodable text)",
            "message holds a broken character",
        ),
        ("Invalid fact #2 ('owner'='alice'): unknown key; allowed keys are product, module", "unknown key"),
        (
            "Invalid fact #1 ('symptom'='xxxx'\u2026): value longer than 256 characters: it has 300 characters",
            "value longer than 256 characters",
        ),
        ("Invalid fact #1 (None): no candidate: a NoneType stands in the batch (rule: each fact is a", "no candidate"),
        ("not the explicit declarations", "proposed facts the message does not declare"),
    ],
)
def test_a_rejection_is_summed_under_its_rule_in_a_few_words_not_its_whole_sentence(reason, label):
    row = {"outcome": "rejected", "reason": reason, "as contract": True, "latency (s)": 0.0, "calls": 0}
    row |= {qualify.reported_label(usage): "unknown" for usage in qualify.USAGE_FIELDS}
    assert (f"rejected: {label}", 1) in qualify.summary_lines([row])


def test_a_recording_s_older_reason_is_shown_in_the_totals_words():
    old = pd.DataFrame({"case": ["prose"], "reason": ["not the explicit declarations"]})
    assert qualify.card_in_words(old)["reason"].tolist() == [qualify.NOT_DECLARED_WORDS]


async def test_qualify_refuses_to_score_the_offline_reference(monkeypatch):
    monkeypatch.setenv("COURSE_LLM", "offline")
    with pytest.raises(LiveSettingsError, match="measures a live writer"):
        await qualify.run()


def test_make_qualify_offline_exits_with_the_setting_to_change(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LLM", "offline")
    assert qualify.main() == 2
    said = capsys.readouterr().err
    assert "COURSE_LLM=openai" in said and "COURSE_LLM=local for the small model on this machine" in said


async def test_a_hung_endpoint_stops_the_run_after_a_few_cases_and_exits_endpoint_broken(server, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LLM_TIMEOUT", "0.3")
    server.fault = "keep_alive"  # answers, then sends nothing but keep-alive comments: only the deadline ends it
    server.drip = 0.05
    start = time.perf_counter()
    status = await asyncio.to_thread(qualify.main)
    elapsed = time.perf_counter() - start
    printed = capsys.readouterr()
    assert status == qualify.EXIT_ENDPOINT == 3
    # Three cases, not fifteen deadlines: qualify counts them on stderr, below. The server's own count is only a bound:
    # on a loaded machine it may not read the last request before that deadline passes (still dripping to the last).
    assert 1 <= len(server.requests) <= qualify.STOP_AFTER
    assert elapsed < qualify.STOP_AFTER * 0.3 + 5  # three deadlines of 0.3 s, plus the offline reference
    assert "not run (stopped after 3 consecutive endpoint failures)" in printed.out
    assert "writer_failed: endpoint: deadline passed" in printed.out
    assert "The endpoint is not reachable or broken: endpoint: deadline passed (3); stopped" in printed.err


async def test_an_endpoint_that_is_down_exits_endpoint_broken_at_once(server, monkeypatch, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    assert await asyncio.to_thread(qualify.main) == qualify.EXIT_ENDPOINT
    assert "writer_failed: endpoint: not reachable" in capsys.readouterr().out


async def test_a_model_that_answers_badly_is_scored_and_its_failures_are_grouped_by_cause(server, capsys):
    server.fault = "length"  # every JSON cut at the output cap: the model answered, badly
    assert await asyncio.to_thread(qualify.main) == qualify.EXIT_SCORED == 0
    card, totals = await qualify.run()
    failed = card[card["outcome"] == "writer_failed"]
    assert len(failed) >= 10 and failed["reason"].str.startswith("model: cut at the output cap - ").all()
    failures = [m for m in totals.index if m.startswith("writer_failed")]
    assert failures == ["writer_failed: model: cut at the output cap"]  # one row per cause, not per message
    assert "The model was reached and scored (exit status 0)" in capsys.readouterr().err


def test_invalid_batches_with_distinct_messages_count_as_one_cause(server):
    reports = [
        (qualify.reason(ExtractionReport(status="writer_failed", facts=(), diagnostic=d), ValueError(d)))
        for d in (
            "Writer output is not a valid fact batch: EOF at column 12. x",
            "Writer output is not ...: column 80. x",
        )
    ]
    assert {qualify.cause_of(r) for r in reports} == {"model: not a valid fact batch"}


async def test_the_key_never_shows_in_the_printed_scorecard(server, monkeypatch, capsys):
    key = "sk-proj-" + "0123456789abcdefghij" * 6
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}?api-key={key}")
    server.fault, server.echo_pad = "echo_key_500", 100  # the 140-character reason cut falls inside the echo
    assert await asyncio.to_thread(qualify.main) == qualify.EXIT_ENDPOINT
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert "api-key=**********" in text
    assert not [key[i : i + 8] for i in range(len(key) - 7) if key[i : i + 8] in text]


# region The recording of a run is built from the same loop


async def test_a_recorded_case_keeps_what_a_cut_writer_had_written_before_the_cut(server):
    from course_lib.clients import make_chat_client
    from course_lib.recordings import recorded_case
    from course_lib.tracing import CallLog

    server.fault = "length"  # the JSON cut half-way: the model wrote something, the host refused it
    whole = '{"facts": [{"key": "module", "value": "Billing", "evidence": "module=Billing"}]}'
    server.reply_with = lambda body: whole
    log = CallLog()
    [result] = await qualify.score_battery(make_chat_client("writer", log=log), log, qualify.BATTERY[:1])
    recorded = recorded_case(result)
    assert recorded.outcome == "writer_failed" and recorded.calls == 1
    assert recorded.proposal == [whole[: len(whole) // 2]]  # what it wrote before the cut (the server cuts half)
    assert "cut at the output cap" in recorded.call_errors[0] and recorded.output_tokens is not None


async def test_a_recording_stops_after_consecutive_endpoint_failures_as_make_qualify_does(server, monkeypatch):
    from course_lib.clients import make_chat_client
    from course_lib.recordings import recorded_case
    from course_lib.tracing import CallLog

    monkeypatch.setenv("COURSE_LLM_TIMEOUT", "0.3")
    server.fault = "timeout"
    log = CallLog()
    results = await qualify.score_battery(make_chat_client("writer", log=log), log)
    recorded = [recorded_case(r) for r in results]
    assert [r.outcome for r in recorded] == ["writer_failed"] * qualify.STOP_AFTER + ["not_run"] * (
        len(qualify.BATTERY) - qualify.STOP_AFTER
    )
    assert pd_equal_cards(results)


def pd_equal_cards(results):
    """make qualify's scorecard and the recording's card, from the same results, are one table."""
    from course_lib.recordings import QualificationRecording, recorded_case

    card = qualify.scorecard(results)
    fields = {"model": "m", "model_file": "f", "model_package": "p", "model_sha256": "0" * 64, "server": "s"}
    recording = QualificationRecording.model_validate(
        {
            "recorded_at": "2026-01-01T00:00:00Z",
            "command": "c",
            "model": {**fields, "sampling": {}},
            "machine": {
                "platform": "p",
                "cpus": 1,
                "python": "3",
                "load_average_start": [0, 0, 0],
                "load_average_end": [0, 0, 0],
            },
            "wall_seconds": 1.0,
            "writer_request": "w",
            "cases": [c.model_dump() for c in (recorded_case(r) for r in results)],
        }
    )
    return recording.card().equals(card)


def test_the_battery_rows_show_hidden_characters_and_cut_only_a_long_message():
    from course_lib.memory import MAX_MESSAGE_CHARS
    from course_lib.qualify import BATTERY, battery_rows

    rows = {row["case"]: row for row in battery_rows()}
    assert [row["case"] for row in battery_rows()] == [case.name for case in BATTERY]
    assert rows["hidden characters"]["message"] == "module=Bill[U+200B]ing"
    assert rows["three declarations"]["message"] == next(c.text for c in BATTERY if c.name == "three declarations")
    long = rows["over-long message"]["message"]
    assert len(long) <= 90 and long.endswith(f"... ({MAX_MESSAGE_CHARS + 15} characters)")
    assert rows["a correction replaces"]["earlier turns"] == "module=Reporting"


def test_the_sentence_case_names_its_one_fact_and_why_the_database_part_is_none():
    """Lesson 00's walk: "We are on database=SQL Server 2022; environment=staging." read as two declarations; the
    lesson says which one it is and why the other part is not (its key is "We are on database")."""
    said = qualify.case_declares("words before a key")
    assert "declares 1 fact: environment=staging. (" in said  # the why of the full stop follows (issue 32)
    assert "'We are on database' is not an allowed key" in said and "SQL Server" not in said.split("nothing:")[0]
    assert qualify.case_declares("one declaration").endswith("declares 1 fact: module=Billing.")
    assert qualify.case_declares("a question").startswith("The case “a question” declares 0 facts. Why: ")


async def test_an_offline_scorecard_drops_the_columns_it_cannot_fill():
    """Lesson 00's offline card: no latency and no token column, all ``unknown``; a reported count keeps its column."""
    card = await qualify.qualify(OfflineWriterClient("infer"), CallLog())
    shown = qualify.offline_view(card)
    assert "latency (s)" not in shown and not any("reported" in column for column in shown.columns)
    assert list(shown["case"]) == list(card["case"])
    card.loc[0, "reported input tokens"] = "12"
    assert "reported input tokens" in qualify.offline_view(card)


async def test_a_stated_proposal_gets_the_hosts_status_without_naming_a_writer_mode():
    message = "Our database is Oracle."
    oracle = FactCandidate(key="database", value="Oracle", evidence=message)
    assert await qualify.status_of_proposal(message, [oracle]) == "rejected"  # prose declares nothing
    billing = FactCandidate(key="module", value="Billing", evidence="module=Billing")
    assert await qualify.status_of_proposal("module=Billing", [billing]) == "accepted"
    assert await qualify.status_of_proposal("Where are the logs?", []) == "nothing_to_extract"


async def test_a_writer_failure_says_it_in_words_first_and_its_error_class_in_parentheses():
    class Broken:
        async def propose(self, user_text):
            raise RuntimeError("boom")

    from course_lib.memory import WorkingMemory

    report = await qualify.MemoryExtraction(WorkingMemory(), Broken()).update("module=Billing")
    assert report.diagnostic.startswith("Writer failed (RuntimeError): boom.")
    assert qualify.reason(report, RuntimeError("boom")) == "writer: RuntimeError - RuntimeError: boom"
