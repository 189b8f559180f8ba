"""A battery of answers in the shapes real models write, each with the verdict it deserves and why (issue 34).

The store is lesson 07's at its final question: ``module=Billing`` (corrected from ``Reporting``), ``database=SQL
Server 2022`` (corrected from ``PostgreSQL``) and the constraint "never restart the production database during
business hours". ``ASK`` asks which values hold, so the constraint is not due; ``PLAN`` asks for an action.

``VIOLATIONS`` state a value the store never held (Oracle, MySQL, Inventory...): the answer check has never seen it, so
only the answer's shape can tell it is a claim. ``PASSES`` must pass: restating the store, histories, questions,
titles, a key's word used for something else. ``MISREADS`` are answers the rules still read wrong, each with the
verdict the answer check gives instead of the right one: lesson 07's "where rules fail" shows them, measured.

Also run as a script (``python tests/support/capstone_battery.py``): it prints the battery's verdicts on the
answer check that ``course_lib`` resolves to, and its counts (how the "before" figures of issue 34 were
measured); with ``--time``, the time to read a 64 KiB answer of several shapes.
"""

from __future__ import annotations

from typing import NamedTuple

from course_lib.capstone import check_answer, verdict
from course_lib.memory import FactCandidate, WorkingMemory

CONSTRAINT = "never restart the production database during business hours"
ASK = "Which module and database are we on?"
PLAN = "Plan the fix: which module and database, and what must we never do?"
SUPERSEDED = {"module": ["Reporting"], "database": ["PostgreSQL"]}
STORE = (
    "module=Reporting",
    "database=PostgreSQL",
    f"constraint={CONSTRAINT}",
    "module=Billing",
    "database=SQL Server 2022",
)
"""The declarations, in turn order, that make the store (a correction replaces the value)."""


class Case(NamedTuple):
    """One answer, the question it answers, the verdict it deserves and the one-line reason."""

    answer: str
    verdict: str
    reason: str
    task: str = ASK


