"""Memory policies (Demo170): what each lets the reader see, what it costs, and how it grows."""

import ast
import itertools
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from agent_framework import Agent, ChatResponse, InMemoryHistoryProvider, Message
from pydantic import ValidationError

import course_lib.capstone
import course_lib.policies
from course_lib.clients import make_chat_client
from course_lib.live import LiveModelError
from course_lib.memory_models import OfflineAssistantClient, OfflineSummarizerClient, OfflineWriterClient
from course_lib.offline import without_tool_loop
from course_lib.policies import (
    NOT_ASKED,
    CompactionPolicy,
    Expectation,
    FactsPolicy,
    FullHistoryPolicy,
    LastTurnsPolicy,
    PolicyFactory,
    ReducerPolicy,
    SeedSlidingWindow,
    SummaryPolicy,
    SummaryRejected,
    Timeline,
    TimelineTurn,
    calls_frame,
    compare_policies,
    course_policies,
    generate_timeline,
    load_timeline,
    measure_scaling,
    rule_label,
    run_policy,
    session_footprint,
    stop_in_words,
)
from course_lib.presentation import (
    ALL_CHARS,
    EXTRA_CHARS,
    READER_CHARS,
    STORED_COLUMN,
    correctness_table,
    cost_table,
    footprint_frame,
    scaling_frame,
    where_the_characters_go,
)
from course_lib.tracing import CallLog, RecordingMiddleware, recording_middleware

DATA = Path(__file__).resolve().parent.parent / "data"
SMALL = ["module=Reporting", "database=PostgreSQL", "module=Billing", "Which module?"]


async def last_reader_call(policy, log, turns=SMALL):
    for text in turns:
        await policy.turn(text)
    return [(m.role, m.text) for m in [c for c in log.calls if c.client == "reader"][-1].messages]


def test_default_timeline_is_valid_and_its_schema_file_is_current():
    timeline = load_timeline()
    assert timeline.questions == [5, 10]
    schema = json.loads((DATA / "timeline.schema.json").read_text())
    assert schema == Timeline.model_json_schema()


def test_a_bad_timeline_is_refused_naming_the_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x", "turns": [{"user": "q", "expect": {"must_contain": []}}]}))
    with pytest.raises(ValidationError, match="must_contain"):
        load_timeline(bad)


@pytest.mark.parametrize("turns", [4, 5, 12])
def test_generated_timelines_have_the_requested_length_and_declare_what_their_question_expects(turns):
    timeline = generate_timeline(turns)
    assert len(timeline.turns) == turns and timeline.questions == [turns]
    assert any(t.user == "module=Billing; database=SQL Server 2022" for t in timeline.turns[2:-1])
    with pytest.raises(ValueError, match="at least 4"):
        generate_timeline(3)


async def test_full_history_sends_every_earlier_turn():
    log = CallLog()
    sent = await last_reader_call(FullHistoryPolicy(OfflineAssistantClient(), log), log)
    assert [text for role, text in sent if role == "user"] == SMALL
    assert len(sent) == 7


async def test_window_sends_only_the_last_turns():
    log = CallLog()
    sent = await last_reader_call(LastTurnsPolicy(OfflineAssistantClient(), log, turns=2), log)
    assert [text for role, text in sent if role == "user"] == ["database=PostgreSQL", "module=Billing", "Which module?"]


async def test_within_its_window_the_window_sends_exactly_what_the_full_history_sends():
    """The two differ only by the turns the window drops: the answers it keeps carry their author as the history's do
    (so the same turns are the same request, and a live run asks the model once for both)."""
    logs = {name: CallLog() for name in ("full", "window")}
    policies = [FullHistoryPolicy(OfflineAssistantClient(), logs["full"])]
    policies.append(LastTurnsPolicy(OfflineAssistantClient(), logs["window"], turns=len(SMALL)))
    for policy in policies:
        for text in SMALL:
            await policy.turn(text)

    def wire(log):  # what the request carries of each message (the history's attribution stays in the process)
        return [[(m.role, m.text, m.author_name) for m in c.messages] for c in log.calls]

    assert wire(logs["window"]) == wire(logs["full"])
    assert {m.author_name for c in logs["window"].calls for m in c.messages if m.role == "assistant"} == {"reader"}


