"""Lesson 07's capstone, twelfth walk (issue 32): every cut of a stated value is marked "…" (and a stored value longer
than the old bound, stated word for word, is read whole); a stored message's refused parts each get a line of their
own, apart from "Stored:"; the result says what the Message box holds; section 4 says which key pushed each lost key
out of the store."""

from __future__ import annotations

import html
import re

import pytest
from support.capstone_battery import store_of
from test_student_path import lesson

from course_lib.answer_reader import CUT_MARK, check_answer, stated_values
from course_lib.capstone import EVICTION_COLUMNS, capstone_policies, compare_repairs
from course_lib.capstone_panel import (
    NOT_READ_LABEL,
    REFUSED_LABEL,
    CapstonePanel,
    box_note,
    refused_parts,
    violation_rows,
)
from course_lib.memory import MAX_VALUE_CHARS
from course_lib.policies import generate_timeline, load_timeline
from course_lib.widgets import CORRECT_IN_BOX_NOTE, declares_nothing_step

LESSON = "07_loop_held_to_the_facts"


def _text(value: str) -> str:
    """A panel's HTML as lines of text."""
    return html.unescape(re.sub(r"<(?!br)[^>]+>", "", value.replace("<br>", "\n")))


# region 1. Every cut of a stated value is marked


@pytest.mark.parametrize("length", [121, 200, MAX_VALUE_CHARS])
def test_a_long_stored_value_stated_word_for_word_is_read_whole_and_passes(length):
    value = ("invoices are duplicated after a retry " * 10)[:length].strip()
    store = store_of(f"symptom={value}")
    assert check_answer(store.facts, f"symptom={value}") == []
    assert check_answer(store.facts, f'The plan: symptom="{value}"; fix the retry.') == []


def test_a_value_in_the_contract_s_form_that_runs_past_the_bound_is_marked_where_it_was_cut():
    store = store_of("database=SQL Server 2022")
    words = " ".join(f"Oracle{i}" for i in range(200))
    (found,) = check_answer(store.facts, f"database={words}")
    assert found.stated is not None and found.stated.endswith(CUT_MARK)
    assert words.startswith(found.stated.removesuffix(CUT_MARK))
    assert CUT_MARK in found.problem  # the feedback quotes it marked
    ((_, read),) = stated_values(f"database={words}")
    assert read.endswith(CUT_MARK)


def test_a_value_ended_by_the_text_is_not_marked():
    store = store_of("database=SQL Server 2022")
    for answer in ("database=Oracle", "database=Oracle on Linux", "database=Oracle, then the fix", "database=Oracle."):
        (found,) = check_answer(store.facts, answer)
        assert found.stated == "Oracle", answer


def test_a_name_in_prose_longer_than_six_words_is_marked_on_the_side_the_rules_stopped():
    store = store_of("database=SQL Server 2022")
    long_name = " ".join(f"Oracle{i}" for i in range(9))
    (after,) = check_answer(store.facts, f"The database is {long_name}.")
    assert after.stated == " ".join(f"Oracle{i}" for i in range(6)) + CUT_MARK
    (before,) = check_answer(store.facts, f"Use {long_name} database.")
    assert before.stated == CUT_MARK + " ".join(f"Oracle{i}" for i in range(3, 9))
    (six,) = check_answer(store.facts, "The database is Oracle0 Oracle1 Oracle2 Oracle3 Oracle4 Oracle5.")
    assert CUT_MARK not in (six.stated or "")


async def _checked(answer: str):
    panel = await CapstonePanel.from_timeline(load_timeline())
    panel.answer.value = answer
    panel.check_button.click()
    await panel.idle()
    assert panel.result is not None
    return panel.result


@pytest.mark.parametrize(
    "answer",
    [
        "database=" + " ".join(f"Oracle{i}" for i in range(200)),
        "The database is " + " ".join(f"Oracle{i}" for i in range(40)) + ".",
        "database=" + " ".join(f"Oracle{i}" for i in range(15)),  # read whole, but too long to quote whole
        "module=" + "X" * 300,
    ],
)
async def test_the_panel_quotes_a_long_stated_value_cut_and_marked_the_same_way_in_both_columns(answer):
    result = await _checked(answer)
    (row,) = [r for r in violation_rows(result) if r["key"] in ("module", "database")]
    said = row["your answer says"]
    assert CUT_MARK in said
    assert len(said) < 80
    assert f'"{said}"' in row["why"]


async def test_a_short_stated_value_is_quoted_whole_and_unmarked():
    result = await _checked("The module is Reporting.")
    (row,) = [r for r in violation_rows(result) if r["key"] == "module"]
    assert row["your answer says"] == "Reporting" and CUT_MARK not in row["why"]


# region 2. A stored message's refused parts, each on its own line; what the box holds


async def _submitted(panel: CapstonePanel, message: str) -> list[str]:
    panel.message.value = message
    panel.submit_button.click()
    await panel.idle()
    return [line for line in _text(panel.diagnostic.value).splitlines() if line.strip()]


async def test_a_stored_line_and_a_refused_line_each_get_their_own_outcome():
    panel = await CapstonePanel.from_timeline(load_timeline())
    lines = await _submitted(panel, "module=Payroll\ncolour=red")
    assert lines[0] == "Stored: module."
    assert not any(line.startswith("Why:") for line in lines)  # no reason reads as the stored fact's
    # walk 21: a part that declares nothing is "Not read", never "Refused" (the host stored the batch)
    (refused,) = [line for line in lines if line.startswith(NOT_READ_LABEL)]
    assert refused.startswith("Not read: 'colour=red' (declares nothing). Why: 'colour' is not an allowed key")
    assert lines.index(refused) > 0 and not any(line.startswith(REFUSED_LABEL) for line in lines)
    assert panel.message.value == ""
    assert lines[-1].startswith("The Message box is empty again") and "part that declares nothing" in lines[-1]


