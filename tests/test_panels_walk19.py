"""The desk and capstone panels after the nineteenth walk (issue 32): Why lines in the order of the message, lists
of three or more joined as "a, b and c", verdict cells that wrap, and a chain of corrections told in order.
"""

import re

from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import why_of

from course_lib.capstone_panel import CapstonePanel, violation_rows
from course_lib.extraction import make_extraction
from course_lib.providers import value_in_words
from course_lib.widgets import declaration_notes, why_notes

# --- finding 2: Why lines in the order the parts appear in the message ---


def test_why_lines_follow_the_message_order_a_key_not_allowed_first():
    notes = declaration_notes("color=red; database=")
    assert notes[0].startswith("'color' is not an allowed key"), notes
    assert notes[1].startswith("'database=' has no value"), notes


def test_why_lines_follow_the_message_order_a_key_not_allowed_last():
    notes = why_notes(None, "database=; color=red")
    assert notes[0].startswith("'database=' has no value"), notes
    assert notes[1].startswith("'color' is not an allowed key"), notes


def test_why_lines_keys_not_allowed_stand_where_the_first_of_them_is():
    notes = declaration_notes("module=; color=red; database=; owner=me")
    assert [n.split()[0] for n in notes] == ["'module='", "'color'", "'database='"], notes
    assert notes[1].startswith("'color' and 'owner' are not allowed keys"), notes


# --- finding 3: three or more joined as "a, b and c" ---


def test_three_keys_not_allowed_are_joined_with_commas_and_one_and():
    (note,) = declaration_notes("color=red; owner=me; size=big")
    assert note.startswith("'color', 'owner' and 'size' are not allowed keys"), note


def test_three_values_in_words_are_joined_with_commas_and_one_and():
    said = value_in_words("module=Billing; database=Oracle; priority=P1")
    assert 'the value of module is "Billing", the value of database is "Oracle" and the value of priority' in said


# --- finding 4: the capstone verdict table's cells wrap a long unbroken value ---


async def test_the_verdict_tables_cells_wrap_a_long_unbroken_value():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.answer.value = "The module is " + "Z" * 700 + "."
    p.check_button.click()
    await p.idle()
    assert violation_rows(p.result), p.verdict.value
    rules = re.findall(r"table\.capstone-violations td[^{]*\{([^}]*)\}", p.verdict.value)
    assert any("overflow-wrap: anywhere" in rule for rule in rules), p.verdict.value


# --- finding 5: a value two corrections old tells the chain in order ---


async def _said(p: CapstonePanel, message: str) -> None:
    p.message.value = message
    p.submit_button.click()
    await p.idle()


def _turn(p: CapstonePanel, old: str) -> int:
    return p.corrections["module"][old].turn


async def test_a_value_two_corrections_old_tells_the_chain_in_order():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1  # the task that only asks: no constraint due
    await _said(p, "module=Payroll")
    await _said(p, "module=Ledger")
    why = await why_of(p, "module=Billing")
    assert why == (
        f'"Payroll" replaced it at turn {_turn(p, "Billing")}, then "Ledger" replaced "Payroll" at turn '
        f'{_turn(p, "Payroll")}; the store holds "Ledger".'
    )


async def test_a_value_three_corrections_old_tells_every_step():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1
    for value in ("Payroll", "Ledger", "Audit"):
        await _said(p, f"module={value}")
    why = await why_of(p, "module=Billing")
    assert why == (
        f'"Payroll" replaced it at turn {_turn(p, "Billing")}, then "Ledger" replaced "Payroll" at turn '
        f'{_turn(p, "Payroll")}, then "Audit" replaced "Ledger" at turn {_turn(p, "Ledger")}; the store holds '
        '"Audit".'
    )


async def test_a_value_one_correction_old_keeps_the_users_words():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1
    await _said(p, "module=Payroll")
    why = await why_of(p, "module=Billing")
    assert why == f'a correction replaced it: the user said "module=Payroll" at turn {_turn(p, "Billing")}.'


async def test_a_chain_ending_in_a_value_said_again_names_those_turns():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1
    for message in ("module=Payroll", "module=Ledger", "module=Ledger."):
        await _said(p, message)
    why = await why_of(p, "module=Billing")
    last = _turn(p, "Payroll")
    assert why.endswith(f'; the store holds "Ledger.", which the user said again at turn {last + 1}.'), why