async def test_facts_policy_sends_the_block_and_the_message_only():
    log = CallLog()
    sent = await last_reader_call(FactsPolicy(OfflineAssistantClient(), log, OfflineWriterClient()), log)
    assert len(sent) == 2 and sent[1] == ("user", "Which module?")
    assert '- module = "Billing"' in sent[0][1] and "Reporting" not in sent[0][1]


async def test_summary_policy_sends_the_summary_and_the_message():
    log = CallLog()
    sent = await last_reader_call(SummaryPolicy(OfflineAssistantClient(), log, OfflineSummarizerClient()), log)
    assert sent == [
        ("user", "Summary so far (unverified):\nmodule=Reporting\ndatabase=PostgreSQL\nmodule=Billing"),
        ("user", "Which module?"),
    ]
    assert sum(c.client == "summarizer" for c in log.calls) == 4


async def test_an_overlong_or_empty_summary_stops_the_run():
    log = CallLog()
    policy = SummaryPolicy(OfflineAssistantClient(), log, OfflineSummarizerClient(budget=5000))
    with pytest.raises(SummaryRejected, match="must be 1 to 700"):
        for n in range(20):
            await policy.turn(f"symptom={'x' * 200} {n}")
    empty = SummaryPolicy(OfflineAssistantClient(), CallLog(), OfflineSummarizerClient())
    with pytest.raises(SummaryRejected, match="0 characters"):
        await empty.turn("Hello, no facts here.")


async def test_compaction_reduces_the_view_while_the_stored_history_stays_whole():
    # TurnsExceed(2), minimumPreservedTurns: 2 on the request: the new message and one earlier exchange
    log = CallLog()
    compaction = CompactionPolicy(OfflineAssistantClient(), log, max_turns=2, minimum_preserved_turns=2)
    sent = await last_reader_call(compaction, log)
    assert [text for role, text in sent if role == "user"] == ["module=Billing", "Which module?"]
    footprint = await session_footprint(compaction)
    assert footprint.stored == 8
    assert footprint_frame([footprint]).loc[compaction.name, STORED_COLUMN] == 8


async def test_the_reducer_rewrites_what_the_session_keeps():
    # TurnsExceed(1), minimumPreservedTurns: 1 on the stored list after each addition: one exchange stays stored
    log = CallLog()
    reducer = ReducerPolicy(OfflineAssistantClient(), log, max_turns=1, minimum_preserved_turns=1)
    sent = await last_reader_call(reducer, log)
    assert [text for role, text in sent if role == "user"] == ["module=Billing", "Which module?"]
    footprint = await session_footprint(reducer)
    assert footprint.stored == 2
    assert footprint.first_stored == "Which module?"


def turns_of(*users, before=(), system=False):
    """A conversation: an optional system message, messages before the first user turn, then user/answer pairs."""
    messages = [Message(role="system", contents=["rules"])] if system else []
    messages += [Message(role="assistant", contents=[text]) for text in before]
    for user in users:
        messages += [Message(role="user", contents=[user]), Message(role="assistant", contents=[f"re {user}"])]
    return messages


def kept(messages):
    return [m.text for m in messages if not m.additional_properties.get("_excluded")]


@pytest.mark.parametrize(
    ("max_turns", "preserved", "incoming", "users_kept"),
    [
        (3, 3, 0, ["t3", "t4", "t5"]),  # TurnsExceed(3): excluded oldest first until 3 turns are left
        (3, 3, 1, ["t4", "t5"]),  # the request adds one turn: 2 stored + the new one = 3
        (3, 1, 0, ["t3", "t4", "t5"]),  # the target (the trigger's inverse) stops at 3 even with a floor of 1
        (3, 4, 0, ["t2", "t3", "t4", "t5"]),  # the floor is hard: 4 preserved turns stay although 4 > 3
        (5, 1, 0, ["t1", "t2", "t3", "t4", "t5"]),  # 5 turns do not exceed 5: the trigger does not fire
    ],
)
async def test_the_seeds_sliding_window_follows_the_dotnet_source(max_turns, preserved, incoming, users_kept):
    messages = turns_of("t1", "t2", "t3", "t4", "t5", before=["hello"], system=True)
    window = SeedSlidingWindow(max_turns, preserved, incoming_turns=incoming)
    changed = await window(messages)
    assert changed == (len(users_kept) < 5)
    # the system message and turn 0 (before the first user message) are always kept; a turn goes whole
    assert kept(messages) == ["rules", "hello", *[t for u in users_kept for t in (u, f"re {u}")]]


