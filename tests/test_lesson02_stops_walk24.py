"""Lesson 02's walk 24, third round (issue 32): a new student scored it 4/5, "a few stops"; these make it a 5.

1. The script's first ``mem`` says what ``mem`` does, where it is first used.
2. Section 1's step 1 says what the ticket does (a newer message or a forget refuses this turn's facts), not that
   the turn locks the store.
3. Section 6's sentences under its table are built by one course_lib helper, :func:`explain_chars`, computed from
   the log; the cell keeps ``calls_needed``, the table and one call.
4. The cell that drives a second panel from code has one line of prose before it, saying the student's panel is
   untouched.
5. Section 7's "a sixth key when the store holds five" says the store keeps at most five facts (lesson 01).
"""

from __future__ import annotations

import pytest
from agent_framework import Agent
from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, words

from course_lib.clients import make_chat_client
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.memory import WorkingMemory
from course_lib.providers import DESK_INSTRUCTIONS_BY_NAME, ManualInjectionDesk, explain_chars, route_by_topic
from course_lib.tracing import CallLog, chars_sent_sum


def _cells() -> list[dict]:
    return stored_lesson("02")["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


# region 1. `mem` explained at its first use


def test_the_scripts_first_mem_says_what_mem_prints() -> None:
    intro = cell_source("02", "cell-00")
    first = intro.index("`mem`")
    assert intro[first:].startswith("`mem` (`mem` prints the store's facts)")


# region 2. the ticket refuses a late turn; it does not lock the store


def test_step_1_says_what_the_ticket_refuses() -> None:
    said = plain_words(cell_source("02", "cell-04"))
    # walk 25: what the ticket is, said in a clause, with a link to lesson 01
    assert (
        "take a ticket from the store ([lesson 01](01_contract_and_store.ipynb)): if a newer message or a forget "
        "arrives before this turn's facts are written, the store refuses them" in said  # second walk 25
    )
    assert "only this turn's extraction may then write" not in said


# region 3. section 6's sentences come from one helper


async def _seed_log() -> CallLog:
    log = CallLog()
    desks = {
        name: Agent(
            client=make_chat_client("assistant", log=log, name=f"{name} desk"),
            name=name,
            instructions=DESK_INSTRUCTIONS_BY_NAME[name],
        )
        for name in ("triage", "operations")
    }
    writer = ChatFactWriter(make_chat_client("writer", log=log))
    console = ManualInjectionDesk(desks, MemoryExtraction(WorkingMemory(), writer), router=route_by_topic)
    for line in ("module=Reporting; database=PostgreSQL", "module=Billing; database=SQL Server 2022"):
        await console.handle(line)
    return log


async def test_explain_chars_says_each_of_the_first_three_calls_as_its_sum() -> None:
    log = await _seed_log()
    said = words(explain_chars(log))
    first, its_writer, second = log.calls[:3]
    writer_messages = len(its_writer.messages) - 1
    for name, instructions in DESK_INSTRUCTIONS_BY_NAME.items():
        assert f"the {name} desk ({len(instructions)} characters): {instructions}" in said
    assert said.index(DESK_INSTRUCTIONS_BY_NAME["triage"]) < said.index("of instructions")
    assert f"Each writer call sends {writer_messages + 1} messages: the {writer_messages // 2} worked examples" in said
    assert f"call 1, the triage desk's first: {chars_sent_sum(first)}" in said
    assert f"call 2, its writer: {chars_sent_sum(its_writer)}" in said
    assert f"call 3, the triage desk's second: {chars_sent_sum(second)}" in said
    assert "its last message is the facts block and the user's words" in said
    assert f"the {writer_messages} messages before the last are its worked examples" in said
    assert "the 2 messages before the last are its session history" in said


async def test_explain_chars_names_the_desk_the_log_holds() -> None:
    """The rule, not the one log: a log whose first desk is operations names operations, not triage."""
    log = CallLog()
    desk = Agent(
        client=make_chat_client("assistant", log=log, name="operations desk"),
        name="operations",
        instructions=DESK_INSTRUCTIONS_BY_NAME["operations"],
    )
    writer = ChatFactWriter(make_chat_client("writer", log=log))
    console = ManualInjectionDesk(desk, MemoryExtraction(WorkingMemory(), writer))
    for line in ("log=/var/log/app", "Where can I find logs?"):
        await console.handle(line)
    said = words(explain_chars(log))
    assert "call 1, the operations desk's first:" in said
    assert "call 3, the operations desk's second:" in said
    assert "triage desk's" not in said


def test_explain_chars_asks_for_the_calls_it_reads() -> None:
    from course_lib.tracing import RunCellsAboveFirst

    with pytest.raises(RunCellsAboveFirst):
        explain_chars(CallLog())


def test_section_6_cell_keeps_the_table_and_one_call() -> None:
    cell = next(c for c in _cells() if "calls = log.to_frame()" in _source(c))
    source = _source(cell)
    assert "calls_needed(log, 3," in source and "student_table(calls)" in source
    assert "printed = [" not in source and 'f"' not in source
    assert len(source.splitlines()) <= 12
    # walk 25: the sums are printed under the hood, by one call of the helper
    hood = next(c for c in _cells() if "explain_chars(log)" in _source(c))
    assert _cells().index(hood) > _cells().index(cell)
    printed = words(cell_outputs("02", hood["id"]))
    assert "The desks' instructions, sent with each of their calls:" in printed
    assert "call 3, the triage desk's second:" in printed


# region 4. prose before the cell that drives a second panel


def test_the_second_panel_cell_has_a_line_before_it() -> None:
    cells = _cells()
    at = next(i for i, c in enumerate(cells) if "demo = MemoryPanel(make_extraction())" in _source(c))
    before = cells[at - 1]
    assert before["cell_type"] == "markdown"
    assert words(_source(before)) == (
        "The next cell drives a second panel from code, to show the same thing; yours above is untouched."
    )
    assert "presenter-hidden" in before["metadata"].get("tags", [])  # hidden in Voila with the cell it announces


# region 5. why a sixth key pushes one out


def test_the_sixth_key_note_says_the_store_keeps_five() -> None:
    panel = next(plain_words(_source(c)) for c in _cells() if _source(c).startswith("## 7. Try it"))
    assert "a sixth key when the store holds five (the store keeps at most five facts, lesson 01)" in panel
