"""Lesson 03's desk panel and table, as a newcomer met them on the third walk (issue 32)."""

from support.panels import send, two_desks

from course_lib.providers import compare_injection, repeated_not_held
from course_lib.widgets import shorten_long_input

LONG_SYMPTOM = "symptom=" + "x" * 3000


def test_shortening_keeps_the_separator_after_a_long_run():
    said = shorten_long_input(f"From what I can see: module=Reporting; {LONG_SYMPTOM}; database=SQL Server 2022.")
    assert said == (
        "From what I can see: module=Reporting; " + "symptom=" + "x" * 40 + "\u2026 (3000 characters); "
        "database=SQL Server 2022."
    )
    assert shorten_long_input("y" * 100 + ".") == "y" * 40 + "\u2026 (100 characters)."


async def test_a_value_the_desk_repeats_from_its_conversation_is_marked_as_not_in_the_store():
    panel = two_desks()
    await send(panel, "module=Reporting; database=SQL Server 2022")
    await send(panel, f"module=Billing; {LONG_SYMPTOM}")  # refused whole: the value is too long
    assert [f.key for f in panel.desks.memory.facts] == ["database", "module"]
    note = "the store does not hold it"
    assert "Not in the store" not in panel.transcript[-1]  # the verdict on this very line says it already
    await send(panel, "Which module am I on?")
    said = panel.transcript[-1]
    assert "symptom=xxxx" in said and note in said and "x" * 60 not in said
    assert "\u2026 (3000 characters)." in said.split("Not in the store")[0]  # the reply keeps its full stop
    assert "module=Billing" not in said  # the desk said the store's Reporting: nothing to mark


def test_only_values_from_the_history_that_the_store_does_not_hold_are_named():
    from agent_framework import Message

    from course_lib.memory import WorkingMemory

    memory = WorkingMemory()
    turn = memory.begin_turn("module=Reporting")
    from course_lib.memory import FactCandidate

    memory.apply(turn, [FactCandidate(key="module", value="Reporting", evidence="module=Reporting")])
    history = [
        Message(role="user", contents=["module=Billing; symptom=slow"]),
        Message(role="assistant", contents=["ok"]),
    ]
    reply = "From what I can see: module=Reporting; symptom=slow."
    assert repeated_not_held(reply, history, memory.facts) == ["symptom=slow"]
    assert repeated_not_held("module=Billings", history, memory.facts) == []  # a longer word is not the value


async def test_forgetting_a_key_that_is_not_stored_says_why_the_sessions_are_still_replaced():
    panel = two_desks()
    await send(panel, "module=Billing")
    old = dict(panel.desks.sessions)
    await send(panel, "forget customer")
    said = panel.chat.value
    assert "0 removed" in said and "may still mention customer" in said
    assert all(panel.desks.sessions[name] is not old[name] for name in old)


async def test_enter_on_an_empty_box_says_what_to_type_beside_the_box_and_keeps_the_last_result():
    """Issue 32 (walk 12): an empty Enter may be a queued second Enter of a line just sent: it never replaces the
    result of that line (the chat, the store's verdict); the note beside Send says what to type. Walk 19: the status
    under the box is this Enter's alone, so a refusal of a line deleted before it is gone from there (the chat keeps
    it)."""
    panel = two_desks()
    await send(panel, "forget colour")
    assert "Refused" in panel.error.value
    chat = panel.chat.value
    panel.line.value = ""
    panel.line._handle_custom_msg({"event": "submit"}, [])  # Enter in the empty box
    await panel.idle()
    assert panel.chat.value == chat and "The box is empty" in panel.send_note.value
    assert panel.error.value == ""


async def test_the_comparison_marks_the_call_made_after_forget():
    table = await compare_injection()
    lines = table[table["path"] == "context provider"]["line"].tolist()
    assert lines[-1] == "Which module and database am I on? (after forget)"
    assert not any("(after forget)" in line for line in lines[:-1])


def test_a_value_the_reply_carries_on_past_is_not_the_value_repeated():
    """Lesson 03's re-walk: after ``priority=P0 please`` was stored and a refused line held ``priority=P0``, the
    desk's reply "priority=P0 please" was marked as repeating ``priority=P0``, which the store "does not hold",
    while the table beside it showed ``priority | P0 please``. A value ends where the reply's declaration ends."""
    from agent_framework import Message

    from course_lib.memory import FactCandidate, WorkingMemory

    memory = WorkingMemory()
    turn = memory.begin_turn("priority=P0 please")
    memory.apply(turn, [FactCandidate(key="priority", value="P0 please", evidence="priority=P0 please")])
    history = [Message(role="user", contents=["module=Billing; priority=P0"])]
    for reply in (
        "From what I can see: priority=P0 please.",
        "From what I can see: priority=P0 please; module=Billing.",
        "priority=P0 and more",
    ):
        assert "priority=P0" not in repeated_not_held(reply, history, memory.facts), reply
    for reply in ("priority=P0", "priority=P0.", "priority=P0; module=X", "(priority=P0)", "priority=P0, then"):
        assert repeated_not_held(reply, history, memory.facts)[-1] == "priority=P0", reply
