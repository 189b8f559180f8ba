"""Lesson 05 walked at 4 of 5 (issue 32): exercise 3's question in short sentences with section 2's numbers
recalled from the trace, the last cell's two numbers explained, and each Chinese quotation translated beside it."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from agent_framework import Agent

from course_lib.loop import DelegateLoopEvaluator, LoopAgent, LoopEvaluation
from course_lib.loop_demos import MessageNumberer, NumberingChatClient, numbering_reminder, run_seed_demo

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "05_loop_agent_traced.ipynb"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _cells() -> list[nbformat.NotebookNode]:
    return nbformat.read(LESSON, as_version=4).cells


def _cell(cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in _cells() if c.get("id") == cell_id)


async def test_the_reminder_reads_section_2s_numbers_from_its_trace():
    trace, _ = await run_seed_demo()
    said = " ".join(numbering_reminder(trace).split())
    assert "the input messages were numbered [1] to [3]" in said
    assert "'Incoming messages' and 'Outgoing response'" in said  # section 2's trace lines (walk 9)
    assert "[4]" not in said and "had no number" not in said  # the two facts the exercise asks to read (walk 8)


async def test_the_reminder_follows_the_trace_not_a_fixed_number():
    trace, _ = await run_seed_demo(allowed=1)  # one call, no feedback
    said = " ".join(numbering_reminder(trace).split())
    assert "numbered [1] to [3]" in said and "[4]" not in said


def test_exercise_3_asks_in_short_sentences_and_gives_the_reminder_without_a_written_number():
    question = _cell("cell-25").source
    sentences = [s for s in re.split(r"(?<=[.?])\s+", question.replace("\n", " ")) if s]
    assert max(len(s.split()) for s in sentences) <= 30
    assert "[4]" not in question  # the number is printed from the trace, never typed
    code = _cell("cell-26").source
    # the reminder comes with a wrong answer only (tests/test_loop_lessons_walk12.py): never before a prediction
    assert code.index('check("Exercise 3"') < code.index("reminder_if_wrong(said, numbering_reminder(ex_trace))")


async def test_the_last_cell_s_two_numbers_differ_as_the_sentence_under_it_says():
    """The seed's run numbered its input, so its answer took the next number; the course's input was plain text."""
    stop = DelegateLoopEvaluator(lambda context: LoopEvaluation.stop())
    numberer = MessageNumberer()
    seed_like = LoopAgent(Agent(client=NumberingChatClient(numberer)), stop)
    numbered = await seed_like.run([numberer.message("Original message from user.")])
    plain = await LoopAgent(Agent(client=NumberingChatClient(MessageNumberer())), stop).run("Original message.")
    assert numbered.text.startswith("[2]") and plain.text.startswith("[1]")
    last_code = max(i for i, c in enumerate(_cells()) if c.cell_type == "code")
    after = " ".join(c.source for c in _cells()[last_code + 1 :])
    assert "own counter" in after and "numbered its input" in after and "plain text" in after


def test_each_chinese_quotation_has_the_glossarys_english_beside_it():
    """A browser without a CJK font draws the Chinese as boxes: the English must stand in the same table cell."""
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    rows = [line.strip().strip("|").split("|") for line in glossary.splitlines() if CJK.search(line)]
    english = {row[0].strip(): row[1].strip() for row in rows if len(row) >= 2}
    quoted = 0
    for cell in _cells():
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            for part in line.split(" | "):  # a table cell, or the whole line
                if not CJK.search(part):
                    continue
                chinese = max((key for key in english if key in part), key=len)  # the longest quotation it holds
                quoted += 1
                assert not CJK.search(part.replace(chinese, "")), part  # no other Chinese in the cell
                plain = part.replace("`", "").replace("**", "")
                assert english[chinese] in plain, chinese  # the translation, in the same cell
    assert quoted >= 3
