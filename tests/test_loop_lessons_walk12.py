"""Lessons 05-07, the walkers' polish items of issue 32's twelfth walk: what the loop lessons say is true of what
their cells print, and said the same way for every input of its kind."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from agent_framework import AgentResponseUpdate, Message
from support.capstone_battery import BATTERY, SUPERSEDED, lesson_store

from course_lib.capstone_panel import CapstonePanel
from course_lib.exercises import check
from course_lib.extraction import make_extraction
from course_lib.loop_demos import (
    numbering_reminder,
    reminder_if_wrong,
    returned_words,
    run_seed_demo,
    stream_seed_demo,
    updates_sentence,
)

ROOT = Path(__file__).resolve().parents[1]
LESSONS = {
    "05": ROOT / "notebooks" / "05_loop_agent_traced.ipynb",
    "06": ROOT / "notebooks" / "06_loop_options_compared.ipynb",
    "07": ROOT / "notebooks" / "07_loop_held_to_the_facts.ipynb",
}


def _cell(lesson: str, cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in nbformat.read(LESSONS[lesson], as_version=4).cells if c.get("id") == cell_id)


def _words(text: str) -> str:
    return " ".join(text.split())


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


# Lesson 05's top cell: no arrow or diagram exists for "each arrow of the flow" to point at.


def test_lesson_05_promises_no_arrow_it_never_draws():
    text = " ".join(c.source for c in nbformat.read(LESSONS["05"], as_version=4).cells if c.cell_type == "markdown")
    assert "arrow" not in text
    assert "which messages each call received and what it produced" in _words(_cell("05", "cell-00").source)


# The updates sentence: why 12 pieces (computed per answer), and "one update each" said of the feedback only.


def _update(role: str, text: str, message_id: str) -> AgentResponseUpdate:
    return AgentResponseUpdate(role=role, contents=[text], message_id=message_id)


async def test_the_updates_sentence_says_the_pieces_per_answer_and_that_each_feedback_is_one_update():
    _, _, updates = await stream_seed_demo()
    assert _words(updates_sentence(updates)) == (
        "14 updates came: 12 pieces of the model's 3 answers (4 pieces each) and 2 feedback messages from the "
        "loop, each sent as one update; joined, they make 5 messages."
    )
    uneven = [_update("assistant", "Hi", "a"), _update("assistant", "there", "a"), _update("assistant", "Done", "b")]
    assert "(1 to 2 pieces each)" in updates_sentence(uneven)
    one = [_update("assistant", "Hi", "a"), _update("user", "More", "f1"), _update("assistant", "Done", "b")]
    assert "1 feedback message from the loop, sent as one update;" in _words(updates_sentence(one))


async def test_lessons_05_and_06_print_the_new_updates_sentence_and_say_why_a_piece_is_a_word():
    _, _, updates = await stream_seed_demo()
    said = updates_sentence(updates)
    assert said in _printed(_cell("05", "cell-16"))
    assert said in _printed(_cell("06", "cell-08"))
    assert "one word per piece" in _words(_cell("05", "cell-15").source)


# Exercise 3: the numbering reminder is part of the reasoning; it comes only with a wrong answer.


async def test_the_reminder_comes_only_after_a_wrong_answer():
    trace, _ = await run_seed_demo()
    reminder = numbering_reminder(trace)
    names = {"answer_3": 0}
    wrong = check("Exercise 3", 5, 2, "Look again.", namespace=names)
    assert reminder_if_wrong(wrong, reminder) == f"{wrong}\n{reminder}"
    for said in (check("Exercise 3", 2, 2, "Look again.", namespace=names), check("Exercise 3", ..., 2, "x")):
        assert reminder_if_wrong(said, reminder) == said


def test_exercise_3s_cell_prints_no_reminder_before_an_answer():
    cell = _cell("05", "cell-26")
    assert "reminder_if_wrong(" in cell.source and "print(numbering_reminder" not in cell.source
    printed = _printed(cell)
    assert "From section 2" not in printed and "not answered yet" in printed


# No code line of lessons 05-07 runs past 90 characters (the Colab set-up cell is the course's shared one).


def test_no_code_line_of_the_loop_lessons_is_over_90_characters():
    long = [
        f"{lesson} {cell.get('id')}: {line}"
        for lesson, path in LESSONS.items()
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code" and "colab-setup" not in cell.metadata.get("tags", [])
        for line in cell.source.splitlines()
        if len(line) > 90
    ]
    assert not long


# Lesson 06's words.


def test_section_1_says_section_5_uses_one_of_the_other_options():
    said = _words(_cell("06", "other-options").source)
    assert "the rest of the lesson does not need them" not in said
    # walk 25 (tests/test_lesson06_walk25.py) cut walk 24's cross-reference "Section 5 uses ...": section 5's
    # code itself names the option it uses
    assert "Section 5 uses" not in said
    assert "on_behalf_of_author_name=" in _cell("06", "cell-14").source


def test_section_2_says_what_get_final_response_does():
    said = _words(_cell("06", "cell-06").source)
    assert "get_final_response()" in said and "does not run the loop again" in said


def test_a_run_that_returns_answers_only_is_counted_in_words():
    one = [Message(role="assistant", contents=["[6]Response message from LLM."])]
    assert returned_words(one) == "1 message: the last answer"
    three = [Message(role="assistant", contents=[f"[{n}]Response"]) for n in (4, 5, 6)]
    assert returned_words(three) == "3 messages: 3 answers, no feedback"
    assert "answers only" not in _words(_printed(_cell("06", "3ce05afb")))


_CJK = re.compile(r"[\u4e00-\u9fff]+")


def test_every_chinese_quote_of_lessons_05_and_06_is_labelled_as_the_chinese_original():
    for lesson in ("05", "06"):
        for cell in nbformat.read(LESSONS[lesson], as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            for found in _CJK.finditer(cell.source):
                around = cell.source[max(0, found.start() - 80) : found.end() + 60]
                assert "the Chinese original" in around or "in the seed's Chinese:" in around, (lesson, around)


# Lesson 07.


def test_section_1_says_the_from_example_is_outside_the_battery():
    said = _words(_cell("07", "under-the-hood").source)  # the "from" answers moved under the hood (walk 24)
    assert f"(neither is one of the {len(BATTERY)})" in said  # the battery's count, as the lesson says it


async def test_a_value_said_again_with_another_final_mark_is_the_same_value_for_the_evaluator():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    for message in ("module=Payroll", "module=Payroll."):
        p.message.value = message
        p.submit_button.click()
        await p.idle()
    note = p.diagnostic.value
    assert "replaced &quot;Payroll&quot;" not in note and 'replaced "Payroll"' not in note
    assert "the same value as" in note and "only its final punctuation changed" in note
    # the other way round, said alike
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    assert "only its final punctuation changed" in p.diagnostic.value
    # a real correction keeps its note
    p.message.value = "module=Ledger"
    p.submit_button.click()
    await p.idle()
    assert "A correction keeps one value per key" in p.diagnostic.value
