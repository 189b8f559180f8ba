"""FactsConsistencyEvaluator reads prose: a battery of hand-written answers, each with the verdict it must get.

The store is lesson 07's at its final question: ``module=Billing`` (corrected from ``Reporting``),
``database=SQL Server 2022`` (corrected from ``PostgreSQL``) and the constraint "never restart the production
database during business hours". ``PLAN`` asks for an action, so the constraint is due; ``ASK`` does not.
A verdict is :func:`~course_lib.capstone.verdict`'s: ``pass``, ``key: stated value``, ``constraint missing``.
"""

import time

import pytest
from agent_framework import AgentResponse, AgentSession, BaseAgent, Message

from course_lib.capstone import FactsConsistencyEvaluator, check_answer, stated_values, verdict
from course_lib.loop import LoopContext
from course_lib.memory import FactCandidate, WorkingMemory

CONSTRAINT = "never restart the production database during business hours"
PLAN = "Plan the fix: which module and database, and what must we never do?"
ASK = "Before we start: which module and database are we on?"
SUPERSEDED = {"module": ["Reporting"], "database": ["PostgreSQL"]}


def lesson_store() -> WorkingMemory:
    memory = WorkingMemory(8)
    for text in (
        "module=Reporting; database=PostgreSQL",
        f"constraint={CONSTRAINT}",
        "module=Billing; database=SQL Server 2022",
    ):
        candidates = [
            FactCandidate(key=k, value=v, evidence=f"{k}={v}")
            for k, _, v in (part.strip().partition("=") for part in text.split(";"))
        ]
        memory.apply(memory.begin_turn(text), candidates)
    return memory


MEMORY = lesson_store()
C = "Never restart the production database during business hours."

