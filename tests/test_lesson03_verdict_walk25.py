"""Lesson 03's second walk 25 (issue 32), item 6: the desk verdict said "the oldest, customer=D, was pushed out" after
five facts of one turn then a sixth, though customer=D was as old as the four facts kept. Facts are "the oldest" only
when no kept fact shares their turn; a fact that lost that tie is its turn's first key alphabetically. One rule, in
``course_lib.providers.pushed_out_words``, says it for the console and the desk chat alike.
"""

from __future__ import annotations

from support.panels import last_in_chat, send, two_desks

from course_lib.providers import course_provider_desks
from course_lib.tracing import CallLog

# --- 6. the eviction sentence says "the oldest" truly ---


async def test_a_fact_that_lost_a_tie_within_its_turn_is_said_to_be_that_turns_first_key() -> None:
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    await desks.handle("priority=P1; customer=D; module=M; database=X; product=Y")  # five facts, one turn
    event = await desks.handle("version=4.2")
    assert event.output.endswith(
        "[memory] Stored: version. The store holds at most 5 facts, so the oldest turn's first key alphabetically, "
        "customer=D, was pushed out to make room."
    )
    assert "the oldest, customer=D" not in event.output


async def test_facts_that_are_the_whole_rest_of_the_oldest_turn_are_the_oldest() -> None:
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    await desks.handle("module=Billing; database=SQL Server 2022; product=Contoso Invoicing")
    await desks.handle("priority=P1; customer=Fabrikam")
    one = await desks.handle("version=4.2")  # database loses the tie with module and product of turn 1
    assert "so the oldest turn's first key alphabetically, database=SQL Server 2022, was pushed out" in one.output
    two = await desks.handle("symptom=slow; environment=staging")  # the rest of turn 1, all of it
    assert "so the oldest, module=Billing and product=Contoso Invoicing, were pushed out to make room." in two.output


async def test_a_turn_gone_whole_then_the_next_turns_first_key_are_said_in_order() -> None:
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    await desks.handle("module=Billing")
    await desks.handle("priority=P1; customer=Fabrikam; version=4.2; product=X")
    event = await desks.handle("symptom=slow; environment=staging")
    assert (
        "so the oldest, module=Billing, then the next turn's first key alphabetically, customer=Fabrikam, were pushed "
        "out to make room." in event.output
    )


async def test_the_desk_chat_says_the_same_sentence() -> None:
    panel = two_desks()
    await send(panel, "priority=P1; customer=D; module=M; database=X; product=Y")
    await send(panel, "version=4.2")
    chat = last_in_chat(panel)
    assert "so the oldest turn's first key alphabetically, customer=D, was pushed out to make room." in chat
    assert chat.count("pushed out") == 1
