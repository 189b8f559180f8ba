"""A battery of answers in the shapes real models write, each with the verdict it deserves and why (issue 34).

The store is lesson 07's at its final question: ``module=Billing`` (corrected from ``Reporting``), ``database=SQL
Server 2022`` (corrected from ``PostgreSQL``) and the constraint "never restart the production database during
business hours". ``ASK`` asks which values hold, so the constraint is not due; ``PLAN`` asks for an action.

``VIOLATIONS`` state a value the store never held (Oracle, MySQL, Inventory...): the answer check has never seen it, so
only the answer's shape can tell it is a claim. ``PASSES`` must pass: restating the store, histories, questions,
titles, a key's word used for something else. ``MISREADS`` are answers the rules still read wrong, each with the
verdict the answer check gives instead of the right one: lesson 07's "where rules fail" shows them, measured.

The answers themselves live in ``course_lib.capstone`` (``ANSWER_BATTERY``), so lesson 07 can count them
(walk 24); this module names them as the tests always have.

Also run as a script (``python tests/support/capstone_battery.py``): it prints the battery's verdicts on the
answer check that ``course_lib`` resolves to, and its counts (how the "before" figures of issue 34 were
measured); with ``--time``, the time to read a 64 KiB answer of several shapes.
"""

from __future__ import annotations

from course_lib.capstone import (
    ANSWER_BATTERY,
    BATTERY_ASK,
    BATTERY_CONSTRAINT,
    BATTERY_LOCAL_MODEL,
    BATTERY_MISREADS,
    BATTERY_PASSES,
    BATTERY_PLAN,
    BATTERY_STALE,
    BATTERY_VIOLATIONS,
    BatteryCase,
    check_answer,
    verdict,
)
from course_lib.memory import FactCandidate, WorkingMemory

CONSTRAINT = BATTERY_CONSTRAINT
ASK = BATTERY_ASK
PLAN = BATTERY_PLAN
SUPERSEDED = {"module": ["Reporting"], "database": ["PostgreSQL"]}
STORE = (
    "module=Reporting",
    "database=PostgreSQL",
    f"constraint={CONSTRAINT}",
    "module=Billing",
    "database=SQL Server 2022",
)
"""The declarations, in turn order, that make the store (a correction replaces the value)."""


Case = BatteryCase
VIOLATIONS: list[Case] = BATTERY_VIOLATIONS
PASSES: list[Case] = BATTERY_PASSES
STALE: list[Case] = BATTERY_STALE
LOCAL_MODEL: list[Case] = BATTERY_LOCAL_MODEL
MISREADS: list[tuple[Case, str]] = BATTERY_MISREADS
BATTERY: list[Case] = ANSWER_BATTERY


def store_of(*declarations: str) -> WorkingMemory:
    """A store of 8 facts that admitted each ``key=value`` declaration in its own turn, its evidence the whole line."""
    memory = WorkingMemory(8)
    for said in declarations:
        key, _, value = said.partition("=")
        memory.apply(memory.begin_turn(said), [FactCandidate(key=key, value=value, evidence=said)])
    return memory


def lesson_store() -> WorkingMemory:
    """Lesson 07's store at its final question, made from ``STORE``'s declarations turn by turn."""
    return store_of(*STORE)


def read(case: Case) -> str:
    """The verdict the current answer check gives ``case`` against lesson 07's store."""
    return verdict(check_answer(lesson_store().facts, case.answer, case.task, SUPERSEDED))


def time_64_kib() -> None:
    """Print the best of five times to read a 64 KiB answer: the battery's answers one after another, and shapes
    that repeat one key or one value (where an answer check that backtracks or rescans shows)."""
    import time

    shapes = {
        "the battery, repeated": "\n".join(case.answer for case in BATTERY) + "\n",
        "Module Billing, database MySQL.": "Module Billing, database MySQL. ",
        "key words only": "module database ",
        "a table of keys": "| Database | Oracle |\n",
        "from X to Y": "from Reporting to ",
        "capital words": "A Zeta ",
    }
    for name, unit in shapes.items():
        text = (unit * (65536 // len(unit) + 1))[:65536]
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            read(Case(text, "?", "", PLAN))
            best = min(best, time.perf_counter() - start)
        print(f"64 KiB of {name!r}: {best * 1000:.0f} ms")


def main() -> None:
    """Print each case's verdict on the answer check ``course_lib`` resolves to, then the counts per group."""
    groups = (
        ("never-held values", VIOLATIONS),
        ("must pass", PASSES),
        ("stale values", STALE),
        ("local model", LOCAL_MODEL),
        ("misreads", MISREADS),
    )
    for group, cases in groups:
        right = 0
        for case in [c if isinstance(c, Case) else c[0] for c in cases]:
            got = read(case)
            right += got == case.verdict
            mark = "ok " if got == case.verdict else "BAD"
            print(f"{mark} {group:18} want {case.verdict!r:30} got {got!r:40} {case.answer!r:.70}")
        print(f"== {group}: {right} of {len(cases)} right")


if __name__ == "__main__":
    import sys

    time_64_kib() if "--time" in sys.argv else main()
