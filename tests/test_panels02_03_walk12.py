"""Issue 32, walk 12 of lessons 02 and 03 (polish): a value stored with a leading '=' is named on every memory panel,
and the desk chat shows the course's own bounded replies (mem, a desk's refusal) whole, shortening only what the
student typed."""

from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import last_in_chat, memory_panel, said, send, submit, two_desks

from course_lib.capstone_panel import CapstonePanel
from course_lib.exercises import exercise
from course_lib.extraction import make_extraction
from course_lib.memory import WorkingMemory
from course_lib.widgets import ECHOED_CHARS, double_equals_notes

EQUALS_NOTE = "module is stored as \"=X\": did you mean one '='?"


async def test_a_value_stored_with_a_leading_equals_sign_is_named_on_the_memory_panel():
    """Walk 12: `module==X` stored "=X" with only "Stored: module."."""
    panel = memory_panel()
    await submit(panel, "module==X")
    assert "Stored: module." in said(panel) and EQUALS_NOTE in said(panel)
    await submit(panel, "module=X")  # one '=': no note
    assert "did you mean one '='" not in said(panel)


async def test_the_note_is_said_for_every_key_and_on_every_panel_that_extends_the_memory_panel():
    panel = memory_panel()
    await submit(panel, "database===Oracle; module=Billing")
    assert "database is stored as \"==Oracle\": did you mean one '='?" in said(panel)
    assert "module is stored" not in said(panel)
    desks = two_desks()
    await send(desks, "module==X")
    assert EQUALS_NOTE in said(desks.memory_panel)
    capstone = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    await submit(capstone, "module==X")
    assert EQUALS_NOTE in said(capstone)


async def test_the_note_names_only_what_this_turn_stored():
    memory = WorkingMemory()
    extraction = make_extraction(memory)
    first = await extraction.update("module==X")
    assert len(double_equals_notes(first)) == 1
    later = await extraction.update("database=Oracle")
    assert double_equals_notes(later) == []  # module's '=X' is from turn 1: the note was said then
    refused = await extraction.update("what is module=?")
    assert double_equals_notes(refused) == []


async def test_mem_is_shown_whole_in_the_chat():
    """Walk 12: mem's block was cut at 200 characters, in the middle of its first fact; the module fact never showed."""
    panel = two_desks()
    await send(panel, "database=SQL Server 2022; module=Billing; product=Contoso; priority=P1; customer=Fabrikam")
    await send(panel, "mem")
    shown = last_in_chat(panel)
    for key in ("database", "module", "product", "priority", "customer"):
        assert f"- {key} = " in shown
    assert "characters)" not in shown and len(shown) > ECHOED_CHARS


async def test_a_desks_refusal_is_shown_whole_in_the_chat():
    """Walk 12: the reply to `color=red; database=` was cut inside its list of allowed keys."""
    panel = two_desks()
    await send(panel, "color=red; database=")
    reply = last_in_chat(panel).splitlines()[1]
    assert reply.startswith("[triage] ") and "characters)" not in reply
    assert reply.endswith("version, environment, symptom, log).")


async def test_what_the_student_typed_is_still_shortened_where_a_reply_repeats_it():
    panel = two_desks()
    declared = "symptom=" + " ".join(["slow"] * 100)  # words: no unbroken run to shorten
    await send(panel, declared)
    reply = last_in_chat(panel).splitlines()[1]
    assert reply.startswith("[triage] Noted what you declared: symptom=slow slow")
    assert f"({len(declared)} characters)" in reply and len(reply) < ECHOED_CHARS + 100
    question = "Where are the logs for " + " ".join(["Billing"] * 100) + "?"
    await send(panel, question)
    reply = last_in_chat(panel).splitlines()[1]
    assert "characters)" in reply and len(reply) < ECHOED_CHARS + 150


def test_lesson_03_exercise_1s_hint_asks_and_points_to_the_rule_without_stating_it():
    """Walk 12: the hint said where a value runs and that a key=value inside it is part of it: nearly the answer."""
    hint = exercise("03", "Exercise 1").hint
    assert "Which parts of your message are declarations of their own" in hint and "section 7's value rule" in hint
    assert "is priority=P0 a declaration" not in hint  # it assumed the count was too high (the fourth walks)
    assert "part of that value" not in hint and "count the declarations" not in hint
