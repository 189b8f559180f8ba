"""Lesson 07, walk 21 (issue 32): section 7 says why the constraint went at turn 6; section 8's panel quotes the
value between HTML tags, its Message box is as wide as its Answer box, and a message that stores nothing says it
still counts as a turn."""

from __future__ import annotations

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store
from support.lesson_cells import cell_outputs, cell_source

from course_lib.capstone import capstone_policy, run_capstone
from course_lib.capstone_panel import CapstonePanel, how_it_differs, violation_rows
from course_lib.extraction import make_extraction
from course_lib.policies import generate_timeline

SECTION_7 = "ef3b5c5e"  # "## 8. A generated timeline" (section 7 before walk 23)
SECTION_7_TABLE = "099389f2"


def _panel() -> CapstonePanel:
    return CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)


async def _submit(panel: CapstonePanel, text: str) -> None:
    panel.message.value = text
    panel.submit_button.click()
    await panel.idle()


# --- finding 4: section 7 says why its why column names the constraint at turn 6 ---


async def test_section_7_says_what_turn_6_pushed_out_as_its_table_prints():
    run = await run_capstone(generate_timeline(12), capstone_policy("facts", max_facts=5), "earliest", max_facts=5)
    rows = {row["key"]: row for row in run.eviction_rows()}
    assert rows["constraint"]["evicted at turn"] == rows["product"]["evicted at turn"] == 6
    pushed = rows["constraint"]["pushed out by"]
    assert "log had pushed it out at turn 4" in pushed and "priority had pushed it out at turn 5" in pushed
    assert (rows["database"]["evicted at turn"], rows["module"]["evicted at turn"]) == (10, 11)
    assert "evicted: constraint at turn 6, database at turn 10, module at turn 11" in cell_outputs(
        "07", SECTION_7_TABLE
    )
    said = " ".join(cell_source("07", SECTION_7).split())
    assert "turns 4 and 5 push out `database` and then `module`" in said
    assert "they push out `product` and the constraint" in said
    assert "at turns 10 and 11" in said


# --- finding 3: the panel quotes the value between tags ---


async def test_the_panel_reads_a_value_between_html_tags():
    p = _panel()
    await _submit(p, "module=Payroll")
    p.task.index = 1  # a question: only rule 1
    p.answer.value = "<b>module=Billing</b>"
    result = await p.check()
    (row,) = violation_rows(result)
    assert row["your answer says"] == "Billing" and "a correction replaced it" in row["why"]
    assert "</b" not in row["why"] and "never held" not in row["why"]
    p.answer.value = "<b>module=Payroll</b>"
    assert not (await p.check()).violations


# --- finding 2: the Message box is as wide as the Answer box ---


def test_the_message_box_is_as_wide_as_the_answer_box():
    p = _panel()
    assert p.message.layout.width == p.answer.layout.width == "95%"
    assert p.message.layout.max_width in (None, "", "100%")
    assert p.message.style.description_width == p.answer.style.description_width


# --- finding 1: a message that stores nothing still counts as a turn, said on its one line ---


@pytest.mark.parametrize("text", ["hello there", "modul=Payroll", "module=", "Which module?"])
async def test_a_message_that_stores_nothing_says_it_still_counts_as_a_turn(text):
    p = _panel()
    turn = p.memory.turn
    await _submit(p, text)
    assert p.memory.turn == turn + 1
    status = p.diagnostic.value.split("</b>")[0]
    assert f"(a message that stores nothing still counts as a turn: this one was turn {turn + 1})" in status
    assert status.count("<br>") == 0


async def test_a_stored_message_says_nothing_of_the_turn_it_counts_as():
    p = _panel()
    await _submit(p, "module=Payroll")
    assert "still counts as a turn" not in p.diagnostic.value


# --- the same rule on a sibling path: a value stored between tags is the same value, and the note says why ---


@pytest.mark.parametrize(
    ("one", "other", "want"),
    [
        ("Billing", "<b>Billing</b>", "its HTML tags"),
        ("Payroll", "<i>payroll</i>", "its capitals and its HTML tags"),
        ("Payroll", "**Payroll**", "its quotes or Markdown marks"),
    ],
)
def test_how_a_value_differs_names_its_html_tags(one, other, want):
    assert how_it_differs(one, other) == want


async def test_a_value_stored_between_tags_is_said_to_differ_only_by_its_tags():
    p = _panel()
    await _submit(p, "module=<b>Billing</b>")
    assert "only its HTML tags changed" in p.diagnostic.value, p.diagnostic.value
