"""Lesson 02 and the memory panel, sixteenth walk (issue 32).

A message that declares nothing (a question, a greeting) is no mistake: the panel says it stores nothing and does not
ask to correct it. ``forget`` typed in the Message box points first to the button that does what it means (Forget all
for every fact, Forget key for a named key). A forget repeats what Submit said only when that explained why a
declaration was refused, never a command's reply. The store's evidence wraps at spaces, ``=`` and ``;``, not
mid-word. Each panel cell of lessons 02 and 03 runs alone in a new kernel; lesson 02's printed lines fit the page.
"""

from __future__ import annotations

import ast
import asyncio
import re

import pytest
from support.lesson_cells import cell_source, stored_cell, stored_lesson
from support.panels import forget, memory_panel, said, submit, two_desks

from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.presentation import BLOCK_WIDTH, BREAKABLE_WORD, breakable_words, facts_html
from course_lib.widgets import NOT_STORED_IN_BOX, STILL_IN_BOX, DeskPanel, MemoryPanel, command_guidance

CORRECT_IT = "correct it there"

# region 1. A message that declares nothing stores nothing, and is not a mistake to correct

DECLARE_NOTHING = ["Is the module still Reporting?", "hello", "hello there", "What is the module?"]
NEAR_MISSES = ["colour=red", "priority:P1", "Module=Billing", "module="]


@pytest.mark.parametrize("typed", DECLARE_NOTHING)
async def test_a_message_that_declares_nothing_is_not_sent_back_to_be_corrected(typed: str) -> None:
    p = memory_panel()
    await submit(p, typed)
    last = said(p).splitlines()[-1]
    assert p.message.value == typed and not p.memory.facts
    assert CORRECT_IT not in said(p), said(p)
    # walk 19: the reason is said once, on the status line; the last line is the one next step
    assert said(p).startswith("Nothing stored: "), said(p)
    assert "still in the Message box" in last and "to store a fact" in last and "press Submit" in last, last


@pytest.mark.parametrize("typed", NEAR_MISSES)
async def test_a_near_miss_is_still_sent_back_to_be_corrected(typed: str) -> None:
    p = memory_panel()
    await submit(p, typed)
    assert p.message.value == typed and CORRECT_IT in said(p).splitlines()[-1]


async def test_the_capstone_panel_says_the_same_of_a_question() -> None:
    from course_lib.capstone_panel import CapstonePanel
    from course_lib.policies import load_timeline

    p = await CapstonePanel.from_timeline(load_timeline())
    await submit(p, "What is the module?")
    mine = memory_panel()
    await submit(mine, "What is the module?")
    # walk 19: the same step, with the panel's own example (lesson 02's would declare what the store holds)
    assert said(p).splitlines()[-1] == said(mine).splitlines()[-1].replace("module=Billing", "module=Payroll")


# region 2. forget typed in the box: the button that does what it means comes first


@pytest.mark.parametrize("typed", ["forget", "Forget", "FORGET", "  forget  "])
def test_bare_forget_leads_with_forget_all(typed: str) -> None:
    guidance = command_guidance(typed, stored=["module", "database"])
    assert "Forget all" in guidance
    assert "Forget key" not in guidance or guidance.index("Forget all") < guidance.index("Forget key"), guidance


@pytest.mark.parametrize("typed", ["forget module", "FORGET module", "Forget module", "forget Module"])
def test_forget_with_a_key_leads_with_forget_key(typed: str) -> None:
    guidance = command_guidance(typed, stored=["module", "database"])
    assert "Forget key" in guidance and "module" in guidance.split("nothing was submitted.")[-1]
    assert "Forget all" not in guidance or guidance.index("Forget key") < guidance.index("Forget all"), guidance


# region 3. A forget repeats what Submit said only when it explained a refused declaration


@pytest.mark.parametrize("typed", ["mem", "MEM", "forget", "forget module", *DECLARE_NOTHING])
@pytest.mark.parametrize("which", ["key", "all"])
async def test_a_command_or_a_message_declaring_nothing_is_not_said_again(typed: str, which: str) -> None:
    p = memory_panel()
    await submit(p, "module=Payroll")
    await submit(p, typed)
    before = said(p)
    await forget(p, which)
    assert p.message.value == typed and said(p).startswith("Forgot ")
    assert STILL_IN_BOX not in said(p) and before not in said(p), said(p)


@pytest.mark.parametrize("typed", NEAR_MISSES)
async def test_a_refused_declaration_is_answered_after_a_forget(typed: str) -> None:
    p = memory_panel()
    await submit(p, "module=Payroll")
    await submit(p, typed)
    before = said(p)
    await forget(p, "all")
    # walk 24: the forget changed the store, so one line says the message in the box was not stored instead
    assert before not in said(p) and NOT_STORED_IN_BOX in said(p)


