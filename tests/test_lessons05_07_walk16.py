"""Defects a student's walk 16 of lessons 05-07 found (issue 32), each reproduced, then held fixed at the rule."""

import re

from support.capstone_battery import PLAN, SUPERSEDED, lesson_store

from course_lib.answer_reader import check_answer
from course_lib.capstone_panel import CapstonePanel, example_answers
from course_lib.extraction import make_extraction
from course_lib.memory import FactCandidate, WorkingMemory

ASK = "Which module and database are we on?"


def store_of(*said: str) -> WorkingMemory:
    memory = WorkingMemory(8)
    for line in said:
        key, _, value = line.partition("=")
        memory.apply(memory.begin_turn(line), [FactCandidate(key=key, value=value, evidence=line)])
    return memory


def doubled_marks(text: str) -> list[str]:
    """A value's own final punctuation left inside a sentence: "Payroll. and", "PostgreSQL.:", "Payroll. |"."""
    return re.findall(r"\w[.!?](?= and| \||[:;,.]| on| now)", text)


def test_the_try_answers_state_a_replaced_value_without_its_final_punctuation():
    memory = store_of("module=Billing", "database=SQL Server 2022", "constraint=never restart the database")
    superseded = {"module": ["Payroll."], "database": ["PostgreSQL!"]}
    for task in (PLAN, ASK):
        answers = example_answers(memory.facts, superseded, task)
        assert "a stale one" in answers and "a history" in answers, task
        for name, text in answers.items():
            assert doubled_marks(text) == [], (task, name, text)
        assert "Payroll" in answers["a stale one"] and "PostgreSQL" in answers["a history"]
        # the stale one is still flagged for its replaced value, the history still passes
        stale = {v.fact.key for v in check_answer(memory.facts, answers["a stale one"], task, superseded)}
        assert {"module", "database"} <= stale, task
        history = [v.fact.key for v in check_answer(memory.facts, answers["a history"], task, superseded)]
        assert "database" not in history and "module" not in history, task


async def test_after_payroll_with_a_period_then_billing_the_stale_try_answer_reads_as_a_sentence():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1  # the question that plans nothing
    for message in ("module=Payroll.", "module=Billing"):
        p.message.value = message
        p.submit_button.click()
        await p.idle()
    stale = dict((label, value) for label, value in p.examples.options)["a stale one"]
    assert stale == "The module is Payroll and the database is PostgreSQL."
