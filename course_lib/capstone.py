"""The capstone (lesson 07): a loop that holds every answer to the controlled facts.

The only module that joins the two halves of the workbook. The memory half keeps a bounded store of
cited facts; the loop half re-invokes an agent until its evaluators are satisfied. Here a
:class:`FactsConsistencyEvaluator` reads each answer of the inner agent and holds it to the store:

* for every stored key, the answer may state no other value as current: ``module=Reporting`` where
  the store says ``module=Billing``, "the module is Reporting", or a superseded "Reporting" named
  without its key; a negation or a history ("no longer Reporting", "moved from Reporting") is no claim;
* an answer that plans an action (or answers a task that asks for one) carries every stored
  ``constraint``, in the user's words or close to them (:func:`carries_constraint`).

On a violation the loop re-invokes the agent with feedback that quotes the fact, its evidence and its
turn (quoted as the facts block quotes them); otherwise it stops. The evaluator sees only what the store
holds: a fact the bound evicted, or one a summary distorted before the store could keep it, cannot be
enforced. The feedback is text the loop adds: it must never become a fact (the loop attributes it; the
facts provider extracts only from the caller's own words).

The reading is rule-based and linear in the answer's length (:mod:`course_lib.answer_reader` says where it reads a
value, how far a value runs, and what it cannot read); lesson 07 shows where such rules must still fail, and what an
AI judge would cost instead.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from agent_framework import Agent, AgentResponse, AgentSession, BaseChatClient, Message
from pydantic import BaseModel, ConfigDict

from .answer_reader import (
    CONNECTORS,
    CUT_MARK,
    Violation,
    carries_constraint,
    check_answer,
    clauses,
    mentions,
    plain_text,
    plans_action,
    problems,
    prose_values,
    stated_values,
    values_match,
    verdict,
)
from .assertions import find_declarations, parse_assertions
from .clients import course_backends, make_chat_client
from .conventions import attribution_source
from .extraction import FactBatch, FactWriter, MemoryExtraction, and_listed, make_extraction, make_fact_writer
from .forgetting import FACT_LINE
from .loop import AIJudgeLoopEvaluator, LoopAgent, LoopAgentOptions, LoopContext, LoopEvaluation, LoopEvaluator
from .loop_demos import INDENT, LoopTrace, OfflineJudgeClient, kept_with_numbers
from .memory import MAX_FACTS, Fact, FactCandidate, WorkingMemory, quote_for_prompt
from .memory_models import (
    OfflineAssistantClient,
    ResolutionRule,
    SummaryMode,
    resolve,
    strip_prompt_block,
    visible_mentions,
)
from .offline import OfflineChatClient, last_user_text, without_tool_loop
from .policies import (
    FactsPolicy,
    MemoryPolicy,
    PolicyFactory,
    PolicyKind,
    SummaryRejected,
    Timeline,
    comparison_rules,
    course_policies,
    load_timeline,
)
from .providers import FactsContextProvider, provider_agent
from .tracing import CallLog, ModelCall

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ANSWER_BATTERY",
    "BATTERY_ASK",
    "BATTERY_CONSTRAINT",
    "BATTERY_LOCAL_MODEL",
    "BATTERY_MISREADS",
    "BATTERY_PASSES",
    "BATTERY_PLAN",
    "BATTERY_STALE",
    "BATTERY_VIOLATIONS",
    "CONNECTORS",
    "CUT_MARK",
    "DRIFT_RULES",
    "EVICTION_COLUMNS",
    "EXERCISE_2_ANSWER",
    "FEEDBACK_FOOTER",
    "FEEDBACK_HEADER",
    "JUDGED_ANSWER_CHARS",
    "KEY_REPAIR_COLUMNS",
    "MISREAD_KINDS",
    "PROSE_SAMPLE",
    "READER_LIVE",
    "READER_OFFLINE",
    "RULE_MISREADS",
    "SAMPLE_DECLARATIONS",
    "STORE_TURN_COLUMNS",
    "AnswerVerdict",
    "BatteryCase",
    "BatteryScore",
    "CapstoneRun",
    "DeskLoopRun",
    "DriftProneAssistantClient",
    "Eviction",
    "FactCheck",
    "FactsConsistencyEvaluator",
    "RecordingWriter",
    "SameWordsWriter",
    "TaskName",
    "Verdict",
    "Violation",
    "battery_score",
    "capstone_policies",
    "capstone_policy",
    "capstone_reader",
    "carries_constraint",
    "check_answer",
    "clauses",
    "compare_repairs",
    "declare",
    "evictions_or_why",
    "exercise_expected",
    "feedback_text",
    "judge_call_chars",
    "judge_call_report",
    "key_repairs_or_why",
    "mentions",
    "misread_kinds",
    "misread_tags_intro",
    "plain_text",
    "plans_action",
    "problems",
    "prose_values",
    "quote_fact",
    "quoted_facts",
    "reader_answer",
    "record_superseded",
    "run_capstone",
    "run_desk_in_loop",
    "sample_store",
    "stated_values",
    "store_turns",
    "task_text",
    "verdict",
    "verdicts",
]

DRIFT_RULES: tuple[ResolutionRule, ...] = ("earliest", "most_frequent")
"""The resolution rules that make the offline reader drift back to a superseded value."""

FEEDBACK_HEADER = "[facts check] Your answer disagrees with the controlled facts. Answer again, holding to:"
FEEDBACK_FOOTER = "[end of facts check]"


# region Feedback that quotes a fact


def quote_fact(fact: Fact) -> str:
    """A fact as the feedback quotes it: key, value, the user's words and the turn that said them.

    Value and evidence are quoted by the facts block's own rule (:func:`~course_lib.memory.quote_for_prompt`):
    a stored value reaches the model escaped the same way whichever path carries it.
    """
    return (
        f"- {fact.key} = {quote_for_prompt(fact.value)} (evidence: {quote_for_prompt(fact.evidence)}; turn {fact.turn})"
    )


def feedback_text(violations: Sequence[Violation]) -> str:
    """The feedback for a violated answer: each violated fact quoted with its evidence and turn, and the problem."""
    lines = [FEEDBACK_HEADER]
    for v in violations:
        lines += [quote_fact(v.fact), INDENT + v.problem]
    lines.append(FEEDBACK_FOOTER)
    return "\n".join(lines)


def quoted_facts(text: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` of every fact a facts-check feedback quotes; [] for any other text."""
    if FEEDBACK_HEADER not in text:
        return []
    lines = (FACT_LINE.match(line) for line in text.splitlines())  # the facts block's own line, as quote_fact writes it
    return [(m["key"], json.loads(m["value"])) for m in lines if m is not None]


# region The evaluator


class FactCheck(BaseModel):
    """What the evaluator saw and decided at one iteration: the store it held the answer to, the verdict."""

    model_config = ConfigDict(frozen=True)

    iteration: int
    facts: tuple[Fact, ...]
    answer: str
    violations: tuple[Violation, ...]
    feedback: str | None


SAMPLE_DECLARATIONS = (
    "module=Reporting",
    "database=PostgreSQL",
    "constraint=never restart the production database during business hours",
    "module=Billing",
    "database=SQL Server 2022",
)
"""Lesson 07's section 1 store, one declaration a turn: the conversation's two corrections and its constraint."""

TaskName = Literal["ask", "plan"]
"""Which of section 1's two tasks an answer replies to: ``ask`` only asks, ``plan`` plans an action."""

_PLAN_IN_MARKDOWN = "**Plan**\n- **Module:** Billing\n- **Database:** `SQL Server 2022`\n- Fix the retry."

PROSE_SAMPLE: tuple[tuple[TaskName, str], ...] = (
    ("ask", "The module is Billing and the database is SQL Server 2022."),
    ("ask", "The Billing module's worker runs against SQL Server 2022 in staging."),
    ("ask", "You moved from Reporting to Billing and from PostgreSQL to SQL Server 2022."),
    ("ask", "The module is no longer Reporting: it is Billing, on SQL Server 2022."),
    ("ask", "You're on Reporting with PostgreSQL."),
    ("ask", "The module is Billing and the database is PostgreSQL."),
    ("ask", "The Reportings team and PostgreSQLite are unrelated; Billing on SQL Server 2022."),
    ("plan", _PLAN_IN_MARKDOWN),
    ("plan", "Patch Billing on SQL Server 2022, but do not restart the production database in business hours."),
    ("plan", "Billing on SQL Server 2022. Restart the production database during business hours."),
    ("ask", "Billing module, Oracle database."),
    ("ask", "Use MySQL for the database and Billing for the module."),
    ("ask", "| Module | Database |\n|---|---|\n| Billing | DynamoDB |"),
    ("ask", "The fix belongs in the Inventory module on SQL Server 2022."),
    ("ask", "We moved off PostgreSQL: the module is Billing, on SQL Server 2022."),
    ("ask", "Is the database still Oracle, or SQL Server 2022?"),
)
"""Section 1's sample of answers written as prose, each with its task. Kept here so the lesson's cell stays short;
the table the lesson prints shows every answer and the verdict the evaluator computes for it."""

