"""The panels' lines on a part that gives no fact, twenty-first walk (issue 32): a part that declares nothing is
"Not read" (it declares nothing), never "Refused", on every panel that prints these lines (lesson 02's memory panel,
lesson 03's desk panel, lesson 07's panel), since the host refuses no batch for it: lesson 02's exercise 1 answers
"accepted" for ``module=Billing; Module=Reporting``.
"""

from __future__ import annotations

import pytest
from support.panels import memory_panel, said, send, submit, two_desks

from course_lib.assertions import parse_assertions
from course_lib.capstone_panel import CapstonePanel
from course_lib.exercises import exercise
from course_lib.policies import load_timeline
from course_lib.widgets import (
    NOT_READ_LABEL,
    REFUSED_LABEL,
    refused_lines,
    refused_parts,
)

DECLARES_NOTHING = "(declares nothing)"

# (a part that declares nothing, stored beside module=Billing): every kind the contract leaves out of a message
NOTHING_DECLARED = [
    "Module=Reporting",  # a key in another case
    "colour=red",  # a key that is not allowed
    "database=",  # no value
    "=Payroll",  # no key
    "module Payroll",  # no '='
    "priority:P1",  # a colon
    "| module | X |",  # a table row
    "**module**=X",  # formatting
]


async def _panel_lines(panel, message: str) -> list[str]:
    await submit(panel, message)
    return said(panel).splitlines()


@pytest.mark.parametrize("part", NOTHING_DECLARED)
def test_the_contract_reads_the_part_as_declaring_nothing_and_the_batch_is_kept(part: str) -> None:
    # the reference: the part adds no declaration, so the careful writer's batch (module only) is accepted
    assert parse_assertions(f"module=Billing; {part}") == {"module": "Billing"}


@pytest.mark.parametrize("part", NOTHING_DECLARED)
async def test_lesson_02_s_panel_says_a_part_that_declares_nothing_is_not_read(part: str) -> None:
    lines = await _panel_lines(memory_panel(), f"module=Billing; {part}")
    assert lines[0] == "Stored: module."
    (line,) = [line for line in lines if f"'{part}'" in line and not line.startswith("The Message box")]
    assert line.startswith(f"{NOT_READ_LABEL} '{part}' {DECLARES_NOTHING}. Why: ")
    assert not any(line.startswith(REFUSED_LABEL) for line in lines)
    assert "refused" not in " ".join(lines).lower()


async def test_the_walk_s_message_is_not_read_with_the_case_rule() -> None:
    lines = await _panel_lines(memory_panel(), "module=Billing; Module=Reporting")
    assert lines[:2] == [
        "Stored: module.",
        "Not read: 'Module=Reporting' (declares nothing). Why: 'Module' is not an allowed key "
        "(keys are case-sensitive): write 'module'.",
    ]


def test_a_key_declared_again_later_keeps_its_own_not_read_line() -> None:
    (line,) = refused_lines(refused_parts("module=A; module=B"))
    assert line.startswith(f"{NOT_READ_LABEL} 'module=A'. Why: ") and DECLARES_NOTHING not in line


def test_each_line_is_one_line_and_the_label_is_the_rule_not_the_input() -> None:
    message = "Module=Y; module=A; colour=red; module=B; =Payroll"
    lines = refused_lines(refused_parts(message))
    assert [line.split("'")[1] for line in lines] == ["Module=Y", "module=A", "colour=red", "=Payroll"]
    assert all("\n" not in line and line.startswith(NOT_READ_LABEL) for line in lines)
    assert [DECLARES_NOTHING in line for line in lines] == [True, False, True, True]


@pytest.mark.parametrize("message", ["module=Billing; Module=Reporting", "module=Billing; colour=red"])
async def test_the_box_note_sends_a_part_that_declares_nothing_back_without_calling_it_refused(message: str) -> None:
    box = (await _panel_lines(memory_panel(), message))[-1]
    assert box.startswith("The Message box is empty again: the message was stored.")
    assert "declares nothing" in box and "corrected" in box and "refused" not in box.lower()


async def test_the_box_note_of_both_kinds_says_each_in_its_own_words() -> None:
    box = (await _panel_lines(memory_panel(), "module=A; colour=red; module=B"))[-1]
    assert "declares nothing" in box and "only the last" in box and "nothing to correct" in box
    assert "refused" not in box.lower()


@pytest.mark.parametrize("message", ["module=Billing; Module=Reporting", "module=A; color=red; =Payroll"])
async def test_lesson_07_s_panel_says_the_same_lines(message: str) -> None:
    mine = await _panel_lines(memory_panel(), message)
    capstone = await CapstonePanel.from_timeline(load_timeline())
    theirs = await _panel_lines(capstone, message)
    assert [line for line in theirs if line.startswith(NOT_READ_LABEL)] == [
        line for line in mine if line.startswith(NOT_READ_LABEL)
    ]
    assert theirs[-1] == mine[-1]
    assert not any(line.startswith(REFUSED_LABEL) for line in theirs)


async def test_lesson_03_s_desk_panel_says_not_read_under_its_box() -> None:
    desks = two_desks()
    await send(desks, "module=Billing; Module=Reporting")
    lines = said(desks.memory_panel).splitlines()
    assert "Not read: 'Module=Reporting' (declares nothing). Why: 'Module' is not an allowed key" in "\n".join(lines)
    assert not any(line.startswith(REFUSED_LABEL) for line in lines)


async def test_a_batch_the_host_really_refuses_is_still_said_not_stored() -> None:
    lines = await _panel_lines(memory_panel(), "module=Billing; symptom=" + "x" * 300)
    assert lines[0].startswith("Not stored: ")
    assert not any(line.startswith(NOT_READ_LABEL) for line in lines)


def test_lesson_02_exercise_1_agrees_with_the_panel() -> None:
    task = exercise("02", "Exercise 1")
    assert "not an allowed key" in task.why and "declares only module=Billing" in task.why
    hint = dict(task.misses)["rejected"]
    assert "only when it differs from what the message declares" in hint
