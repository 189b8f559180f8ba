"""Lesson 07's answer check, walk 21 (issue 32): an HTML tag is a mark, as a Markdown one is.

A student checked ``<b>module=Billing</b>`` in section 8's panel and was told the answer said "Billing</b" and that
the store "never held" it; ``<b>module=Payroll</b>``, the value the store held, was flagged the same way. The rule
(answer_reader.plain_text): an HTML tag (``<b>``, ``</b>``, ``<code>``, ``<br>``, ``<span style="...">``) becomes
spaces, like ``**`` or a backtick, for every key, in the contract's form, in prose and in a table, so the value
read is the one between the tags.
"""

from __future__ import annotations

import pytest
from support.capstone_battery import ASK, PLAN, SUPERSEDED, lesson_store

from course_lib.answer_reader import check_answer, plain_text, stated_values, values_match, verdict


def _verdict(answer: str, task: str = ASK) -> str:
    return verdict(check_answer(lesson_store().facts, answer, task, SUPERSEDED))


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ("<b>module=Billing</b>", "pass"),  # the stored value between tags
        ("<b>module=Reporting</b>", "module: Reporting"),  # a replaced value: read whole, no "</b"
        ("<strong>module=Inventory</strong>", "module: Inventory"),  # a value never held
        ("<code>database=PostgreSQL</code>", "database: PostgreSQL"),
        ("module=<code>Billing</code>", "pass"),
        ("<i>database=SQL Server 2022</i>", "pass"),
        ("<em>module: Reporting</em>", "module: Reporting"),
        ("module=Billing<br>database=MySQL", "database: MySQL"),
        ("module=Billing<br/>database=SQL Server 2022", "pass"),
        ('<span style="color:red">module=Reporting</span>', "module: Reporting"),
        ("<p>The database is <b>Oracle</b>.</p>", "database: Oracle"),  # prose
        ("<p>The <b>Billing</b> module, on <i>SQL Server 2022</i>.</p>", "pass"),
        ("<B>module=Reporting</B>", "module: Reporting"),  # any case of the tag's name
        ("| key | value |\n|---|---|\n| module | <b>Reporting</b> |", "module: Reporting"),  # a table cell
    ],
)
def test_an_html_tag_is_read_as_a_mark_for_every_key(answer, want):
    assert _verdict(answer) == want
    assert "<" not in _verdict(answer) and ">" not in _verdict(answer)


def test_a_constraint_between_tags_is_carried():
    answer = "Patch Billing on SQL Server 2022. <b>Never restart the production database during business hours</b>."
    assert _verdict(answer, PLAN) == "pass"


def test_a_tag_becomes_spaces_so_positions_do_not_move():
    text = '<b>module=Billing</b> and <span class="x">Oracle</span>'
    plain = plain_text(text)
    assert len(plain) == len(text)
    assert plain.split() == ["module=Billing", "and", "Oracle"]
    assert stated_values("<b>module=Billing</b>") == [("module", "Billing")]


@pytest.mark.parametrize(
    "text",
    [
        "retry when count < 5 and delay > 3",  # a comparison, not a tag
        "module=<Payroll>",  # angle brackets around a word that is no HTML element
        "a<b",  # no closing bracket
    ],
)
def test_angle_brackets_that_are_no_html_tag_stay(text):
    assert "<" in plain_text(text)


def test_a_value_is_the_same_with_or_without_tags():
    assert values_match("<b>Payroll</b>", "Payroll")
    assert not values_match("<b>Payroll</b>", "Billing")
