"""Lesson 07's walk 22: a history written with arrows ("Reporting → Billing") is no claim of its old value."""

import pytest
from support.capstone_battery import ASK, PASSES, STALE, SUPERSEDED, VIOLATIONS, lesson_store
from support.lesson_cells import cell_source

from course_lib.capstone import check_answer, problems

SECTION_1 = "964fb3bb"
ARROWS = ["\u2192", "->", "=>", "\u21d2", "to"]


def _verdict(answer: str, task: str = ASK) -> str:
    return problems(check_answer(lesson_store().facts, answer, task, SUPERSEDED)) or "pass"


@pytest.mark.parametrize("arrow", ARROWS)
def test_an_old_value_then_an_arrow_then_the_current_one_is_a_history(arrow):
    assert _verdict(f"Reporting {arrow} Billing, PostgreSQL {arrow} SQL Server 2022") == "pass"


@pytest.mark.parametrize("arrow", ARROWS)
def test_the_current_value_then_an_arrow_then_an_old_one_states_the_old_one(arrow):
    assert "names Reporting as the current module" in _verdict(f"Billing {arrow} Reporting")


@pytest.mark.parametrize("arrow", ["\u2192", "->", "=>", "\u21d2"])
def test_an_arrow_to_a_value_never_held_states_that_value(arrow):
    assert "Inventory" in _verdict(f"Reporting {arrow} Inventory")


@pytest.mark.parametrize("arrow", ["\u2192", "->"])
def test_a_key_s_value_written_as_a_history_states_its_last_value(arrow):
    assert _verdict(f"Module: Reporting {arrow} Billing") == "pass"
    assert "Reporting" in _verdict(f"Module: Billing {arrow} Reporting")


def test_to_without_the_current_value_after_it_is_no_history():
    # "to" alone is a common word: only "old value to the current value" is read as a history
    assert "names Reporting as the current module" in _verdict("Reporting to the team: done.")


def test_the_battery_holds_both_directions_of_the_arrow_history():
    passes = {case.answer for case in PASSES}
    stale = {case.answer: case.verdict for case in STALE + VIOLATIONS}
    assert "Reporting \u2192 Billing, PostgreSQL \u2192 SQL Server 2022" in passes
    assert stale.get("Billing \u2192 Reporting") == "module: Reporting"


def test_section_1_names_the_arrow_history_among_what_passes():
    said = " ".join(cell_source("07", SECTION_1).split())
    assert '"moved from Reporting to Billing", "Reporting \u2192 Billing"' in said
