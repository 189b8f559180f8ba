"""Lesson 03's desk panel, twenty-first walk (issue 32): every "Why:" line follows the order of the parts in the
message (a key declared twice, a part with no key or no '=' included), on every panel that prints them."""

import html
import re

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import memory_panel, said, send, submit, two_desks

from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.widgets import (
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
    assert [line.split(":", 1)[0] for line in lines] == ["Not read", "Refused"]
    assert "'module=A'" in lines[0] and "'color=red'" in lines[1]
