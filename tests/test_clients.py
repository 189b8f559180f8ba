"""The offline models answer from what they receive, and the client factory never falls back silently."""

import pytest
from agent_framework import Agent, Message

from course_lib.clients import make_chat_client
from course_lib.live import LiveSettingsError
from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.memory_models import (
    OfflineAssistantClient,
    OfflineSummarizerClient,
    OfflineWriterClient,
    generalize,
    infer_from_prose,
    resolve,
    visible_mentions,
)
from course_lib.prompts import summary_prompt
from course_lib.providers import inject


def user(text):
    return Message(role="user", contents=[text])


def test_resolution_rules_pick_latest_earliest_or_most_frequent():
    mentions = [("module", "Reporting"), ("module", "Billing"), ("module", "Reporting"), ("database", "SQL")]
    assert resolve(mentions, "latest") == {"module": "Reporting", "database": "SQL"}
    assert resolve(mentions[:2], "latest") == {"module": "Billing"}
    assert resolve(mentions[:2], "earliest") == {"module": "Reporting"}
    assert resolve(mentions[:2], "most_frequent") == {"module": "Reporting"}  # tie: first mentioned
    assert resolve(mentions, "most_frequent")["module"] == "Reporting"


def test_assistant_sees_block_facts_and_user_declarations_but_not_its_own_answers():
    memory = WorkingMemory()
    memory.apply(
        memory.begin_turn("module=Billing"), [FactCandidate(key="module", value="Billing", evidence="module=Billing")]
    )
    messages = [
        user("database=PostgreSQL"),
        Message(role="assistant", contents=["Noted: priority=P1"]),
        user(inject(memory.to_prompt_block(), "Where?")),
    ]
    assert visible_mentions(messages) == [("database", "PostgreSQL"), ("module", "Billing")]


async def test_assistant_answers_by_citing_what_it_resolved():
    agent = Agent(client=OfflineAssistantClient(resolution="earliest"), name="desk")
    session = agent.create_session()
    await agent.run("module=Reporting", session=session)
    await agent.run("module=Billing", session=session)
    response = await agent.run("Which module?", session=session)
    assert response.text == "You asked: 'Which module?'. From what I can see: module=Reporting."


async def test_streaming_gives_the_same_text_as_non_streaming():
    client = OfflineAssistantClient()
    full = await client.get_response([user("module=Billing")])
    chunks = [update.text async for update in client.get_response([user("module=Billing")], stream=True)]
    assert "".join(chunks) == full.text and len(chunks) > 1


def test_writer_misbehaviours_change_the_proposal_the_stated_way():
    text = "module=Billing; database=SQL Server 2022; our priority is high"
    careful = OfflineWriterClient().propose(text)
    assert [f["key"] for f in careful] == ["module", "database"]
    assert [f["key"] for f in OfflineWriterClient("drop").propose(text)] == ["module"]
    assert [f["key"] for f in OfflineWriterClient("infer").propose(text)] == ["module", "database", "priority"]
    assert all(f["evidence"] not in text for f in OfflineWriterClient("paraphrase").propose(text))
    with pytest.raises(ValueError, match="Unknown misbehaviour"):
        OfflineWriterClient("lie")


def test_prose_inference_reads_is_phrases():
    assert infer_from_prose("Our Database is Oracle, and the module was Billing.") == [
        {"key": "database", "value": "Oracle", "evidence": "Database is Oracle"},
        {"key": "module", "value": "Billing", "evidence": "module was Billing"},
    ]


def test_factory_is_offline_by_default_and_refuses_incomplete_live_settings(monkeypatch):
    monkeypatch.delenv("COURSE_LLM", raising=False)
    assert isinstance(make_chat_client("writer"), OfflineWriterClient)
    assert isinstance(make_chat_client("assistant"), OfflineAssistantClient)
    monkeypatch.setenv("COURSE_LLM", "openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_MODEL", "m")
    with pytest.raises(LiveSettingsError, match=r"needs OPENAI_API_KEY \(environment or .env\); no offline fallback"):
        make_chat_client("writer")
    monkeypatch.setenv("COURSE_LLM", "magic")
    with pytest.raises(ValueError, match="not supported"):
        make_chat_client("writer")


async def summarize(client, previous, user_text):
    return (await Agent(client=client).run(summary_prompt(previous, user_text, "Noted."))).text


async def test_the_abstractive_summary_merges_drops_qualifiers_and_blends_a_correction():
    abstractive = OfflineSummarizerClient(mode="abstractive")
    summary = await summarize(abstractive, "", "module=Reporting\ndatabase=PostgreSQL")
    assert summary == "module=Reporting; database=PostgreSQL"  # two lines merged into one
    summary = await summarize(abstractive, summary, "constraint=never purge the staging cache while a backup runs")
    assert summary.endswith("; constraint=never purge the cache")  # the scope and the condition are gone
    summary = await summarize(abstractive, summary, "module=Billing")
    assert summary.startswith("module=Reporting/Billing;")  # which module is current is lost
    assert await summarize(abstractive, summary, "module=Billing") == summary  # a repeat adds nothing
    extractive = OfflineSummarizerClient()
    assert await summarize(extractive, "module=Reporting", "module=Billing") == "module=Reporting\nmodule=Billing"


async def test_both_summary_modes_drop_the_oldest_items_to_fit_their_budget():
    for mode in ("extractive", "abstractive"):
        summary = await summarize(
            OfflineSummarizerClient(30, mode=mode), "product=Contoso\nmodule=Reporting", "log=a.log"
        )
        assert len(summary) <= 30 and "log=a.log" in summary and "product" not in summary


def test_generalize_keeps_a_value_it_would_empty_and_the_mode_is_checked():
    assert generalize("staging") == "staging"
    assert generalize("invoices are duplicated after a retry") == "invoices are duplicated"
    assert generalize("SQL Server 2022") == "SQL Server 2022"
    with pytest.raises(ValueError, match="Unknown summary mode"):
        OfflineSummarizerClient(mode="creative")


# region Without MAF's tool loop


def lookup(key: str) -> str:
    """A tool no course model is given."""
    return key


@pytest.mark.parametrize("role", ["assistant", "writer", "reader", "summarizer", "worker", "judge"])
async def test_every_role_comes_without_the_tool_loop_and_refuses_tools_it_could_not_run(role):
    client = make_chat_client(role)
    assert client.function_invocation_configuration["enabled"] is False
    with pytest.raises(ValueError, match=r"without MAF's tool loop.*cannot run the tools"):
        await Agent(client=client, tools=[lookup]).run("module=Billing")
    assert (await Agent(client=client).run("module=Billing")).text  # no tools: answered as before


async def test_the_tool_loop_changes_nothing_a_model_receives_or_answers():
    """Switching MAF's tool loop off is a cost decision only: same messages sent, same answers, call by call."""
    from course_lib.policies import course_policies, generate_timeline, run_policy
    from course_lib.tracing import CallLog

    def reader(loop: bool):
        def build(rule):
            client = make_chat_client("reader", resolution=rule)
            client.function_invocation_configuration["enabled"] = loop
            return client

        return build

    results = []
    for loop in (True, False):
        log = CallLog()
        factory = course_policies(reader=reader(loop))["full history"]
        rows = await run_policy(generate_timeline(30), factory("latest", log), log, "latest")
        results.append((rows, [(c.instructions, c.messages, c.reply) for c in log.calls]))
    assert results[0] == results[1]
