"""Lesson 07's panel (issue 32, sixth walk): a value said again with a period does not read, in a violation's "why",
as if it replaced itself."""

from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import why_of

from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction


async def submit(p: CapstonePanel, message: str) -> None:
    p.message.value = message
    p.submit_button.click()
    await p.idle()


async def test_a_value_said_again_with_a_period_does_not_read_as_replacing_itself():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1  # the task that only asks: no constraint due
    for message in ("module=Payroll", "module=Payroll.", "module=Payroll"):
        await submit(p, message)
    first = p.corrections["module"]["Billing"].turn  # the turn of the correction that replaced Billing
    last = next(f.turn for f in p.extraction.memory.facts if f.key == "module")
    why = await why_of(p, "module=Billing")
    assert why == (  # every turn it was said again, not only the latest (twelfth walk)
        f'a correction replaced it: the user said "module=Payroll" at turn {first}, '
        f"and said the same value again at turns {first + 1} and {last}."
    )


async def test_a_later_correction_to_another_value_is_still_named_in_the_why():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1  # the task that only asks: no constraint due
    await submit(p, "module=Payroll")
    await submit(p, "module=Ledger")
    why = await why_of(p, "module=Billing")
    assert why.startswith('"Payroll" replaced it at turn ')  # the chain in order (walk 19)
    assert 'then "Ledger" replaced "Payroll" at turn ' in why and why.endswith('; the store holds "Ledger".')
