"""Lesson 07, walk 22: the Answer box shows a Markdown answer, the misread section says it can be skipped, its tags
are introduced plainly, the optional arguments and the reused store are said, the cap is said against the runs, and
"controlled facts" is defined; the battery's counts follow the arrow histories added to it."""

from __future__ import annotations

import re

from support.capstone_battery import BATTERY, MISREADS, SUPERSEDED, lesson_store
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction

INTRO, WHERE_RULES_FAIL, MISREAD_CELL = "6ae511d1", "06effe55", "d30777ae"
FEEDBACK_CELL, DRIFT_CELL, VERDICTS = "1ae5352a", "cf442f12", "10ead7db"
RUN_TABLES = ["02f68a0d", "2e6a8601", "099389f2"]  # sections 3, 4 and 7


def _said(cell_id: str) -> str:
    return " ".join(cell_source("07", cell_id).split())


def test_the_answer_box_shows_a_markdown_answer_in_full_rows():
    panel = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    assert 4 <= (panel.answer.rows or 0) <= 6
    markdown = dict(panel.examples.options)["Markdown and a table"]
    assert len(markdown.splitlines()) > 2  # the box was two rows: "**Where we are**" and half a line


def test_the_misread_section_comes_after_the_loop_has_run():
    """Walk 22 told a first read to skip the misreads, then in section 1; walk 23 moved them after section 4 (the
    loop has run by then), so nothing is left to skip to."""
    said = _said(WHERE_RULES_FAIL)
    assert said.startswith("## 5. Where the evaluator's rules still fail") and "Skip this" not in said
    ids = [c.get("id") for c in stored_lesson("07")["cells"]]
    assert ids.index(VERDICTS) < ids.index(WHERE_RULES_FAIL) < ids.index(MISREAD_CELL)
    # walk 24: the counts are printed from the battery (battery_score), in the misreads' cell
    printed = " ".join(cell_outputs("07", MISREAD_CELL).split())
    assert f"battery: {len(BATTERY)} answers" in printed
    assert f"gives {len(BATTERY) - len(MISREADS)} the verdict" in printed


def test_the_tags_are_introduced_by_what_ends_each_expected_verdict():
    plain = "Each expected verdict ends with a tag in brackets, e.g. (two clauses), naming the kind of misread:"
    assert plain in cell_outputs("07", MISREAD_CELL)
    assert "after each verdict it deserves" not in cell_source("07", MISREAD_CELL)


def test_the_short_calls_say_what_they_leave_out_and_whose_store_they_use():
    feedback = cell_source("07", FEEDBACK_CELL)
    assert "# no task: Rule 2 is not checked" in feedback and "superseded" in feedback
    assert "section 1's store" in cell_source("07", DRIFT_CELL)


def _column(html: str, name: str) -> list[str]:
    """The cells of the column headed ``name`` in a stored table's HTML."""
    headers = re.findall(r"<th [^>]*col_heading level0 col(\d+)[^>]*>([^<]+)</th>", html)
    column = next(n for n, text in headers if text.strip() == name)
    return re.findall(rf"<td [^>]*class=\"data row\d+ col{column}\"[^>]*>([^<]*)</td>", html)


def test_the_cap_is_said_against_the_runs_and_no_offline_run_reaches_it():
    iterations = [int(n) for cell_id in RUN_TABLES for n in _column(cell_outputs("07", cell_id), "iterations")]
    assert len(iterations) == 6 + 6 + 12 and max(iterations) < 5  # the cap, max_iterations=5
    said = _said(VERDICTS)
    assert "(5 here)" in said and "No offline run in this lesson reaches it; a live model may (section 10)." in said
    assert cell_source("07", "live-mode").startswith("## 10. Live mode")


def test_controlled_facts_is_defined_in_the_intro():
    # walk 23: said in a sentence, without a bracket (tests/test_lesson07_rerun_walk23.py)
    assert "the facts the user declared: the store's facts, which the course calls the *controlled facts*" in _said(
        INTRO
    )