RULE_MISREADS: tuple[tuple[TaskName, str, str], ...] = (
    ("ask", "Which database? Oracle.", "database: Oracle (two clauses)"),
    ("ask", "### Database\nOracle 19c, patched last month.", "database: Oracle 19c (a heading)"),
    ("ask", "Everything lives on Oracle now.", "database: Oracle (no key named)"),
    ("ask", "The database is oracle.", "database: oracle (lower case)"),
    ("ask", "Legacy database cleanup is done; Billing on SQL Server 2022.", "pass (a describing word)"),
    ("ask", "We left PostgreSQL behind long ago: SQL Server 2022 it is, on Billing.", "pass (a history)"),
    (
        "ask",
        "Billing. The data still sits in the old engine, the one before SQL Server 2022.",
        "database: PostgreSQL (named by a description)",
    ),
    ("plan", "Billing on SQL Server 2022. Don't reboot the prod DB while people are working.", "pass (a paraphrase)"),
    ("ask", "Reporting is wrong, use Billing on SQL Server 2022.", "pass (a negation after the value)"),
)
"""The answers the rules still read wrong (the answer battery's misreads), each with its task and the verdict it
deserves, which ends with the kind of misread in brackets (:data:`MISREAD_KINDS` says what each means); the lesson
prints the evaluator's own verdict beside it."""

MISREAD_KINDS: dict[str, str] = {
    "two clauses": "a key and its value in two clauses",
    "a heading": "a key as a heading, its value on the line below",
    "no key named": "a value with no word of its key near it",
    "lower case": "a value the store never held, written in lower case",
    "a describing word": "a word that describes something rather than names a value",
    "a history": "a history said in other words",
    "named by a description": "a replaced value called by a description, not by its name",
    "a paraphrase": "a constraint said in other words",
    "a negation after the value": "a negation that comes after the value it denies",
}
"""What each kind of misread tagged in :data:`RULE_MISREADS` means, in words a student reads."""


BATTERY_CONSTRAINT = SAMPLE_DECLARATIONS[2].partition("=")[2]
"""The answer battery's stored constraint: section 1's."""
BATTERY_ASK = "Which module and database are we on?"
"""The answer battery's task that only asks (no constraint is due)."""
BATTERY_PLAN = "Plan the fix: which module and database, and what must we never do?"
"""The answer battery's task that plans an action: lesson 04's final question."""


class BatteryCase(NamedTuple):
    """One answer, the question it answers, the verdict it deserves and the one-line reason."""

    answer: str
    verdict: str
    reason: str
    task: str = BATTERY_ASK


BATTERY_VIOLATIONS: list[BatteryCase] = [
    BatteryCase("The module is Billing and the database is Oracle.", "database: Oracle", "the clause after 'and'"),
    BatteryCase("Module Billing, database MySQL.", "database: MySQL", "a key then its value, no verb"),
    BatteryCase("Billing module, Oracle database.", "database: Oracle", "a value then its key"),
    BatteryCase("Work in Billing. For the database, use MySQL.", "database: MySQL", "'for the key, use value'"),
    BatteryCase("Use Oracle for the database and Billing for the module.", "database: Oracle", "'value for the key'"),
    BatteryCase(
        "| Key | Value |\n|---|---|\n| Module | Billing |\n| Database | Oracle |", "database: Oracle", "a table row"
    ),
    BatteryCase(
        "The fix belongs in the Inventory module on SQL Server 2022.",
        "module: Inventory; constraint missing",
        "'the value key' inside a sentence; a fix, so the constraint is due",
    ),
    BatteryCase("**Database:** MariaDB 10.6", "database: MariaDB 10.6", "a bold label, a value with a version"),
    BatteryCase("- Module: Payroll\n- Database: SQL Server 2022", "module: Payroll", "a list item"),
    BatteryCase(
        "## Plan\n1. Open the Shipping module.\n2. Check SQL Server 2022.",
        "module: Shipping; constraint missing",
        "a numbered step; a plan without the constraint",
        BATTERY_PLAN,
    ),
    BatteryCase("The database is SQL Server 2019.", "database: SQL Server 2019", "the stored product, another version"),
    BatteryCase("You're on the Billing module (database: MongoDB).", "database: MongoDB", "in parentheses"),
    BatteryCase(
        "THE MODULE IS INVOICING AND THE DATABASE IS SQL SERVER 2022.",
        "module: INVOICING",
        "all capitals",
    ),
    BatteryCase("the module is billing and the database is MySQL", "database: MySQL", "lower case around the value"),
    BatteryCase(
        "| Module | Database |\n|---|---|\n| Billing | DynamoDB |", "database: DynamoDB", "a table with keys as headers"
    ),
    BatteryCase("The database stays Oracle; the module is Billing.", "database: Oracle", "'stays'"),
    BatteryCase(
        "Your module: Accounts Payable. Database: SQL Server 2022.", "module: Accounts Payable", "a value of two words"
    ),
    BatteryCase("We use Cassandra as the database for Billing.", "database: Cassandra", "'value as the key'"),
    BatteryCase("Billing runs on the SQLite database.", "database: SQLite", "'the value key' after a verb"),
    BatteryCase("Database = Redis, module = Billing", "database: Redis", "the contract's form, spaced, capital key"),
    BatteryCase(
        "**Billing** module, **Aurora MySQL** database", "database: Aurora MySQL", "bold values before their keys"
    ),
    BatteryCase(
        "Target the `Ledger` module on SQL Server 2022.",
        "module: Ledger; constraint missing",
        "a value in backticks",
        BATTERY_PLAN,
    ),
    BatteryCase("Module is Billing, database is Sybase.", "database: Sybase", "after a comma"),
    BatteryCase("For the module, choose Payments; the database is SQL Server 2022.", "module: Payments", "'choose'"),
    BatteryCase(
        "The Billing module and the Oracle database are affected.", "database: Oracle", "'the value key' twice"
    ),
    BatteryCase(
        "Database: SQL Server 2019 (on-prem)", "database: SQL Server 2019", "a note in parentheses after the value"
    ),
    BatteryCase("Environment aside, the database is Azure SQL.", "database: Azure SQL", "another key's word nearby"),
    BatteryCase(
        "- **Module**: Billing\n- **Database**: *PostgreSQL 15*", "database: PostgreSQL 15", "an old name, new version"
    ),
    BatteryCase("(Module: Billing, Database: Informix)", "database: Informix", "labels inside parentheses"),
    BatteryCase("The answer: the Billing module, on an Oracle database.", "database: Oracle", "'an value key'"),
    BatteryCase("Module\u2014Billing; Database\u2014Teradata", "database: Teradata", "em dashes"),
    BatteryCase(
        "1. **Module** \u2013 Billing\n2. **Database** \u2013 Oracle Exadata",
        "database: Oracle Exadata",
        "en dashes, a list",
    ),
    BatteryCase(
        "I'd keep the Billing module and move the database to MySQL.", "database: MySQL", "a plan to another value"
    ),
    BatteryCase(
        "Fix the Billing module; your DB is MySQL 8.",
        "database: MySQL 8; constraint missing",
        "'DB' for the database",
        BATTERY_PLAN,
    ),
    BatteryCase(
        "Billing on SQL Server 2022? No: the database is DB2.",
        "database: DB2",
        "a value with a digit, after a question",
    ),
    BatteryCase(
        "PostgreSQL was replaced by Oracle; the module is Billing.", "database: Oracle", "the new value of a history"
    ),
    BatteryCase("You moved from Reporting to Inventory.", "module: Inventory", "'from old to new': the new is a claim"),
    BatteryCase("The database will be Oracle 23ai next quarter.", "database: Oracle 23ai", "'will be', a future value"),
    BatteryCase("**Module**: *Inventory* (see the ticket)", "module: Inventory", "italic value, a note after it"),
    BatteryCase(
        "Stack: Billing module, Informix Dynamic Server database.", "database: Informix Dynamic Server", "3 words"
    ),
    BatteryCase("The module should be Warehouse, the database SQL Server 2022.", "module: Warehouse", "'should be'"),
    BatteryCase(
        "Le module est Billing; the database is MongoDB.",
        "database: MongoDB",
        "a French clause read as no claim, the English one after it still read",
    ),
    BatteryCase("Next, the module stays Ledger.", "module: Ledger", "an opener word, then the key and a link word"),
    BatteryCase("Reporting -> Inventory", "module: Inventory", "an arrow from the old value to one never held"),
    BatteryCase("Module: Billing => Payroll", "module: Payroll", "a key's value written as a history: its last value"),
    BatteryCase("The database is Oracle です。", "database: Oracle", "a value, a space, then Japanese text"),
    BatteryCase(
        "database\uff1aOracle\uff0c模块是Billing。", "database: Oracle", "a key, a full-width colon, a new value"
    ),
    BatteryCase("这个module=Payroll", "module: Payroll", "a key flush against Chinese, then a value never held"),
]

