"""Lesson 02's memory panel, walk 24 (issue 32), second round.

6. The ticket's caption says where tickets are taught: "(lesson 01)".
7. A Forget that changes the store no longer repeats the last Submit's error (it answered the store before the
   forget); as on lesson 07's panel, it says in one line that the message still in the box was not stored. A forget
   that changes nothing (no key chosen) leaves the store as the error answered it, so the error is still said.
"""

from __future__ import annotations

import pytest
from support.panels import forget, memory_panel, said, submit

from course_lib.widgets import NOT_STORED_IN_BOX, STILL_IN_BOX, TICKET_NOTE

# region 6. the ticket's caption names the lesson that teaches tickets


def test_the_ticket_caption_names_lesson_01() -> None:
    assert TICKET_NOTE.endswith("(lesson 01).")
    assert TICKET_NOTE in memory_panel().ticket_note.value


# region 7. a forget that changes the store clears the old Submit error


@pytest.mark.parametrize("which", ["key", "all"])
@pytest.mark.parametrize("typed", ["colour=red", "Module=Billing", "priority:P1", "module="])
async def test_a_forget_that_changes_the_store_clears_the_old_submit_error(typed: str, which: str) -> None:
    p = memory_panel()
    await submit(p, "module=Payroll")
    await submit(p, typed)
    error = said(p)
    await forget(p, which)
    now = said(p)
    assert now.startswith("Forgot ")
    assert STILL_IN_BOX not in now and error.splitlines()[0] not in now, now
    assert NOT_STORED_IN_BOX in now and p.message.value == typed


async def test_the_line_is_said_once_and_only_while_the_box_holds_that_message() -> None:
    p = memory_panel()
    await submit(p, "module=Payroll")
    await submit(p, "colour=red")
    p.message.value = "colour=blue"  # the student is already correcting it
    await forget(p, "key")
    assert NOT_STORED_IN_BOX not in said(p) and "colour" not in said(p)


async def test_a_forget_that_changes_nothing_still_says_the_error() -> None:
    p = memory_panel()
    await submit(p, "module=Payroll")
    await submit(p, "colour=red")
    error = said(p)
    p.forget_key_button.disabled = False  # a click that arrives with no key chosen
    p.forget_key(None)
    assert said(p).endswith(f"\n{STILL_IN_BOX}\n{error}")  # the store is as the error answered it
    assert NOT_STORED_IN_BOX not in said(p)
