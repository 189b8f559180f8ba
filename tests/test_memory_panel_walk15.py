"""Lesson 02's memory panel, fifteenth walk (issue 32): a forget keeps why the message still in the Message box was
not stored; Forget all says what running the panel's cell again gives back, and it is true; the note on what the box
holds speaks of refused parts only when a part was refused, and says what a part marked "Not read" is (both panels).
"""

from __future__ import annotations

import pytest
from support.panels import forget, memory_panel, said, submit, two_desks
from test_student_path import lesson

from course_lib import capstone_panel
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.memory import WorkingMemory
from course_lib.policies import load_timeline
from course_lib.widgets import (
    NEW_PANEL_NOTE,
    NOT_READ_LABEL,
    NOT_STORED_IN_BOX,
    REFUSED_LABEL,
    STILL_IN_BOX,
    MemoryPanel,
    box_note,
    refused_lines,
    refused_parts,
)

LESSON = "02_correct_then_forget"

# region 1. A forget says the message still in the Message box was not stored (walk 24: not its old error)


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("colour=red", "Why: 'colour' is not an allowed key"),
        ("Module=Billing", "(keys are case-sensitive): write 'module'"),
        ("priority:P1", "Why:"),
        ("module=", "has no value"),
        # walk 16: a message that declares nothing ('hello there') and a command ('forget module') are not said
        # again after a forget (tests/test_memory_panel_walk16.py): they explain no refused declaration
    ],
)
@pytest.mark.parametrize("which", ["key", "all"])
async def test_a_forget_says_the_message_still_in_the_box_was_not_stored(typed: str, why: str, which: str) -> None:
    p = memory_panel()
    await submit(p, "module=Payroll")
    await submit(p, typed)
    report = said(p)
    assert why in report and p.message.value == typed
    await forget(p, which)
    assert said(p).startswith("Forgot ")
    # walk 24: the forget changed the store, so Submit's lines (which answered the store before it) are not said
    # again; one line says the message in the box was not stored (tests/test_memory_panel_walk24.py)
    assert report not in said(p) and NOT_STORED_IN_BOX in said(p)


@pytest.mark.parametrize("which", ["key", "all"])
async def test_nothing_is_said_again_once_the_box_holds_something_else(which: str) -> None:
    p = memory_panel()
    await submit(p, "module=Payroll")
    await submit(p, "colour=red")
    p.message.value = "colour=blue"  # the student is correcting it: Submit's lines were about another text
    await forget(p, which)
    assert STILL_IN_BOX not in said(p) and "colour" not in said(p)


async def test_a_stored_message_leaves_nothing_to_say_again() -> None:
    p = memory_panel()
    await submit(p, "module=Payroll; colour=red")  # stored: the box is emptied, the refused part went with it
    await forget(p, "key")
    assert STILL_IN_BOX not in said(p) and p.message.value == ""


def test_both_panels_label_the_repeated_lines_the_same_way() -> None:
    assert capstone_panel.STILL_IN_BOX == STILL_IN_BOX


# region 2. Forget all says what running the panel's cell again gives, and that is what the cell gives


def _panel_cell() -> str:
    cells = lesson(LESSON).cells
    return next(c.source for c in cells if c.cell_type == "code" and "panel = MemoryPanel(" in c.source)


async def test_forget_all_says_what_running_the_panel_s_cell_again_gives_and_it_is_true() -> None:
    cell = _panel_cell()
    scope: dict[str, object] = {"make_extraction": make_extraction}
    exec(cell.rsplit("\n", 1)[0], scope)  # the cell's code, its last line (the panel, displayed) left out
    p = scope["panel"]
    assert isinstance(p, MemoryPanel)
    await submit(p, "module=Payroll; database=Oracle")
    assert p.memory.facts
    p.forget_all_button.click()
    await p.idle()
    assert said(p).splitlines() == ["Forgot every fact: the store is empty.", NEW_PANEL_NOTE]
    exec(cell.rsplit("\n", 1)[0], scope)  # running the cell again
    again = scope["panel"]
    assert isinstance(again, MemoryPanel) and again is not p
    assert again.memory.facts == () and again.memory.turn == 0  # an empty store, as the note says: nothing came back
    assert "comes back only if you submit it again" in NEW_PANEL_NOTE  # walk 25: the lesson says the cell starts empty


async def test_forget_key_does_not_send_the_student_to_rerun_the_cell() -> None:
    p = memory_panel()
    await submit(p, "module=Payroll; database=Oracle")
    await forget(p, "key")
    assert said(p) == "Forgot module: it is gone from the store."


async def test_a_panel_on_a_store_it_did_not_start_promises_nothing_of_its_cell() -> None:
    store = WorkingMemory()
    extraction = make_extraction(store)
    await extraction.update("module=Payroll")
    p = MemoryPanel(extraction)  # a store already in use: running such a cell again need not give an empty one
    p.forget_all_button.click()
    await p.idle()
    assert said(p) == "Forgot every fact: the store is empty."


