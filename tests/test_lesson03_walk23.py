"""Lesson 03 walked again (issue 32, walk 23): section 2 keeps to what the script shows (the gate and the ticket are
section 5's), the chat's [memory] line says which fact a full store pushed out, "controlled facts" is defined where it
first appears and C# waits for the hood, the call log is said in a plain sentence, the system message's vendor aside is
the hood's, the call log's count after a re-run reads naturally, and the router is said to ignore capitals."""

from __future__ import annotations

from support.lesson_cells import stored_lesson, words
from support.panels import last_in_chat, send, two_desks

from course_lib.providers import course_provider_desks, memory_line, route_by_topic
from course_lib.tracing import CallLog, ModelCall, SeenMessage, log_after_forget


def _cells() -> list[dict]:
    return stored_lesson("03")["cells"]


def _text(cell: dict) -> str:
    return words("".join(cell["source"]))


def _section(heading: str) -> list[dict]:
    """The cells from the markdown cell holding ``heading`` up to the next ``## `` heading."""
    cells = _cells()
    start = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and heading in "".join(c["source"]))
    section = [cells[start]]
    for cell in cells[start + 1 :]:
        if cell["cell_type"] == "markdown" and "".join(cell["source"]).lstrip().startswith("## "):
            break
        if cell["cell_type"] == "markdown" and "\n## " in "".join(cell["source"]):
            section.append(cell)
            break
        section.append(cell)
    return section


def _student_path() -> list[dict]:
    cells = _cells()
    hood = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))
    return cells[:hood]


def _hood() -> str:
    cells = _cells()
    hood = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))
    return " ".join(_text(c) for c in cells[hood:] if c["cell_type"] == "markdown")


# --- finding 1: section 2 keeps to what the script shows; the gate and the ticket are section 5's ---


def test_section_2_brings_no_middleware_gate_or_ticket_and_section_5_brings_them() -> None:
    section_2 = " ".join(_text(c) for c in _section("## 2. Two desks, one store") if c["cell_type"] == "markdown")
    for word in ("middleware", "gate", "ticket", "context_providers"):
        assert word not in section_2, word
    section_5 = _section("## 5. Attaching the provider yourself")
    said = " ".join(_text(c) for c in section_5 if c["cell_type"] == "markdown")
    # third walk 25: section 5 says why the provider brings its own middleware: its gate takes the ticket first
    assert "*middleware*" in said and "*gate*" in said and "*ticket*" in said
    hood = _hood()
    assert hood.index("*middleware*") < hood.index("*gate*") < hood.index("*ticket*")
    assert "attach" in [c.get("id") for c in section_5]  # the agent written out, with its gate


# --- finding 2: the chat's [memory] line says which fact a sixth one pushed out ---


async def test_the_memory_line_names_the_fact_a_full_store_pushed_out() -> None:
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    await desks.handle("module=Billing; database=SQL Server 2022; product=Contoso Invoicing")
    await desks.handle("priority=P1; customer=Fabrikam")
    event = await desks.handle("version=4.2")
    assert event.output.endswith(
        "[memory] Stored: version. The store holds at most 5 facts, so the oldest turn's first key alphabetically, "
        "database=SQL Server 2022, was pushed out to make room."
    )  # second walk 25: database is as old as module and product, kept; it lost their tie alphabetically
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
    assert "[memory] Stored: version. The store holds at most 5 facts, so the oldest turn's first key" in chat
    assert chat.count("pushed out") == 1  # said once in the chat entry


# --- finding 3: "controlled facts" is defined where it first appears; C# waits for the hood ---


def test_controlled_facts_is_defined_where_it_first_appears() -> None:
    first = next(_text(c) for c in _cells() if c["cell_type"] == "markdown" and "controlled facts" in _text(c))
    after = first[first.index("controlled facts") :]
    assert after.startswith("controlled facts* to a MAF agent")  # a goal: defined by the sentence below it
    assert "*Controlled facts* are the facts lesson 01's store admits:" in first


def test_the_student_path_names_no_csharp_and_the_hood_does() -> None:
    path = [_text(c) for c in _student_path() if c["cell_type"] == "markdown"]
    assert not any("C#" in text or ".NET" in text for text in path)
    assert "MAF for .NET (C#)" in _hood()


# --- finding 4: the call log is said in one plain sentence ---


def test_the_call_log_is_said_in_a_plain_sentence() -> None:
    said = _text(next(c for c in _cells() if c.get("id") == "cell-09"))
    assert "`log` kept the request." not in said
    assert "`log`, the call log made in section 2, keeps every request the desks and the writer sent" in said


# --- finding 5: the system message and its vendor are the hood's ---


def test_the_system_message_and_its_vendor_are_under_the_hood() -> None:
    path = " ".join(_text(c) for c in _student_path() if c["cell_type"] == "markdown")
    assert "OpenAI's client" not in path and "*system* message" not in path
    assert "sent apart from these messages" in path  # the student still learns why the table has no instructions
    assert "OpenAI's client sends them as the *system* message" in _hood()


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


# --- finding 7: the router is said to ignore capitals, where it is shown ---


def test_the_router_is_said_to_ignore_capitals_where_it_is_shown() -> None:
    section_2 = " ".join(_text(c) for c in _section("## 2. Two desks, one store") if c["cell_type"] == "markdown")
    assert "Case does not matter: `LOGS` counts as `logs`." in section_2  # walk 25: said plainly
    assert route_by_topic("Where are the LOGS?") == "operations" == route_by_topic("Logs please")


def test_the_panels_reading_guide_says_the_verdict_names_a_pushed_out_fact() -> None:
    said = _text(next(c for c in _cells() if c.get("id") == "panel-reading"))
    # second walk 25: the fact pushed out is not always "the oldest" (a tie within the oldest turn goes alphabetically)
    assert "When a line brings a sixth fact, the verdict names the fact the store pushed out to make room." in said