VIOLATIONS: list[Case] = [
    Case("The module is Billing and the database is Oracle.", "database: Oracle", "the clause after 'and'"),
    Case("Module Billing, database MySQL.", "database: MySQL", "a key then its value, no verb"),
    Case("Billing module, Oracle database.", "database: Oracle", "a value then its key"),
    Case("Work in Billing. For the database, use MySQL.", "database: MySQL", "'for the key, use value'"),
    Case("Use Oracle for the database and Billing for the module.", "database: Oracle", "'value for the key'"),
    Case("| Key | Value |\n|---|---|\n| Module | Billing |\n| Database | Oracle |", "database: Oracle", "a table row"),
    Case(
        "The fix belongs in the Inventory module on SQL Server 2022.",
        "module: Inventory; constraint missing",
        "'the value key' inside a sentence; a fix, so the constraint is due",
    ),
    Case("**Database:** MariaDB 10.6", "database: MariaDB 10.6", "a bold label, a value with a version"),
    Case("- Module: Payroll\n- Database: SQL Server 2022", "module: Payroll", "a list item"),
    Case(
        "## Plan\n1. Open the Shipping module.\n2. Check SQL Server 2022.",
        "module: Shipping; constraint missing",
        "a numbered step; a plan without the constraint",
        PLAN,
    ),
    Case("The database is SQL Server 2019.", "database: SQL Server 2019", "the stored product, another version"),
    Case("You're on the Billing module (database: MongoDB).", "database: MongoDB", "in parentheses"),
    Case(
        "THE MODULE IS INVOICING AND THE DATABASE IS SQL SERVER 2022.",
        "module: INVOICING",
        "all capitals",
    ),
    Case("the module is billing and the database is MySQL", "database: MySQL", "lower case around the value"),
    Case(
        "| Module | Database |\n|---|---|\n| Billing | DynamoDB |", "database: DynamoDB", "a table with keys as headers"
    ),
    Case("The database stays Oracle; the module is Billing.", "database: Oracle", "'stays'"),
    Case(
        "Your module: Accounts Payable. Database: SQL Server 2022.", "module: Accounts Payable", "a value of two words"
    ),
    Case("We use Cassandra as the database for Billing.", "database: Cassandra", "'value as the key'"),
    Case("Billing runs on the SQLite database.", "database: SQLite", "'the value key' after a verb"),
    Case("Database = Redis, module = Billing", "database: Redis", "the contract's form, spaced, capital key"),
    Case("**Billing** module, **Aurora MySQL** database", "database: Aurora MySQL", "bold values before their keys"),
    Case(
        "Target the `Ledger` module on SQL Server 2022.",
        "module: Ledger; constraint missing",
        "a value in backticks",
        PLAN,
    ),
    Case("Module is Billing, database is Sybase.", "database: Sybase", "after a comma"),
    Case("For the module, choose Payments; the database is SQL Server 2022.", "module: Payments", "'choose'"),
    Case("The Billing module and the Oracle database are affected.", "database: Oracle", "'the value key' twice"),
    Case("Database: SQL Server 2019 (on-prem)", "database: SQL Server 2019", "a note in parentheses after the value"),
    Case("Environment aside, the database is Azure SQL.", "database: Azure SQL", "another key's word nearby"),
    Case(
        "- **Module**: Billing\n- **Database**: *PostgreSQL 15*", "database: PostgreSQL 15", "an old name, new version"
    ),
    Case("(Module: Billing, Database: Informix)", "database: Informix", "labels inside parentheses"),
    Case("The answer: the Billing module, on an Oracle database.", "database: Oracle", "'an value key'"),
    Case("Module\u2014Billing; Database\u2014Teradata", "database: Teradata", "em dashes"),
    Case(
        "1. **Module** \u2013 Billing\n2. **Database** \u2013 Oracle Exadata",
        "database: Oracle Exadata",
        "en dashes, a list",
    ),
    Case("I'd keep the Billing module and move the database to MySQL.", "database: MySQL", "a plan to another value"),
    Case(
        "Fix the Billing module; your DB is MySQL 8.",
        "database: MySQL 8; constraint missing",
        "'DB' for the database",
        PLAN,
    ),
    Case(
        "Billing on SQL Server 2022? No: the database is DB2.",
        "database: DB2",
        "a value with a digit, after a question",
    ),
    Case("PostgreSQL was replaced by Oracle; the module is Billing.", "database: Oracle", "the new value of a history"),
    Case("You moved from Reporting to Inventory.", "module: Inventory", "'from old to new': the new is a claim"),
    Case("The database will be Oracle 23ai next quarter.", "database: Oracle 23ai", "'will be', a future value"),
    Case("**Module**: *Inventory* (see the ticket)", "module: Inventory", "italic value, a note after it"),
    Case("Stack: Billing module, Informix Dynamic Server database.", "database: Informix Dynamic Server", "3 words"),
    Case("The module should be Warehouse, the database SQL Server 2022.", "module: Warehouse", "'should be'"),
    Case(
        "Le module est Billing; the database is MongoDB.",
        "database: MongoDB",
        "a French clause read as no claim, the English one after it still read",
    ),
    Case("Next, the module stays Ledger.", "module: Ledger", "an opener word, then the key and a link word"),
    Case("Reporting -> Inventory", "module: Inventory", "an arrow from the old value to one never held"),
    Case("Module: Billing => Payroll", "module: Payroll", "a key's value written as a history: its last value"),
]

