"""Lesson 07, walk 21: the panel's violations table keeps a key whole, the "Under the hood" stretch is said against
the value the store accepts, and the evaluator rows of the trace keep a number on its word's line."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.capstone import FactCheck, _trace_check
from course_lib.capstone_panel import CapstonePanel, violation_rows
from course_lib.extraction import make_extraction
from course_lib.loop_demos import NO_BREAK, LoopTrace, kept_with_numbers
from course_lib.memory import MAX_VALUE_CHARS, Fact
from course_lib.presentation import LONGEST_WHOLE_WORD
from course_lib.widgets import panel_table_html

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "07_loop_held_to_the_facts.ipynb"


def _whole_columns(html: str, css_class: str) -> list[int]:
    """The 1-based columns whose cells the table's style keeps on one line."""
    rules = re.findall(rf"table\.{css_class} td:nth-child\((\d+)\)\s*\{{([^}}]*)\}}", html)
    return [int(n) for n, rule in rules if "white-space: nowrap" in rule]


# --- finding 1: a key stays whole in the panel's table; a long "why" still wraps ---


def test_a_column_of_short_words_is_kept_whole_and_a_column_of_text_still_wraps():
    frame = pd.DataFrame(
        {"key": ["database", "constraint"], "why": ["a long sentence " * 20, "Z" * 700], "n": ["1", "12"]}
    )
    html = panel_table_html(frame, "t")
    assert _whole_columns(html, "t") == [1, 3], html
    assert re.search(r"table\.t td\s*\{[^}]*overflow-wrap: anywhere", html), html


def test_a_column_with_one_long_word_or_several_words_is_not_kept_whole():
    frame = pd.DataFrame({"a": ["x", "Z" * (LONGEST_WHOLE_WORD + 1)], "b": ["SQL Server", "x"]})
    assert _whole_columns(panel_table_html(frame, "t"), "t") == []


async def test_the_verdict_table_keeps_the_key_whole_and_the_700_character_value_wraps():
    for answer in ("The database is MySQL 8.", "The module is " + "Z" * 700 + "."):
        p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
        p.answer.value = answer
        p.check_button.click()
        await p.idle()
        rows = violation_rows(p.result)
        assert rows and next(iter(rows[0])) == "key", p.verdict.value
        assert 1 in _whole_columns(p.verdict.value, "capstone-violations"), p.verdict.value
        rules = re.findall(r"table\.capstone-violations td\s*\{([^}]*)\}", p.verdict.value)
        assert any("overflow-wrap: anywhere" in rule for rule in rules), p.verdict.value


# --- finding 2: the stretch is twice the longest value the store accepts ---


def _under_the_hood() -> str:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    return next("".join(c["source"]) for c in cells if c.get("id") == "under-the-hood")


def test_the_stretch_is_said_as_twice_the_longest_value_the_store_accepts():
    text = " ".join(_under_the_hood().split())
    said = (
        f"{2 * MAX_VALUE_CHARS} characters in the contract's form, twice the longest value the store accepts "
        f"({MAX_VALUE_CHARS} characters)"
    )
    assert said in text, text
    assert "longest stored value" not in text


# --- finding 3: the evaluator rows keep a number on its word's line ---


def test_the_evaluator_rows_keep_each_number_with_its_word():
    when = datetime(2026, 1, 1, tzinfo=UTC)
    facts = (
        Fact(key="database", value="SQL Server 2022", evidence="database=SQL Server 2022", turn=1, recorded_at=when),
    )
    check = FactCheck(iteration=1, facts=facts, answer="on Oracle", violations=(), feedback=None)
    trace = LoopTrace(model="reader")
    _trace_check(trace, check)
    row = trace.rows[-1]
    assert row.saw == kept_with_numbers("iteration 1; store: database=SQL Server 2022"), row.saw
    assert f"iteration{NO_BREAK}1" in row.saw and f"Server{NO_BREAK}2022" in row.saw, row.saw
