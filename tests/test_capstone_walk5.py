"""Lesson 07, sixth walk (issue 32): a constraint said only in a question is not carried."""

from support.capstone_battery import CONSTRAINT, PLAN, SUPERSEDED, lesson_store

from course_lib.answer_reader import carries_constraint, check_answer, verdict

ASKED = f"Billing, SQL Server 2022. {CONSTRAINT.capitalize()}?"
SAID = f"Billing, SQL Server 2022. {CONSTRAINT.capitalize()}."


def test_a_constraint_said_only_inside_a_question_is_not_carried():
    """A question is not a claim (Under the hood): that holds for the constraint rule as for the values."""
    facts = lesson_store().facts
    assert verdict(check_answer(facts, ASKED, PLAN, SUPERSEDED)) == "constraint missing"
    assert verdict(check_answer(facts, SAID, PLAN, SUPERSEDED)) == "pass"
    assert not carries_constraint(CONSTRAINT, ASKED)
    assert not carries_constraint(CONSTRAINT, "Billing. Do not restart the production database in business hours?")
    assert carries_constraint(CONSTRAINT, SAID)
    assert carries_constraint(
        CONSTRAINT, "Should we restart now? No: never restart the production database during business hours."
    )