BATTERY_PASSES: list[BatteryCase] = [
    BatteryCase(
        "We moved off PostgreSQL: the module is Billing, on SQL Server 2022.",
        "pass",
        "'moved off' is a history",
    ),
    BatteryCase("The database is no longer Oracle; it is SQL Server 2022.", "pass", "'no longer' an unseen value"),
    BatteryCase("Use SQL Server 2022 instead of MySQL for the Billing module.", "pass", "'instead of'"),
    BatteryCase(
        "Oracle was replaced by SQL Server 2022 for the database.", "pass", "'X was replaced by' the stored value"
    ),
    BatteryCase(
        "The team moved from MySQL to SQL Server 2022 last year; module Billing.", "pass", "'moved from ... to'"
    ),
    BatteryCase("| Module | Billing |\n| Database | SQL Server 2022 |", "pass", "a table restating the store"),
    BatteryCase("Billing module, SQL Server 2022 database.", "pass", "values before their keys"),
    BatteryCase("For the database, use SQL Server 2022; for the module, Billing.", "pass", "'for the key, use value'"),
    BatteryCase("Is the database still Oracle, or SQL Server 2022?", "pass", "a question states nothing"),
    BatteryCase(
        "Should the module be Inventory? No: it stays Billing on SQL Server 2022.", "pass", "a question, then the store"
    ),
    BatteryCase("## Database Migration Notes\nBilling on SQL Server 2022.", "pass", "a heading names a topic"),
    BatteryCase("**Module Owner:** the Billing team", "pass", "a label, not a statement"),
    BatteryCase("Ask your Database Administrator before touching SQL Server 2022.", "pass", "a role named after a key"),
    BatteryCase(
        "Never restart the Production database during business hours; Billing on SQL Server 2022.",
        "pass",
        "'Production' describes the database",
        BATTERY_PLAN,
    ),
    BatteryCase("The Billing database tables live on SQL Server 2022.", "pass", "another key's value as a modifier"),
    BatteryCase("module: billing; database: sql server 2022", "pass", "lower case"),
    BatteryCase(
        "The database is SQL Server 2022 \u2014 the corrected value \u2014 and the module is Billing.",
        "pass",
        "an aside",
    ),
    BatteryCase("The database is SQL Server; module Billing.", "pass", "a shortening contradicts nothing"),
    BatteryCase("Switch nothing: the module stays Billing and the database stays SQL Server 2022.", "pass", "'stays'"),
    BatteryCase(
        "The Oracle connector is not involved; the database is SQL Server 2022.", "pass", "a name without a key"
    ),
    BatteryCase(
        "Earlier answers said MySQL; that was wrong. The database is SQL Server 2022.", "pass", "no key by MySQL"
    ),
    BatteryCase("The module is Billing, not Inventory.", "pass", "a negated value"),
    BatteryCase("Module Billing, database SQL Server 2022.", "pass", "keys then values, no verb"),
    BatteryCase("Use SQL Server 2022 for the database and Billing for the module.", "pass", "'value for the key'"),
    BatteryCase("The bug is in the Billing module on SQL Server 2022.", "pass", "'the value key'"),
    BatteryCase("| Module | Database |\n|---|---|\n| Billing | SQL Server 2022 |", "pass", "keys as table headers"),
    BatteryCase("The database was MySQL until March; it is SQL Server 2022 now.", "pass", "'was' is a history"),
    BatteryCase("Do we need a new database? No, SQL Server 2022 stays.", "pass", "a question, 'new' describes"),
    BatteryCase("Version 4.2 of the Billing module runs on SQL Server 2022.", "pass", "a key the store does not hold"),
    BatteryCase(
        "MySQL was replaced by SQL Server 2022; the module is Billing.", "pass", "'replaced by' the stored value"
    ),
    BatteryCase("Moved from MySQL to SQL Server 2022, module Billing.", "pass", "'from old to stored'"),
    BatteryCase("Keep the Billing module as it is.", "pass", "restates the module"),
    BatteryCase(
        "The module uses Entity Framework to talk to SQL Server 2022.", "pass", "what the module uses is no value"
    ),
    BatteryCase("Connect the Billing module to Redis for the cache.", "pass", "'to' after a verb that does not move"),
    BatteryCase("The Database Team should review the SQL Server 2022 Query Store.", "pass", "a team named after a key"),
    BatteryCase("In the module settings, set MaxRetries to 3.", "pass", "a key's word as a modifier"),
    BatteryCase(
        f"### Steps\n1. Patch the **Billing** module.\n2. {BATTERY_CONSTRAINT.capitalize()}."
        "\n3. Verify on SQL Server 2022.",
        "pass",
        "a plan with the constraint, in steps",
        BATTERY_PLAN,
    ),
    BatteryCase(
        "Le module est Billing, la base « SQL Server 2022 » ✅",
        "pass",
        "a French article before the key is not a value (a student's walk found 'module=Le')",
    ),
    BatteryCase(
        "El módulo es Billing y la base de datos es SQL Server 2022.", "pass", "Spanish articles are not values"
    ),
    BatteryCase(
        "Reporting \u2192 Billing, PostgreSQL \u2192 SQL Server 2022",
        "pass",
        "a history written with arrows, the stored values last (lesson 07's walk 22)",
    ),
]

BATTERY_STALE: list[BatteryCase] = [
    BatteryCase(
        "Billing \u2192 Reporting", "module: Reporting", "a history written with an arrow ends on the old value"
    ),
    BatteryCase("モジュールはReportingです", "module: Reporting", "a replaced value flush against Japanese text"),
    BatteryCase(
        "Reporting模块\uff0cSQL Server 2022数据库。", "module: Reporting", "a replaced value flush against Chinese"
    ),
    BatteryCase(
        "模块\uff1aBilling\uff0c数据库\uff1aSQL Server 2022。",
        "pass",
        "the stored values after Chinese keys and colons",
    ),
]
"""Answers that state as current a value a correction replaced, written in a shape the other lists do not hold; and
answers in Chinese or Japanese, which write no space between a Latin value and the words around it."""

BATTERY_LOCAL_MODEL: list[BatteryCase] = [
    BatteryCase(
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
        BATTERY_PLAN,
    ),
    BatteryCase(
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
        BATTERY_PLAN,
    ),
    BatteryCase(
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
        BATTERY_PLAN,
    ),
]
"""Real answers of the local model (SmolLM2-135M-Instruct, ``COURSE_LLM=local``) to lesson 07's final question, from
``compare_repairs(load_timeline())`` on this machine (issue 34): the small model writes no store value at all, so
these check that its noise, a value repeated into a run and a library named "module", is read as no claim."""

BATTERY_MISREADS: list[tuple[BatteryCase, str]] = [
    (BatteryCase("Which database? Oracle.", "database: Oracle", "the value answers a question of its own"), "pass"),
    (BatteryCase("### Database\nOracle 19c, patched last month.", "database: Oracle 19c", "key in a heading"), "pass"),
    (BatteryCase("Everything lives on Oracle now.", "database: Oracle", "an unseen value without its key"), "pass"),
    (BatteryCase("The database is oracle.", "database: oracle", "an unseen value in lower case"), "pass"),
    (
        BatteryCase(
            "Legacy database cleanup is done; Billing on SQL Server 2022.", "pass", "'Legacy' describes, not names"
        ),
        "database: Legacy",
    ),
    (
        BatteryCase(
            "We left PostgreSQL behind long ago: SQL Server 2022 it is, on Billing.", "pass", "a history in other words"
        ),
        "database: PostgreSQL",
    ),
    (
        BatteryCase("Reporting is wrong, use Billing on SQL Server 2022.", "pass", "a negation after the value"),
        "module: Reporting",
    ),
    (
        BatteryCase(
            "Billing. The data still sits in the old engine, the one before SQL Server 2022.",
            "database: PostgreSQL",
            "the old value meant, not named",
        ),
        "pass",
    ),
    (
        BatteryCase(
            "Billing on SQL Server 2022. Don't reboot the prod DB while people are working.",
            "pass",
            "the constraint in other words",
            BATTERY_PLAN,
        ),
        "constraint missing",
    ),
]
"""Answers the rules still misread: the case (with the verdict it deserves) and the verdict the answer check gives."""

