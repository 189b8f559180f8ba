"""Lesson 07, walk 22 (issue 32): a new student's findings on the lesson's words, its first code and its panel.

1. The note above the panel said to run its cell again after a page reload: in JupyterLab the panel survives one
   once the notebook is saved (checked in Chromium: saved, reloaded, the store kept a correction and Check answer
   worked; unsaved, the reload shows the saved picture), and running the cell again drops the student's edits; a
   kernel restart or a reopened notebook needs it, and on the website, with no kernel, the panel is a picture.
5. Section 1's prose table: "Restart the production database during business hours." gets "constraint missing";
   the text says the rule checks that the constraint is carried, not what the answer does against it.
6. Section 7's paragraph of five evictions is a list, as section 4's "How the full store made its room".
7. Section 1's first code cell reads as the story: ``declare(store, said, superseded)``, not the ticket plumbing.
8. Section 5's trace says "send back", the lesson's words, where it said "continue".
9. The panel shows no ticket (lesson 01's detail), and section 8 does not explain one.
10. The set-up comment and the intro agree on the store's lessons; exercise 1 says the tables' "full history" is
    the policy named "full_history"; "Where next" says what `make qualify` does.
"""

from __future__ import annotations

import inspect
import re

from support.capstone_battery import SUPERSEDED, lesson_store
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.capstone import declare, exercise_expected, sample_store
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.memory import WorkingMemory

PANEL_INTRO = "capstone-panel-intro"
PROSE_WHY = "prose-why-pass"
SECTION_7 = "ef3b5c5e"
FIRST_CODE = "61c6898f"
SET_UP = "cfe7542c"
TRACE = "969cbddd"
EXERCISE_1 = "38933f6b"
TAKEAWAYS = "student-takeaways"


def _words(cell_id: str) -> str:
    return " ".join(cell_source("07", cell_id).replace("*", "").split())


# --- finding 1: a page reload keeps the panel ---


def test_the_note_says_a_page_reload_keeps_the_panel_and_when_to_run_its_cell_again():
    said = _words(PANEL_INTRO)
    assert "After a page reload, run the panel's cell" not in said
    assert "After a reload that shows the picture again, run the panel's cell again" in said
    assert "a new panel starts afresh" in said
    assert "After a kernel restart or a reopen, run the cells above it first" in said


# --- finding 5: the constraint rule checks that the constraint is carried ---


def test_section_1_says_why_an_answer_ordering_the_forbidden_action_is_constraint_missing():
    table = cell_outputs("07", "7ee6c80a")
    assert "Restart the production database during business hours." in table and "constraint missing" in table
    said = _words(PROSE_WHY)
    assert "Restart the production database during business hours." in said
    assert "checks that the constraint is carried into the answer, not what the answer does against it" in said
    assert "It is still sent back, but its feedback asks only that it carry the constraint." in said


# --- finding 6: section 7 as a list ---


def test_section_7_lists_its_evictions_one_per_bullet():
    source = cell_source("07", SECTION_7)
    bullets = [line for line in source.splitlines() if line.startswith("* ")]
    assert len(bullets) >= 4
    paragraphs = [p for p in source.split("\n\n") if p.strip() and not p.lstrip().startswith(("*", "#"))]
    assert all(len(" ".join(p.split())) < 300 for p in paragraphs), paragraphs


# --- finding 7: section 1's first code cell reads as the story ---


def test_declare_stores_a_declaration_and_keeps_the_value_it_replaced():
    store, superseded = WorkingMemory(), {}
    for said in ("module=Reporting", "constraint=never restart", "module=Billing"):
        declare(store, said, superseded)
    held = {f.key: (f.value, f.evidence, f.turn) for f in store.facts}
    assert held == {
        "module": ("Billing", "module=Billing", 3),
        "constraint": ("never restart", "constraint=never restart", 2),
    }
    assert superseded == {"module": ["Reporting"]}


def test_the_sample_store_is_built_by_declare_as_the_lesson_s_store_is():
    store, superseded = sample_store()
    assert superseded == SUPERSEDED and {f.key for f in store.facts} == {f.key for f in lesson_store().facts}


def test_section_1_s_first_code_cell_declares_without_the_ticket_plumbing():
    code = cell_source("07", FIRST_CODE)
    assert "declare(store, said, superseded)" in code
    for plumbing in ("begin_turn", "store.apply", "FactCandidate", "record_superseded", "partition"):
        assert plumbing not in code, plumbing
    assert "values a correction replaced: module was Reporting" in cell_outputs("07", FIRST_CODE)


# --- finding 8: the trace says "send back" ---


def test_the_trace_says_send_back_where_the_evaluator_sent_the_answer_back():
    shown = cell_outputs("07", TRACE)
    assert "send back: module: your answer names Reporting as the current module" in shown
    assert "continue:" not in shown and "continue" not in " ".join(_words(c) for c in ("2107000a",))


# --- finding 9: no ticket in the panel ---


def test_the_panel_shows_no_ticket():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    shown = []
    stack = list(p.children)
    while stack:
        widget = stack.pop()
        shown.append(widget)
        stack.extend(getattr(widget, "children", ()))
    assert p.ticket not in shown and p.ticket_note not in shown
    assert not any(
        "Ticket:" in str(getattr(w, "value", "")) or "The ticket" in str(getattr(w, "value", "")) for w in shown
    )
    assert "ticket" not in _words(PANEL_INTRO).casefold()


# --- finding 10: naming slips ---


def test_the_intro_and_the_set_up_cell_name_the_same_lessons_for_the_store():
    intro = _words("6ae511d1")
    assert "the store (lessons 01-03)" in intro
    assert "# The store of lessons 01-03" in cell_source("07", SET_UP)


def test_exercise_1_says_the_tables_full_history_is_the_policy_named_full_history():
    code = cell_source("07", EXERCISE_1)
    # walk 24: the cell computes nothing in plain sight; where it names the policy's key, a comment says which it is
    assert "full_history" not in code or re.search(r'#.*"full_history".*"full history"', code), code
    assert 'capstone_policy("full_history")' in inspect.getsource(exercise_expected)


def test_where_next_says_what_make_qualify_does():
    said = _words(TAKEAWAYS)
    assert re.search(r"`make qualify`[^.]*scores", said), said


def test_every_code_line_of_the_lesson_fits_90_characters():
    for cell in stored_lesson("07")["cells"]:
        if cell["cell_type"] == "code" and "colab-setup" not in cell.get("metadata", {}).get("tags", []):
            assert all(len(line) <= 90 for line in "".join(cell["source"]).splitlines()), cell["id"]
