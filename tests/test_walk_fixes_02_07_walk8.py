"""Lessons 02 and 07, eighth walk (issue 32): a question or prose typed in a memory panel's Message box is told why
nothing was stored (only key=value declarations are), in lesson 02's panel and in lesson 07's capstone panel alike;
``forget KEY`` typed there for a key the store does not hold says there is nothing to forget, not to pick the key
from a list that does not offer it."""

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.assertions import nothing_declared_note
from course_lib.capstone_panel import TURN_COUNTED, CapstonePanel
from course_lib.extraction import make_extraction
from tests.support.panels import memory_panel, said, submit


def test_nothing_declared_note_tells_a_question_from_prose_and_leaves_slips_to_their_own_notes() -> None:
    assert nothing_declared_note("Is the module still Reporting?") == (
        "it is a question; only key=value declarations are stored."
    )
    assert nothing_declared_note("The module is broken") == ("it holds no '='; only key=value declarations are stored.")
    assert nothing_declared_note("module=") == ""  # a slip: declaration_notes says which rule it broke


async def test_a_question_in_lesson_02s_panel_is_told_why_nothing_was_stored() -> None:
    panel = memory_panel()
    await submit(panel, "Is the module still Reporting?")
    text = said(panel)
    assert "Nothing stored: it is a question; only key=value declarations are stored." in text  # walk 19: one line


async def test_a_question_in_the_capstone_panel_is_told_the_same_why() -> None:
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    before = p.extraction.memory.facts
    await submit(p, "Is the module still Reporting?")
    text = said(p)
    # walk 19: one line; walk 21: on it, the capstone panel adds that the message still counted as a turn
    counted = TURN_COUNTED.format(turn=p.memory.turn)
    assert f"Nothing stored: it is a question; only key=value declarations are stored {counted}." in text
    assert p.extraction.memory.facts == before


@pytest.mark.parametrize("typed", ["forget module", "FORGET module"])
async def test_forget_typed_for_a_key_not_stored_says_there_is_nothing_to_forget(typed: str) -> None:
    panel = memory_panel()
    await submit(panel, "database=Oracle")
    await submit(panel, typed)
    text = said(panel)
    assert "is a command, not a message" in text
    assert "module is not stored: there is nothing to forget." in text
    assert "Forget key" not in text
    assert [f.key for f in panel.memory.facts] == ["database"]


async def test_forget_typed_for_a_stored_key_still_points_at_the_forget_key_button() -> None:
    panel = memory_panel()
    await submit(panel, "module=Billing")
    await submit(panel, "forget module")
    assert "choose it in the Key list below and click Forget key" in said(panel)  # walk 16 wording


def test_the_console_says_a_question_stores_nothing_because_it_is_a_question():
    """Lesson 02's desk console said only "Nothing stored" for a question, where the panels give the why."""
    from course_lib.extraction import ExtractionReport
    from course_lib.providers import memory_line

    nothing = ExtractionReport(status="nothing_to_extract", facts=(), diagnostic="")
    assert memory_line(nothing, "Where are the logs?") == (
        "[memory] Nothing stored: the message holds no declaration the contract accepts (it is a question; only "
        "key=value declarations are stored)."
    )
    prose = memory_line(nothing, "All good")
    assert prose.endswith("accepts (it holds no '='; only key=value declarations are stored).")
    assert memory_line(nothing, "module=").endswith("accepts.")  # a slip in a declaration: the notes say which


def test_forget_of_no_key_at_all_is_said_as_the_desk_console_says_it():
    """Lesson 03's walk: the Message box said "color is not stored: there is nothing to forget", as if color could
    be stored, where the You box said it is not one of the allowed keys."""
    from course_lib.widgets import command_guidance

    said = command_guidance("forget color", stored=["module"])
    assert "color is not one of the allowed keys (product, module," in said and "not stored" not in said
    assert "product is not stored" in command_guidance("forget product", stored=["module"])