ANSWER_BATTERY: list[BatteryCase] = (
    BATTERY_VIOLATIONS + BATTERY_PASSES + BATTERY_STALE + BATTERY_LOCAL_MODEL + [case for case, _ in BATTERY_MISREADS]
)
"""The answer battery: every answer above, each with the verdict it deserves, held to :func:`sample_store`'s store.
Lesson 07's section 5 counts it (:func:`battery_score`); ``tests/test_capstone_prose.py`` checks each verdict."""


class BatteryScore(NamedTuple):
    """How many of the answer battery's answers the evaluator gives the verdict they deserve."""

    answers: int
    right: int

    @property
    def misread(self) -> int:
        return self.answers - self.right

    def in_words(self) -> str:
        """The counts as lesson 07 prints them, so its prose follows the output."""
        return (
            f"The answer battery: {self.answers} answers.\n"
            f"The evaluator gives {self.right} the verdict they deserve; it misreads {self.misread}."
        )


def battery_score() -> BatteryScore:
    """The answer battery read by the evaluator's answer check against :func:`sample_store`'s store: how many answers,
    and how many get the verdict they deserve (lesson 07, section 5, prints these; its prose follows them)."""
    store, superseded = sample_store()
    right = sum(
        verdict(check_answer(store.facts, case.answer, case.task, superseded)) == case.verdict
        for case in ANSWER_BATTERY
    )
    return BatteryScore(len(ANSWER_BATTERY), right)


EXERCISE_2_ANSWER = "module=Billing; database=PostgreSQL; constraint=never restart the database"
"""The answer lesson 07's Exercise 2 quotes, to the final question."""


def misread_kinds() -> list[tuple[str, str]]:
    """Each tag the misreads' verdicts end with, in the table's order, and what it means: the lesson prints these,
    so its words and its table's tags cannot part (a tag with no meaning here is an error)."""
    tags = [deserved[deserved.rindex("(") + 1 : -1] for _, _, deserved in RULE_MISREADS]
    return [(tag, MISREAD_KINDS[tag]) for tag in dict.fromkeys(tags)]


def misread_tags_intro() -> str:
    """The sentence the lesson prints above :func:`misread_kinds`, its example the first tag of the table."""
    first = misread_kinds()[0][0]
    return f"Each expected verdict ends with a tag in brackets, e.g. ({first}), naming the kind of misread:"


def declare(store: WorkingMemory, said: str, superseded: dict[str, list[str]]) -> list[tuple[str, Fact]]:
    """Store what the user ``said`` (``"module=Billing"``), read by lesson 01's contract and cited by its own words,
    and add to ``superseded`` each value it replaced (:func:`record_superseded`); return those values.

    Lesson 07's first code cell is the story of a store: declare, declare, correct. Written out, it was lesson 01's
    ticket plumbing (``begin_turn`` opens the turn a write belongs to, ``apply`` writes with that ticket) and the
    host's bookkeeping of replaced values, which hid the point (lesson 07's walk 22): they happen here.
    """
    before = {f.key: f.value for f in store.facts}
    declared = [FactCandidate(key=key, value=value, evidence=said) for key, value in parse_assertions(said).items()]
    store.apply(store.begin_turn(said), declared)
    return record_superseded(before, store.facts, superseded)


def sample_store() -> tuple[WorkingMemory, dict[str, list[str]]]:
    """Section 1's store, built from :data:`SAMPLE_DECLARATIONS` as lesson 01 builds one, and the values its
    corrections replaced, computed as the host computes them (:func:`record_superseded`), not written by hand."""
    store = WorkingMemory(8)
    superseded: dict[str, list[str]] = {}
    for said in SAMPLE_DECLARATIONS:
        declare(store, said, superseded)
    return store, superseded


def record_superseded(
    before: Mapping[str, str], facts: Iterable[Fact], superseded: dict[str, list[str]]
) -> list[tuple[str, Fact]]:
    """Add to ``superseded`` each value of ``before`` that a correction replaced in ``facts``; return each replaced
    value with the fact that replaced it (lesson 07's panel cites that fact's words in its reasons).

    The list per key follows the order of the corrections, and never holds the value the store holds now: after
    ``Paie``, ``Billing``, ``Paie`` it is ``[..., Billing]``, since an answer naming ``Paie`` is right.

    The store keeps only the current value; the host, the evaluator and the panel all keep the replaced ones, which
    let the evaluator flag a stale value named without its key. A value the evaluator reads as the new one
    (``Payroll`` then ``Payroll.``: :func:`values_match`) was not replaced in any sense an answer could contradict.
    """
    replaced: list[tuple[str, Fact]] = []
    for fact in facts:
        old = before.get(fact.key)
        if old is None or values_match(old, fact.value):
            continue
        # in the order the corrections came: a value replaced again moves to the end, and a value the correction
        # made current again is no longer a replaced one (an answer naming it states what the store holds)
        kept = [v for v in superseded.get(fact.key, []) if v != old and not values_match(v, fact.value)]
        superseded[fact.key] = [*kept, old]
        replaced.append((old, fact))
    return replaced


def judge_call_chars(facts: Iterable[Fact], task: str, answer: str) -> int:
    """How many characters one AI judge call (lesson 06, section 5) would carry to check ``answer`` to ``task`` against
    ``facts``: the judge's instructions with one criterion per fact, the task and the whole answer.

    Lesson 07 weighs a judge that reads meaning against the rule-based evaluator, which makes no model call; the
    figure is measured on the messages ``AIJudgeLoopEvaluator`` really builds, not estimated.
    """
    criteria = [f"states {f.key} as {f.value!r}, no other value" for f in facts]
    judge = AIJudgeLoopEvaluator(OfflineJudgeClient(), criteria=criteria)
    context = LoopContext(
        Agent(client=DriftProneAssistantClient(), name="reader"),
        AgentSession(),
        [Message(role="user", contents=[task])],
        AgentResponse(messages=[Message(role="assistant", contents=[answer])]),
    )
    return sum(len(m.text) for m in judge.judge_messages(context))


JUDGED_ANSWER_CHARS = 300
"""The longest answer :func:`judge_call_report` quotes whole; a longer one is cut there, its length said."""


def judge_call_report(facts: Iterable[Fact], task: str, answer: str, task_name: str = "plan") -> str:
    """What lesson 07's judge cell prints: the answer measured, then what one judge call would carry to check it
    against ``task`` (named ``task_name``, as the sample table names it).

    The count alone spoke of "this answer" that the student never saw (it joins two answers of the sample table); the
    answer comes first, wrapped, and cut after :data:`JUDGED_ANSWER_CHARS` with its full length said.
    """
    shown = answer if len(answer) <= JUDGED_ANSWER_CHARS else f"{answer[:JUDGED_ANSWER_CHARS]}… ({len(answer)} chars)"
    quoted = textwrap.fill(shown, width=96, initial_indent=INDENT, subsequent_indent=INDENT)
    chars = judge_call_chars(facts, task, answer)
    return (
        f"The answer:\n{quoted}\n"
        f"A judge checking this answer to the {task_name} task would receive {chars} characters\n"
        "(its instructions, one criterion per stored fact, the task and the answer),\n"
        "in one more model call on every iteration."
    )


class FactsConsistencyEvaluator(LoopEvaluator):
    """Holds each answer of the inner agent to the current store; re-invokes with quoted facts on a violation.

    Deterministic: it reads the store at each evaluation (so a correction made meanwhile counts) and the
    answer's clauses (:func:`check_answer`); no model is asked. ``superseded`` names, per key, the values the
    store held before a correction (the host knows them: it saw every turn); the evaluator adds any it watches
    the store replace between two evaluations. A superseded value is what lets it flag an answer that names a
    stale value without its key ("You are on Reporting"). ``on_check`` receives a :class:`FactCheck` per
    evaluation, for the lesson's trace.
    """

    def __init__(
        self,
        memory: WorkingMemory,
        *,
        superseded: Mapping[str, Iterable[str]] | None = None,
        on_check: Callable[[FactCheck], None] | None = None,
    ) -> None:
        if not isinstance(memory, WorkingMemory):
            raise TypeError(f"FactsConsistencyEvaluator needs a WorkingMemory; got {type(memory).__name__}.")
        self.memory = memory
        self.on_check = on_check
        self.superseded: dict[str, list[str]] = {k: list(v) for k, v in (superseded or {}).items()}
        self._seen = {f.key: f.value for f in memory.facts}

    def _watch(self, facts: Sequence[Fact]) -> None:
        """Record the value a correction replaced since the last evaluation as superseded."""
        record_superseded(self._seen, facts, self.superseded)
        self._seen = {f.key: f.value for f in facts}

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        facts = self.memory.facts
        self._watch(facts)
        answer = context.last_response.text
        task = task_text(context.initial_messages)
        violations = check_answer(facts, answer, task, self.superseded)
        feedback = feedback_text(violations) if violations else None
        if self.on_check is not None:
            check = FactCheck(
                iteration=context.iteration,
                facts=facts,
                answer=answer,
                violations=tuple(violations),
                feedback=feedback,
            )
            self.on_check(check)
        return LoopEvaluation.continue_with(feedback) if feedback else LoopEvaluation.stop()