async def test_the_desk_panel_does_not_repeat_mem_after_forget_all() -> None:
    desks = two_desks()
    p = desks.memory_panel
    await submit(p, "module=Billing")
    await submit(p, "mem")
    assert "The table above already shows the facts." in said(p)
    p.forget_all_button.click()
    await desks.idle()
    assert "No facts." in p.table.value
    assert STILL_IN_BOX not in said(p) and "already shows the facts" not in said(p), said(p)


# region 4. The store's evidence wraps at spaces, '=' and ';', never inside a word


@pytest.mark.parametrize("word", ["customer=Fabrikam", "environment=staging", "module=Billing;database=Oracle"])
def test_a_declaration_breaks_after_its_equals_sign_not_inside_a_word(word: str) -> None:
    shown = breakable_words(word)
    assert BREAKABLE_WORD not in shown, shown
    assert shown.replace("<wbr>", "") == word
    pieces = shown.split("<wbr>")
    assert len(pieces) > 1 and all(re.search(r"[=;]$", piece) for piece in pieces[:-1]), pieces


def test_an_escaped_character_is_never_split_and_a_long_token_may_still_be_cut() -> None:
    assert breakable_words("user&#x27;s") == "user&#x27;s"  # the ';' ends an entity, not a declaration
    token = "log=" + "x" * 40
    shown = breakable_words(token)
    assert shown.startswith("log=<wbr>") and f'<span style="{BREAKABLE_WORD}">{"x" * 40}</span>' in shown


def test_the_panel_table_wraps_a_fact_s_evidence_at_its_equals_sign(t0) -> None:
    memory = WorkingMemory()
    said_ = "customer=Fabrikam"
    memory.apply(
        memory.begin_turn(said_), [FactCandidate(key="customer", value="Fabrikam", evidence=said_)], recorded_at=t0
    )
    table = facts_html(memory.facts)
    assert "customer=<wbr>Fabrikam" in table and BREAKABLE_WORD not in table


# region 5. Lesson 02: each panel cell runs alone after a restart; printed lines fit; the words say what they mean


def _run_alone(source: str) -> dict:
    """Run a cell's source in an empty namespace, as a new kernel would (top-level ``await`` allowed)."""
    namespace: dict = {}
    code = compile(source, "<cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)

    async def run() -> None:
        result = eval(code, namespace)  # the lesson's own cell, as a kernel runs it
        if asyncio.iscoroutine(result):
            await result

    asyncio.run(run())
    return namespace


@pytest.mark.parametrize(
    ("lesson", "cell", "name", "kind"),
    [
        ("02", "cell-25", "panel", MemoryPanel),
        ("02", "cell-26", "demo", MemoryPanel),
        ("03", "cell-24", "desk_panel", DeskPanel),
    ],
)
def test_a_panel_cell_runs_alone_after_a_kernel_restart(lesson: str, cell: str, name: str, kind: type) -> None:
    assert isinstance(_run_alone(cell_source(lesson, cell))[name], kind)


def test_the_note_on_forget_s_filter_says_what_the_answer_does_not_show() -> None:
    said_ = " ".join(cell_source("02", "cell-18").split())
    assert "so its answer hides it" not in said_
    # walk 23: the lesson no longer prints the offline desk's answer (which repeats only the latest declaration);
    # its table says what the model was sent, read from the call itself
    assert "values_sent(" in cell_source("02", "cell-17")
    assert "You asked" not in "".join(o.get("text", "") for o in stored_cell("02", "cell-17").get("outputs", []))


def test_lesson_02_prints_no_line_wider_than_a_block() -> None:
    """A long printed line wraps where the page ends ("database=" / "[forgotten]."); the lesson breaks it at a space
    first. The writer's instructions are printed as the model receives them, and are left whole."""
    long = [
        line
        for cell in stored_lesson("02")["cells"]
        if cell["cell_type"] == "code" and cell.get("id") != "cell-03"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
        for line in "".join(out["text"]).splitlines()
        if len(line) > BLOCK_WIDTH
    ]
    assert not long, long
    printed = "\n".join(
        "".join(out.get("text", "")) for c in stored_lesson("02")["cells"] for out in c.get("outputs", [])
    )
    # walk 23: "database=[forgotten]." is no longer printed (a table says where each value is); the facts blocks
    # still print lines broken at a space
    assert 'database = "SQL Server 2022" (evidence: "database=SQL Server 2022"; turn 2; recorded\n    ' in printed
    assert "(messages read so far)" in printed