def test_the_seeds_sliding_window_refuses_what_dotnet_refuses():
    with pytest.raises(ValueError, match="minimum_preserved_turns"):
        SeedSlidingWindow(3, -1)
    with pytest.raises(ValueError, match="max_turns"):
        SeedSlidingWindow(-1, 3)


class ReportingReader(OfflineAssistantClient):
    async def _respond(self, messages, options):
        response = await super()._respond(messages, options)
        return ChatResponse(messages=response.messages, usage_details={"input_token_count": 11})


async def test_usage_is_unknown_unless_the_provider_reports_it():
    timeline = Timeline(name="t", turns=[TimelineTurn(user="module=A")])
    unknown = CallLog()
    rows, _ = await run_policy(timeline, FullHistoryPolicy(OfflineAssistantClient(), unknown), unknown, "latest")
    assert rows[0].input_tokens is None and calls_frame(rows).loc[0, "reported_input_tokens"] == "unknown"
    reported = CallLog()
    rows, _ = await run_policy(timeline, FullHistoryPolicy(ReportingReader(), reported), reported, "latest")
    assert rows[0].input_tokens == 11 and calls_frame(rows).loc[0, "reported_input_tokens"] == 11


async def test_comparison_grades_answers_and_counts_extra_calls():
    comparison = await compare_policies(load_timeline(), rules=["latest", "earliest"])
    table = correctness_table(comparison.answers)
    assert table.loc["full history", ("latest", "turn 10")] == "yes"
    assert table.loc["full history", ("earliest", "turn 10")] == "no"  # the superseded values win under "earliest"
    assert table.loc["last 3 turns", ("latest", "turn 10")] == "no"  # the window lost the early facts
    assert table.loc["facts", ("latest", "turn 10")] == "no"  # the bound evicted the prohibition
    costs = cost_table(comparison.calls)
    assert costs.loc["facts", "extra calls (writer, summarizer)"] == 10
    assert costs.loc["full history", "extra calls (writer, summarizer)"] == 0
    assert costs.loc["facts", "reported input tokens"] == "unknown"


async def test_full_history_grows_linearly_while_bounded_policies_stay_bounded():
    frame = scaling_frame(
        await measure_scaling(
            [8, 16, 32], {k: v for k, v in course_policies().items() if k in ("full history", "facts")}
        )
    )
    full = frame[frame["policy"] == "full history"]["last reader call (chars)"].tolist()
    facts = frame[frame["policy"] == "facts"]["last reader call (chars)"].tolist()
    assert full[0] < full[1] < full[2]
    growth = [(b - a) for a, b in itertools.pairwise(full)]
    assert growth[1] == pytest.approx(2 * growth[0], rel=0.25)  # twice the turns, about twice the growth
    assert max(facts) - min(facts) < 200 and max(facts) < full[-1] / 3


async def test_the_abstractive_summary_distorts_what_the_reader_answers_and_the_extractive_one_does_not():
    timeline = load_timeline()
    for mode, final_correct in (("abstractive", False), ("extractive", True)):
        comparison = await compare_policies(timeline, {"summary": course_policies(summary_mode=mode)["summary"]})
        answers = comparison.answers
        assert answers[answers["turn"] == 5]["correct"].all()  # before the correction both summaries serve
        final = answers[answers["turn"] == 10]
        assert final["correct"].tolist() == [final_correct] * 3  # the rule cannot undo what the summary did
    comparison = await compare_policies(timeline, {"summary": course_policies()["summary"]}, rules=["latest"])
    answer = comparison.answers.set_index("turn").loc[10]
    assert (
        "module=Reporting/Billing" in answer["answer"] and "constraint=never restart the database;" in answer["answer"]
    )
    assert answer["forbidden values named"] == "Reporting; PostgreSQL"
    assert answer["missing"] == "never restart the production database during business hours"


