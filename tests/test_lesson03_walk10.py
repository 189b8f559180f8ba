"""Lesson 03, tenth walk (issue 32): the gate is said to run before the providers add their messages, a session is
the container and the history what is saved in it, section 1 defines only what sections 1-2 use, the sources table
says where the instructions go, the glossary speaks the lesson's words, and the desk chat's cut top line fades."""

import json
from pathlib import Path

from course_lib.providers import course_provider_desks
from course_lib.tracing import CallLog
from course_lib.widgets import TRANSCRIPT_STYLE, DeskPanel

ROOT = Path(__file__).resolve().parents[1]
LESSON_03 = ROOT / "notebooks" / "03_provider_and_two_desks.ipynb"
GLOSSARY = ROOT / "docs" / "glossary.md"


def _said(cell_id: str) -> str:
    cells = json.loads(LESSON_03.read_text(encoding="utf-8"))["cells"]
    return " ".join("".join(next(c for c in cells if c.get("id") == cell_id)["source"]).split())


def _glossary_row(term: str) -> str:
    return next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith(f"| **{term}**"))


def test_the_gate_is_said_to_run_before_the_providers_add_their_messages() -> None:
    said = _said("hood-gate")  # second walk 25: the gate moved under the hood, section 5 keeps one sentence
    middleware = "An agent's *middleware* is code MAF runs around each run of the agent,"
    assert f"{middleware} before the providers add their messages" in said
    assert "around the model call" not in said


def test_a_session_holds_the_history_the_history_provider_saves() -> None:
    assert "the conversation it keeps" not in _said("cell-00")
    assert "A *session* is the container MAF keeps for one conversation; the desk's history is saved there." in _said(
        "cell-00"
    )
    assert "in that desk's session: those saved messages are the desk's *history*" in _said("da89f784")


def test_section_1_leaves_ticket_epoch_and_turn_to_section_5() -> None:
    section_1 = _said("cell-02")
    assert not any(word in section_1 for word in ("ticket", "epoch", "*turn*"))
    assert "[glossary](../docs/glossary.md#epoch)" in _said("race-md")  # walk 23: section 5's race, its own cell


def test_the_sources_table_says_the_instructions_travel_apart_from_its_messages() -> None:
    said = _said("correction-sources-read")
    assert "sent apart from these messages" in said
    assert "the table lists only the messages" in said
    assert "*system* message" in _said("under-the-hood")  # walk 23: the vendor's name for it is the hood's


def test_the_glossary_uses_the_lessons_words_and_names_lesson_03_for_manual_injection() -> None:
    assert "begin_turn" not in _glossary_row("ticket, epoch, turn")
    assert "the turn counts each user message the store reads" in _glossary_row("ticket, epoch, turn")
    assert _glossary_row("manual injection").endswith("| lessons 02, 03 |")


def test_the_desk_chat_fades_its_top_line_over_empty_padding_of_the_same_height() -> None:
    panel = DeskPanel(course_provider_desks(CallLog(), ("triage", "operations")))
    assert f'style="{TRANSCRIPT_STYLE}"' in panel.chat.value
    assert "mask-image: linear-gradient(to bottom, transparent, #000 1.4em)" in TRANSCRIPT_STYLE
    assert "padding-top: 1.4em" in TRANSCRIPT_STYLE
    assert "column-reverse" in TRANSCRIPT_STYLE  # still opens at the newest line
