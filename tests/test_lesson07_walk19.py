"""Lesson 07 and the memory panels it shares with lessons 02 and 03, nineteenth walk (issue 32).

A message that declares nothing (a greeting, a question, a sentence) gets one reason and one next step, on every
panel that answers it: lesson 02's memory panel, lesson 07's capstone panel and the store's side of lesson 03's desk
panel (it got three lines saying the same thing: "Nothing stored", a "Why:" line and "It declares nothing"). The note
beside a greyed-out Submit says what Submit does with each kind of line on that panel. Exercise 3 names the drifting
rule its cell runs, and the section that ran it. The Under the hood section spells MAF out at its first use there.
"""

from __future__ import annotations

import inspect
import re

import pytest
from support.lesson_cells import stored_lesson
from support.panels import memory_panel, said, send, submit, two_desks

from course_lib.capstone import DRIFT_RULES, exercise_expected
from course_lib.capstone_panel import CORRECTION_EXAMPLE, TURN_COUNTED, CapstonePanel
from course_lib.policies import load_timeline
from course_lib.widgets import CORRECT_IN_BOX_NOTE, MemoryPanel

GREETING, QUESTION, SENTENCE = "hello there", "What is the module?", "We moved to a new database today."
DECLARE_NOTHING = [
    GREETING,
    "hello",
    QUESTION,
    "Is the module still Reporting?",
    SENTENCE,
    "what about module=Payments?",
]


def _lines(panel: MemoryPanel) -> list[str]:
    return [line for line in said(panel).splitlines() if line.strip()]


def _one_reason_one_step(lines: list[str], example: str, typed: str) -> None:
    """Two lines: "Nothing stored:" with its one reason, then one next step that names a declaration to type."""
    assert len(lines) == 2, lines
    reason, step = lines
    assert reason.startswith("Nothing stored: "), lines
    assert "Why:" not in reason and "declares nothing" not in step, lines
    assert "the contract accepts" not in reason, lines  # said again by the reason after it
    assert sum(line.count("key=value") for line in lines) == 1, lines  # the rule, said once
    assert example in step, lines
    kind = "a question" if typed.rstrip().endswith("?") else "no '='"
    assert kind in reason, lines


# region 1. One reason, one next step, on every panel


@pytest.mark.parametrize("typed", DECLARE_NOTHING)
async def test_lesson_02s_panel_gives_one_reason_and_one_next_step(typed: str) -> None:
    p = memory_panel()
    await submit(p, typed)
    lines = _lines(p)
    _one_reason_one_step(lines, "module=Billing", typed)
    assert p.message.value == typed and lines[1].startswith("Your message is still in the Message box")
    assert "press Submit" in lines[1]


@pytest.mark.parametrize("typed", DECLARE_NOTHING)
async def test_the_capstone_panel_gives_one_reason_and_one_next_step(typed: str) -> None:
    p = await CapstonePanel.from_timeline(load_timeline())
    await submit(p, typed)
    lines = _lines(p)
    _one_reason_one_step(lines, CORRECTION_EXAMPLE, typed)
    assert p.message.value == typed and "press Submit" in lines[1]
    mine = memory_panel()
    await submit(mine, typed)
    # one wording; the capstone panel adds, on the reason's line, that the message still counted as a turn (walk 21)
    counted = " " + TURN_COUNTED.format(turn=p.memory.turn)
    assert counted in lines[0]
    lines = [lines[0].replace(counted, ""), *lines[1:]]
    assert lines == [line.replace("module=Billing", CORRECTION_EXAMPLE) for line in _lines(mine)]


@pytest.mark.parametrize("typed", [GREETING, QUESTION, SENTENCE])
@pytest.mark.parametrize("how", ["Send", "Submit"])
async def test_the_desk_panels_store_side_gives_one_reason_and_one_next_step(typed: str, how: str) -> None:
    desks = two_desks()
    if how == "Send":
        await send(desks, typed)
    else:
        await submit(desks.memory_panel, typed)
    label, *lines = _lines(desks.memory_panel)
    assert label.startswith("Last verdict")
    _one_reason_one_step(lines, "module=Billing", typed)
    assert "Message box" not in lines[1]  # the desk's turn left the box empty: it holds no message to replace


async def test_a_message_submitted_by_a_cell_gets_the_step_without_the_box() -> None:
    p = memory_panel()
    await p.submit(GREETING)  # a cell's script: the box holds nothing of it
    lines = _lines(p)
    _one_reason_one_step(lines, "module=Billing", GREETING)
    assert "Message box" not in lines[1]


