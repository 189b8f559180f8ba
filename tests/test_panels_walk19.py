"""The desk and capstone panels after the nineteenth walk (issue 32): Why lines in the order of the message, lists
of three or more joined as "a, b and c", verdict cells that wrap, and a chain of corrections told in order.
"""

import re

from support.capstone_battery import SUPERSEDED, lesson_store

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
