"""Issue 32, walk 12 of lessons 02 and 03: their panels (double clicks, every refusal's Why, long lines echoed, the
store's verdict labelled, one key per forget) and the admission report that names what a full store pushed out."""

import asyncio
import inspect
import json
import re
from pathlib import Path

from support.panels import last_in_chat, memory_panel, said, send, submit, two_desks

from course_lib import providers
from course_lib.exercises import exercise
from course_lib.extraction import make_extraction
from course_lib.memory import WorkingMemory
from course_lib.providers import try_smuggling
from course_lib.widgets import EMPTY_LINE_NOTE, VERDICT_LABEL, WHY_LABEL, echoed_line

FIVE = "product=Contoso; module=Billing; database=Oracle; priority=P1; version=1"


async def test_a_double_click_of_submit_stores_once_and_keeps_its_result():
    """Walk 12: a second click of Submit replaced "Stored: ... pushed out" by "Refused: the message is empty"."""
    panel = memory_panel()
    await submit(panel, FIVE)
    panel.message.value = "constraint=no downtime"
    panel.submit_button.click()
    panel.submit_button.click()  # the second click of a double click, before the first was answered
    await panel.idle()
    result = said(panel)
    assert panel.memory.turn == 2 and "Stored: constraint." in result and "pushed out" in result
    assert panel.message.value == "" and panel.submit_button.disabled
    panel.submit_button.click()  # a click queued by the browser arrives after the box was emptied
    await panel.idle()
    await panel.submit("")  # and an empty submit from a script
    assert said(panel) == result and panel.memory.turn == 2


async def test_submit_goes_off_at_the_click_and_comes_back_for_the_next_line():
    panel = memory_panel()
    panel.message.value = "module=Billing"
    panel.submit_button.click()
    assert panel.submit_button.disabled  # off at once, before the turn has begun
    await panel.idle()
    panel.message.value = "database=Oracle"
    assert not panel.submit_button.disabled


async def test_a_double_click_of_forget_key_keeps_what_it_forgot():
    panel = memory_panel()
    await submit(panel, "module=Billing; database=Oracle")
    panel.key.value = "module"
    panel.forget_key_button.click()
    panel.forget_key_button.click()  # the Key list is back on its placeholder: the button is off
    panel.forget_all_button.click()
    panel.forget_all_button.click()  # the store is empty now: the button is off
    await panel.idle()
    assert panel.memory.epoch == 2 and "Forgot every fact" in said(panel)


async def test_a_double_click_or_a_double_enter_on_the_desk_panel_sends_the_line_once():
    for press in ("click", "enter"):
        panel = two_desks()
        await send(panel, "module=Billing")
        panel.line.value = "database=Oracle"
        for _ in range(2):
            if press == "click":
                panel.send_button.click()
            else:
                panel.line._handle_custom_msg({"event": "submit"}, [])
        await panel.idle()
        store = said(panel.memory_panel)
        assert panel.desks.memory.turn == 2 and len(panel.events) == 2 and "Stored: database." in store
        for _ in range(2):  # the box is empty now: Send is off, and Enter only says what to type beside it
            panel.send_button.click()
            panel.line._handle_custom_msg({"event": "submit"}, [])
        await panel.idle()
        assert said(panel.memory_panel) == store and len(panel.events) == 2
        assert EMPTY_LINE_NOTE in panel.send_note.value


async def test_a_double_click_of_the_desk_panels_submit_sends_the_message_once():
    panel = two_desks()
    store = panel.memory_panel
    store.message.value = "module=Billing"
    store.submit_button.click()
    store.submit_button.click()
    await panel.idle()
    assert panel.desks.memory.turn == 1 and len(panel.events) == 1 and "Stored: module." in said(store)


async def test_every_refusal_says_why_in_the_chat_and_in_the_store():
    """Walk 12: "what about module=Payments?" and a lone "=" got a bare "Nothing stored". Walk 19: a message that
    declares nothing gives its reason once, on the "Nothing stored:" line (no "Why:" line says it again)."""
    whys = {
        "what about module=Payments?": "it is a question; only key=value declarations are stored.",
        "=": "'=' has nothing before '=': an empty key is not an allowed key.",
        "Is the module still Reporting?": "it is a question; only key=value declarations are stored.",
    }
    for line, why in whys.items():
        lesson_02 = memory_panel()
        await submit(lesson_02, line)
        assert f"Nothing stored: {why}" in said(lesson_02) and WHY_LABEL not in said(lesson_02), line
        desks = two_desks()
        await send(desks, line)
        store = said(desks.memory_panel)
        assert f"Nothing stored: {why}" in store and WHY_LABEL not in store, line
        assert why.rstrip(".") in last_in_chat(desks), line  # on a Why line, or in the [memory] line's brackets
        assert last_in_chat(desks).count(why.rstrip(".")) == 1, line  # said once


async def test_a_skipped_part_has_one_label_in_the_chat_and_in_the_store():
    panel = two_desks()
    await send(panel, "color=red; module=Billing")
    assert f"{WHY_LABEL} 'color' is not an allowed key" in last_in_chat(panel)
    assert f"{WHY_LABEL} 'color' is not an allowed key" in said(panel.memory_panel)
    assert "Ignored" not in said(panel.memory_panel)


async def test_the_store_side_verdict_says_it_answers_the_chat_or_the_message_box():
    panel = two_desks()
    await send(panel, "what about module=Payments?")
    assert said(panel.memory_panel).startswith(VERDICT_LABEL)
    lesson_02 = memory_panel()
    await submit(lesson_02, "module=Billing")
    assert VERDICT_LABEL not in said(lesson_02)  # one box, nothing to tell apart


