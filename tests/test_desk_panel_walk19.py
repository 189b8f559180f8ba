"""Lesson 03's desk panel, nineteenth walk (issue 32): the status under the box says only what the last action did,
and ``forget`` typed in the chat and the Forget all button follow one rule and say it in the same words."""

import html
import re

from support.panels import send, two_desks

from course_lib.providers import forget_said
from course_lib.widgets import FORGET_DISABLED_NOTE


def _text(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value.replace("<br>", "\n")))


def _enter(panel) -> None:
    panel.line._handle_custom_msg({"event": "submit"}, [])  # Enter in the box


# 1. a new status replaces the old one


async def test_enter_on_an_empty_box_replaces_the_refusal_under_the_box():
    panel = two_desks()
    await send(panel, "forget nosuchkey")
    assert "Refused" in panel.error.value
    chat = panel.chat.value
    panel.line.value = ""
    _enter(panel)
    await panel.idle()
    assert panel.error.value == ""  # the refusal was the last line's, not this Enter's
    assert "The box is empty" in panel.send_note.value
    assert panel.chat.value == chat  # the chat still says why forget nosuchkey was refused


async def test_emptying_the_box_takes_the_refusal_of_its_line_away():
    panel = two_desks()
    await send(panel, "forget nosuchkey")
    assert "Refused" in panel.error.value and panel.line.value == "forget nosuchkey"  # kept, to be corrected
    panel.line.value = "forget nosuchke"  # still being corrected: the refusal is still about this line
    assert "Refused" in panel.error.value
    panel.line.value = ""
    assert panel.error.value == ""
    assert "Send stays off" in panel.send_note.value


async def test_enter_on_an_empty_box_after_a_turn_keeps_the_turns_verdict():
    panel = two_desks()
    await send(panel, "module=Billing")
    verdict = panel.memory_panel.diagnostic.value
    assert "Stored" in _text(verdict)
    _enter(panel)  # a queued second Enter of the line just sent: the box is empty now
    await panel.idle()
    assert panel.memory_panel.diagnostic.value == verdict and panel.error.value == ""


# 2. the typed forget and the Forget all button: one rule


def test_forget_on_an_empty_store_says_the_store_held_none_and_why_the_sessions_still_go():
    said = forget_said(None, 0)
    assert "the store held no facts (0 removed)" in said
    assert "every session was still replaced by a new, empty one" in said
    assert forget_said(None, 2) == "Forgot all facts (2 removed); every session was replaced by a new, empty one."


async def test_typed_forget_and_forget_all_agree_on_an_empty_store():
    typed, clicked = two_desks(), two_desks()
    for panel in (typed, clicked):
        await send(panel, "module=Billing")
        await send(panel, "forget")
        assert panel.desks.memory.facts == ()
    button = clicked.memory_panel.forget_all_button
    # the button does what the typed command does, so it is on, and nothing beside it says "nothing to forget"
    assert not button.disabled and button.button_style == "warning"
    assert FORGET_DISABLED_NOTE not in clicked.memory_panel.forget_note.value
    assert "Forget all still" in _text(clicked.memory_panel.forget_note.value)
    epochs = {id(p): p.desks.memory.epoch for p in (typed, clicked)}
    sessions = {id(p): dict(p.desks.sessions) for p in (typed, clicked)}
    await send(typed, "forget")
    button.click()
    await clicked.idle()
    typed_said, clicked_said = _text(typed.transcript[-1]), _text(clicked.transcript[-1])
    assert typed_said == clicked_said  # the chat says the click as it says the typed line
    assert forget_said(None, 0) in typed_said
    assert forget_said(None, 0) in _text(clicked.memory_panel.diagnostic.value)  # and so does the store's side
    for panel in (typed, clicked):
        assert panel.desks.memory.epoch == epochs[id(panel)] + 1
        assert all(panel.desks.sessions[name] is not old for name, old in sessions[id(panel)].items())


async def test_forget_all_and_forget_key_on_the_desk_panel_say_the_consoles_words():
    panel = two_desks()
    await send(panel, "module=Billing; database=PostgreSQL")
    panel.memory_panel.key.value = "module"
    panel.memory_panel.forget_key_button.click()
    await panel.idle()
    assert forget_said("module", 1) in _text(panel.memory_panel.diagnostic.value)
    assert forget_said("module", 1) in _text(panel.transcript[-1])
    panel.memory_panel.forget_all_button.click()
    await panel.idle()
    assert forget_said(None, 1) in _text(panel.memory_panel.diagnostic.value)
