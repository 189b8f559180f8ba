"""Lesson 03's desk panel, walk 24 (issue 32): its forget follows the memory panel's rule.

A forget that changes the store (Forget key, Forget all, or ``forget KEY`` typed in the chat's box) no longer
repeats what the last Submit said: that answered the store before the forget. If the message Submit refused is still
in the Message box, one line says it was not stored (:data:`NOT_STORED_IN_BOX`, the words of lessons 02 and 07).
A forget that changes nothing (a key the store does not hold) leaves the store as Submit's lines answered it, so they
are said again. The sentence is defined once, beside :data:`STILL_IN_BOX`, and lesson 07's panel imports it.
"""

from __future__ import annotations

import pytest
from support.panels import forget, said, send, submit, two_desks

from course_lib import capstone_panel
from course_lib.widgets import NOT_STORED_IN_BOX, STILL_IN_BOX, DeskPanel

REFUSED = "colour=red"


async def refused_in_box(how: str) -> tuple[DeskPanel, str]:
    """A desk panel holding module=Payroll whose last message, sent by ``how``, was refused; the Message box holds
    that message again (the desk panel empties it after a turn: the student typed it back to correct it)."""
    p = two_desks()
    await send(p, "module=Payroll")
    if how == "submit":
        await submit(p.memory_panel, REFUSED)
    else:
        await send(p, REFUSED)
    error = said(p.memory_panel)
    assert "'colour' is not an allowed key" in error
    p.memory_panel.message.value = REFUSED
    return p, error


async def forget_by(p: DeskPanel, which: str, key: str = "module") -> None:
    """Forget ``key`` (or all) as a student does: the Forget buttons, or ``forget KEY`` typed in the chat's box."""
    if which == "typed":
        await send(p, f"forget {key}")
    else:
        await forget(p.memory_panel, which)


@pytest.mark.parametrize("which", ["key", "all", "typed"])
async def test_a_forget_that_changes_the_store_clears_the_old_submit_error(which: str) -> None:
    p, error = await refused_in_box("submit")
    await forget_by(p, which)
    now = said(p.memory_panel)
    assert now.startswith("Forgot ") and not p.memory_panel.memory.facts
    assert STILL_IN_BOX not in now and "colour" not in now, now
    assert now.count(NOT_STORED_IN_BOX) == 1 and now.endswith(NOT_STORED_IN_BOX)
    assert p.memory_panel.message.value == REFUSED
    assert error.splitlines()[-1] not in now


@pytest.mark.parametrize("which", ["key", "all", "typed"])
async def test_after_a_refused_send_the_forget_says_only_what_it_did(which: str) -> None:
    """Send's verdict is not said again after a forget either; the Message box is empty: no line about it."""
    p = two_desks()
    await send(p, "module=Payroll")
    await send(p, REFUSED)
    await forget_by(p, which)
    now = said(p.memory_panel)
    assert now.startswith("Forgot ") and "colour" not in now and NOT_STORED_IN_BOX not in now
    assert p.error.value == ""


@pytest.mark.parametrize("which", ["key", "all", "typed"])
async def test_no_line_once_the_box_holds_something_else(which: str) -> None:
    p, _ = await refused_in_box("submit")
    p.memory_panel.message.value = "colour=blue"  # the student is already correcting it
    await forget_by(p, which)
    now = said(p.memory_panel)
    assert NOT_STORED_IN_BOX not in now and STILL_IN_BOX not in now and "colour" not in now


async def test_a_typed_forget_that_changes_nothing_still_says_the_error() -> None:
    p, error = await refused_in_box("submit")
    await forget_by(p, "typed", key="customer")  # the store holds no customer: it is as the error answered it
    now = said(p.memory_panel)
    assert now.startswith("Forgot 'customer': the store held no customer fact")
    assert now.endswith(f"\n{STILL_IN_BOX}\n{error}") and NOT_STORED_IN_BOX not in now


async def test_forget_all_on_an_empty_store_still_says_the_error() -> None:
    """Forget all stays on over an empty store (it still replaces the sessions): it changes no fact."""
    p = two_desks()
    await submit(p.memory_panel, REFUSED)
    error = said(p.memory_panel)
    p.memory_panel.message.value = REFUSED
    await forget(p.memory_panel, "all")
    now = said(p.memory_panel)
    assert now.startswith("Forgot all facts: the store held no facts")
    assert now.endswith(f"\n{STILL_IN_BOX}\n{error}") and NOT_STORED_IN_BOX not in now


def test_the_sentence_is_defined_once_and_lesson_07_uses_it() -> None:
    assert capstone_panel.NOT_STORED_IN_BOX is NOT_STORED_IN_BOX
    source = capstone_panel.__loader__.get_source(capstone_panel.__name__) or ""  # type: ignore[union-attr]
    assert "NOT_STORED_IN_BOX = " not in source
