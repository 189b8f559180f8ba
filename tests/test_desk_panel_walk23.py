"""Lesson 03's desk panel, walk 23 (issue 32): the ticket's caption is a sentence, and both ways of forgetting (the
``forget KEY`` typed in the chat, the Forget key button) leave the same message on the store's side."""

from __future__ import annotations

import html
import re

from support.panels import send, two_desks

from course_lib.providers import forget_said
from course_lib.widgets import TICKET_NOTE


def _text(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value.replace("<br>", "\n")))


def test_the_ticket_caption_is_a_sentence():
    assert TICKET_NOTE == (
        "A turn's facts are refused by its ticket after a newer message or a Forget (lesson 01)."
    )  # lesson 02's walk 25: one "Ticket:" line in the panel, this note under it
    panel = two_desks()
    assert TICKET_NOTE in panel.memory_panel.ticket_note.value


async def _declared():
    panel = two_desks()
    await send(panel, "module=Billing; database=SQL Server 2022")
    return panel


async def test_forget_key_typed_and_clicked_say_the_same_on_the_store_side():
    typed = await _declared()
    await send(typed, "forget module")
    clicked = await _declared()
    clicked.memory_panel.key.value = "module"
    clicked.memory_panel.forget_key_button.click()
    await clicked.idle()
    said = forget_said("module", 1)
    assert _text(typed.memory_panel.diagnostic.value) == _text(clicked.memory_panel.diagnostic.value) == said
    assert typed.transcript[-1] == clicked.transcript[-1]  # the chat shows both alike too


async def test_forget_all_typed_and_clicked_say_the_same_on_the_store_side():
    typed = await _declared()
    await send(typed, "forget")
    clicked = await _declared()
    clicked.memory_panel.forget_all_button.click()
    await clicked.idle()
    said = forget_said(None, 2)
    assert _text(typed.memory_panel.diagnostic.value) == _text(clicked.memory_panel.diagnostic.value) == said


async def test_the_next_line_takes_the_forget_s_message_away():
    panel = await _declared()
    await send(panel, "forget module")
    await send(panel, "mem")
    assert panel.memory_panel.diagnostic.value == ""  # each action starts with no status shown