OPENS_WITH_A_QUESTION = Timeline(
    name="opens with a question", turns=[TimelineTurn(user="Where can I find logs?"), TimelineTurn(user="module=A")]
)


@pytest.mark.parametrize(("timeline", "budget"), [(generate_timeline(40), 5000), (OPENS_WITH_A_QUESTION, 240)])
async def test_an_overlong_or_empty_summary_stops_the_comparison_with_no_substitute(timeline, budget):
    log = CallLog()
    policy = SummaryPolicy(OfflineAssistantClient(), log, OfflineSummarizerClient(budget, mode="abstractive"))
    with pytest.raises(SummaryRejected) as refused:
        await run_policy(timeline, policy, log, "latest")
    rejected = log.calls[-1]
    assert rejected.client == "summarizer" and (rejected.reply == "" or len(rejected.reply) > 700)
    assert f"after turn {policy.turns} has {len(rejected.reply)} characters" in str(refused.value)
    assert policy.turns < len(timeline.turns) and len(policy.summary) <= 700  # no later turn, the last accepted kept
    factories = course_policies(summary_budget=budget)
    chosen = {"summary": factories["summary"], "full history": factories["full history"]}
    comparison = await compare_policies(timeline, chosen, rules=["latest"])
    [stop] = comparison.stopped  # the summary policy stops alone, and says where and why
    assert (stop.policy, stop.rule, stop.turn) == ("summary", "latest", policy.turns)
    assert stop.reason == str(refused.value) and "no substitute summary is used" in stop.reason
    assert comparison.stopped_frame().to_dict("index") == {"summary": {"rule": "latest", "why it stopped": stop.why()}}
    assert stop.why() == stop_in_words(stop.reason)
    graded_after = [n for n, t in enumerate(timeline.turns, start=1) if t.expect and n >= stop.turn]
    answers = comparison.answers.to_dict("records")
    unanswered = [a for a in answers if a["policy"] == "summary" and a["turn"] >= stop.turn]
    assert [a["turn"] for a in unanswered] == graded_after and not any(a["correct"] for a in unanswered)
    assert {a["answer"] for a in unanswered} <= {NOT_ASKED.format(turn=stop.turn)}
    full = comparison.calls[comparison.calls["policy"] == "full history"]
    assert full["turn"].max() == len(timeline.turns)  # the other policy ran to the end


class FailingSummarizer(OfflineSummarizerClient):
    """A summarizer whose second call fails as a live one does when its answer is cut at the output cap."""

    calls_made = 0

    def answer(self, messages, options):
        self.calls_made += 1
        if self.calls_made > 1:
            raise LiveModelError(
                "summarizer model 'small' at http://127.0.0.1:1/v1: the answer was cut", "cut_at_output_cap"
            )
        return super().answer(messages, options)


async def test_a_summarizer_that_fails_stops_the_summary_policy_alone_naming_the_failure():
    """A live summarizer cut at the output cap (or timed out) stops its policy like the 700-character rule does."""
    timeline = generate_timeline(6)
    summarizer = FailingSummarizer(240)
    chosen = {
        "summary": PolicyFactory(
            SummaryPolicy,
            "summary",
            lambda rule, log: SummaryPolicy(OfflineAssistantClient(rule, log=log), log, summarizer),
        ),
        "full history": course_policies()["full history"],
    }
    comparison = await compare_policies(timeline, chosen, rules=["latest"])
    [stop] = comparison.stopped
    assert (stop.policy, stop.turn) == ("summary", 2)
    assert "The summarizer failed after turn 2" in stop.reason and "the answer was cut" in stop.reason
    assert "no substitute summary is used" in stop.reason
    # a failure no pattern knows is still one sentence a student reads, without the endpoint's address
    assert (
        stop.in_words()
        == "The summary policy stopped: the summarizer failed at turn 2 (summarizer model 'small': the answer was cut)."
    )
    full = comparison.calls[comparison.calls["policy"] == "full history"]
    assert full["turn"].max() == len(timeline.turns)