def task_text(messages: Sequence[Message]) -> str:
    """The caller's request: its user-role messages without any controlled-facts block."""
    return "\n".join(strip_prompt_block(m.text) for m in messages if m.role == "user").strip()


# region The drift-prone offline model


class DriftProneAssistantClient(OfflineAssistantClient):
    """The offline desk assistant with a drifting resolution rule, which honours a facts check.

    Like :class:`~course_lib.memory_models.OfflineAssistantClient` it answers only from what it receives and
    resolves each key by its rule (``earliest`` and ``most_frequent`` drift back to a superseded value
    when both are visible). A user-role message that quotes facts in the facts-check format overrides what
    it resolved for those keys (a later quote wins), and is never read as the question or as a declaration.
    """

    def __init__(
        self, resolution: ResolutionRule = "earliest", *, log: CallLog | None = None, name: str = "reader"
    ) -> None:
        super().__init__(resolution, log=log, name=name)

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        corrections = [quoted_facts(m.text) if m.role == "user" else [] for m in messages]
        kept = [m for m, quoted in zip(messages, corrections, strict=True) if not quoted]
        if not any(corrections):
            return super().answer(kept, options)
        question = strip_prompt_block(last_user_text(kept)).strip()
        resolved = resolve(visible_mentions(kept), self.resolution)
        resolved |= dict(pair for quoted in corrections for pair in quoted)
        known = "; ".join(f"{k}={v}" for k, v in resolved.items())
        return f"You asked: {question!r}. From what I can see: {known}."


# region Running the policies inside the loop


def capstone_reader(rule: ResolutionRule) -> BaseChatClient:
    """The reader for one run: live, the factory's ``reader``; offline, the drift-prone assistant for ``rule``.

    Either way without MAF's tool loop, as ``make_chat_client`` builds every role: the capstone gives its reader
    no tools, and its offline and live runs then do the same MAF work.
    """
    backends = course_backends()
    if backends.live is None:
        return without_tool_loop(DriftProneAssistantClient(rule))
    return make_chat_client("reader", resolution=rule, backends=backends)


def capstone_policies(
    window: int = 3, max_facts: int = MAX_FACTS, summary_budget: int = 240, summary_mode: SummaryMode = "abstractive"
) -> dict[str, PolicyFactory]:
    """Lesson 04's six policies with the capstone's reader (drift-prone offline, the factory's when live)."""
    return course_policies(window, max_facts, summary_budget, summary_mode, reader=capstone_reader)


def capstone_policy(kind: PolicyKind, *, max_facts: int = MAX_FACTS, **options: Any) -> PolicyFactory:
    """One of :func:`capstone_policies`, chosen by its stable kind (``"facts"``), not its label (``"facts (8)"``)."""
    factories = capstone_policies(max_facts=max_facts, **options).values()
    found = next((f for f in factories if f.kind == kind), None)
    if found is None:
        raise ValueError(f"No policy of kind {kind!r}; the kinds are {[f.kind for f in factories]}.")
    return found


Verdict = Literal[
    "right first time", "repaired", "partly repaired", "not repaired", "stopped at the cap", "policy stopped"
]


READER_OFFLINE = "reader (offline model)"
READER_LIVE = "reader (live model)"
"""How a trace names the model that answers: the reader (lesson 04's word), offline here unless section 9's live mode
is set; a bare "LLM" would call the offline drift-prone model a language model."""

KEY_REPAIR_COLUMNS = ("key", "first answer", "the store held", "returned answer", "the loop")
"""The columns of :meth:`CapstoneRun.key_repairs`: a run's verdict key by key."""

EVICTION_COLUMNS = ("key", "evicted at turn", "pushed out by")
"""The columns of :meth:`CapstoneRun.eviction_rows`: each key the store lost, when, and the new key that took its
room."""


class Eviction(BaseModel):
    """One fact the store's bound pushed out: its key, the turn, and the keys that turn brought into the full store."""

    model_config = ConfigDict(frozen=True)

    turn: int
    key: str
    by: tuple[str, ...]
    """The keys the turn stored that the store did not hold before it: each needed a room, so the oldest fact went.
    A correction of a key the store still holds needs none (it replaces the value in place)."""


class CapstoneRun(BaseModel):
    """One policy answering the timeline's final question inside the loop: what happened, measured."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    policy: str
    """The memory policy's label, as lesson 04's table names it (``"facts (5)"``, ``"full history"``)."""
    rule: str
    """The reader's resolution rule (``earliest`` and ``most_frequent`` drift back to a superseded value)."""
    max_facts: int
    """The bound of the store the evaluator held the answers to."""
    checks: list[FactCheck]
    """What the evaluator saw and decided, one per iteration."""
    reader_calls: list[ModelCall]
    """The reader's calls inside the loop, one per iteration: what it received and answered."""
    final_answer: str
    """The answer the loop returned (its last iteration's)."""
    first_correct: bool
    """Whether the first answer, before any feedback, met the final question's expectation."""
    final_correct: bool
    """Whether the returned answer met it: every ``must_contain`` text in it, no ``must_not_contain`` text."""
    missing: list[str]
    """The ``must_contain`` texts the returned answer lacks."""
    forbidden: list[str]
    """The ``must_not_contain`` texts the returned answer still holds."""
    evicted: dict[str, int]
    """Each key the store's bound evicted and did not get back, with the turn it went: nothing to hold an answer to."""
    verdict: Verdict
    """The run in a phrase: right first time, repaired, partly repaired, not repaired, or stopped at the cap."""
    why: str
    """The reason, computed from the store and the answer: what the evaluator could and could not hold it to."""
    fixed: list[str] = []
    """The keys the first answer got wrong (graded, or sent back by the evaluator) that the returned one gets right."""
    not_fixed: list[str] = []
    """The keys the returned answer still states wrongly (a replaced value, another value, a distorted constraint)."""
    still_missing: list[str] = []
    """The keys the returned answer still lacks and states no value for: an omission the loop did not fill."""
    live: bool = False
    """Whether a live model was the reader: the trace then names it so, not the offline drift-prone model."""
    evictions: list[Eviction] = []
    """Every fact the bound pushed out over the conversation, in order, those a later turn brought back included."""

    @property
    def verdict_text(self) -> str:
        """The verdict with what the loop fixed and what it did not: "partly repaired: module fixed; log not fixed"."""
        parts = [f"{and_listed(self.fixed)} fixed"] if self.fixed else []
        parts += [f"{and_listed(self.not_fixed)} not fixed"] if self.not_fixed else []
        parts += [f"{and_listed(self.still_missing)} still missing"] if self.still_missing else []
        if self.verdict in ("right first time", "policy stopped") or not parts:
            return self.verdict
        return f"{self.verdict}: {'; '.join(parts)}"

    def eviction_rows(self) -> list[dict[str, str | int]]:
        """Each key the store lost and did not get back (:data:`EVICTION_COLUMNS`), in the order it went: the turn,
        and the keys new to the full store at that turn that pushed it out. A pusher that was itself pushed out
        earlier and came back says so ("database (back in the store: version had pushed it out at turn 4)"): that
        turn only corrected the database."""
        rows: list[dict[str, str | int]] = []
        for key, turn in sorted(self.evicted.items(), key=lambda item: (item[1], item[0])):
            event = next((e for e in self.evictions if e.key == key and e.turn == turn), None)
            by = [self._pusher(k, turn) for k in event.by] if event is not None else []
            rows.append(
                dict(zip(EVICTION_COLUMNS, (key, turn, and_listed(by) if by else "(not recorded)"), strict=True))
            )
        return rows

    def _pusher(self, key: str, turn: int) -> str:
        """A key new to the full store at ``turn``; if the store had held it and lost it before, when and to what."""
        earlier = [e for e in self.evictions if e.key == key and e.turn < turn]
        if not earlier:
            return key
        last = earlier[-1]
        return f"{key} (back in the store: {and_listed(list(last.by))} had pushed it out at turn {last.turn})"

    def key_repairs(self) -> list[dict[str, str]]:
        """The verdict key by key (:data:`KEY_REPAIR_COLUMNS`): for each key it names, in its order, the value the
        first answer stated, the one the store held at the last evaluation (or why it held none), the value the
        returned answer states, and what the loop did ("fixed", "not fixed", "still missing"). "nothing" where an
        answer states no value."""
        if not self.reader_calls:
            return []
        first = dict(stated_values(self.reader_calls[0].reply))
        returned = dict(stated_values(self.final_answer))
        held = {f.key: f.value for f in (self.checks[-1].facts if self.checks else ())}

        def in_store(key: str) -> str:
            if key in held:
                return held[key]
            return f"nothing (evicted at turn {self.evicted[key]})" if key in self.evicted else "nothing (never stored)"

        done = [(k, "fixed") for k in self.fixed] + [(k, "not fixed") for k in self.not_fixed]
        done += [(k, "still missing") for k in self.still_missing]
        return [
            dict(
                zip(
                    KEY_REPAIR_COLUMNS,
                    (key, first.get(key, "nothing"), in_store(key), returned.get(key, "nothing"), what),
                    strict=True,
                )
            )
            for key, what in done
        ]

    @property
    def iterations(self) -> int:
        """Loop iterations: one reader call each."""
        return len(self.reader_calls)

    @property
    def reader_chars(self) -> int:
        """Characters the reader received over every iteration of the loop."""
        return sum(c.chars_sent for c in self.reader_calls)

    @property
    def feedback_chars(self) -> int:
        """Characters of the evaluator's feedback over the run, what the loop added to the reader's prompts."""
        return sum(len(c.feedback or "") for c in self.checks)

    def trace(self) -> LoopTrace:
        """The run call by call in lesson 05's layout: what the reader saw and said, what the evaluator held it to."""
        trace = LoopTrace(model=READER_LIVE if self.live else READER_OFFLINE)
        for number, call in enumerate(self.reader_calls, start=1):
            trace.llm([m.text for m in call.messages], call.reply)
            check = next((c for c in self.checks if c.iteration == number), None)
            if check is not None:
                _trace_check(trace, check)
        return trace