@pytest.mark.parametrize("typed", ["colour=red", "Module=Billing", "module="])
async def test_a_near_miss_still_gets_its_why_and_is_sent_back_to_be_corrected(typed: str) -> None:
    p = memory_panel()
    await submit(p, typed)
    lines = _lines(p)
    assert any(line.startswith("Why: ") for line in lines) and lines[-1] == CORRECT_IN_BOX_NOTE, lines


# region 2. Submit's note says what Submit does with each kind of line, on each panel


def _submit_note(panel: MemoryPanel) -> str:
    panel.message.value = ""
    return re.sub(r"<[^>]+>", "", panel.submit_note.value)


@pytest.mark.parametrize("build", ["lesson 02", "lesson 07"])
async def test_submit_on_a_store_panel_is_not_offered_for_questions(build: str) -> None:
    p = memory_panel() if build == "lesson 02" else await CapstonePanel.from_timeline(load_timeline())
    note = _submit_note(p)
    assert "(a question or key=value)" not in note
    # walk 21: one short line, not an invitation to ask a question; lesson 02's walk 25: only what turns Submit on
    assert note == "Submit stays off while the Message box is empty or only spaces." and "question" not in note, note
    assert p.submit_button.tooltip == note


async def test_submit_on_the_desk_panel_says_a_desk_answers_the_line() -> None:
    desks = two_desks()
    note = _submit_note(desks.memory_panel)
    # walk 21: one short line; the lesson's text above the panel says a desk replies in the chat and the line's
    # declarations are stored, as for a line sent with Send
    assert "as Send does" in note, note
    assert "stores nothing" not in note and "not a question" not in note  # there a question is answered, by a desk


# region 3. Exercise 3 names its drifting rule; the hood spells MAF out


def _exercise_3() -> tuple[str, str]:
    cells = stored_lesson("07")["cells"]
    at = next(i for i, c in enumerate(cells) if "**Exercise 3.**" in "".join(c["source"]))
    return "".join(cells[at]["source"]), "".join(cells[at + 1]["source"])


def test_exercise_3_names_the_rule_its_cell_runs_and_the_section_that_ran_it() -> None:
    question, code = _exercise_3()
    named = [rule for rule in DRIFT_RULES if f"*{rule.replace('_', ' ')}*" in question]
    # walk 24: the cell asks course_lib for the answer; the rule is the one exercise_expected runs for Exercise 3
    assert 'exercise_expected("Exercise 3")' in code
    branch = inspect.getsource(exercise_expected).split('"Exercise 3"')[1]
    ran = re.findall(r'"(earliest|latest|most_frequent)"', branch.split("if label ==")[0])
    assert named and named == ran, (named, ran)
    section = re.search(r"section (\d)", question)
    assert section, question
    sections = "".join("".join(c["source"]) for c in stored_lesson("07")["cells"] if c["cell_type"] == "markdown")
    ran_there = sections.split(f"## {section.group(1)}.")[1].split("\n## ")[0]
    assert f"*{named[0].replace('_', ' ')}*" in ran_there, ran_there[:200]


def test_the_hood_spells_maf_out_at_its_first_use() -> None:
    cells = stored_lesson("07")["cells"]
    start = next(i for i, c in enumerate(cells) if c.get("id") == "under-the-hood")
    hood = "\n".join("".join(c["source"]) for c in cells[start:] if c["cell_type"] == "markdown")
    first = hood.index("MAF")
    spelled = hood[first:].startswith("MAF (the Microsoft Agent Framework") or hood[:first].endswith(
        "Microsoft Agent Framework ("
    )
    assert spelled, hood[first - 60 : first + 60]


# region 4. A passing answer: the loop's stop is said once, where the feedback would be


@pytest.mark.parametrize("store", ["the conversation's", "empty"])
async def test_a_passing_answer_says_once_that_the_loop_stops(store: str) -> None:
    p = await CapstonePanel.from_timeline(load_timeline())
    if store == "empty":
        p.forget(None)
        p.answer.value = "The module is Billing."
    else:
        p.answer.value = dict(p.examples.options)["a right one"]
    result = await p.check()
    assert result is not None and not result.violations
    verdict = re.sub(r"<[^>]+>", "", p.verdict.value)
    feedback = re.sub(r"<[^>]+>", "", p.feedback.value)
    assert "sends nothing back" in feedback and "stopped" in feedback
    assert "stop" not in verdict.casefold(), verdict  # the feedback's line says it, as a failing one's says "sends"
    assert "this answer stands" in verdict.casefold()


# region 5. Section 1's "where the rules still fail" introduces its table once


def test_the_misreads_table_is_introduced_once() -> None:
    cells = stored_lesson("07")["cells"]
    said = " ".join("".join(next(c for c in cells if c.get("id") == "06effe55")["source"]).split())
    assert "The nine" not in said and said.count("in the table below") == 1, said
    assert said.count("the verdict it deserves") == 1, said
