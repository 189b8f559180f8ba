"""Lesson 07 (issue 32, walk 6): a value in the contract's form ends where the next ``key=`` begins; the lesson's
eviction tie rule and how to check an answer again after a correction.

``module=Reporting `` typed 400 times in the panel's Answer box read as one value, "Reporting module=Reporting
module=Report…", and the panel said the store "never held" it. The rule (answer_reader): a contract-form value runs
to the next ``key=`` of an allowed key, or to the next ``;`` or line break, so each statement in such a run is read
on its own. The panel then says what it says of any replaced value, whatever the answer around it.

Sections 3 and 4 say which of several facts from one turn a full store pushes out first (the store's rule: oldest
turn, then alphabetical key), which the eviction table needs; section 8's "Things to try" says that after a
correction the Try answers follow the store, so the first answer is checked again without picking again.
"""

from __future__ import annotations

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import why_of
from test_student_path import lesson

from course_lib.answer_reader import CUT_MARK, check_answer, stated_values, verdict
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.memory import FactCandidate, WorkingMemory

LESSON = "07_loop_held_to_the_facts"


def test_a_repeated_statement_reads_as_each_of_its_values():
    run = "module=Reporting " * 400
    assert stated_values(run)[:2] == [("module", "Reporting"), ("module", "Reporting")]
    assert all(value == "Reporting" for _, value in stated_values(run))


@pytest.mark.parametrize(
    ("answer", "want"),
    [
        ("module=Reporting " * 400, "module: Reporting"),
        ("module=Billing database=PostgreSQL", "database: PostgreSQL"),  # no separator between two statements
        ("module=Reporting database=SQL Server 2022", "module: Reporting"),
        ("database=SQL Server 2022 module=Billing", "pass"),
        ("module=Billing;database=SQL Server 2022", "pass"),
    ],
)
def test_a_contract_value_ends_at_the_next_key_statement(answer, want):
    found = check_answer(lesson_store().facts, answer, "Which module?", SUPERSEDED)
    assert verdict(found) == want
    assert CUT_MARK not in verdict(found)  # a statement that ends at the next key is read whole, not in part


def test_a_key_word_without_equals_does_not_end_a_value():
    # "database" inside a constraint's words is not a statement: the constraint reads whole
    stated = stated_values("constraint=never restart the production database during business hours")
    assert stated == [("constraint", "never restart the production database during business hours")]


def test_a_run_past_the_bound_with_no_next_key_is_still_marked_cut():
    (_, value), *_ = stated_values("module=" + "Reporting " * 100)
    assert value.endswith(CUT_MARK)


async def test_the_panel_why_reads_the_repeated_run_as_a_replaced_value():
    panel = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    panel.task.index = 1  # the task that only asks: no constraint due
    one = await why_of(panel, "module=Reporting")
    many = await why_of(panel, "module=Reporting " * 400)
    assert many == one
    assert many.startswith("a correction replaced it")


def _words(cell_id: str) -> str:
    return " ".join("".join(next(c for c in lesson(LESSON).cells if c.get("id") == cell_id).source).split())


TIE_RULE = "among facts from the same turn, the key first in alphabetical order goes first"


def test_the_tie_rule_is_said_where_eviction_is_described_and_is_the_store_s_rule():
    # turn 1 declares three keys at once; two more keys fill the store, a sixth and a seventh push out turn 1's keys
    memory = WorkingMemory()
    turns = [["product", "module", "database"], ["constraint"], ["customer"], ["version"], ["environment"]]
    gone = []
    for keys in turns:
        before = {f.key for f in memory.facts}
        said = "; ".join(f"{k}=x" for k in keys)
        memory.apply(memory.begin_turn(said), [FactCandidate(key=k, value="x", evidence=said) for k in keys])
        gone += sorted(before - {f.key for f in memory.facts})
    assert gone == ["database", "module"]  # the same turn: alphabetical order
    assert TIE_RULE in _words("5e87e929")  # section 4, where eviction is described (walk 21: not section 3's intro)


def test_things_to_try_says_how_to_check_the_first_answer_again():
    words = _words("capstone-panel-intro")
    # walk 25 (third round): each step says what it shows
    assert "press **Check answer** again: your answer, still in the box, now breaks the rule" in words
    assert "Then pick *a stale one* again: it now states `Billing`" in words