def _trace_check(trace: LoopTrace, check: FactCheck) -> None:
    """One evaluation in the trace: the store it held the answer to, the answer, the violations (or "none").

    Its "saw" and "did" keep each number on its word's line (:func:`~course_lib.loop_demos.kept_with_numbers`), as
    lesson 05's rows do: a narrow column must not leave "2022" alone under "SQL Server".
    """
    found = tuple(f"{v.fact.key}: {v.problem}" for v in check.violations)
    trace.evaluation(
        check.iteration,
        (
            ("Store", tuple(quote_fact(f) for f in check.facts)),
            ("Last response", (check.answer,)),
            ("Violations", found or ("none",)),
        ),
        saw=kept_with_numbers(
            f"iteration {check.iteration}; store: {', '.join(f'{f.key}={f.value}' for f in check.facts)}"
        ),
        # the lesson's words: the loop sends the answer back (lesson 05's "continue" is MAF's name for it)
        did="stop" if check.feedback is None else kept_with_numbers(f"send back: {problems(check.violations)}"),
        feedback=check.feedback,
    )


async def run_capstone(
    timeline: Timeline,
    factory: PolicyFactory,
    rule: ResolutionRule,
    *,
    max_facts: int = MAX_FACTS,
    max_iterations: int = 5,
    host_writer: FactWriter | None = None,
) -> CapstoneRun:
    """Replay ``timeline`` through one policy; ask its final question through a loop held to the store.

    The host keeps one controlled-facts store for the conversation, fed from the user's own words at
    every turn whatever the policy (the facts policy's own store, when the policy is that one). The
    policy decides what the reader sees; the loop decides whether the reader's answer stands.
    ``host_writer`` feeds the host's store (default: the factory's writer).
    """
    log = CallLog()
    policy = factory(rule, log)
    extraction = policy.extraction if isinstance(policy, FactsPolicy) else _host_store(max_facts, host_writer)
    own_store = isinstance(policy, FactsPolicy)
    memory = extraction.memory
    held: dict[str, int] = {}
    evicted: dict[str, int] = {}
    evictions: list[Eviction] = []
    superseded: dict[str, list[str]] = {}
    *earlier, final = timeline.turns
    checks: list[FactCheck] = []
    try:
        for number, turn in enumerate(earlier, start=1):
            values = {f.key: f.value for f in memory.facts}
            await policy.turn(turn.user)
            if not own_store:
                await extraction.update(turn.user)
            _track_evictions(memory, number, held, evicted, evictions)
            record_superseded(values, memory.facts, superseded)
        before = len(log)
        evaluator = FactsConsistencyEvaluator(memory, superseded=superseded, on_check=checks.append)
        answer = await _ask_in_loop(policy, final.user, evaluator, max_iterations)
    except SummaryRejected as error:  # the policy's own rule stopped it: shown as such, the other runs go on
        stopped = _stopped(
            timeline,
            policy=policy.name,
            rule=rule,
            max_facts=memory.max_facts,
            checks=checks,
            evicted=evicted,
            reason=str(error),
        )
        return stopped.model_copy(update={"evictions": evictions})
    reader_calls = [c for c in log.calls[before:] if c.client == "reader"]
    run = _graded(
        timeline,
        policy=policy.name,
        rule=rule,
        max_facts=memory.max_facts,
        checks=checks,
        reader_calls=reader_calls,
        answer=answer,
        evicted=evicted,
        cap=max_iterations,
    )
    # the reader capstone_reader built
    return run.model_copy(update={"live": course_backends().live is not None, "evictions": evictions})


def key_repairs_or_why(run: CapstoneRun) -> pd.DataFrame | str:
    """``run``'s key-by-key table (:data:`KEY_REPAIR_COLUMNS`), or, when it has no rows, one sentence saying why.

    A run whose reader made no call, or whose evaluator found no key wrong or missing (a live model's answer the
    rules read no value in, say), has nothing to follow key by key: an empty table would show only its headings.
    """
    from .frames import rows_frame

    rows = run.key_repairs()
    if rows:
        return rows_frame(rows, KEY_REPAIR_COLUMNS)
    if not run.reader_calls:
        return f"No key to follow: the {run.policy} run made no reader call, so it has no answer to compare."
    return (
        f"No key to follow: the evaluator found no key wrong or missing in the {run.policy} run's answers, "
        "so the loop had nothing to fix."
    )


def evictions_or_why(run: CapstoneRun) -> pd.DataFrame | str:
    """``run``'s lost keys (:data:`EVICTION_COLUMNS`), or, when the store lost none, one sentence saying so."""
    from .frames import rows_frame

    rows = run.eviction_rows()
    if rows:
        return rows_frame(rows, EVICTION_COLUMNS)
    return (
        f"The {run.policy} run's store lost no key for good: every key it was given found room "
        f"within its bound of {run.max_facts} facts, or came back."
    )


def _host_store(max_facts: int, writer: FactWriter | None = None) -> MemoryExtraction:
    memory = WorkingMemory(max_facts)
    return make_extraction(memory) if writer is None else MemoryExtraction(memory, writer)


class SameWordsWriter:
    """A writer that asks its model once per distinct message and gives the same answer to the same words again.

    The host's store depends only on the user's turns, never on the policy: in one comparison every run replays the
    same messages, so asking the writer again for each run would pay for the same answer (on a live model, a call of
    seconds per turn and run) and could even give another store to each run of one conversation. A failure is kept
    as well (raised again for the same words). The host still admits each proposal against the message, per store.
    """

    def __init__(self, writer: FactWriter) -> None:
        self.writer = writer
        self.answers: dict[str, FactBatch | Exception] = {}

    async def propose(self, user_text: str) -> FactBatch:
        if user_text not in self.answers:
            try:
                self.answers[user_text] = await self.writer.propose(user_text)
            except Exception as error:
                self.answers[user_text] = error
        answer = self.answers[user_text]
        if isinstance(answer, Exception):
            raise answer
        return answer


def _track_evictions(
    memory: WorkingMemory, turn: int, held: dict[str, int], evicted: dict[str, int], log: list[Eviction] | None = None
) -> None:
    """After ``turn``: each key ``held`` before it that the store lost is evicted at it (with the new keys that
    pushed it out, in ``log``); each key the store holds again is no longer evicted."""
    keys = {f.key for f in memory.facts}
    new = tuple(sorted(keys - set(held)))
    for key in sorted(set(held) - keys):
        evicted[key] = turn
        del held[key]
        if log is not None:
            log.append(Eviction(turn=turn, key=key, by=new))
    for key in keys:
        held.setdefault(key, turn)
        evicted.pop(key, None)


