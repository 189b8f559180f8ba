"""Lesson 02's memory panel, fifteenth walk (issue 32): a forget keeps why the message still in the Message box was
not stored; Forget all says what running the panel's cell again gives back, and it is true; the note on what the box
holds speaks of refused parts only when a part was refused, and says what a part marked "Not read" is (both panels).
"""

from __future__ import annotations

import pytest
from support.panels import memory_panel, said, submit

from course_lib.capstone_panel import CapstonePanel
from course_lib.policies import load_timeline
from course_lib.widgets import (
    NOT_READ_LABEL,
    REFUSED_LABEL,
    MemoryPanel,
    box_note,
    refused_lines,
    refused_parts,
)

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
    assert "Not read" in box and "only the last" in box and "nothing to correct" in box


@pytest.mark.parametrize("message", REFUSED_ONLY)
async def test_a_refused_part_is_sent_back_to_correct_and_no_part_not_read_is_spoken_of(message: str) -> None:
    lines = await _lines(memory_panel(), message)
    assert any(line.startswith(REFUSED_LABEL) for line in lines)
    box = _box(lines)
    assert "A refused part is not kept there: type it again, corrected, and press Submit." in box
    assert "Not read" not in box


@pytest.mark.parametrize("message", BOTH)
async def test_a_message_with_both_kinds_says_both(message: str) -> None:
    lines = await _lines(memory_panel(), message)
    box = _box(lines)
    assert "A refused part is not kept there" in box and "Not read" in box


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
    assert "Not read" not in box_note(Stored(), "x", "", refused=wrong)  # type: ignore[arg-type]


def test_every_way_a_later_declaration_replaces_a_part_is_labelled_not_read() -> None:
    for message in ("module=A; module=B", "module=A; module=A"):
        (line,) = refused_lines(refused_parts(message))
        assert line.startswith(f"{NOT_READ_LABEL} 'module=A'. Why: ") and "only the last" in line
