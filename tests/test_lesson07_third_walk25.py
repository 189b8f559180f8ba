"""Walk 25, third round, on lesson 07 (issue 32): the sentences a new student read twice, and one that contradicted
section 7.

1. Section 2 says the ``[facts check]`` message is marked as the loop's own (section 7), not taken as the user's.
2. Section 4 says why ``product`` went at turn 6, in two sentences that match the table.
3. Section 3's second bullet is two sentences: the host's shared store, then the *facts* policy's own.
4. Section 9's first thing to try says what each step shows.
5. A correction's note says who said the replaced value at its turn (lesson 02's memory panel and lesson 07's).
6. The takeaways say what **deterministic** means.
"""

from __future__ import annotations

from support.lesson_cells import cell_source, words
from support.panels import memory_panel, said, submit

from course_lib.capstone_panel import CapstonePanel
from course_lib.loop import loop_attribution
from course_lib.policies import load_timeline


def test_section_2_says_the_feedback_is_marked_as_the_loops_own_as_section_7_shows() -> None:
    text = words(cell_source("07", "27df2e29"))
    assert "as if the user wrote it" not in text
    assert (
        "in a `[facts check]` message. The loop adds it as a user-role message, marked as the loop's own "
        "(section 7), so the store never takes it as the user's words." in text
    )
    assert "labels every message it adds" in words(cell_source("07", "75b47281"))
    assert loop_attribution()["source_id"] == "loop"  # the mark section 7 names


def test_section_4_says_why_product_went_at_turn_6() -> None:
    text = words(cell_source("07", "5e87e929"))
    assert "`database` had been pushed out at turn 4, so it came back as a new key and needed room." in text
    assert "The oldest fact left was `product` (turn 1), so `product` went." in text


def test_section_3_says_which_store_checks_which_policy_in_two_sentences() -> None:
    text = words(cell_source("07", "10ead7db"))
    assert (
        "for every policy but *facts*, the evaluator checks answers against one shared store, filled from turns 1-9 "
        "by the **host** (the course's code that decides what is stored)." in text
    )
    assert "stored). The *facts* policy has its own store, and its answers are checked against that one;" in text


def test_the_first_thing_to_try_says_what_each_step_shows() -> None:
    text = words(cell_source("07", "capstone-panel-intro"))
    assert "Check *a stale one*: 3 violations." in text
    assert "your answer, still in the box, now breaks the rule against `Payroll`." in text
    assert "Then pick *a stale one* again: it now states `Billing`, the value your correction replaced." in text


async def test_a_correction_note_says_the_user_said_the_replaced_value_at_its_turn() -> None:
    panel = memory_panel()
    await submit(panel, "customer=Northwind")
    await submit(panel, "customer=Contoso")
    assert 'customer: "Contoso" replaced "Northwind" (which the user said at turn 1).' in said(panel)
    p = await CapstonePanel.from_timeline(load_timeline())
    await submit(p, "module=Payroll")
    assert 'module: "Payroll" replaced "Billing" (which the user said at turn 6).' in said(p)
    assert "(said at turn" not in said(p)


def test_the_takeaways_say_what_deterministic_means() -> None:
    assert "A deterministic evaluator (same answer, same verdict)" in words(cell_source("07", "student-takeaways"))


async def test_each_step_of_the_first_thing_to_try_shows_what_the_lesson_says() -> None:
    p = await CapstonePanel.from_timeline(load_timeline())
    p.examples.value = stale = dict(p.examples.options)["a stale one"]
    p.check_button.click()
    await p.idle()
    assert "3 violations" in p.verdict.value
    await submit(p, "module=Payroll")
    assert p.answer.value == stale  # still in the box
    p.check_button.click()
    await p.idle()
    assert "Payroll" in p.verdict.value + p.feedback.value  # the same answer now breaks the rule against Payroll
    assert "Billing" in dict(p.examples.options)["a stale one"]
