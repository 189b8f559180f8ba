"""Lesson 03's desk panel, twenty-first walk (issue 32): every "Why:" line follows the order of the parts in the
message (a key declared twice, a part with no key or no '=' included), on every panel that prints them, and each
note around the panel is one short line."""

import html
import re

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import memory_panel, said, send, submit, two_desks

from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.widgets import (
    DESK_CHAT_CAPTION,
    DESK_FORGET_NOTE,
    DESK_MEMORY_CAPTION,
    DESK_SUBMIT_DISABLED_NOTE,
    EMPTY_LINE_NOTE,
    MESSAGE_BOX_NOTE,
    SEND_DISABLED_NOTE,
    SUBMIT_DISABLED_NOTE,
    TICKET_NOTE,
    WHY_LABEL,
    declaration_notes,
)

# (message, a word that opens each part's reason, in the order of the parts)
ORDERED = [
    ("module=A; color=red; module=B", ["module is declared twice", "'color'"]),
    ("database=; color=red", ["'database='", "'color'"]),
    ("=Payroll; color=red", ["'=Payroll' has no key", "'color'"]),
    ("module Payroll; color=red", ["'module Payroll' has no '='", "'color'"]),
    ("color=red; =Payroll; module Billing", ["'color'", "'=Payroll'", "'module Billing'"]),
    ("module=A; database=; module=B", ["module is declared twice", "'database='"]),
    ("priority=P1; =X; priority=P2; shade=blue", ["priority is declared twice", "'=X'", "'shade'"]),
]


def _openings(notes: list[str], expected: list[str]) -> list[str]:
    """Which expected opening each note starts with, in the notes' order."""
    return [next((e for e in expected if note.startswith(e)), note) for note in notes]


@pytest.mark.parametrize(("message", "expected"), ORDERED)
def test_the_reasons_follow_the_order_of_the_parts(message, expected):
    assert _openings(declaration_notes(message), expected) == expected


def _why_lines(text: str) -> list[str]:
    return [line.removeprefix(f"{WHY_LABEL} ") for line in text.splitlines() if line.startswith(WHY_LABEL)]


def _chat(panel) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", panel.transcript[-1].replace("<br>", "\n")))


@pytest.mark.parametrize(("message", "expected"), ORDERED)
async def test_the_desk_chat_says_why_in_the_order_of_the_message(message, expected):
    panel = two_desks()
    await send(panel, message)
    chat = _why_lines(_chat(panel))
    # a reason the [memory] line already gives is not said again; the rest keep the message's order
    assert chat and _openings(chat, expected) == [e for e in expected if any(n.startswith(e) for n in chat)]


@pytest.mark.parametrize("message", ["database=; color=red", "=Payroll; color=red", "module Payroll; color=red"])
async def test_the_memory_panels_say_why_in_the_order_of_the_message(message):
    expected = dict(ORDERED)[message]
    lesson_02 = memory_panel()
    await submit(lesson_02, message)
    desks = two_desks()
    await submit(desks.memory_panel, message)
    lesson_07 = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    await submit(lesson_07, message)
    for panel in (lesson_02, desks.memory_panel, lesson_07):
        assert _openings(_why_lines(said(panel)), expected) == expected


async def test_a_stored_message_lists_its_skipped_parts_in_order():
    panel = two_desks()
    await send(panel, "module=A; color=red; module=B")
    lines = [line for line in said(panel.memory_panel).splitlines() if line.startswith(("Refused:", "Not read:"))]
    # walk 21 (tests/test_panels_walk21.py): a part that declares nothing is "Not read" too, marked so
    assert [line.split(":", 1)[0] for line in lines] == ["Not read", "Not read"]
    assert "'module=A'" in lines[0] and "'color=red' (declares nothing)" in lines[1]


# finding 1: each note around the panel is one short line
SHORT = 90  # characters: a note a student reads at a glance, one short line
NOTES = [
    TICKET_NOTE,
    SUBMIT_DISABLED_NOTE,
    DESK_SUBMIT_DISABLED_NOTE,
    MESSAGE_BOX_NOTE,
    SEND_DISABLED_NOTE,
    DESK_FORGET_NOTE,
    EMPTY_LINE_NOTE,
    re.sub(r"<[^>]+>", "", DESK_CHAT_CAPTION),
    re.sub(r"<[^>]+>", "", DESK_MEMORY_CAPTION),
]


@pytest.mark.parametrize("note", NOTES)
def test_each_note_around_the_panel_is_one_short_sentence(note):
    assert len(note) <= SHORT, note
    assert note.count(". ") == 0 and note.endswith((".", ")")), note


def test_the_ticket_note_still_says_what_the_ticket_refuses():
    assert "Forget" in TICKET_NOTE and "newer message" in TICKET_NOTE and "refused" in TICKET_NOTE
    assert "as Send does" in DESK_SUBMIT_DISABLED_NOTE and "while the Message box is empty" in SUBMIT_DISABLED_NOTE


async def test_the_desk_panel_shows_the_short_notes():
    panel = two_desks()
    store = panel.memory_panel
    assert TICKET_NOTE in store.ticket_note.value and store.ticket.tooltip == TICKET_NOTE
    assert DESK_SUBMIT_DISABLED_NOTE in store.submit_note.value
    assert DESK_FORGET_NOTE in store.forget_note.value
    assert store.caption.value == DESK_MEMORY_CAPTION
    await submit(store, "module=Billing")  # the table's own header names its columns, so the caption need not
    for column in ("key", "value", "evidence", "turn", "recorded (UTC)"):
        assert f">{column}</th>" in store.table.value
