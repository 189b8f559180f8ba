"""Lesson 03 walked again (issue 32, walk 23): the chat's [memory] line says which fact a full store pushed out, and
the call log's count after a re-run reads naturally."""

from __future__ import annotations

from support.panels import last_in_chat, send, two_desks

from course_lib.providers import course_provider_desks, memory_line
from course_lib.tracing import CallLog, ModelCall, SeenMessage, log_after_forget

# --- finding 2: the chat's [memory] line says which fact a sixth one pushed out ---


async def test_the_memory_line_names_the_fact_a_full_store_pushed_out() -> None:
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    await desks.handle("module=Billing; database=SQL Server 2022; product=Contoso Invoicing")
    await desks.handle("priority=P1; customer=Fabrikam")
    event = await desks.handle("version=4.2")
    assert event.output.endswith(
        "[memory] Stored: version. The store holds at most 5 facts, so the oldest, database=SQL Server 2022, was "
        "pushed out to make room."
    )
    assert event.report is not None
    assert memory_line(event.report, event.line) == event.output.splitlines()[-1]  # the one rule, console and chat
    two = await desks.handle("symptom=slow; environment=staging")
    assert "so the oldest, module=Billing and product=Contoso Invoicing, were pushed out to make room." in two.output


async def test_a_line_that_pushed_nothing_out_says_nothing_of_the_bound() -> None:
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    event = await desks.handle("module=Billing; database=SQL Server 2022")
    assert event.output.endswith("[memory] Stored: module and database.")


async def test_the_desk_chat_says_the_pushed_out_fact_under_the_reply() -> None:
    panel = two_desks()
    for line in ("module=Billing; database=SQL Server 2022; product=Contoso Invoicing", "priority=P1; customer=X"):
        await send(panel, line)
    await send(panel, "version=4.2")
    chat = last_in_chat(panel)
    assert "[memory] Stored: version. The store holds at most 5 facts, so the oldest, database=SQL Server 2022" in chat
    assert chat.count("pushed out") == 1  # said once in the chat entry


# --- finding 6: after a re-run, no call since is said in words ---


def _call(client: str, text: str) -> ModelCall:
    return ModelCall(client=client, instructions=None, messages=(SeenMessage(role="user", text=text),), reply="")


def _log_with_forget() -> tuple[CallLog, int]:
    log = CallLog()
    for client in ("assistant", "writer"):
        log.calls.append(_call(client, "module=Billing"))
    return log, len(log)


def test_no_call_since_the_forget_is_said_in_words() -> None:
    log, forgotten_at = _log_with_forget()
    said = log_after_forget(log, "Billing", forgotten_at, "forget module")
    assert "0 calls" not in said and "none of the 0" not in said
    assert "and no call has been made since." in said
    log.calls.append(_call("assistant", "Where?"))
    said = log_after_forget(log, "Billing", forgotten_at, "forget module")
    assert "and the one call made since did not." in said and "1 calls" not in said
    log.calls.append(_call("assistant", "Where?"))
    assert "and none of the 2 calls made since did." in log_after_forget(log, "Billing", forgotten_at)