async def test_every_refused_part_of_a_stored_message_is_named_once_whatever_its_rule():
    panel = await CapstonePanel.from_timeline(load_timeline())
    message = "module=Payroll; Module=Billing\ncolour=red\ndatabase=\nmodule: Inventory"
    lines = await _submitted(panel, message)
    refused = [line for line in lines if line.startswith(f"{NOT_READ_LABEL}") and "(declares nothing)" in line]
    assert [line.split("'")[1] for line in refused] == [
        "Module=Billing",
        "colour=red",
        "database=",
        "module: Inventory",
    ]
    assert all(". Why: " in line for line in refused)


async def test_a_declaration_a_later_one_replaces_is_not_read_and_says_so():
    panel = await CapstonePanel.from_timeline(load_timeline())
    lines = await _submitted(panel, "module=Inventory\nmodule=Payroll")
    assert lines[0] == "Stored: module."
    (line,) = [line for line in lines if line.startswith(NOT_READ_LABEL)]
    assert "'module=Inventory'" in line and "only the last, module=Payroll, is read" in line


@pytest.mark.parametrize(
    ("message", "box_says"),
    [
        ("colour=red", CORRECT_IN_BOX_NOTE),
        # walk 16: a question is no mistake to correct; walk 19: its next step names the panel's own example
        ("What is the module?", declares_nothing_step("module=Payroll", in_box=True)),
        ("symptom=" + "x" * 300 + "\nmodule=Billing", CORRECT_IN_BOX_NOTE),
    ],
)
async def test_a_message_that_stored_nothing_stays_in_the_box_and_the_result_says_so(message, box_says):
    panel = await CapstonePanel.from_timeline(load_timeline())
    lines = await _submitted(panel, message)
    assert panel.message.value == message
    assert lines[-1] == box_says


async def test_a_stored_message_leaves_the_box_and_the_result_says_so():
    panel = await CapstonePanel.from_timeline(load_timeline())
    lines = await _submitted(panel, "module=Payroll")
    assert panel.message.value == ""
    assert lines[-1] == "The Message box is empty again: the message was stored."


def test_the_box_note_says_nothing_of_a_box_the_student_changed_meanwhile():
    class Report:
        status = "nothing_to_extract"

    assert box_note(Report(), "colour=red", "module=Payroll") == ""  # type: ignore[arg-type]
    assert box_note(None, "colour=red", "colour=red") == ""


def test_refused_parts_names_no_prose_part_and_no_stored_declaration():
    assert refused_parts("Hello there\nmodule=Payroll") == []
    assert [part for part, _ in refused_parts("module=Payroll\nowner=alice")] == ["owner=alice"]


# region 3. Section 4: which key pushed each lost key out


async def test_each_lost_key_names_the_new_key_that_took_its_place_and_a_returning_key_says_it_came_back():
    runs = await compare_repairs(load_timeline(), rules=["earliest"])
    facts = next(r for r in runs if r.policy == "facts")
    rows = facts.eviction_rows()
    assert [(r["key"], r["evicted at turn"]) for r in rows] == sorted(
        facts.evicted.items(), key=lambda item: (item[1], item[0])
    )
    by = {r["key"]: r["pushed out by"] for r in rows}
    assert by["product"] == "database (back in the store: version had pushed it out at turn 4)"
    assert by["constraint"] == "environment"


async def test_every_eviction_of_a_generated_timeline_names_what_pushed_it_out():
    runs = await compare_repairs(generate_timeline(12), capstone_policies(max_facts=5), ["earliest"], max_facts=5)
    for run in runs:
        for row in run.eviction_rows():
            assert set(row) == set(EVICTION_COLUMNS)
            assert row["pushed out by"] and row["pushed out by"] != "(not recorded)"


def _cell(cell_id: str):
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def test_section_4_shows_the_pushing_key_and_its_sentence_matches_the_table():
    shown = "".join("".join(out.get("data", {}).get("text/plain", "")) for out in _cell("e07b8fae").get("outputs", []))
    assert "pushed out by" in shown and "version had pushed it out at turn 4" in shown
    sentence = " ".join("".join(_cell("5e87e929").source).split())
    assert "at turn 4 `version` pushed out `database`" in sentence
    assert "The oldest fact left was `product` (turn 1), so `product` went." in sentence  # walk 25 (third round)


def test_the_opening_s_halves_and_section_1_are_short_bullets():
    opening = "".join(_cell("6ae511d1").source).split("**You will be able to**")[0]
    lines = opening.splitlines()
    intro = next(i for i, line in enumerate(lines) if line.startswith("This lesson joins"))
    below = [line for line in lines[intro + 1 :] if line.startswith("- ")]  # the halves: the store, the loop, the check
    assert len(below) >= 3 and all(len(line) <= 100 for line in [lines[intro], *below])
    section_1 = "".join(_cell("964fb3bb").source)
    assert "**Rule 1" in section_1 and "**Rule 2" in section_1
    paragraphs = [p for p in section_1.split("\n\n") if not p.lstrip().startswith(("*", "#"))]
    assert max(len(p) for p in paragraphs) < 300