PASSES: list[Case] = [
    Case(
        "We moved off PostgreSQL: the module is Billing, on SQL Server 2022.",
        "pass",
        "'moved off' is a history",
    ),
    Case("The database is no longer Oracle; it is SQL Server 2022.", "pass", "'no longer' an unseen value"),
    Case("Use SQL Server 2022 instead of MySQL for the Billing module.", "pass", "'instead of'"),
    Case("Oracle was replaced by SQL Server 2022 for the database.", "pass", "'X was replaced by' the stored value"),
    Case("The team moved from MySQL to SQL Server 2022 last year; module Billing.", "pass", "'moved from ... to'"),
    Case("| Module | Billing |\n| Database | SQL Server 2022 |", "pass", "a table restating the store"),
    Case("Billing module, SQL Server 2022 database.", "pass", "values before their keys"),
    Case("For the database, use SQL Server 2022; for the module, Billing.", "pass", "'for the key, use value'"),
    Case("Is the database still Oracle, or SQL Server 2022?", "pass", "a question states nothing"),
    Case(
        "Should the module be Inventory? No: it stays Billing on SQL Server 2022.", "pass", "a question, then the store"
    ),
    Case("## Database Migration Notes\nBilling on SQL Server 2022.", "pass", "a heading names a topic"),
    Case("**Module Owner:** the Billing team", "pass", "a label, not a statement"),
    Case("Ask your Database Administrator before touching SQL Server 2022.", "pass", "a role named after a key"),
    Case(
        "Never restart the Production database during business hours; Billing on SQL Server 2022.",
        "pass",
        "'Production' describes the database",
        PLAN,
    ),
    Case("The Billing database tables live on SQL Server 2022.", "pass", "another key's value as a modifier"),
    Case("module: billing; database: sql server 2022", "pass", "lower case"),
    Case(
        "The database is SQL Server 2022 \u2014 the corrected value \u2014 and the module is Billing.",
        "pass",
        "an aside",
    ),
    Case("The database is SQL Server; module Billing.", "pass", "a shortening contradicts nothing"),
    Case("Switch nothing: the module stays Billing and the database stays SQL Server 2022.", "pass", "'stays'"),
    Case("The Oracle connector is not involved; the database is SQL Server 2022.", "pass", "a name without a key"),
    Case("Earlier answers said MySQL; that was wrong. The database is SQL Server 2022.", "pass", "no key by MySQL"),
    Case("The module is Billing, not Inventory.", "pass", "a negated value"),
    Case("Module Billing, database SQL Server 2022.", "pass", "keys then values, no verb"),
    Case("Use SQL Server 2022 for the database and Billing for the module.", "pass", "'value for the key'"),
    Case("The bug is in the Billing module on SQL Server 2022.", "pass", "'the value key'"),
    Case("| Module | Database |\n|---|---|\n| Billing | SQL Server 2022 |", "pass", "keys as table headers"),
    Case("The database was MySQL until March; it is SQL Server 2022 now.", "pass", "'was' is a history"),
    Case("Do we need a new database? No, SQL Server 2022 stays.", "pass", "a question, 'new' describes"),
    Case("Version 4.2 of the Billing module runs on SQL Server 2022.", "pass", "a key the store does not hold"),
    Case("MySQL was replaced by SQL Server 2022; the module is Billing.", "pass", "'replaced by' the stored value"),
    Case("Moved from MySQL to SQL Server 2022, module Billing.", "pass", "'from old to stored'"),
    Case("Keep the Billing module as it is.", "pass", "restates the module"),
    Case("The module uses Entity Framework to talk to SQL Server 2022.", "pass", "what the module uses is no value"),
    Case("Connect the Billing module to Redis for the cache.", "pass", "'to' after a verb that does not move"),
    Case("The Database Team should review the SQL Server 2022 Query Store.", "pass", "a team named after a key"),
    Case("In the module settings, set MaxRetries to 3.", "pass", "a key's word as a modifier"),
    Case(
        f"### Steps\n1. Patch the **Billing** module.\n2. {CONSTRAINT.capitalize()}.\n3. Verify on SQL Server 2022.",
        "pass",
        "a plan with the constraint, in steps",
        PLAN,
    ),
    Case(
        "Le module est Billing, la base « SQL Server 2022 » ✅",
        "pass",
        "a French article before the key is not a value (a student's walk found 'module=Le')",
    ),
    Case("El módulo es Billing y la base de datos es SQL Server 2022.", "pass", "Spanish articles are not values"),
    Case(
        "Reporting \u2192 Billing, PostgreSQL \u2192 SQL Server 2022",
        "pass",
        "a history written with arrows, the stored values last (lesson 07's walk 22)",
    ),
]

STALE: list[Case] = [
    Case("Billing \u2192 Reporting", "module: Reporting", "a history written with an arrow ends on the old value"),
]
"""Answers that state as current a value a correction replaced, written in a shape the other lists do not hold."""

