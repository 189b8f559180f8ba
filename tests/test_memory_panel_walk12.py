"""Issue 32, the fifth walks of lessons 02 and 03: a key to forget in another case gets the case hint a declaration
gets, the Message box says it is sent with Submit, the note above each panel names a kernel restart, and the call
log's count is said of the forget it was taken at."""

import json
import re
from pathlib import Path

import pytest
from agent_framework import Agent
from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import last_in_chat, memory_panel, said, send, submit, two_desks

from course_lib.capstone_panel import CapstonePanel
from course_lib.clients import make_chat_client
from course_lib.extraction import make_extraction
from course_lib.providers import ManualInjectionDesk, course_provider_desks
from course_lib.tracing import CallLog, log_after_forget
from course_lib.widgets import MESSAGE_BOX_NOTE, command_guidance

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CASE_HINT = "'Module' is not an allowed key (keys are case-sensitive): write 'module'."


def lesson(prefix: str) -> dict:
    return json.loads(next(NOTEBOOKS.glob(f"{prefix}_*.ipynb")).read_text(encoding="utf-8"))


def text_of(cell: dict) -> str:
    return " ".join("".join(cell["source"]).split())


def printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


# --- finding 1: `forget Module` is told what `Module=Billing` is told ---


@pytest.mark.parametrize("stored", [(), ("module",), ("database",)])
@pytest.mark.parametrize("key", ["Module", "MODULE", "mOdUlE"])
def test_a_key_to_forget_in_another_case_gets_the_case_hint_whatever_the_store_holds(key, stored):
    said_ = command_guidance(f"forget {key}", stored=stored)
    assert f"'{key}' is not an allowed key (keys are case-sensitive): write 'module'." in said_
    assert "is not one of the allowed keys" not in said_  # 'module' is one: only its case is wrong


def test_the_guidance_after_the_case_hint_is_the_one_the_key_in_its_case_gets():
    for stored in [(), ("module",), ("database",)]:
        right = command_guidance("forget module", stored=stored)
        wrong = command_guidance("forget Module", stored=stored)
        opening = "is a command, not a message: nothing was submitted."
        assert wrong.removeprefix(f"'forget Module' {opening} {CASE_HINT}") == (
            right.removeprefix(f"'forget module' {opening}")
        )


async def test_the_memory_panel_says_the_case_hint_for_forget_as_for_a_declaration():
    panel = memory_panel()
    await submit(panel, "Module=Billing")
    declared = said(panel)
    await submit(panel, "forget Module")
    assert "(keys are case-sensitive): write 'module'" in declared
    assert CASE_HINT in said(panel)


async def test_the_desk_panel_says_the_case_hint_in_its_message_box_and_its_chat():
    panel = two_desks()
    await send(panel, "module=Billing")
    await submit(panel.memory_panel, "forget Module")
    assert CASE_HINT in said(panel.memory_panel)
    await send(panel, "forget Module")
    chat = last_in_chat(panel)
    assert "Cannot forget: 'Module' is not an allowed key (keys are case-sensitive): write 'module'." in chat
    assert "is not one of the allowed keys" not in chat
    assert [f.key for f in panel.desks.memory.facts] == ["module"]  # nothing was forgotten


@pytest.mark.parametrize("console", ["provider", "manual injection"])
async def test_both_lessons_consoles_refuse_a_key_in_another_case_with_the_case_hint(console):
    if console == "provider":
        desks = course_provider_desks(CallLog())
    else:
        desks = ManualInjectionDesk(Agent(client=make_chat_client("assistant"), name="desk"), make_extraction())
    await desks.handle("module=Billing")
    event = await desks.handle("forget Module")
    assert event.kind == "refused"
    assert "Cannot forget: 'Module' is not an allowed key (keys are case-sensitive): write 'module'." in event.output
    assert [f.key for f in desks.memory.facts] == ["module"] and desks.memory.epoch == 0
    assert (await desks.handle("forget module")).kind == "forget" and not desks.memory.facts


# --- finding 3: the Message box is sent with Submit; Enter adds a line there ---


def shown_text(box) -> str:
    """Every HTML text a panel shows, children of children included."""
    found = [getattr(box, "value", "")] if hasattr(box, "value") and isinstance(box.value, str) else []
    for child in getattr(box, "children", ()):
        found.extend(shown_text(child))
    return found


@pytest.mark.parametrize("lesson_", ["02", "03", "07"])
def test_the_message_box_of_every_memory_panel_says_it_is_sent_with_submit(lesson_):
    panel = {
        "02": memory_panel,
        "03": lambda: two_desks().memory_panel,
        "07": lambda: CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED),
    }[lesson_]()
    assert type(panel.message).__name__ == "Textarea"  # Enter adds a line: the note is true of the box
    assert any(MESSAGE_BOX_NOTE in text for text in shown_text(panel))
    assert "Submit" in MESSAGE_BOX_NOTE and "new line" in MESSAGE_BOX_NOTE


def test_lesson_03_says_the_message_box_is_sent_with_submit_where_it_says_you_sends_on_enter():
    section_8 = next(text_of(c) for c in lesson("03")["cells"] if text_of(c).startswith("## 9. Try it"))
    assert "press Enter" in section_8 and "sent with Submit only" in section_8 and "new line" in section_8


# --- finding 2: the note above every panel of lessons 02 and 03 names a kernel restart ---


@pytest.mark.parametrize("prefix", ["02", "03"])
def test_the_note_above_each_panel_says_to_run_its_cell_again_after_a_kernel_restart(prefix):
    cells = lesson(prefix)["cells"]
    notes = [text_of(c).replace("*", "") for c in cells if "broken-link" in text_of(c)]
    assert notes
    for note in notes:
        # the panel's cell works on its own (its first comment says so): the note says to run it alone (walk 17)
        said = " ".join(note.split())
        assert (
            "After a kernel restart, a reopen, or a reload that shows the picture again, run the panel's cell" in said
        )


# --- finding 4: the log's count is said of the forget it was taken at ---


async def test_the_call_log_count_names_the_forget_it_was_taken_at():
    log = CallLog()
    desks = course_provider_desks(log)
    await desks.handle("module=Billing")
    forgotten_at = len(log)
    await desks.handle("forget module")
    await desks.handle("forget")
    await desks.handle("Which module am I on?")
    assert f"of the {forgotten_at} calls made before 'forget module' (" in log_after_forget(
        log, "Billing", forgotten_at, "forget  module"
    )
    assert "calls made before the forget (" in log_after_forget(log, "Billing", forgotten_at)


def test_lesson_03_says_the_log_was_counted_at_forget_module_and_its_output_agrees():
    cells = lesson("03")["cells"]
    i = next(i for i, c in enumerate(cells) if "log_after_forget(log" in "".join(c["source"]))
    out = printed(cells[i])
    assert re.search(r"of the \d+ calls made before 'forget module' \(.*\), \d+ sent it", out)
    assert "before `forget module`" in text_of(cells[i - 1])
    assert 'forget_line = "forget module"' in "".join(c for cell in cells for c in cell["source"])
