"""Defects a student's walk of lesson 07 found (issue 32), each reproduced, then held fixed at the rule."""

from support.capstone_battery import PLAN, SUPERSEDED, lesson_store, store_of

from course_lib.answer_reader import carries_constraint, check_answer, plain_text, values_match
from course_lib.assertions import value_core
from course_lib.capstone import FactCheck, FactsConsistencyEvaluator, _trace_check
from course_lib.capstone_panel import CapstonePanel, example_answers, violation_rows
from course_lib.extraction import make_extraction
from course_lib.forgetting import carries_forgotten
from course_lib.loop_demos import LoopTrace
from course_lib.memory import FactCandidate


def test_a_values_final_sentence_punctuation_is_not_part_of_what_an_answer_is_compared_with():
    """A stored ``Payroll.`` (the contract keeps the period) and an answer's ``Payroll.`` / "Payroll" are one value."""
    assert value_core("Payroll.") == "Payroll" and value_core("SQL Server 2022?!") == "SQL Server 2022"
    assert value_core("4.2") == "4.2" and value_core("...") == "..."  # nothing left: the value stays as it is
    assert values_match("Payroll.", "payroll") and not values_match("Payroll", "Payroll2")
    for stored in ("module=Payroll.", "module=Payroll"):
        facts = store_of(stored).facts
        for answer in ("module=Payroll.", "module=Payroll", "The module is Payroll.", "Payroll module.", "Payroll!"):
            assert check_answer(facts, answer) == [], (stored, answer)
        (violation,) = check_answer(facts, "The module is Billing.")
        assert violation.stated == "Billing"


def test_a_superseded_value_with_a_period_is_still_flagged_and_one_that_matches_the_store_is_not():
    facts = store_of("module=Reporting.", "module=Billing").facts
    assert [v.stated for v in check_answer(facts, "You are on Reporting.", superseded={"module": ["Reporting."]})] == [
        "Reporting."
    ]
    # a "correction" that only adds a period replaced nothing the evaluator should hold against an answer
    facts = store_of("module=Payroll", "module=Payroll.").facts
    assert check_answer(facts, "You are on Payroll.", superseded={"module": ["Payroll"]}) == []


def test_the_evaluator_does_not_take_a_period_added_by_a_correction_for_a_replaced_value():
    memory = store_of("module=Payroll")
    evaluator = FactsConsistencyEvaluator(memory)
    memory.apply(
        memory.begin_turn("module=Payroll."),
        [FactCandidate(key="module", value="Payroll.", evidence="module=Payroll.")],
    )
    evaluator._watch(memory.facts)
    assert evaluator.superseded == {}


def test_a_forgotten_value_with_a_period_never_comes_back_without_it():
    assert carries_forgotten("The module is Payroll and it runs.", [("module", "Payroll.")])
    assert carries_forgotten("Payroll.", [("module", "Payroll")])


def test_underscore_emphasis_is_stripped_but_an_underscore_inside_a_value_stays():
    assert plain_text("_never_ __restart__").split() == ["never", "restart"]
    assert plain_text("log=billing_worker.log") == "log=billing_worker.log"
    facts = lesson_store().facts
    answer = "Billing on SQL Server 2022; _never_ restart the production database in business hours."
    assert check_answer(facts, answer, PLAN, SUPERSEDED) == []
    assert carries_constraint("never restart the database", "__Never__ restart the database.")
    facts = store_of("log=billing_worker.log").facts
    assert check_answer(facts, "log=billing_worker.log") == []
    assert check_answer(facts, "log=_billing_worker.log_") == []


def test_the_example_of_a_value_never_held_is_neither_held_nor_replaced():
    for held, replaced in (("MariaDB 11", []), ("SQL Server 2022", ["MariaDB 11", "Oracle 19c"])):
        memory = store_of("module=Billing", f"database={held}")
        example = example_answers(memory.facts, {"database": replaced})["a value the store never held"]
        (violation,) = check_answer(memory.facts, example, PLAN)
        assert violation.fact.key == "database"
        assert not values_match(violation.stated, held) and all(not values_match(violation.stated, r) for r in replaced)


async def test_a_submitted_value_with_a_period_passes_its_own_answer_and_the_panel_says_the_period_is_kept():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1
    p.message.value = "module=Payroll."
    p.submit_button.click()
    await p.idle()
    assert {f.key: f.value for f in p.extraction.memory.facts}["module"] == "Payroll."
    assert "part of the stored value" in p.diagnostic.value
    for answer in ("module=Payroll.", "The module is Payroll.", "module=Payroll"):
        p.answer.value = answer
        await p.check()
        assert "No violation" in p.verdict.value, answer
    await p.check("The module is Billing.")
    (row,) = violation_rows(p.result)
    assert "a correction replaced" in row["why"]


async def test_after_forget_all_the_panel_says_the_replaced_values_went_too():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    assert "Reporting" in p.replaced.value
    p.forget_all_button.click()
    await p.idle()
    assert "Forget all also cleared the replaced values: none is flagged now." in p.replaced.value
    p.message.value = "module=Billing"
    p.submit_button.click()
    await p.idle()
    # the next message is a new action: the forget's note goes, and the line says what holds now
    assert "Forget all" not in p.replaced.value and "No replaced value is flagged now." in p.replaced.value
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    assert 'module: "Billing"' in p.replaced.value  # a new correction is listed again


async def test_an_accepted_submit_empties_the_message_box_and_a_refused_one_keeps_it():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    assert p.message.value == "" and p.submit_button.disabled and "Stored: module." in p.diagnostic.value
    p.message.value = "Module=Payroll"  # a near miss: nothing stored, the student fixes it in place
    p.submit_button.click()
    await p.idle()
    assert p.message.value == "Module=Payroll" and "Nothing stored" in p.diagnostic.value


def test_the_traces_decision_joins_problems_without_doubling_the_punctuation():
    facts = lesson_store().facts
    violations = tuple(check_answer(facts, "module=Reporting; database=PostgreSQL"))
    trace = LoopTrace()
    check = FactCheck(iteration=1, facts=facts, answer="x", violations=violations, feedback="f")
    _trace_check(trace, check)
    did = trace.rows[0].did
    assert ".;" not in did and did.endswith("as the current database.") and did.count("; ") == 1


def test_a_title_in_underscore_bold_names_a_topic_as_one_in_star_bold_does():
    facts = lesson_store().facts
    for mark in ("**", "__"):
        answer = f"{mark}Database Migration Notes{mark}\nBilling on SQL Server 2022."
        assert check_answer(facts, answer, PLAN.replace("Plan the fix: ", ""), SUPERSEDED) == [], mark


def test_the_examples_state_a_value_kept_with_its_period_as_a_sentence_would():
    memory = store_of("module=Payroll.", "database=SQL Server 2022")
    for task in (PLAN, "Which module and database are we on?"):
        answers = example_answers(memory.facts, {}, task)
        doubled = [text for text in answers.values() if any(f"Payroll{mark}" in text for mark in (".;", "..", ". on"))]
        assert doubled == []
        assert check_answer(memory.facts, answers["a right one"], task) == []
