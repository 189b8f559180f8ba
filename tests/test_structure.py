"""The library's structure keeps its promises: one home per convention and prompt format, one version."""

import importlib.metadata
import tomllib
from pathlib import Path

from agent_framework import Agent, InMemoryHistoryProvider, Message
from hypothesis import given
from hypothesis import strategies as st

import course_lib
from course_lib.assertions import ALLOWED_KEYS
from course_lib.clients import OfflineAssistantClient, OfflineSummarizerClient
from course_lib.conventions import EXTERNAL, attribution_source, message_source, stored_messages
from course_lib.extraction import WRITER_INSTRUCTIONS
from course_lib.prompts import read_summary_prompt, summary_prompt

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_is_written_once_and_installed_as_written():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert importlib.metadata.version("course-lib") == course_lib.__version__


def test_writer_instructions_name_exactly_the_allowed_keys_in_order():
    line = next(line for line in WRITER_INSTRUCTIONS.splitlines() if "allowed keys:" in line)
    assert line.partition("allowed keys: ")[2].rstrip(".").split(", ") == list(ALLOWED_KEYS)


def test_attribution_is_read_as_maf_writes_it():
    plain = Message(role="user", contents=["module=A"])
    by_id = Message(role="user", contents=["x"], additional_properties={"_attribution": {"source_id": "loop"}})
    by_type = Message(
        role="user", contents=["x"], additional_properties={"_attribution": {"source_id": "a", "source_type": "B"}}
    )
    assert [attribution_source(m) for m in (plain, by_id, by_type)] == [None, "loop", "B"]
    assert [message_source(m) for m in (plain, by_id, by_type)] == [EXTERNAL, "loop", "B"]


async def test_stored_messages_reads_what_the_in_memory_history_provider_keeps():
    agent = Agent(client=OfflineAssistantClient(), context_providers=[InMemoryHistoryProvider()])
    session = agent.create_session()
    assert stored_messages(session) == []
    await agent.run("module=Billing", session=session)
    kept = session.state[InMemoryHistoryProvider.DEFAULT_SOURCE_ID]["messages"]
    assert stored_messages(session) == kept and kept[0].text == "module=Billing"


_line = st.text(st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"]), min_size=1).filter(str.strip)


@given(previous=st.lists(_line, max_size=4), user_text=_line, answer=_line)
def test_the_summarizer_reads_back_the_prompt_the_policy_writes(previous, user_text, answer):
    lines, read_user = read_summary_prompt(summary_prompt("\n".join(previous), user_text, answer))
    assert lines == previous and read_user == user_text


async def test_the_offline_summarizer_keeps_the_previous_summary_and_adds_the_new_declaration():
    agent = Agent(client=OfflineSummarizerClient(budget=200))
    reply = await agent.run(summary_prompt("module=Reporting", "database=SQL Server 2022", "Noted."))
    assert reply.text == "module=Reporting\ndatabase=SQL Server 2022"