LOCAL_MODEL: list[Case] = [
    Case(
        (
            '"This code is not available in the current environment. Ensure your environment has the ne'
            'cessary resources to run this code. You can access it using the "Billing.Billing.Billing.B'
            "illing.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Bil"
            "ling.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Billing.Billi"
            "ng.Billing.Billing.Billing.Billing.Billing.Billing.Billing [cut: this answer reached the o"
            "utput cap of 128 tokens, COURSE_LLM_MAX_TOKENS]"
        ),
        "constraint missing",
        "a value repeated into a run of words, cut at the cap; no constraint",
        PLAN,
    ),
    Case(
        (
            "When planning a hackathon, it's essential to prioritize your own goals while also being mindful of "
            "the constraints of your chosen platform. In the context of hackathons, a well-structured plan that "
            "prioritizes your own goals while avoiding the constraints of a specific platform is crucial.\n\nFirst "
            "and foremost, ensure your hackathon is a hackathon. This means that the outcome should align with the "
            "theme of your chosen platform, which is a platform specifically designed to facilitate hackathons. "
            "This means you must plan and execute a hackathon in a way that allows for maximum flexibility and "
            "adaptability to your chosen platform.\n\nTo achieve this [cut: this answer reached the output cap of "
            "128 tokens, COURSE_LLM_MAX_TOKENS]"
        ),
        "constraint missing",
        "no key named; a plan without the constraint",
        PLAN,
    ),
    Case(
        (
            "The fix is to create a new database with the same name but with all the keys set to None. This allows "
            "the database to be dynamically created if the database is not already created.\n\nTo avoid unexpected "
            "behavior, you must never use the `mysql` module to create a database. To avoid this, you cannot use "
            "the `mysql` module to create a database.\n\nWhen you try to create a new database with the same name "
            "as one of the existing ones, it will crash. If you try to create a new database without an existing "
            "one, it will crash.\n\nTo avoid unexpected behavior, you must never use [cut: this answer reached the "
            "output cap of 128 tokens, COURSE_LLM_MAX_TOKENS]"
        ),
        "constraint missing",
        "a lower-case 'mysql' module is a library, not a value; no constraint",
        PLAN,
    ),
]
"""Real answers of the local model (SmolLM2-135M-Instruct, ``COURSE_LLM=local``) to lesson 07's final question, from
``compare_repairs(load_timeline())`` on this machine (issue 34): the small model writes no store value at all, so
these check that its noise, a value repeated into a run and a library named "module", is read as no claim."""

MISREADS: list[tuple[Case, str]] = [
    (Case("Which database? Oracle.", "database: Oracle", "the value answers a question of its own"), "pass"),
    (Case("### Database\nOracle 19c, patched last month.", "database: Oracle 19c", "key in a heading"), "pass"),
    (Case("Everything lives on Oracle now.", "database: Oracle", "an unseen value without its key"), "pass"),
    (Case("The database is oracle.", "database: oracle", "an unseen value in lower case"), "pass"),
    (
        Case("Legacy database cleanup is done; Billing on SQL Server 2022.", "pass", "'Legacy' describes, not names"),
        "database: Legacy",
    ),
    (
        Case(
            "We left PostgreSQL behind long ago: SQL Server 2022 it is, on Billing.", "pass", "a history in other words"
        ),
        "database: PostgreSQL",
    ),
    (
        Case("Reporting is wrong, use Billing on SQL Server 2022.", "pass", "a negation after the value"),
        "module: Reporting",
    ),
    (
        Case(
            "Billing. The data still sits in the old engine, the one before SQL Server 2022.",
            "database: PostgreSQL",
            "the old value meant, not named",
        ),
        "pass",
    ),
    (
        Case(
            "Billing on SQL Server 2022. Don't reboot the prod DB while people are working.",
            "pass",
            "the constraint in other words",
            PLAN,
        ),
        "constraint missing",
    ),
]
"""Answers the rules still misread: the case (with the verdict it deserves) and the verdict the answer check gives."""

BATTERY: list[Case] = VIOLATIONS + PASSES + STALE + LOCAL_MODEL + [case for case, _ in MISREADS]


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