BATTERY: list[tuple[str, str, str, str]] = [
    # (name, task, answer, verdict)
    # -- correct
    ("contract form", ASK, "module=Billing; database=SQL Server 2022", "pass"),
    ("sentence", ASK, "You are on the Billing module, with SQL Server 2022 as the database.", "pass"),
    ("copula", ASK, "The module is Billing and the database is SQL Server 2022.", "pass"),
    ("lower case", ASK, "the module is billing and the database is sql server 2022.", "pass"),
    ("plan with constraint", PLAN, f"Fix the Billing module on SQL Server 2022. {C}", "pass"),
    (
        "constraint paraphrased",
        PLAN,
        "Patch Billing on SQL Server 2022, but do not restart the production database in business hours.",
        "pass",
    ),
    (
        "constraint inflected",
        PLAN,
        "Billing on SQL Server 2022. Avoid restarting the production database during business hours.",
        "pass",
    ),
    (
        "markdown list",
        PLAN,
        "**Plan**\n- **Module:** Billing\n- **Database:** `SQL Server 2022`\n- **Never** restart the production "
        "database during business hours.",
        "pass",
    ),
    ("markdown table", ASK, "| key | value |\n|---|---|\n| module | Billing |\n| database | SQL Server 2022 |", "pass"),
    ("value in a longer phrase", ASK, "The Billing module's worker runs against SQL Server 2022 in staging.", "pass"),
    (
        "rambling correct",
        PLAN,
        "Thanks for the details! Let me think this through step by step. Since you are working on the Billing "
        "module, and your database is SQL Server 2022, the duplicated invoices after a retry point at the worker. "
        f"I would first read billing-worker.log. Remember: {C} Hope this helps!",
        "pass",
    ),
    ("trailing note", ASK, "module = billing (corrected at turn 3); database: SQL Server 2022", "pass"),
    ("omission", ASK, "I need to look at the logs first.", "pass"),
    # -- negations and histories
    ("no longer", ASK, "The module is no longer Reporting: it is Billing, on SQL Server 2022.", "pass"),
    ("moved from", ASK, "You moved from Reporting to Billing and from PostgreSQL to SQL Server 2022.", "pass"),
    ("instead of", ASK, "Use Billing instead of Reporting, and SQL Server 2022 rather than PostgreSQL.", "pass"),
    ("was", ASK, "It was Reporting before; the module is Billing now, on SQL Server 2022.", "pass"),
    ("old in parentheses", ASK, "Module Billing (Reporting (old)), database SQL Server 2022.", "pass"),
    ("replaced", ASK, "PostgreSQL was replaced by SQL Server 2022; the module is Billing.", "pass"),
    ("not", ASK, "Not Reporting: Billing. The database is not PostgreSQL but SQL Server 2022.", "pass"),
    ("formerly", ASK, "Billing (formerly Reporting) on SQL Server 2022, previously PostgreSQL.", "pass"),
    # -- stale
    ("stale contract", ASK, "module=Reporting; database=PostgreSQL", "module: Reporting; database: PostgreSQL"),
    (
        "stale copula",
        ASK,
        "The module is Reporting and the database is PostgreSQL.",
        "module: Reporting; database: PostgreSQL",
    ),
    ("stale without key", ASK, "You're on Reporting with PostgreSQL.", "module: Reporting; database: PostgreSQL"),
    ("stale lower case", ASK, "you are on reporting, backed by postgresql", "module: Reporting; database: PostgreSQL"),
    ("stale bold", ASK, "**Module:** **Reporting**", "module: Reporting"),
    ("stale markdown list", ASK, "- module: Reporting\n- database: SQL Server 2022", "module: Reporting"),
    ("stale in a longer phrase", ASK, "The Reporting module's worker writes to SQL Server 2022.", "module: Reporting"),
    ("stale unknown value", ASK, "The database is MariaDB 11; the module is Billing.", "database: MariaDB 11"),
    ("stale other contract value", ASK, "Use module=Payroll on SQL Server 2022.", "module: Payroll"),
    (
        "stale and constraint kept",
        PLAN,
        f"The module is Billing and the database is PostgreSQL. {C}",
        "database: PostgreSQL",
    ),
    (
        "rambling stale",
        ASK,
        "Great question. Looking at everything you said, I believe the setup is the Billing module and, as far as "
        "I remember, the data lives in PostgreSQL, which is where the invoices are written.",
        "database: PostgreSQL",
    ),
    # -- mixed
    (
        "mixed history then stale",
        ASK,
        "You moved from Reporting to Billing. The database is PostgreSQL.",
        "database: PostgreSQL",
    ),
    ("mixed both named", ASK, "Billing, or maybe Reporting; SQL Server 2022.", "module: Reporting"),
    ("mixed negation elsewhere", ASK, "Do not worry: the module is Reporting.", "module: Reporting"),
    # -- constraints
    ("constraint missing", PLAN, "Fix the Billing module on SQL Server 2022.", "constraint missing"),
    (
        "constraint reversed",
        PLAN,
        "Billing on SQL Server 2022. Restart the production database during business hours.",
        "constraint missing",
    ),
    ("constraint not due", ASK, "Billing on SQL Server 2022.", "pass"),
    ("constraint due by the answer", ASK, "Restart the worker of Billing on SQL Server 2022.", "constraint missing"),
    ("constraint half said", PLAN, "Billing, SQL Server 2022, and never restart anything.", "constraint missing"),
    (
        "constraint contract other",
        PLAN,
        "module=Billing; database=SQL Server 2022; constraint=never restart",
        "constraint: never restart",
    ),
    # -- substrings of other words
    (
        "value inside a word",
        ASK,
        "The Reportings team and PostgreSQLite are unrelated; Billing on SQL Server 2022.",
        "pass",
    ),
    ("key inside a word", ASK, "The submodule is Reporting-free; changelog: Billing on SQL Server 2022.", "pass"),
    ("current inside stale", ASK, "The module is Billingham.", "module: Billingham"),
]


@pytest.mark.parametrize(("task", "answer", "expected"), [b[1:] for b in BATTERY], ids=[b[0] for b in BATTERY])
def test_each_answer_gets_its_verdict(task, answer, expected):
    assert verdict(check_answer(MEMORY.facts, answer, task, SUPERSEDED)) == expected