async def test_a_long_line_is_echoed_short_in_the_chat():
    """Walk 12: a 5,021-character line was echoed whole in the chat (20 lines)."""
    line = ("module=" + " ".join(["Billing"] * 627))[:5021]  # words: no unbroken run for the old shortening
    assert len(line) == 5021
    panel = two_desks()
    await send(panel, line)
    you = last_in_chat(panel).splitlines()[0]
    assert you.startswith("you: module=Billing") and "(5021 characters)" in you and len(you) < 300
    assert echoed_line("module=Billing") == "module=Billing"


async def test_forget_with_several_keys_says_forget_takes_one_key_at_a_time():
    panel = two_desks()
    await send(panel, "module=Billing; database=Oracle")
    await send(panel, "forget database module")
    said_in_chat = last_in_chat(panel)
    assert "forget takes one key at a time; type 'forget database', then 'forget module'." in said_in_chat
    assert "not one of the allowed keys" not in said_in_chat and len(panel.desks.memory.facts) == 2
    lesson_02 = memory_panel()
    await submit(lesson_02, "module=Billing; database=Oracle")
    await submit(lesson_02, "forget database module")
    assert "Forget takes one key at a time" in said(lesson_02)
    assert "is not one of the allowed keys" not in said(lesson_02)


def test_the_admission_report_names_what_a_full_store_pushed_out():
    """Walk 12: lesson 03's "A run with several messages" printed "Admitted 3 facts" while database went unsaid."""
    memory = WorkingMemory()
    extraction = make_extraction(memory)

    async def run() -> None:
        first = await extraction.update("module=Billing; database=SQL Server 2022; product=Contoso Invoicing")
        assert first.diagnostic == "Admitted 3 facts: module, database, product." and first.evicted == ()
        second = await extraction.update("priority=P1; customer=Fabrikam; version=4.2")
        assert second.diagnostic == (
            "Admitted 3 facts: priority, customer, version. "
            "The store holds at most 5 facts: database (turn 1) was pushed out."
        )
        assert [f.key for f in second.evicted] == ["database"]
        third = await extraction.update("module=Payments; symptom=slow")  # module re-declared: not pushed out
        assert [f.key for f in third.evicted] == ["product"] and "product (turn 1) was pushed out" in third.diagnostic

    asyncio.run(run())


# --- the lessons' words (walk 12) ---

ROOT = Path(__file__).resolve().parents[1]
LESSON_02 = ROOT / "notebooks" / "02_correct_then_forget.ipynb"
LESSON_03 = ROOT / "notebooks" / "03_provider_and_two_desks.ipynb"


def _cell(lesson: Path, cell_id: str) -> dict:
    return next(c for c in json.loads(lesson.read_text(encoding="utf-8"))["cells"] if c.get("id") == cell_id)


def _said(lesson: Path, cell_id: str) -> str:
    return " ".join("".join(_cell(lesson, cell_id)["source"]).split())


def _printed(lesson: Path, cell_id: str) -> str:
    return "".join("".join(o.get("text", "")) for o in _cell(lesson, cell_id)["outputs"])


def test_lesson_02_exercise_2_asks_about_a_value_section_5_did_not_show():
    """Walk 12: section 5's console showed module=Billing kept after a dropped correction, the exercise's answer."""
    shown = re.search(r'module = "(\w+)"', _printed(LESSON_02, "mem-after-rejection")).group(1)
    asked = _said(LESSON_02, "cell-29")
    held = re.search(r"The store holds `module=(\w+)`", asked).group(1)
    assert shown == "Billing" and held == "Payments"
    # the cell's computation is course_lib's (walk 4: the cell showed the answer being worked out)
    assert f'update("module={held}")' in inspect.getsource(providers._lesson_02_exercise_2)
    assert "Payments" in exercise("02", "Exercise 2").why


async def test_lesson_03_exercise_1_asks_how_many_facts_mem_lists():
    """Walk 12: "will mem list a priority fact?" was settled by sections 6 and 8 before the exercise asked it."""
    assert "how many facts will `mem` list? (a number)" in _said(LESSON_03, "cell-26")
    assert "attempt.facts_stored," in _said(LESSON_03, "cell-27")
    one = await try_smuggling("module=Billing and priority=P0")
    two = await try_smuggling("symptom=slow priority=P0; module=Billing")
    assert (one.smuggled, one.facts_stored) == (True, 1) and (two.smuggled, two.facts_stored) == (True, 2)
    assert exercise("03", "Exercise 1").answer_type is int


def test_lesson_02_says_which_mem_section_2_shows_as_a_table():
    intro = _said(LESSON_02, "cell-00")
    assert "`mem` (shown here as a table)" not in intro
    assert "the second `mem` (section 2 shows it as a table)" in intro


def test_lesson_03_prints_the_fact_the_full_store_pushed_out():
    printed = _printed(LESSON_03, "ff2cf967")
    assert "turn 2: accepted: Admitted 3 facts: priority, customer, version." in printed
    assert "database (turn 1) was pushed out" in printed


def test_the_glossary_defines_the_caller_the_attribution_row_relies_on():
    rows = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines()
    caller = next(row for row in rows if row.startswith("| **caller** |"))
    assert "agent.run" in caller and "lesson 03" in caller
    assert "the caller's own messages" in next(row for row in rows if row.startswith("| **attribution** |"))


async def test_lesson_02s_panel_quotes_a_long_typed_command_short():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    await submit(panel, "forget " + " ".join(["module"] * 700))
    assert "(4906 characters)" in said(panel) and len(said(panel)) < 400
    assert "Forget takes one key at a time" in said(panel)
    await submit(panel, "forget " + " ".join(["colour"] * 700))
    assert "(4906 characters)' is a command" in said(panel) and len(said(panel)) < 700
