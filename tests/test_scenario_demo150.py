"""Lesson 02's story (the seed's Demo150) end to end on the offline models."""

from course_lib.providers import SEED_SCRIPT, course_manual_desk, inject, stored_messages
from course_lib.tracing import CallLog


def make_desk(log=None):
    return course_manual_desk(log if log is not None else CallLog())


def pairs(desk):
    return [(f.key, f.value, f.evidence, f.turn) for f in desk.memory.facts]


async def test_correct_then_forget_script():
    log = CallLog()
    desk = make_desk(log)
    await desk.handle("module=Reporting; database=PostgreSQL")
    assert pairs(desk) == [
        ("database", "PostgreSQL", "database=PostgreSQL", 1),
        ("module", "Reporting", "module=Reporting", 1),
    ]

    event = await desk.handle("module=Billing; database=SQL Server 2022")
    assert event.report.status == "accepted"
    assert pairs(desk) == [
        ("database", "SQL Server 2022", "database=SQL Server 2022", 2),
        ("module", "Billing", "module=Billing", 2),
    ]
    # the injected block carried the facts of turn 1: the correction serves the following calls
    assert '- module = "Reporting"' in event.sent

    event = await desk.handle("Where can I find logs?")
    assert event.report.status == "nothing_to_extract"
    assert "module=Billing; database=SQL Server 2022" in event.reply

    event = await desk.handle("forget module")
    assert event.kind == "forget" and [f.key for f in desk.memory.facts] == ["database"]
    await desk.handle("forget")
    assert desk.memory.facts == ()

    event = await desk.handle("Which module and database am I on?")
    assert event.report.status == "nothing_to_extract" and desk.memory.facts == ()
    assert "I see no facts" in event.reply
    assert "Billing" not in log.calls[-2].messages[-1].text


async def test_manual_injection_stores_the_block_inside_the_user_message_of_the_session():
    desk = make_desk()
    await desk.handle("module=Reporting")
    await desk.handle("Where can I find logs?")
    history = stored_messages(desk.sessions["desk"])
    stored_user_texts = [m.text for m in history if m.role == "user"]
    assert stored_user_texts[1] == inject(desk.memory.to_prompt_block(), "Where can I find logs?")


async def test_forgetting_the_store_alone_leaves_the_old_mention_in_history_but_no_call_is_sent_it():
    desk = make_desk()
    await desk.handle("module=Reporting")
    desk.memory.forget()  # the store only: the session still holds the declaration
    assert any("module=Reporting" in m.text for m in stored_messages(desk.sessions["desk"]))
    event = await desk.ask("Which module?")
    assert "module=[forgotten]" in event.reply and "Reporting" not in event.reply  # the store's filter held it
    desk.forget()  # store and session
    event = await desk.ask("Which module?")
    assert "I see no facts" in event.reply


async def test_mem_shows_the_block_without_calling_a_model():
    log = CallLog()
    desk = make_desk(log)
    event = await desk.handle("mem")
    assert event.kind == "mem" and "(no controlled facts recorded)" in event.output and len(log) == 0


async def test_seed_script_on_two_manual_desks_sharing_one_store():
    log = CallLog()
    desks = course_manual_desk(log, ("triage", "operations"))
    events = [await desks.handle(line) for line in SEED_SCRIPT]
    assert SEED_SCRIPT[4:6] == ("Where can I find logs?", "mem")
    assert [e.desk for e in events[:5] if e.kind == "turn"] == ["triage", "triage", "operations"]
    # the operations desk never saw the triage conversation, but the injected block carried the shared facts
    ops_call = next(c for c in log.calls if c.client == "operations")
    assert len(ops_call.messages) == 1 and ops_call.messages[0].text == events[4].sent
    assert '- module = "Billing"' in events[4].sent and "module=Billing" in events[4].reply
    # `mem` after the logs question: the question changed nothing
    assert '- module = "Billing"' in events[5].output and '- database = "SQL Server 2022"' in events[5].output
    assert events[5].output == events[3].output
    # `forget module` kept database and replaced both desks' histories; `forget` emptied the store
    assert events[6].kind == "forget" and "1 removed" in events[6].output
    assert events[7].kind == "forget" and desks.memory.facts == ()
    assert events[8].desk == "triage" and "I see no facts" in events[8].reply


async def test_forget_one_key_replaces_both_manual_desks_sessions():
    desks = course_manual_desk(CallLog(), ("triage", "operations"))
    for line in SEED_SCRIPT[:5]:
        await desks.handle(line)
    before = dict(desks.sessions)
    assert [len(stored_messages(before[name])) for name in ("triage", "operations")] == [4, 2]
    await desks.handle("forget module")
    assert [f.key for f in desks.memory.facts] == ["database"]
    assert all(desks.sessions[name] is not before[name] for name in before)
    assert all(stored_messages(s) == [] for s in desks.sessions.values())


async def test_facts_live_in_the_process_only_a_new_console_starts_empty(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    desks = course_manual_desk(CallLog(), ("triage", "operations"))
    await desks.handle("module=Billing; database=SQL Server 2022")
    assert len(desks.memory.facts) == 2 and list(tmp_path.iterdir()) == []  # nothing written to disk
    assert course_manual_desk(CallLog()).memory.facts == ()