async def test_the_seeds_turns_exceed_3_view_is_three_user_turns_counting_the_new_one():
    # .NET's TurnsExceed(3) / minimumPreservedTurns: 3 compact the whole request, the new message included, down to
    # 3 user turns; the reducer (AsChatReducer, AfterMessageAdded) keeps 3 stored turns, so its request holds 4.
    timeline = load_timeline()
    factories = course_policies()
    window = "SlidingWindowCompactionStrategy(CompactionTriggers.TurnsExceed(3), minimumPreservedTurns: 3)"
    assert factories["compaction (3 turns)"].seed_settings == f"CompactionProvider({window}) on the chat client"
    assert f"{window}.AsChatReducer()" in factories["reducer (3 turns)"].seed_settings
    for label, user_turns, stored in (("compaction", 3, 20), ("reducer", 4, 6)):
        log = CallLog()
        policy = factories[f"{label} (3 turns)"]("latest", log)
        assert policy.seed_settings == factories[f"{label} (3 turns)"].seed_settings
        await run_policy(timeline, policy, log, "latest")
        assert sum(m.role == "user" for m in log.calls[-1].messages) == user_turns
        assert [m.text for m in log.calls[-1].messages if m.role == "user"][-1] == timeline.turns[-1].user
        assert (await session_footprint(policy)).stored == stored


async def test_provenance_makes_the_facts_larger_than_a_short_dialogue():
    policies = {k: v for k, v in course_policies().items() if k in ("full history", "facts")}
    costs = cost_table((await compare_policies(load_timeline(), policies, rules=["latest"])).calls)
    # the reader's calls alone: the writer's calls would make any facts policy "larger" (issue 32)
    assert costs.loc["facts", READER_CHARS] > costs.loc["full history", READER_CHARS]


async def test_the_cost_table_splits_the_characters_and_the_sentence_puts_the_cause_where_the_data_does():
    """The total counts the writer's and summarizer's calls too; the table and the sentence say how much of it."""
    calls = (await compare_policies(load_timeline(), rules=["latest"])).calls
    costs = cost_table(calls)
    assert (costs[READER_CHARS] + costs[EXTRA_CHARS] == costs[ALL_CHARS]).all()
    assert costs.loc["full history", EXTRA_CHARS] == 0 and costs.loc["facts", EXTRA_CHARS] > 0
    facts = costs.loc["facts"]
    sentence = where_the_characters_go(calls)
    expected = f"the facts policy sends the most characters ({facts[ALL_CHARS]}): {facts[EXTRA_CHARS]} of them in"
    assert expected in sentence
    top_reader = costs[READER_CHARS].idxmax()
    assert f"To the reader alone (the plot below), the {top_reader} policy sends the most" in sentence
    only_full = calls[calls["policy"] == "full history"]
    assert where_the_characters_go(only_full).startswith("In all, the full history policy sends the most characters")
    assert "all to the reader" in where_the_characters_go(only_full)
    with pytest.raises(ValueError, match="No calls under the rule 'earliest'"):
        where_the_characters_go(calls, rule="earliest")


def test_rules_read_in_plain_words_in_the_tables_and_the_note():
    assert rule_label("most_frequent") == "most frequent" and rule_label("latest") == "latest"
    import pandas as pd

    answers = pd.DataFrame([{"policy": "facts", "rule": "most_frequent", "turn": 5, "correct": True}])
    assert list(correctness_table(answers).columns) == [("most frequent", "turn 5")]


