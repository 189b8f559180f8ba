"""Lesson 07's twelfth walk (issue 32): the evicted keys of a "why" in the order they went, each with its turn; the
misreads' kinds printed from the tags the table uses; a value submitted again unchanged says only its turn moved; a
double click on Submit leaves the first result on screen."""

from __future__ import annotations

import re

from support.capstone_battery import SUPERSEDED, lesson_store
from test_student_path import lesson

from course_lib.capstone import (
    MISREAD_KINDS,
    RULE_MISREADS,
    _lost,
    capstone_policies,
    compare_repairs,
    misread_kinds,
)
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.policies import generate_timeline

LESSON = "07_loop_held_to_the_facts"


def _cell(cell_id: str):
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _output(cell_id: str) -> str:
    """A code cell's printed text and the plain text of what it displayed."""
    parts = []
    for out in _cell(cell_id).get("outputs", []):
        parts.append("".join(out.get("text", "")))
        parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


# region 1. The keys a store lost, in the order it lost them


def test_lost_keys_are_listed_in_eviction_order_each_with_its_turn_whatever_order_they_come_in():
    evicted = {"module": 11, "database": 10, "constraint": 6}
    for keys in (["module", "database"], ["database", "module"]):
        assert _lost(keys, evicted) == (
            "the store lost the database and module facts (evicted: database at turn 10, module at turn 11)"
        )
    assert _lost(["module", "database", "constraint"], evicted) == (
        "the store lost the constraint, database and module facts "
        "(evicted: constraint at turn 6, database at turn 10, module at turn 11)"
    )
    assert _lost(["constraint"], evicted) == "the store lost the constraint fact (evicted at turn 6)"


async def test_the_generated_timeline_s_why_names_the_database_first_since_it_went_first():
    runs = await compare_repairs(generate_timeline(12), capstone_policies(max_facts=5), ["earliest"], max_facts=5)
    full = next(r for r in runs if r.policy == "full history")
    assert full.evicted["database"] < full.evicted["module"]
    assert full.why == (
        "the store lost the database and module facts (evicted: database at turn 10, module at turn 11), "
        "so nothing contradicts database=PostgreSQL and module=Reporting"
    )


def test_section_7_shows_the_evicted_keys_in_the_order_they_went():
    shown = _output("099389f2")
    assert "evicted: database at turn 10, module at turn 11" in shown
    assert "evicted at turns 11 and 10" not in shown and "turns 11, 10 and 6" not in shown


# endregion
# region 2. The misreads' kinds: the prose says the tags the table uses


def test_every_tag_of_the_misreads_table_has_a_meaning_and_every_meaning_a_row():
    tags = [re.search(r"\(([^()]*)\)$", deserved).group(1) for _, _, deserved in RULE_MISREADS]
    assert list(dict.fromkeys(tags)) == [tag for tag, _ in misread_kinds()]
    assert set(tags) == set(MISREAD_KINDS)


def test_lesson_07_prints_the_kinds_from_the_tags_and_its_prose_lists_none_by_hand():
    code = _cell("d30777ae")
    assert "misread_kinds" in code.source
    printed = _output("d30777ae")
    for tag, meaning in misread_kinds():
        assert f"({tag}): {meaning}" in printed
        assert f"({tag})" in printed  # the same tag in the table
    prose = " ".join(_cell("06effe55").source.split())
    assert "a key and its value in two clauses, a value with no word" not in prose
    assert "tag in brackets" in prose


# endregion
# region 3 and 4. The panel's Submit: the same value again; a double click


def _panel() -> CapstonePanel:
    return CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)


def _turn(p: CapstonePanel, key: str) -> int:
    return next(f.turn for f in p.extraction.memory.facts if f.key == key)


async def test_a_value_submitted_again_unchanged_says_it_is_the_same_value_and_only_its_turn_moved():
    p = _panel()
    held = {f.key: f for f in p.extraction.memory.facts}
    for key in ("module", "database"):
        before = held[key].turn
        p.message.value = f"{key}={held[key].value}"
        p.submit_button.click()
        await p.idle()
        status = p.diagnostic.value
        assert f"Stored: {key}." in status
        assert (
            f'{key}: "{held[key].value}" is the same value as before: nothing was replaced, only its turn moved '
            f"(from turn {before} to turn {_turn(p, key)})." in status
        )
        assert "replaced &quot;" not in status and 'replaced "' not in status
    assert "Reporting" in p.replaced.value and "Billing" not in p.replaced.value  # nothing new was replaced


