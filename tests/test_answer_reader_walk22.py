"""Lesson 07's answer check, walk 22 (issue 32): an action the answer forbids is no action it plans.

Under the task that plans, "Billing on SQL Server 2022; never restart prod DB during business hours." was told "the
task and your answer plan an action": the answer only forbids a restart. The rule (answer_reader.planner): an action
word right after a negation of its own ("never restart", "do not restart", "don't deploy", "not to patch") is
forbidden, not planned, whether or not the answer quotes the stored constraint; any other action word of the
answer's own still plans one ("Don't forget to patch Billing").
"""

from __future__ import annotations

import pytest
from support.capstone_battery import ASK, PLAN, SUPERSEDED, lesson_store
from support.panels import why_of

from course_lib.answer_reader import check_answer, planner, verdict
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction

FORBIDS = "Billing on SQL Server 2022; never restart prod DB during business hours."


@pytest.mark.parametrize(
    "answer",
    [
        FORBIDS,
        "Billing on SQL Server 2022. Do not restart prod DB in office hours.",
        "Billing on SQL Server 2022. Don't deploy on Fridays.",
        "Billing on SQL Server 2022; we must not patch prod today.",
        "Billing on SQL Server 2022, and remember not to restart prod DB at noon.",
    ],
)
def test_an_answer_that_only_forbids_an_action_plans_none(answer):
    facts = lesson_store().facts
    assert planner(PLAN, answer, facts) == "the task"
    assert planner(ASK, answer, facts) is None
    assert verdict(check_answer(facts, answer, ASK, SUPERSEDED)) == "pass"  # under ask, no constraint is due


@pytest.mark.parametrize(
    "answer",
    [
        "Don't forget to patch Billing on SQL Server 2022.",
        "Never restart prod DB during business hours; patch Billing tonight.",
        "Restart the production database during business hours.",
        "The fix belongs in the Billing module on SQL Server 2022.",
    ],
)
def test_an_action_word_of_the_answer_s_own_still_plans_one(answer):
    assert planner(ASK, answer, lesson_store().facts) == "your answer"


async def test_the_panel_says_the_task_plans_the_action_the_answer_forbids():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    assert p.task.value == PLAN
    why = await why_of(p, FORBIDS)
    assert why.startswith("the task plans an action, so the stored constraint")
    assert "your answer" not in why.split(",")[0]
