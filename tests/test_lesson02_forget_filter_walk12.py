"""Lesson 02's third walk ([blocks]): "Only the filter stands between the old words and the model" hid that the
forget filter knows only the values the store forgot; a value a correction had replaced earlier still reached the
model from the kept session. The lesson now prints which values that call carried, and says why."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from agent_framework import Agent

from course_lib.clients import make_chat_client
from course_lib.extraction import make_extraction
from course_lib.providers import ManualInjectionDesk
from course_lib.tracing import CallLog, ModelCall, SeenMessage, values_sent

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "02_correct_then_forget.ipynb"
SEED_VALUES = ["Reporting", "PostgreSQL", "Billing", "SQL Server 2022"]


def test_values_sent_reads_the_instructions_and_the_messages_of_one_call():
    call = ModelCall("desk", "be brief", (SeenMessage("user", "module=Reporting"),), "ok")
    assert values_sent(call, ["Billing", "Reporting", "brief"]) == ["Reporting", "brief"]


async def test_with_the_session_kept_the_replaced_values_reach_the_model_and_the_forgotten_ones_do_not():
    log = CallLog()
    console = ManualInjectionDesk(Agent(client=make_chat_client("assistant", log=log), name="desk"), make_extraction())
    await console.handle("module=Reporting; database=PostgreSQL")
    await console.handle("module=Billing; database=SQL Server 2022")
    console.memory.forget()
    await console.ask("Which module am I on?")
    assert values_sent(log.calls[-1], SEED_VALUES) == ["Reporting", "PostgreSQL"]
    console.forget()
    await console.ask("Which module am I on?")
    assert values_sent(log.calls[-1], SEED_VALUES) == []


def test_the_lesson_prints_what_the_call_carried_and_says_why_forget_replaces_the_session():
    cells = nbformat.read(LESSON, as_version=4).cells
    shown = next(
        "".join("".join(o.get("data", {}).get("text/html", "")) for o in c.outputs)
        for c in cells
        if c.cell_type == "code" and "values_sent(" in c.source
    )
    # walk 23: a table, one row per seed value; its "store emptied, session kept" column is read from the call
    for value in ("Reporting", "PostgreSQL"):
        assert re.search(
            rf">{value}</td>\s*<td[^>]*>the session</td>\s*<td[^>]*>the session; the model is sent it<", shown
        )
    text = " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")
    assert "Only the filter stands between the old words and the model" not in text
    # walk 25: said as what escapes the filter, in the bullet that names it
    # second walk 25: who swaps (the course), and why the corrected values escape
    # third walk 25: where the filter runs (the desk's model client), and that they were only replaced
    assert "Reporting and PostgreSQL were never forgotten, only replaced by the correction" in text


def test_a_client_with_its_own_chain_is_held_first_in_it_before_its_recorder():
    """The live run of lesson 02 logged 'Billing' after the store forgot it: the filter ran as agent middleware, after
    the live client's recorder, so the call log showed the history before redaction. The filter now goes first in a
    client's own chain, where the recorder sees what the model is sent."""
    from types import SimpleNamespace

    from course_lib.forgetting import forget_filter, hold_agent
    from course_lib.memory import WorkingMemory

    memory, recorder = WorkingMemory(), object()
    agent = SimpleNamespace(client=SimpleNamespace(chat_middleware=[recorder]), middleware=None)
    hold_agent(agent, memory)
    assert agent.client.chat_middleware == [forget_filter(memory), recorder] and agent.middleware is None
    hold_agent(agent, memory)  # held once
    assert agent.client.chat_middleware == [forget_filter(memory), recorder]