def test_the_battery_is_large_and_covers_every_verdict_kind():
    assert len(BATTERY) >= 40
    verdicts = {b[3] for b in BATTERY}
    assert "pass" in verdicts and "constraint missing" in verdicts
    assert sum(v == "pass" for v in verdicts) == 1 and len(verdicts) >= 8


class _Inner(BaseAgent):
    def run(self, messages=None, *, stream=False, session=None, **kwargs):
        raise AssertionError("not run")


async def test_the_evaluator_learns_a_superseded_value_when_it_sees_the_store_corrected():
    memory = WorkingMemory()
    memory.apply(
        memory.begin_turn("module=Reporting"),
        [FactCandidate(key="module", value="Reporting", evidence="module=Reporting")],
    )
    evaluator = FactsConsistencyEvaluator(memory)
    memory.apply(
        memory.begin_turn("module=Billing"), [FactCandidate(key="module", value="Billing", evidence="module=Billing")]
    )
    response = AgentResponse(messages=[Message(role="assistant", contents=["You are on Reporting."])])
    context = LoopContext(_Inner(), AgentSession(), [Message(role="user", contents=["Which module?"])], response)
    evaluation = await evaluator.evaluate(context)
    assert evaluation.should_reinvoke and "names Reporting as the current module" in evaluation.feedback
    assert evaluator.superseded == {"module": ["Reporting"]}


def _read_once(text: str) -> float:
    start = time.process_time()
    stated_values(text)
    check_answer(MEMORY.facts, text, PLAN, SUPERSEDED)
    return time.process_time() - start


@pytest.mark.parametrize("unit", ["*", "module", "module=", "Reporting ", "no longer ", "a. ", "*module*: "])
def test_reading_is_linear_in_the_answers_length(unit):
    """A 64 KiB answer is read well under a second, and eight times the text costs about eight times the time.

    The two sizes are timed in turn, five times each, and the best of each is kept, so both see the same load.
    The ratio bound is 48 (linear is 8, the old quadratic reader gave about 64; a loaded machine has shown 28);
    the absolute bound is 0.75 s (measured on an idle core: 0.04 to 0.22 s for 64 KiB; the quadratic reader took
    3.4 s for 8 KiB). A small timing below 10 ms counts as 10 ms: a loaded machine gave 1.9 ms against 99 ms.
    The time is this process's CPU time: under ``make test``'s workers and other work on two cores, the wall clock
    gave 0.85 s for 64 KiB of ``"Reporting "`` that took 0.07 s of CPU (issue 34's reader).
    """
    small = (unit * (8192 // len(unit) + 1))[:8192]
    large = (unit * (65536 // len(unit) + 1))[:65536]
    t_small = t_large = float("inf")
    for _ in range(5):
        t_small = min(t_small, _read_once(small))
        t_large = min(t_large, _read_once(large))
    assert t_large < 0.75, f"{t_large:.3f} s for 64 KiB of {unit!r}"
    # Below 10 ms a timing is mostly noise (one collection or load burst doubles it): the ratio is judged above that.
    assert t_large < 48 * max(t_small, 1e-2), f"8 KiB: {t_small:.4f} s, 64 KiB: {t_large:.4f} s"


def test_the_issues_own_example_a_value_followed_by_more_of_the_sentence():
    memory = WorkingMemory()
    for text in ("module=Payroll", "module=Ledger", "database=MariaDB 11"):
        key, _, value = text.partition("=")
        memory.apply(memory.begin_turn(text), [FactCandidate(key=key, value=value, evidence=text)])
    superseded = {"module": ["Payroll"]}
    assert verdict(check_answer(memory.facts, "Use module=Payroll on MariaDB 11.", "", superseded)) == "module: Payroll"
    assert check_answer(memory.facts, "Use module=Ledger on MariaDB 11.", "", superseded) == []