async def test_session_policies_store_every_message_with_an_id():
    """Ids let MAF's history recognise stored messages by id instead of re-serialising all of them each turn."""
    for make in (FullHistoryPolicy, CompactionPolicy, ReducerPolicy):
        policy = make(OfflineAssistantClient(), CallLog())
        for text in SMALL:
            await policy.turn(text)
        stored = policy.session.to_dict()["state"][InMemoryHistoryProvider.DEFAULT_SOURCE_ID]["messages"]
        ids = [m.get("message_id") for m in stored]
        assert all(ids) and len(set(ids)) == len(ids), make.__name__


async def test_each_call_is_logged_once_by_the_agent_not_again_by_the_offline_client():
    log = CallLog()
    policy = FullHistoryPolicy(OfflineAssistantClient(), log)
    for text in SMALL:
        await policy.turn(text)
    assert len(log) == len(SMALL) and policy.reader.client.log is None
    first, last = log.calls[1].messages[0], log.calls[-1].messages[0]  # turn 1, loaded from the history
    assert first is last  # a message re-sent on every turn is recorded once and shared


def _reader_and_helper(kind, log):
    """A policy of ``kind`` on offline models built with ``log`` (they record their own calls), or without any."""
    models = {"log": log} if log is not None else {}
    log = log if log is not None else CallLog()
    reader = make_chat_client("reader", **models)
    if kind == "summary":
        return SummaryPolicy(reader, log, make_chat_client("summarizer", **models))
    if kind == "facts":
        return FactsPolicy(reader, log, make_chat_client("writer", **models))
    return FullHistoryPolicy(reader, log)


@pytest.mark.parametrize("kind", ["full_history", "summary", "facts"])
async def test_a_model_built_with_the_log_records_each_call_once_exactly_as_the_middleware_does(kind):
    own_log = CallLog()
    own = _reader_and_helper(kind, own_log)
    by_middleware = _reader_and_helper(kind, None)
    for policy in (own, by_middleware):
        for text in SMALL:
            await policy.turn(text)
    rows = [[(c.client, c.instructions, c.messages, c.reply) for c in p.log.calls] for p in (own, by_middleware)]
    # the two runs may fall in different seconds: the facts block's "recorded" times are not what is compared
    rows = [[re.sub(r"recorded [\dT:+-]+", "recorded ...", repr(row)) for row in run] for run in rows]
    assert rows[0] == rows[1] and len(rows[0]) == len(SMALL) * (1 if kind == "full_history" else 2)
    assert own.reader.middleware in (None, []) and by_middleware.reader.middleware


def test_the_comparison_builds_its_models_with_its_log_so_no_chat_middleware_runs():
    for label, factory in course_policies().items():
        log = CallLog()
        policy = factory("latest", log)
        agents = [policy.reader]
        if isinstance(policy, SummaryPolicy):
            agents.append(policy.summarizer)
        if isinstance(policy, FactsPolicy):
            agents.append(policy.extraction.writer.agent)
        for agent in agents:
            assert agent.client.log is log and agent.middleware in (None, []), (label, agent.name)
        assert len(agents) == 1 + (policy.kind in ("summary", "facts")), label


def test_a_client_that_records_elsewhere_or_not_at_all_gets_the_middleware():
    log = CallLog()
    assert recording_middleware(make_chat_client("reader", log=log), log, "reader") == []
    for client in (make_chat_client("reader"), make_chat_client("reader", log=CallLog())):
        (middleware,) = recording_middleware(client, log, "reader")
        assert isinstance(middleware, RecordingMiddleware) and middleware.log is log


async def test_an_offline_model_records_a_failed_call_with_its_error_as_the_middleware_does():
    class Broken(OfflineAssistantClient):
        def answer(self, messages, options):
            raise RuntimeError("the model broke")

    def lookup(key: str) -> str:
        return key

    for client_class, tools, error in (
        (Broken, None, "the model broke"),
        (OfflineAssistantClient, [lookup], "tool loop"),
    ):
        rows = []
        for by_middleware in (False, True):
            log = CallLog()
            client = without_tool_loop(client_class(log=None if by_middleware else log))
            agent = Agent(client=client, middleware=[RecordingMiddleware(log, client.name)] if by_middleware else None)
            with pytest.raises(Exception, match=error):
                await agent.run("module=Billing", tools=tools)
            (call,) = log.calls
            assert error in call.error and call.reply == "" and call.messages[-1].text == "module=Billing"
            rows.append((call.client, call.instructions, call.messages))
        assert rows[0] == rows[1], client_class.__name__