STORE_TURN_COLUMNS = ("turn", "the turn declared", "pushed out", "the store after it")
"""The columns of :func:`store_turns`: what each turn stored, what the bound pushed out for it, the keys left."""


async def store_turns(
    timeline: Timeline, max_facts: int = MAX_FACTS, writer: FactWriter | None = None
) -> list[dict[str, str | int]]:
    """The host's store turn by turn over ``timeline``'s turns before its final question (:data:`STORE_TURN_COLUMNS`).

    The same store :func:`run_capstone` holds the answers to, fed the same way: each turn's facts as the store keeps
    them (a correction moves its fact to the correction's turn), the keys the bound pushed out at that turn, and the
    keys the store holds after it, oldest turn first. A lesson that walks the evictions turn by turn shows this table.
    """
    extraction = _host_store(max_facts, writer)
    memory = extraction.memory
    held: dict[str, int] = {}
    evictions: list[Eviction] = []
    rows: list[dict[str, str | int]] = []
    *earlier, _final = timeline.turns
    for number, turn in enumerate(earlier, start=1):
        await extraction.update(turn.user)
        _track_evictions(memory, number, held, {}, evictions)
        declared = [f"{f.key}={f.value}" for f in memory.facts if f.turn == number]
        pushed = [e.key for e in evictions if e.turn == number]
        cells = (
            number,
            ", ".join(declared) or "nothing",
            and_listed(pushed) if pushed else "nothing",
            ", ".join(f.key for f in memory.facts),
        )
        rows.append(dict(zip(STORE_TURN_COLUMNS, cells, strict=True)))
    return rows


async def _ask_in_loop(policy: MemoryPolicy, question: str, evaluator: LoopEvaluator, max_iterations: int) -> str:
    """One policy turn answered by its reader wrapped in the loop: the policy still decides what the reader sees."""
    options = LoopAgentOptions(max_iterations=max_iterations, non_streaming_returns_last_response_only=True)
    return await policy.turn(question, reader=LoopAgent(policy.reader, evaluator, options))


def _graded(
    timeline: Timeline,
    *,
    policy: str,
    rule: str,
    max_facts: int,
    checks: list[FactCheck],
    reader_calls: list[ModelCall],
    answer: str,
    evicted: dict[str, int],
    cap: int,
) -> CapstoneRun:
    """The run graded against the timeline's final question: correct before and after the loop, verdict, why."""
    expect = timeline.turns[-1].expect
    if expect is None:
        raise ValueError(f"The last turn of timeline {timeline.name!r} must be a graded question (with 'expect').")
    missing, forbidden = expect.unmet(answer)
    first_correct = expect.unmet(reader_calls[0].reply if reader_calls else answer) == ([], [])
    final_correct = not missing and not forbidden
    capped = len(reader_calls) >= cap and all(c.iteration < len(reader_calls) for c in checks)
    if final_correct:
        verdict: Verdict = "right first time" if len(reader_calls) == 1 else "repaired"
    elif capped:
        verdict = "stopped at the cap"
    else:
        verdict = "partly repaired" if len(reader_calls) > 1 else "not repaired"
    memory_facts = checks[-1].facts if checks else ()
    fixed, not_fixed, still_missing = _repairs(timeline, checks, reader_calls, answer, missing, forbidden)
    why = _why(
        timeline,
        facts=memory_facts,
        answer=answer,
        missing=missing,
        forbidden=forbidden,
        evicted=evicted,
        iterations=len(reader_calls),
    )
    return CapstoneRun(
        policy=policy,
        rule=rule,
        max_facts=max_facts,
        checks=checks,
        reader_calls=reader_calls,
        final_answer=answer,
        first_correct=first_correct,
        final_correct=final_correct,
        missing=missing,
        forbidden=forbidden,
        evicted=evicted,
        verdict=verdict,
        why=why,
        fixed=fixed,
        not_fixed=not_fixed,
        still_missing=still_missing,
    )


def _repairs(
    timeline: Timeline,
    checks: Sequence[FactCheck],
    reader_calls: Sequence[ModelCall],
    answer: str,
    missing: Sequence[str],
    forbidden: Sequence[str],
) -> tuple[list[str], list[str], list[str]]:
    """Per key, what the loop did: (fixed, not fixed, still missing), computed from the first and the returned answer.

    A key was wrong at first when the first answer failed the final question's grading on one of its values, or the
    evaluator sent it back; it is fixed when the returned answer no longer fails on it. A key still failing is "not
    fixed" when the returned answer states a value for it (a forbidden one, or another), "still missing" when it
    states none: "partly repaired" alone would not say which.
    """
    expect = timeline.turns[-1].expect
    keys = _keys_of_values(timeline)
    first_missing, first_forbidden = expect.unmet(reader_calls[0].reply) if expect and reader_calls else ([], [])
    flagged = [v.fact.key for v in checks[0].violations] if checks else []
    wrong_first = _unique([*(keys.get(t, t) for t in [*first_missing, *first_forbidden]), *flagged])
    failing = _unique(keys.get(t, t) for t in [*missing, *forbidden])
    stated = {key for key, _ in stated_values(answer)} | {keys.get(t, t) for t in forbidden}
    fixed = [key for key in wrong_first if key not in failing]
    return fixed, [key for key in failing if key in stated], [key for key in failing if key not in stated]


def _unique(keys: Iterable[str]) -> list[str]:
    """``keys`` in first-seen order, each once."""
    return list(dict.fromkeys(keys))


def _stopped(
    timeline: Timeline,
    *,
    policy: str,
    rule: str,
    max_facts: int,
    checks: list[FactCheck],
    evicted: dict[str, int],
    reason: str,
) -> CapstoneRun:
    """A run whose policy refused to go on (a summary out of bounds): no final answer, graded wrong, and why."""
    expect = timeline.turns[-1].expect
    missing = expect.unmet("")[0] if expect is not None else []  # no answer: graded by the same rule, as empty
    return CapstoneRun(
        policy=policy,
        rule=rule,
        max_facts=max_facts,
        checks=checks,
        reader_calls=[],
        final_answer="",
        first_correct=False,
        final_correct=False,
        missing=missing,
        forbidden=[],
        evicted=evicted,
        verdict="policy stopped",
        why=reason,
    )


def _why(
    timeline: Timeline,
    *,
    facts: Sequence[Fact],
    answer: str,
    missing: Sequence[str],
    forbidden: Sequence[str],
    evicted: Mapping[str, int],
    iterations: int,
) -> str:
    """The reason, computed from the store and the answer, in short plain clauses: what the evaluator could and could
    not hold the answer to. Keys with the same reason are named together ("the store lost the module and database
    facts")."""
    if not missing and not forbidden:
        return "the evaluator found nothing to correct" if iterations == 1 else "the feedback quoted the stored facts"
    keys = _keys_of_values(timeline)
    stored = {f.key for f in facts}
    stated = dict(stated_values(answer))
    failing = _unique(keys.get(text, "?") for text in [*missing, *forbidden])
    left_out = [k for k in failing if k in stored and k not in stated]
    wrong = [k for k in failing if k in stored and k in stated]
    lost = sorted((k for k in failing if k not in stored and k in evicted), key=lambda k: (evicted[k], k))  # as it went
    never = [k for k in failing if k not in stored and k not in evicted]
    reasons = [f"the answer leaves out {_facts_of(left_out)}: an omission contradicts nothing"] if left_out else []
    reasons += [f"the answer still says {_pairs(wrong, stated)}"] if wrong else []
    for group, gone in ((lost, _lost), (never, _never_stored)):
        if group:
            said = [k for k in group if k in stated]  # a wrong value the store cannot contradict: named
            reasons.append(gone(group, evicted) + (f", so nothing contradicts {_pairs(said, stated)}" if said else ""))
    return "; ".join(reasons)


def _facts_of(keys: Sequence[str]) -> str:
    """ "the constraint fact", "the module and database facts": keys named as a sentence names things."""
    return f"the {and_listed(keys)} fact{'s' * (len(keys) > 1)}"


def _never_stored(keys: Sequence[str], _evicted: Mapping[str, int]) -> str:
    return f"{_facts_of(keys)} never reached the store"


