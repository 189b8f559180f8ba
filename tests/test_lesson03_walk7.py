"""Lesson 03's desk panel as a newcomer met it on the seventh walk (issue 32): a refused command stays in the chat
with its reason, and the store's Message box says how it differs from the chat's You box."""

import re

from course_lib.widgets import DESK_SUBMIT_DISABLED_NOTE
from tests.support.panels import send, submit, two_desks


def words(html: str) -> str:
    return re.sub("<[^>]+>", "", html)


async def test_a_refused_command_stays_in_the_chat_with_its_reason():
    panel = two_desks()
    await send(panel, "forget color")
    said = words(panel.transcript[-1])
    assert "you: forget color" in said
    assert (
        "[refused] Cannot forget 'color': it is not one of the allowed keys" in said and "Nothing was forgotten" in said
    )
    assert "Refused:" in panel.error.value  # pointed to under the box too, and the line stays there to correct
    assert panel.line.value == "forget color"
    await send(panel, "module=Billing")  # the next line clears the status under the box, never the chat
    assert panel.error.value == ""
    assert any("Cannot forget 'color'" in words(line) for line in panel.transcript)
    assert [f.key for f in panel.desks.memory.facts] == ["module"]


async def test_a_refused_over_long_line_is_recorded_shortened():
    panel = two_desks()
    await send(panel, "module=" + "x" * 5000)
    said = words(panel.transcript[-1])
    # one length, the whole line's, in the echo and in the refusal (walk 17)
    assert "(5007 characters)" in said and "Message refused: it has 5007 characters" in said and "[refused]" not in said
    assert "(5000 characters)" not in said
    assert "x" * 41 not in panel.chat.value and panel.events == [] and panel.desks.memory.turn == 0


async def test_the_message_box_says_it_takes_messages_but_no_command():
    assert "as Send does" in DESK_SUBMIT_DISABLED_NOTE  # walk 21: the caption is one line, Submit's note says it
    panel = two_desks()
    await submit(panel.memory_panel, "module=Billing")  # a message: the desk replies in the chat
    assert "[triage]" in panel.transcript[-1]
    await submit(panel.memory_panel, "mem")  # a command: nothing is sent
    assert len(panel.transcript) == 1 and "is a command, not a message" in panel.memory_panel.diagnostic.value