async def test_visible_values_are_read_for_graded_turns_only():
    log = CallLog()
    timeline = generate_timeline(6)
    rows, _ = await run_policy(timeline, FullHistoryPolicy(OfflineAssistantClient(), log), log, "latest")
    assert [row.visible != "" for row in rows] == [False] * 5 + [True]
    assert "module: Reporting, Billing" in rows[-1].visible


def test_a_policy_kind_is_its_identity_and_its_label_is_built_by_its_class():
    factories = course_policies(window=5, max_facts=4)
    assert {label: f.kind for label, f in factories.items()} == {
        "full history": "full_history",
        "last 5 turns": "last_turns",
        "summary": "summary",
        "facts (4)": "facts",
        "compaction (5 turns)": "compaction",
        "reducer (5 turns)": "reducer",
    }
    for label, factory in factories.items():
        policy = factory("latest", CallLog())
        assert (policy.name, policy.kind) == (label, factory.kind)


async def test_scaling_reports_progress_once_per_replay_and_the_cpu_time():
    steps = []
    policies = {k: v for k, v in course_policies().items() if k in ("full history", "facts")}
    frame = scaling_frame(await measure_scaling([5, 6], policies, progress=steps.append))
    assert steps == ["full history, 5 turns", "facts, 5 turns", "full history, 6 turns", "facts, 6 turns"]
    assert (frame["CPU seconds"] > 0).all()


def test_an_expectation_is_the_one_grading_rule():
    expect = Expectation(must_contain=["Billing", "SQL Server 2022"], must_not_contain=["Reporting"])
    assert expect.unmet("module=Billing; database=SQL Server 2022") == ([], [])
    assert expect.unmet("module=Billing, not Reporting") == (["SQL Server 2022"], ["Reporting"])
    assert expect.unmet("") == (["Billing", "SQL Server 2022"], [])  # no answer lacks everything, holds nothing