async def test_the_desk_panel_s_store_promises_nothing_of_its_cell() -> None:
    desks = two_desks()
    p = desks.memory_panel
    await submit(p, "module=Payroll")
    p.forget_all_button.click()
    await desks.idle()
    assert NEW_PANEL_NOTE not in said(p)


def test_section_7_says_a_forget_is_not_undone_by_running_the_cell_again() -> None:
    cells = lesson(LESSON).cells
    section = next(c.source for c in cells if c.cell_type == "markdown" and c.source.startswith("## 7."))
    flat = " ".join(section.split())
    assert "A forget cannot be undone: running the panel's cell again gives a new panel on an empty store" in flat


# region 3. The box note: refused parts only when one was refused; a part not read is named as what it is

NOT_READ_ONLY = [
    "module=Payroll; module=X",
    "module=A\nmodule=B\nmodule=C",
    "database=Oracle; module=A; module=B",
    "module=Payroll; module=Payroll",  # the same value twice: the first is not read either
]
REFUSED_ONLY = ["module=Payroll; colour=red", "module=Payroll; Module=X", "database=Oracle; module="]
BOTH = ["module=Payroll; module=X; colour=red", "Module=Y; module=A; module=B"]


def _box(lines: list[str]) -> str:
    return lines[-1]


async def _lines(panel: MemoryPanel, message: str) -> list[str]:
    await submit(panel, message)
    return said(panel).splitlines()


@pytest.mark.parametrize("message", NOT_READ_ONLY)
async def test_a_part_not_read_is_not_called_refused_nor_sent_back_to_correct(message: str) -> None:
    lines = await _lines(memory_panel(), message)
    assert any(line.startswith(NOT_READ_LABEL) for line in lines)
    assert not any(line.startswith(REFUSED_LABEL) for line in lines)
    box = _box(lines)
    assert box.startswith("The Message box is empty again: the message was stored.")
    assert "refused" not in box.lower() and "corrected" not in box
    # walk 21: every part that gives no fact is "Not read", so the note names this kind by what happened to it
    assert "declared again later" in box and "only the last" in box and "nothing to correct" in box


@pytest.mark.parametrize("message", REFUSED_ONLY)
async def test_a_refused_part_is_sent_back_to_correct_and_no_part_not_read_is_spoken_of(message: str) -> None:
    lines = await _lines(memory_panel(), message)
    # walk 21: a part that declares nothing is "Not read (declares nothing)", never "Refused"
    assert any(line.startswith(NOT_READ_LABEL) and "(declares nothing)" in line for line in lines)
    assert not any(line.startswith(REFUSED_LABEL) for line in lines)
    box = _box(lines)
    assert (
        "A part that declares nothing is not kept there: to store it, type it again, corrected, and press Submit."
        in box
    )
    assert "declared again later" not in box


@pytest.mark.parametrize("message", BOTH)
async def test_a_message_with_both_kinds_says_both(message: str) -> None:
    lines = await _lines(memory_panel(), message)
    box = _box(lines)
    assert "A part that declares nothing is not kept there" in box and "declared again later" in box


@pytest.mark.parametrize("message", NOT_READ_ONLY + REFUSED_ONLY + BOTH + ["module=Payroll"])
async def test_lesson_07_s_panel_says_the_same_of_the_box(message: str) -> None:
    mine = _box(await _lines(memory_panel(), message))
    capstone = await CapstonePanel.from_timeline(load_timeline())
    assert _box(await _lines(capstone, message)) == mine


def test_the_box_note_is_the_rule_not_the_input() -> None:
    class Stored:
        status = "accepted"

    skipped = [("module=A", "module is declared twice in this message (A, then B): only the last, module=B, is read.")]
    wrong = [("colour=red", "'colour' is not an allowed key.")]
    plain = box_note(Stored(), "module=B", "", refused=[])  # type: ignore[arg-type]
    assert plain == "The Message box is empty again: the message was stored."
    assert "refused" not in box_note(Stored(), "x", "", refused=skipped)  # type: ignore[arg-type]
    assert "declares nothing" not in box_note(Stored(), "x", "", refused=skipped)  # type: ignore[arg-type]
    assert "declared again later" not in box_note(Stored(), "x", "", refused=wrong)  # type: ignore[arg-type]


def test_every_way_a_later_declaration_replaces_a_part_is_labelled_not_read() -> None:
    for message in ("module=A; module=B", "module=A; module=A"):
        (line,) = refused_lines(refused_parts(message))
        assert line.startswith(f"{NOT_READ_LABEL} 'module=A'. Why: ") and "only the last" in line
