"""Lesson 02's second walk 25 (issue 32): 4/5, "a few sentences on the student's path are unclear or read like
implementation notes"; these make it a 5.

1. Section 1 said ``console`` is "made in the set-up cell": the first code cell is the Colab set-up, so a student
   looked there. It names the imports cell by the heading it sits under.
2. Step 1 of a user turn says plainly what the ticket does: the store refuses the turn's facts if a newer message or
   a forget arrives before they are written.
3. The forget filter's bullet says who replaces the values (the course), and why the corrected ones are not hidden.
4. The ``checked`` cell's comment on ``message=`` read like a port-audit note: it is gone.
5. (The restart message naming the cell that makes ``log``/``console`` is left: see the report.)
6. The panel's Submit note says what the panel does: a box of spaces counts as empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.lesson_cells import cell_source, plain_words, stored_lesson, words

from course_lib.extraction import make_extraction
from course_lib.widgets import SUBMIT_DISABLED_NOTE, MemoryPanel


def _code_cells() -> list[str]:
    return ["".join(c["source"]) for c in stored_lesson("02")["cells"] if c["cell_type"] == "code"]


def test_section_1_names_the_cell_that_makes_console_by_its_heading() -> None:
    said = words(cell_source("02", "cell-04"))
    assert "`console` (made in the imports cell under *MAF in two words*)" in said
    assert "set-up cell" not in said
    cells = stored_lesson("02")["cells"]
    heading = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("### MAF in two words"))
    # the first code cell under that heading is the one that makes `console`
    made_by = next("".join(c["source"]) for c in cells[heading:] if c["cell_type"] == "code")
    assert "\nconsole = ManualInjectionDesk(" in made_by
    # and no markdown cell of the lesson sends a student to "the set-up cell" for a name it makes
    prose = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "made in the set-up cell" not in prose


def test_step_1_says_the_store_refuses_the_turns_facts_if_a_newer_line_arrives_first() -> None:
    said = plain_words(cell_source("02", "cell-04"))
    assert (
        "1. take a ticket from the store ([lesson 01](01_contract_and_store.ipynb)): if a newer message or a forget "
        "arrives before this turn's facts are written, the store refuses them;"
    ) in said
    assert "which counts messages and forgets" not in said


def test_the_forget_filter_bullet_says_who_replaces_and_why_corrected_values_escape() -> None:
    said = words(cell_source("02", "replay-calls"))
    assert (
        "Then the desk's model client replaces each **forgotten** value with `[forgotten]` in what it sends (the "
        "*forget filter*): the course's code, not MAF's. Reporting and PostgreSQL were never forgotten, only replaced "
        "by the correction, so the filter lets them through."
    ) in said
    assert "has each forgotten value replaced by" not in said


def test_the_checked_cell_has_no_port_audit_comment() -> None:
    source = cell_source("02", "mem-after-rejection")
    assert "checked = ManualInjectionDesk(" in source
    assert "message= is how" not in source and "a console you type into" not in source
    # no code cell on the lesson explains a keyword argument's wording to a porter
    assert not any("is how the [memory] line names" in code for code in _code_cells())


@pytest.mark.parametrize("typed", ["", " ", "   \n  ", "\t"])
async def test_submit_note_is_true_of_a_box_holding_only_spaces(typed: str) -> None:
    assert SUBMIT_DISABLED_NOTE == "Submit stays off while the Message box is empty or only spaces."
    panel = MemoryPanel(make_extraction())
    panel.message.value = typed
    assert panel.submit_button.disabled
    assert SUBMIT_DISABLED_NOTE in panel.submit_note.value
    panel.message.value = typed + "module=Billing"
    assert not panel.submit_button.disabled


def test_lesson_02s_saved_panel_picture_shows_the_new_note() -> None:
    text = Path("notebooks/02_correct_then_forget.ipynb").read_text(encoding="utf-8")
    state = json.dumps(json.loads(text).get("metadata", {}))
    assert "Submit stays off while the Message box is empty." not in state
