"""Lesson 07's panel, second walk (issue 32): a malformed declaration in the Message box is told the rule it broke,
and Forget key says what went and what the store holds now."""

import html
import re

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.assertions import ALLOWED_KEYS, missing_marks
from course_lib.capstone_panel import CapstonePanel, forget_note
from course_lib.extraction import make_extraction


def panel() -> CapstonePanel:
    return CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)


def said(p: CapstonePanel) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", p.diagnostic.value.replace("<br>", "\n")))


async def submit(p: CapstonePanel, text: str) -> None:
    p.message.value = text
    p.submit_button.click()
    await p.idle()


@pytest.mark.parametrize(
    ("typed", "rule"),
    [
        ("=Payroll", "'=Payroll' has no key: write an allowed key before '='"),
        ("module=", "'module=' has no value: write the value after '='."),
        ("module Payroll", "'module Payroll' has no '=': a declaration is written with '=', as module=Payroll."),
        ("foo=bar", "'foo' is not an allowed key (allowed keys:"),
    ],
)
async def test_a_malformed_declaration_is_told_the_rule_it_broke_and_changes_nothing(typed: str, rule: str) -> None:
    p = panel()
    before = p.extraction.memory.facts
    await submit(p, typed)
    assert "Nothing stored" in said(p) and rule in said(p)
    assert p.extraction.memory.facts == before


def test_missing_marks_reads_slips_not_prose() -> None:
    assert missing_marks("=Payroll")[0].endswith(f"(allowed keys: {', '.join(ALLOWED_KEYS)}).")
    assert missing_marks("Module Payroll") == [
        "'Module Payroll' has no '=': a declaration is written with '=', as module=Payroll."
    ]
    assert missing_marks("database SQL Server 2022") == [
        "'database SQL Server 2022' has no '=': a declaration is written with '=', as database=SQL Server 2022."
    ]
    for prose in ("module is broken", "Which module are we on?", "Where can I find logs?", "module=Billing", "="):
        assert missing_marks(prose) == [], prose


async def test_forget_key_says_what_went_and_what_the_store_holds_now() -> None:
    p = panel()
    value = next(f.value for f in p.extraction.memory.facts if f.key == "module")
    p.key.value = "module"
    p.forget_key_button.click()
    await p.idle()
    left = [f.key for f in p.extraction.memory.facts]
    assert "module" not in left
    assert said(p).startswith(f'Forgot module, which held "{value}". The store holds {len(left)} facts now: ')
    assert all(key in said(p) for key in left)


def test_the_forget_note_on_a_store_left_empty_or_with_one_fact() -> None:
    assert forget_note("module", "Payroll.", ()) == 'Forgot module, which held "Payroll.". The store is empty now.'
    one = lesson_store().facts[:1]
    assert forget_note("module", "Billing", one) == (
        f'Forgot module, which held "Billing". The store holds 1 fact now: {one[0].key}.'
    )