def public_names(module):
    """The names a module defines at its top level without a leading underscore (what its ``__all__`` must list)."""
    tree = ast.parse(Path(module.__file__).read_text())
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    names += [t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
    names += [n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
    return {name for name in names if not name.startswith("_")}


@pytest.mark.parametrize("module", [course_lib.policies, course_lib.capstone], ids=lambda m: m.__name__)
def test_all_lists_every_public_name_and_only_names_the_module_has(module):
    assert public_names(module) <= set(module.__all__)
    assert all(hasattr(module, name) for name in module.__all__)


async def test_a_turn_answered_by_another_reader_sees_what_the_policy_sends_and_the_policy_keeps_its_own():
    """The capstone passes its loop-wrapped reader for one turn: nothing of the policy is swapped."""
    log, other_log = CallLog(), CallLog()
    policy = FullHistoryPolicy(OfflineAssistantClient("latest"), log)
    own = policy.reader
    for text in ("module=Reporting", "module=Billing"):
        await policy.turn(text)
    other = Agent(client=OfflineAssistantClient("earliest", log=other_log), name="reader")
    answer = await policy.turn("Which module?", reader=other)
    assert "Reporting" in answer and "Billing" not in answer  # the other reader's rule, over the policy's history
    assert policy.reader is own and len(log) == 2 and len(other_log) == 1
    assert [m.text for m in other_log.calls[0].messages if m.role == "user"][:2] == [
        "module=Reporting",
        "module=Billing",
    ]
    assert "Billing" in await policy.turn("Which module?")  # the next turn is the policy's own reader's again


def test_the_policies_and_the_capstone_load_no_table_or_display_library_until_a_table_is_built():
    """Replays return typed rows and never load the display (presentation, the top floor); pandas loads with a table."""
    probe = "import sys, course_lib.policies, course_lib.capstone; print(' '.join(sys.modules))"
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded = set(shown.split())
    assert "course_lib.frames" in loaded and not loaded & {"course_lib.presentation", "pandas", "matplotlib", "IPython"}


def test_a_live_reader_is_replayed_under_one_rule_and_the_note_says_why():
    from course_lib.capstone import DRIFT_RULES
    from course_lib.live import Backends, LiveSettings
    from course_lib.policies import OFFLINE, RULES, comparison_rules, rules_note

    live = Backends(backend="openai", live=LiveSettings(model="m", api_key="k" * 12))
    assert comparison_rules(RULES, OFFLINE) == RULES and comparison_rules(DRIFT_RULES, OFFLINE) == DRIFT_RULES
    assert comparison_rules(RULES, live) == RULES[:1] and comparison_rules(DRIFT_RULES, live) == DRIFT_RULES[:1]
    assert "each rule (latest, earliest, most frequent)" in rules_note(RULES, OFFLINE)  # words, not identifiers
    assert "_" not in rules_note(RULES, OFFLINE) and "_" not in rules_note(DRIFT_RULES, OFFLINE)
    # lesson 00 (optional) teaches "backend": the note says which models answer in the words of lessons 01-03
    assert rules_note(RULES, OFFLINE).startswith("The offline models answer here (no live model is set up)")
    assert "backend" not in rules_note(RULES, OFFLINE).lower()
    assert rules_note(RULES, live).startswith("A live model answers here (COURSE_LLM=openai)")
    assert "every policy runs once (labelled “latest”) instead of 3 times" in rules_note(RULES, live)
    assert "(labelled “most frequent”)" in rules_note(("most_frequent", "latest"), live)
    assert "not sent again" not in rules_note(RULES, live)
    local = Backends(backend="local", live=LiveSettings(model="m", api_key="k" * 12, reuse_answers=True))
    assert "not sent again: the model's first answer to it stands" in rules_note(RULES, local)
    assert "COURSE_LOCAL_REUSE=0 sends every call" in rules_note(RULES, local)


async def test_the_default_comparison_runs_the_rules_of_the_backend_and_reports_one_line_per_run():
    from course_lib.policies import RULES, course_policies

    said = []
    timeline = Timeline(name="t", turns=[TimelineTurn(user="module=Billing")])
    comparison = await compare_policies(timeline, progress=said.append)
    assert len(said) == len(RULES) * len(course_policies())  # a progress bar of that many steps ends full
    assert said[-1].endswith("under 'most frequent': 1 call") and not any("_" in line for line in said)  # words
    assert set(comparison.calls["rule"]) == set(RULES)


def test_the_time_growth_is_said_from_the_times_and_explains_why_it_is_below_the_stored_growth():
    """Lesson 04 §6: "N times as long" for the policies that keep everything, beside the others, computed."""
    from course_lib.policies import ScalingRow, time_growth_sentence

    per_turn_ms = {  # milliseconds per turn at 10 and at 200 turns
        "full history": (1.0, 8.0),
        "last 3 turns": (1.0, 1.1),
        "facts": (2.0, 2.0),
        "compaction (3 turns)": (1.0, 3.5),
    }
    rows = [
        ScalingRow(turns, policy, 0, 0, turns, ms * turns / 1000)
        for policy, both in per_turn_ms.items()
        for turns, ms in zip((10, 200), both, strict=True)
    ]
    said = time_growth_sentence(rows)
    assert said.startswith("From 10 to 200 turns (20 times as many), a turn grew to 8.0 times as long for full history")
    assert (
        "and 3.5 times as long for compaction (3 turns), which store every message. A turn took no noticeably " in said
    )
    assert "longer (under 1.5 times as long): 1.0 to 1.1 times as long for the others" in said
    assert "Full history and compaction (3 turns) end with 20 times as many stored messages" in said
    assert "yet their turns did not slow down 20-fold" in said
    steep = [replace(row, cpu_seconds=row.cpu_seconds * 30) if row.turns == 200 else row for row in rows]
    assert "did not slow down" not in time_growth_sentence(steep)  # said only when it is true
    with pytest.raises(ValueError, match="two lengths"):
        time_growth_sentence([r for r in rows if r.turns == 10])
