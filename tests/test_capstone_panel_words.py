"""Lesson 07's panel says what the store lets it say (issue 32, round 3 walk).

Values are quoted in its sentences ("Payroll." ends no sentence), an answer about a forgotten key is told why it
passed, the answers to try come from the store alone, and a violation shows the student's own spelling.
"""

from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.capstone_panel import CapstonePanel, example_answers, violation_rows
from course_lib.extraction import make_extraction


def panel(task: int = 1) -> CapstonePanel:
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = task
    return p


async def run(p: CapstonePanel, *, message: str = "", answer: str = "", forget: str | None = None) -> None:
    if message:
        p.message.value = message
        p.submit_button.click()
    if forget == "all":
        p.forget_all_button.click()
    elif forget:
        p.key.value = forget
        p.forget_key_button.click()
    await p.idle()  # a change of the store takes the verdict off: the check comes after it
    if answer:
        p.answer.value = answer
        p.check_button.click()
    await p.idle()


async def test_a_value_ending_in_a_period_is_quoted_in_the_why():
    p = panel()
    await run(p, message="module=Payroll.", answer="module=Reporting")
    (row,) = violation_rows(p.result)
    assert 'the store holds "Payroll." since the user said "module=Payroll." at turn' in row["why"]
    await run(p, answer="module=Inventory")
    (row,) = violation_rows(p.result)
    assert row["why"].startswith('the store never held "Inventory" for module: it holds "Payroll." since')


async def test_an_answer_about_a_forgotten_key_is_told_the_key_is_no_longer_in_the_store():
    p = panel()
    await run(p, forget="module", answer="module=Reporting")
    said = p.verdict.value
    assert "No violation" in said and "module is no longer in the store, so there is nothing to hold" in said
    assert "leaves a fact out" not in said


async def test_the_answers_to_try_come_from_the_store_and_none_when_it_is_empty():
    p = panel()
    await run(p, forget="module")
    tries = dict(p.examples.options)
    assert all("Billing" not in text and "Reporting" not in text for text in tries.values())
    assert "SQL Server 2022" in tries["a right one"]
    await run(p, forget="all")
    assert [label for label, _ in p.examples.options] == ["(nothing to try: the store is empty)"]
    assert example_answers([], {}) == {}


def test_every_answer_to_try_on_a_partial_store_names_only_held_values():
    facts = lesson_store().facts
    for kept in (("database",), ("module",), ("constraint",), ("module", "constraint")):
        some = [f for f in facts if f.key in kept]
        for task in ("Plan the fix: which module and database, and what must we never do?", "Which module?"):
            for label, text in example_answers(some, {}, task).items():
                for absent in {"module": "Billing", "database": "SQL Server 2022"}.items():
                    if absent[0] not in kept:
                        assert absent[1] not in text, (kept, task, label, text)


async def test_a_violation_shows_the_answer_as_the_student_wrote_it():
    p = panel()
    await run(p, answer="We are on the REPORTING module.")
    (row,) = violation_rows(p.result)
    assert row["your answer says"] == "REPORTING"


async def test_the_note_on_a_kept_period_follows_the_status_line_without_a_blank_line():
    p = panel()
    await run(p, message="module=Payroll.")
    shown = p.diagnostic.value
    # the note, then the line on the Message box (walk 12), both inside the status block
    assert "</div><br>" not in shown and "matches either.<br>" in shown and shown.count("</div>") == 1


async def test_a_verdict_with_violations_also_says_which_stated_keys_nothing_holds():
    p = panel(task=0)  # the final question: the constraint is due
    await run(p, forget="module", answer="module=Reporting")
    assert "1 violation" in p.verdict.value
    assert "Note: module is no longer in the store, so there is nothing to hold that part" in p.verdict.value


async def test_the_replaced_values_line_quotes_each_value():
    p = panel()
    await run(p, message="module=Payroll.")
    await run(p, message="module=Inventory")
    assert '"Payroll." (replaced at turn' in p.replaced.value and 'module: "Reporting"' in p.replaced.value