async def test_a_correction_gets_no_same_value_note():
    p = _panel()
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    assert "same value as before" not in p.diagnostic.value and "replaced" in p.diagnostic.value


async def test_a_second_click_after_the_first_stored_leaves_its_result_and_reads_nothing():
    """The browser sends the second click before it learns the box is empty: no refusal replaces the result."""
    p = _panel()
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    first, ticket = p.diagnostic.value, p.ticket.value
    assert "Stored: module." in first and p.message.value == ""
    p.submit_button.click()  # the double click's second half, on the box the first one emptied
    await p.idle()
    assert p.diagnostic.value == first and p.ticket.value == ticket
    assert "Refused" not in p.diagnostic.value


async def test_two_clicks_sent_together_store_the_message_once_and_keep_the_first_result():
    p = _panel()
    p.message.value = "module=Payroll"
    p.submit_button.click()
    p.submit_button.click()  # both clicks before either ran: each carries the box's text
    await p.idle()
    assert "Stored: module." in p.diagnostic.value and '"Payroll" replaced "Billing"' in p.diagnostic.value
    assert "Ticket: epoch 0 (forgets so far), turn 6" in p.ticket.value  # one message read, not two


async def test_after_a_double_click_the_same_message_typed_again_is_submitted_again():
    p = _panel()
    p.message.value = "module=Payroll"
    p.submit_button.click()
    p.submit_button.click()
    await p.idle()
    stored = _turn(p, "module")
    p.message.value = "module=Payroll"  # typed again on purpose: a new Submit, read as one
    p.submit_button.click()
    await p.idle()
    assert _turn(p, "module") == stored + 1 and "same value as before" in p.diagnostic.value


async def test_an_empty_submit_never_replaces_the_last_result_and_the_button_is_off():
    """Lesson 02's panel, which this panel extends, keeps Submit off while the box is empty (lesson 02's walk): a
    click that still arrives changes nothing, whatever came before it."""
    p = _panel()
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    p.key.value = "database"
    p.forget_key_button.click()  # another action between: a Submit after it is no double click's second half
    await p.idle()
    shown = p.diagnostic.value
    assert p.submit_button.disabled
    p.submit_button.click()
    await p.idle()
    assert p.diagnostic.value == shown
    fresh = _panel()
    assert fresh.submit_button.disabled


# endregion


def test_the_same_value_note_names_what_differs_capitals_spacing_or_final_punctuation():
    """Lesson 07's third walk: Payroll then payroll was told "only the final punctuation changed"."""
    from course_lib.capstone_panel import how_it_differs

    assert how_it_differs("Payroll", "payroll") == "its capitals"
    assert how_it_differs("Payroll", "Payroll.") == "its final punctuation"
    assert how_it_differs("Payroll", "payroll.") == "its capitals and its final punctuation"
    assert how_it_differs("SQL Server", "SQL  Server") == "its spacing"


async def test_the_panel_says_only_the_capitals_changed_for_a_value_in_other_case():
    p = _panel()
    for value in ("Payroll", "payroll"):
        p.message.value = f"module={value}"
        p.submit_button.click()
        await p.idle()
    said = p.diagnostic.value.replace("&quot;", '"')
    assert 'is the same value as "Payroll"' in said and "only its capitals changed" in said
    assert "final punctuation" not in said


async def test_after_forget_all_a_value_the_store_held_before_is_no_record_not_never_held():
    """Lesson 07's third walk: after Forget all and module=Billing again, "We are on Reporting" was told "the store
    never held" Reporting, which the student had watched it hold."""
    p = _panel()
    assert "Reporting" in p.superseded.get("module", [])
    p.forget(None)
    p.message.value = "module=Billing"
    p.submit_button.click()
    await p.idle()
    p.answer.value = "The module is Reporting."
    p.check_button.click()
    await p.idle()
    said = p.table.value if hasattr(p, "table") else ""
    said = " ".join((said + p.verdict.value + p.feedback.value).replace("&quot;", '"').split())
    assert 'no record of "Reporting" for module (a forget cleared its earlier values)' in said, said[:600]
    assert 'never held "Reporting"' not in said
    fresh = _panel()  # without a forget, a value never stored is still "never held"
    fresh.answer.value = "We are on Oracle Payroll."
    assert fresh.history_cleared == set()