def _lost(keys: Sequence[str], evicted: Mapping[str, int]) -> str:
    """ "the store lost the database and module facts (evicted: database at turn 10, module at turn 11)".

    The keys in the order the store evicted them (a tie, as the store breaks it: by key), each beside its turn, so
    the list never reads as if the key named first went first when it went last; one key: "(evicted at turn 7)".
    """
    gone = sorted(keys, key=lambda k: (evicted[k], k))
    if len(gone) == 1:
        return f"the store lost {_facts_of(gone)} (evicted at turn {evicted[gone[0]]})"
    when = ", ".join(f"{k} at turn {evicted[k]}" for k in gone)
    return f"the store lost {_facts_of(gone)} (evicted: {when})"


def _pairs(keys: Sequence[str], stated: Mapping[str, str]) -> str:
    """What the answer states for ``keys``: "module=Reporting and database=PostgreSQL"."""
    return and_listed([f"{k}={stated[k]}" for k in keys])


def _keys_of_values(timeline: Timeline) -> dict[str, str]:
    """Which key each declared value of the timeline belongs to (the last declaration of a value wins)."""
    return {d.value: d.key for turn in timeline.turns for d in find_declarations(turn.user)}


async def compare_repairs(
    timeline: Timeline,
    policies: Mapping[str, PolicyFactory] | None = None,
    rules: Sequence[ResolutionRule] | None = None,
    *,
    max_facts: int = MAX_FACTS,
    max_iterations: int = 5,
) -> list[CapstoneRun]:
    """Every policy under every rule, each from a fresh state, its final question asked inside the loop.

    The host's store of every run is fed by one :class:`SameWordsWriter`: one writer call per distinct message of the
    conversation, not one per message and run (the facts policy's own store keeps its own writer, as in lesson 04).

    ``rules`` by default: the drift rules offline, the first alone on a live model, whose reader no rule shapes
    (:func:`course_lib.policies.comparison_rules`).
    """
    policies = policies or capstone_policies(max_facts=max_facts)
    rules = comparison_rules(DRIFT_RULES) if rules is None else rules
    host_writer = SameWordsWriter(make_fact_writer())  # one conversation: the writer asked once per message
    return [
        await run_capstone(
            timeline, factory, rule, max_facts=max_facts, max_iterations=max_iterations, host_writer=host_writer
        )
        for rule in rules
        for factory in policies.values()
    ]


# region The feedback through lesson 03's provider path (lesson 07, section 7)


class RecordingWriter:
    """A fact writer that records every text it is asked to read, then asks ``writer`` (the course's by default)."""

    def __init__(self, writer: FactWriter | None = None) -> None:
        self.writer = make_fact_writer() if writer is None else writer
        self.texts: list[str] = []

    async def propose(self, user_text: str) -> FactBatch:
        self.texts.append(user_text)
        return await self.writer.propose(user_text)


class DeskLoopRun(BaseModel):
    """Lesson 03's desk, its facts provider feeding the store, the final question asked inside the loop: what the
    loop added and what the provider's writer read."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    checks: list[FactCheck]
    """What the evaluator saw and decided, one per iteration."""
    feedback_message: Message | None
    """The first message the loop added to the session (its feedback), or None when the first answer held."""
    writer_texts: list[str]
    """Every text the provider's writer was asked to read, in order."""
    user_turns: list[str]
    """The caller's own messages: the timeline's turns, the final question included."""
    store_before: tuple[Fact, ...]
    """The store when the final question came."""
    store_after: tuple[Fact, ...]
    """The store after the loop returned."""

    @property
    def iterations(self) -> int:
        return len(self.checks)

    @property
    def feedback_sent(self) -> bool:
        return any(c.feedback is not None for c in self.checks)

    @property
    def added_by(self) -> str | None:
        """Who added the feedback message (its attribution), None when there is none or it carries no mark."""
        return None if self.feedback_message is None else attribution_source(self.feedback_message)

    @property
    def only_user_words(self) -> bool:
        """Whether the writer read the caller's own turns and nothing else (no feedback)."""
        return self.writer_texts == self.user_turns

    @property
    def writer_read(self) -> str:
        """How many texts the writer read and, when they are the caller's first turns in order, which: "10 (turns 1
        to 10, the final question included)" (lesson 07's walk 24: a bare 10 beside "turns 1 to 9" read as a slip)."""
        count = len(self.writer_texts)
        if not count or self.writer_texts != self.user_turns[:count]:
            return str(count)
        final = ", the final question included" if count == len(self.user_turns) else ""
        return f"{count} (turns 1 to {count}{final})"

    @property
    def store_unchanged(self) -> bool:
        return self.store_after == self.store_before


async def run_desk_in_loop(timeline: Timeline, rule: ResolutionRule = "earliest") -> DeskLoopRun:
    """Lesson 03's desk agent (its :class:`~course_lib.providers.FactsContextProvider` extracting with a
    :class:`RecordingWriter`) answers turns 1 to n-1 of ``timeline``; the final question runs inside lesson 05's
    :class:`~course_lib.loop.LoopAgent` held by a :class:`FactsConsistencyEvaluator` on the desk's own store.

    Lesson 07 shows with it that the loop's feedback, which quotes facts word for word, never reaches the writer:
    the loop marks each message it adds (its attribution) and the provider extracts only from unmarked ones.
    """
    writer = RecordingWriter()
    extraction = MemoryExtraction(WorkingMemory(), writer)
    desk = provider_agent(
        capstone_reader(rule),
        FactsContextProvider(extraction),
        name="desk",
        instructions="Answer from the conversation and the controlled facts.",
    )
    session = desk.create_session()
    *earlier, final = timeline.turns
    for turn in earlier:
        await desk.run(turn.user, session=session)
    before = extraction.memory.facts
    checks: list[FactCheck] = []
    evaluator = FactsConsistencyEvaluator(extraction.memory, on_check=checks.append)
    response = await LoopAgent(desk, evaluator).run(final.user, session=session)
    return DeskLoopRun(
        checks=checks,
        feedback_message=next((m for m in response.messages if m.role == "user"), None),
        writer_texts=writer.texts,
        user_turns=[turn.user for turn in timeline.turns],
        store_before=before,
        store_after=extraction.memory.facts,
    )


class AnswerVerdict(BaseModel):
    """One ``(task, answer)`` the evaluator read, and its :func:`verdict` (a row of lesson 07's verdict tables)."""

    model_config = ConfigDict(frozen=True)

    task: str
    """The question the answer was given to."""
    answer: str
    """The answer as the reader wrote it."""
    verdict: str
    """:func:`verdict`: ``pass``, or each violation (``key: stated``, ``key missing``)."""


def verdicts(
    facts: Sequence[Fact], answers: Sequence[tuple[str, str]], superseded: Mapping[str, Iterable[str]] | None = None
) -> list[AnswerVerdict]:
    """The evaluator's :func:`verdict` on each ``(task, answer)`` against ``facts``
    (:func:`~course_lib.presentation.verdict_table` shows them)."""
    return [
        AnswerVerdict(task=task, answer=answer, verdict=verdict(check_answer(facts, answer, task, superseded)))
        for task, answer in answers
    ]


def reader_answer(reader: OfflineChatClient, said: Sequence[str]) -> str:
    """What the offline ``reader`` answers to the user's messages ``said``, in order.

    Each text becomes a ``Message(role="user", contents=[text])``; the offline
    model's ``answer(messages, options)`` runs with no chat settings.
    """
    return reader.answer([Message(role="user", contents=[text]) for text in said], options={})


async def exercise_expected(label: str, timeline: Timeline | None = None) -> Any:
    """The answer lesson 07's exercise ``label`` is checked against, computed here rather than in the checking
    cell, so the cell does not show it (lesson 07's walk 24): the student works it out from the sections it names.

    * ``Exercise 1``: the verdict of the full-history run under the *latest* rule;
    * ``Exercise 2``: how many violations the facts run's store (section 4, *earliest*) finds in the answer the
      exercise quotes, to the final question;
    * ``Exercise 3``: whether the *facts* policy's final answer is correct with a store of 6 facts (*earliest*).
    """
    timeline = timeline or load_timeline()
    question = timeline.turns[-1].user
    if label == "Exercise 1":
        return (await run_capstone(timeline, capstone_policy("full_history"), "latest")).verdict
    if label == "Exercise 2":
        facts_run = await run_capstone(timeline, capstone_policy("facts"), "earliest")
        return len(check_answer(facts_run.checks[0].facts, EXERCISE_2_ANSWER, question))
    if label == "Exercise 3":
        run6 = await run_capstone(timeline, capstone_policy("facts", max_facts=6), "earliest", max_facts=6)
        return run6.final_correct
    raise ValueError(f"lesson 07 has no exercise {label!r}: its exercises are Exercise 1, 2 and 3")
