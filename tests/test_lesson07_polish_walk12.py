"""Lesson 07 (issue 32, twelfth walk): the panel's "why" and the lesson's words.

A violation's "why" names every turn the user said the stored value again, not only the latest: Payroll at turn 6,
`module = Payroll; database=MariaDB 11` at turn 7 and `Payroll.` at turn 8 read "said the same value again at turn
8", leaving out turn 7, which the panel had reported as "only its turn moved". The rule holds for every reason that
cites the stored value: a replaced value, one the store never held, one a forget cleared.

The lesson's words: the first objective joins the halves and a bullet of its own states the evaluator's two rules;
section 8's first bullet is short (the panel itself says what each action did); the note above the panel names a
kernel restart among the times to run its cell again.
"""

from __future__ import annotations

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store
from support.panels import why_of
from test_student_path import lesson

from course_lib.capstone_panel import CapstonePanel, said_runs
from course_lib.extraction import make_extraction
from course_lib.memory import FactCandidate, WorkingMemory

REPEATS = ("module=Payroll", "module = Payroll; database=MariaDB 11", "module=Payroll.")
"""The walk's three messages: the correction, the same value in a longer message, the same value with a period."""


async def panel_after(*messages: str) -> CapstonePanel:
    """Lesson 07's store (turns 1 to 5) in the panel, then ``messages`` submitted one by one, the ask task chosen."""
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1  # the task that only asks: no constraint due
    for message in messages:
        p.message.value = message
        p.submit_button.click()
        await p.idle()
    return p


def turn_of(p: CapstonePanel, key: str) -> int:
    return next(f.turn for f in p.extraction.memory.facts if f.key == key)


async def test_the_walk_s_case_names_both_turns_the_value_was_said_again():
    p = await panel_after(*REPEATS)
    assert turn_of(p, "module") == 8  # the walk's turns 10, 14, 16 are 6, 7, 8 on this store
    why = await why_of(p, "module=Billing")
    assert why == (
        'a correction replaced it: the user said "module=Payroll" at turn 6, '
        "and said the same value again at turns 7 and 8."
    )


@pytest.mark.parametrize(
    ("answer", "start"),
    [
        ("module=Reporting", 'a correction replaced it; the store holds "Payroll." since '),  # replaced before
        ("module=Ledger", 'the store never held "Ledger" for module: it holds "Payroll." since '),  # never held
    ],
)
async def test_every_reason_citing_the_stored_value_names_its_first_turn_and_each_turn_again(answer, start):
    p = await panel_after(*REPEATS)
    why = await why_of(p, answer)
    assert why == f'{start}the user said "module=Payroll" at turn 6, and said the same value again at turns 7 and 8.'


async def test_a_value_said_once_again_names_one_turn_and_a_value_said_once_names_none():
    once = await panel_after("module=Payroll", "module=Payroll")
    assert (await why_of(once, "module=Billing")).endswith("at turn 6, and said the same value again at turn 7.")
    never = await panel_after("module=Payroll")
    assert (
        await why_of(never, "module=Billing") == 'a correction replaced it: the user said "module=Payroll" at turn 6.'
    )


async def test_a_value_the_store_held_before_the_panel_counts_its_own_turn_first():
    p = await panel_after("module=Billing")  # Billing is lesson_store's turn 4: said again at turn 6
    why = await why_of(p, "module=Reporting")
    assert why == (
        'a correction replaced it; the store holds "Billing" since the user said "module=Billing" at turn 4, '
        "and said the same value again at turn 6."
    )


async def test_another_value_or_a_forget_starts_the_count_afresh():
    changed = await panel_after("module=Payroll", "module=Payroll", "module=Ledger")
    why = await why_of(changed, "module=Billing")
    assert why.endswith('then "Ledger" replaced "Payroll" at turn 8; the store holds "Ledger".'), why
    assert "again" not in why
    forgot = await panel_after("module=Payroll", "module=Payroll")
    forgot.forget("module")
    forgot.message.value = "module=Payroll"
    forgot.submit_button.click()
    await forgot.idle()
    why = await why_of(forgot, "module=Ledger")
    assert why.endswith(f'it holds "Payroll" since the user said "module=Payroll" at turn {turn_of(forgot, "module")}.')
    assert "again" not in why


def test_said_runs_follows_the_store_message_by_message():
    memory = WorkingMemory(2)
    runs: dict = {}
    for said in ("module=Payroll", "database=MariaDB", "module=Payroll.", "product=Contoso"):
        before = {f.key: f for f in memory.facts}
        key, _, value = said.partition("=")
        memory.apply(memory.begin_turn(said), [FactCandidate(key=key, value=value, evidence=said)])
        runs = said_runs(runs, before, memory.facts)
    # product pushed database out (the oldest turn); module keeps both turns it was said
    assert {key: [f.turn for f in run] for key, run in runs.items()} == {"module": [1, 3], "product": [4]}


# region The lesson's words

LESSON = "07_loop_held_to_the_facts"


def _markdown(cell_id: str) -> str:
    return "".join(next(c for c in lesson(LESSON).cells if c.get("id") == cell_id).source)


def test_the_opening_joins_the_halves_and_the_two_rules_have_their_own_bullet():
    """The halves (the store, the loop, the check) open the lesson, above the objectives since the fifteenth walk:
    as an objective they made six, one more than a lesson has (tests/test_reading.py)."""
    opening, objectives = _markdown("6ae511d1").split("**You will be able to**")
    assert "This lesson joins the course's two halves:" in opening
    bullets = [line for line in objectives.split("*About")[0].splitlines() if line.startswith("- ")]
    assert bullets[0] == "- state the evaluator's two rules (section 1);"
    # the word is defined where it first appears: in the bullet just above the objective that uses it
    first = opening.index("evaluator")
    assert opening[first - 2 : first + len("evaluator") + 2] == "**evaluator**"


def test_section_8_s_first_bullet_is_short_and_the_panel_says_what_happened():
    intro = _markdown("capstone-panel-intro")
    first = intro.split("* **1. The store**")[1].split("\n  * ")[0]
    assert len(first.splitlines()) <= 3 and " ".join(first.split()).endswith(
        "The lines under the box say what happened."
    )
    for status in ("*Stored*", "*Refused*", "*Not stored*", "*Nothing stored*", "*Forgot*"):
        assert status not in intro  # the panel's own lines say these; the text does not list them


def test_the_note_above_the_panel_names_a_kernel_restart():
    said = " ".join(_markdown("capstone-panel-intro").replace("*", "").split())
    assert (
        "After a kernel restart or a reopen, run the cells above it first (Run > Run All Above Selected Cell)." in said
    )
