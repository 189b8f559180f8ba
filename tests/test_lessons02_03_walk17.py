"""Issue 32, walk 9 (round 17) of lessons 02 and 03: the note above every panel says what to run, the same way the
panel's cell's first comment does; section 1's event keeps its own name; a declaration with words before it quotes
what follows them; the chat says one length for a long line; a keyless '= =' is a failed declaration to the offline
desk as to the store; exercise 1's why says the store refused the entire message."""

import json
import re
from pathlib import Path

from support.panels import last_in_chat, memory_panel, said, send, submit, two_desks
from test_reading import panel_note

from course_lib.assertions import NOT_ALONE_RULE, near_misses
from course_lib.memory_models import refused_declarations
from course_lib.providers import _smuggle_why

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
WORKS_ALONE = "# this cell works on its own, even after a restart"


def cells(stem: str) -> list[dict]:
    path = next(NOTEBOOKS.glob(f"{stem}_*.ipynb"))
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


# --- finding 1: the note is two-way, and quotes JupyterLab's words after a page reload ---


def test_the_note_for_a_cell_that_works_alone_says_to_run_that_cell_only():
    alone = panel_note("buttons and boxes", alone=True)
    other = panel_note("buttons and boxes", alone=False)
    for note in (alone, other):
        assert '"Error displaying widget: model not found"' in note and "this cell" not in note
        assert "the panel's cell, below" in note
    assert "Run All Above" not in alone and "a kernel restart" in alone and "a reload" in alone
    assert "run the cells above it first (Run > Run All Above Selected Cell)" in other


def test_the_panels_of_lessons_02_and_03_work_alone_and_their_notes_say_so():
    for stem in ("02", "03"):
        nb = cells(stem)
        panels = [i for i, c in enumerate(nb) if c["cell_type"] == "code" and "Panel(" in source(c)]
        assert panels, stem
        for i in panels[:1]:
            assert source(nb[i]).startswith(WORKS_ALONE)
            note = " ".join(source(nb[i - 1]).replace("*", "").split())
            assert panel_note("buttons and boxes", alone=True) in note, stem


# --- finding 2: section 1's event keeps its own name ---


def test_lesson_02_compares_with_section_1_s_own_event_not_the_latest():
    nb = cells("02")
    # second walk 23: the console is named console on the student's path
    first = next(c for c in nb if 'console.handle("module=Reporting; database=PostgreSQL")' in source(c))
    assert "first_turn = event" in source(first)
    four_steps = next(c for c in nb if "The four steps of one user turn" in source(c))
    assert "first_turn.sent" in source(four_steps) and "event.sent" not in source(four_steps)


# --- finding 3: the words after the ones before a declaration are quoted ---


async def test_a_declaration_with_words_before_it_quotes_what_follows_them():
    (miss,) = near_misses("I think module=Billing is right")
    assert miss.reason == (
        f"'I think module=Billing is right' has the words 'I think' before 'module=Billing is right' ({NOT_ALONE_RULE})"
    )
    panel = memory_panel()
    await submit(panel, "I think module=Billing is right")
    assert "before 'module=Billing is right': a declaration must stand alone" in said(panel)


# --- finding 5: one length for a long line ---


async def test_the_chat_echoes_a_long_line_with_the_line_s_own_length():
    line = "module=" + "x" * 5000
    panel = two_desks()
    await send(panel, line)
    chat = last_in_chat(panel)
    you = chat.splitlines()[0]
    assert you.startswith("you: module=xxx") and "(5007 characters)" in you and len(you) < 300
    assert "5000 characters" not in chat and "5007 characters" in chat.split("\n", 1)[1]


# --- finding 6: a keyless '= =' is a failed declaration to the offline desk ---


async def test_the_offline_desk_treats_a_keyless_line_as_a_failed_declaration():
    assert refused_declarations("= =") == ["'= =' has no key"]
    assert refused_declarations("=Payroll") == ["'=Payroll' has no key"]
    assert refused_declarations("module=Billing") == []
    panel = two_desks()
    await send(panel, "= =")
    chat = last_in_chat(panel)
    assert "That looks like a declaration, but I cannot note it: '= =' has no key." in chat
    assert "You asked" not in chat


# --- finding 7: exercise 1's why says the entire message was refused ---


def test_exercise_1_s_why_says_the_store_refused_the_entire_message():
    why = _smuggle_why([], None)
    assert "refused the entire message" in why and "refused your message whole" not in why
    question = next(source(c) for c in cells("03") if "the cell sends it to a fresh desk" in source(c).lower())
    assert "checks both" not in question
    assert re.search(r"checks that the reply begins so\s+and that you did not declare", question)
