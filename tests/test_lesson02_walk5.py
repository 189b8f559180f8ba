"""Lesson 02's fifth walk (issue 32): what the call table counts, which line made each call, the panel's comma and
ticket notes, exercise 3's hint."""

import re

from agent_framework import Agent

from course_lib.clients import make_chat_client
from course_lib.extraction import make_extraction
from course_lib.memory import WorkingMemory
from course_lib.providers import ManualInjectionDesk, inject, injected_words
from course_lib.tracing import CallLog, chars_sent_sum


async def _two_turns() -> CallLog:
    log = CallLog()
    agent = Agent(client=make_chat_client("assistant", log=log, name="triage desk"), name="triage", instructions="Hi.")
    desk = ManualInjectionDesk(agent, make_extraction(log=log))
    for line in ("module=Reporting; database=PostgreSQL", "module=Billing; database=SQL Server 2022"):
        await desk.handle(line)
    return log


async def test_chars_sent_is_said_as_the_sum_it_is_instructions_included() -> None:
    """The lesson said a writer's instructions "travel apart and are not counted"; the count holds them."""
    log = await _two_turns()
    desk_first, writer_first, desk_second = log.calls[0], log.calls[1], log.calls[2]
    for call in log.calls:
        said = chars_sent_sum(call)
        total, parts = said.split(" = ")
        numbers = [int(n) for n in re.findall(r"(\d+) of ", parts)]
        assert int(total) == call.chars_sent == sum(numbers), said
        assert numbers[0] == len(call.instructions or "") > 0 and "of instructions" in said
    assert chars_sent_sum(desk_first) == f"{desk_first.chars_sent} = 3 of instructions + " + (
        f"{len(desk_first.messages[0].text)} of the last message"
    )
    assert "of the 12 messages before the last" in chars_sent_sum(writer_first)
    assert "of the 2 messages before the last" in chars_sent_sum(desk_second)


async def test_each_logged_call_is_named_by_the_console_line_that_made_it() -> None:
    log = await _two_turns()
    lines = [injected_words(call.messages[-1].text) for call in log.calls]
    assert lines == ["module=Reporting; database=PostgreSQL"] * 2 + ["module=Billing; database=SQL Server 2022"] * 2
    assert [call.client for call in log.calls] == ["triage desk", "writer"] * 2
    memory = WorkingMemory()
    assert injected_words(inject(memory.to_prompt_block(), "a\n\nb")) == "a\n\nb"
    assert injected_words("module=Billing") == "module=Billing"  # no block: the text as it is
