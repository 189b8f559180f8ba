"""Lesson 02's fifth walk (issue 32): what the call table counts, which line made each call, the panel's comma and
ticket notes, exercise 3's hint."""

import re

from agent_framework import Agent

from course_lib.clients import make_chat_client
from course_lib.exercises import check, exercise
from course_lib.extraction import make_extraction
from course_lib.memory import WorkingMemory
from course_lib.providers import ManualInjectionDesk, inject, injected_words
from course_lib.tracing import CallLog, chars_sent_sum
from course_lib.widgets import UNREAD_NOTE, comma_notes
from tests.support.panels import memory_panel, submit


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


async def test_a_comma_between_declarations_is_named_where_the_value_swallowed_the_next() -> None:
    panel = memory_panel()
    await submit(panel, "module=Billing, database=Oracle")
    assert [f.value for f in panel.memory.facts] == ["Billing, database=Oracle"]
    # walk 23: the note names the declaration inside the value, as it does for a space, 'and' or a period
    said = (
        "the declaration of database is part of module's value, since a comma does not separate declarations; "
        "use ';' or a new line to declare database too."
    )
    assert f'module is stored as "Billing, database=Oracle": {said}' in panel.diagnostic.value
    await submit(panel, "symptom=slow, then stuck")  # a comma in prose: no allowed key after it, no note
    assert "comma" not in panel.diagnostic.value
    await submit(panel, "customer=Contoso, owner=dana")  # owner is not an allowed key: nothing to declare
    assert "comma" not in panel.diagnostic.value


async def test_the_ticket_counts_the_messages_read_and_a_message_refused_unread_says_it_took_none() -> None:
    panel = memory_panel()
    await submit(panel, "module=Billing")
    await submit(panel, "x" * 6008)
    assert "turn 1 (messages read so far)" in panel.ticket.value and UNREAD_NOTE in panel.diagnostic.value
    await submit(panel, "symptom=" + "y" * 300)  # read, then its value refused: it took a turn
    assert "turn 2 (messages read so far)" in panel.ticket.value and UNREAD_NOTE not in panel.diagnostic.value
    assert comma_notes(await make_extraction().update("module=Billing; database=Oracle")) == []


def test_exercise_3s_hint_asks_and_a_question_counted_without_its_writer_is_answered() -> None:
    third = exercise("02", "Exercise 3")
    assert third.hint.count("?") == 2 and "(2 + 2)" not in third.hint
    said = " ".join(check("Exercise 3", 3, 4, third.hint).split())
    assert "in its column 'model called' for each user turn's line?" in said  # pointed at the table (walk 8)
