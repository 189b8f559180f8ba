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

The reading is rule-based and linear in the answer's length (see "Reading an answer" below); lesson 07
shows where such rules must still fail, and what an AI judge would cost instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from agent_framework import BaseChatClient, Message
from pydantic import BaseModel, ConfigDict

from .assertions import ALLOWED_KEYS, find_declarations
from .clients import course_backends, make_chat_client
from .extraction import FactBatch, FactWriter, MemoryExtraction, make_extraction, make_fact_writer
from .loop import LoopAgent, LoopAgentOptions, LoopContext, LoopEvaluation, LoopEvaluator
from .loop_demos import INDENT, LoopTrace
from .memory import MAX_FACTS, Fact, WorkingMemory, quote_for_prompt
from .memory_models import (
    OfflineAssistantClient,
    ResolutionRule,
    SummaryMode,
    resolve,
    strip_prompt_block,
    visible_mentions,
)
from .offline import last_user_text, without_tool_loop
from .policies import (
    FactsPolicy,
    MemoryPolicy,
    PolicyFactory,
    PolicyKind,
    SummaryRejected,
    Timeline,
    comparison_rules,
    course_policies,
)
from .tracing import CallLog, ModelCall

__all__ = [
    "CONNECTORS",
    "DRIFT_RULES",
    "FEEDBACK_FOOTER",
    "FEEDBACK_HEADER",
    "AnswerVerdict",
    "CapstoneRun",
    "DriftProneAssistantClient",
    "FactCheck",
    "FactsConsistencyEvaluator",
    "SameWordsWriter",
    "Verdict",
    "Violation",
    "capstone_policies",
    "capstone_policy",
    "capstone_reader",
    "carries_constraint",
    "check_answer",
    "clauses",
    "compare_repairs",
    "feedback_text",
    "mentions",
    "plain_text",
    "plans_action",
    "prose_values",
    "quote_fact",
    "quoted_facts",
    "run_capstone",
    "stated_values",
    "task_text",
    "verdict",
    "verdicts",
]

DRIFT_RULES: tuple[ResolutionRule, ...] = ("earliest", "most_frequent")
"""The resolution rules that make the offline reader drift back to a superseded value."""

FEEDBACK_HEADER = "[facts check] Your answer disagrees with the controlled facts. Answer again, holding to:"
FEEDBACK_FOOTER = "[end of facts check]"


# region Reading an answer
#
# A real model writes prose: "The module is Billing and the database is still PostgreSQL.", Markdown lists and
# bold, a history ("moved from Reporting to Billing"). The reader works clause by clause on a plain copy of the
# answer (Markdown marks removed, spacing collapsed), in time linear in the answer's length: every pattern below
# starts at a key word or a known value and reads a bounded stretch after it, and no pattern can backtrack over a
# run of one character.

_MARKDOWN = str.maketrans({"*": " ", "`": " ", "#": " ", "|": " ", ">": " "})
_CLAUSE_END = re.compile(r"[;!?\n]+|[.:](?=\s|$)")
_MAX_VALUE = 120
"""The longest stretch after a key that is read as its value (a stored value is at most 256; a prose value ends
sooner, at a clause end, a comma or an "and")."""
_STATEMENT = re.compile(
    r"(?<![\w-])(?P<key>" + "|".join(ALLOWED_KEYS) + r")[ \t]*[=:][ \t]*"
    r"(?P<value>(?:[^;\n.,]|[.,](?=\S)){1," + str(_MAX_VALUE) + "})",
    re.IGNORECASE,
)
_COPULA = re.compile(
    r"(?<![\w-])(?P<key>" + "|".join(ALLOWED_KEYS) + r")s?\s+(?:(?:is|are|stays|remains|will be|should be|must be|"
    r"becomes|=)\s+)(?:(?:still|now|currently|set to|on)\s+)*(?P<value>[^,;\n]{1," + str(_MAX_VALUE) + "})",
    re.IGNORECASE,
)
CONNECTORS = ("and", "with", "on", "in", "for", "but", "while", "so", "because", "which", "that")
"""Words that end a value read in a sentence: "module=Payroll on MariaDB 11" states ``Payroll``. A stored value
that itself holds one of them as a word ("Billing on Linux") is read in full when the answer states it in full,
and its first words alone pass for it: a rule-based reader cannot tell the two apart."""
_VALUE_END = re.compile(r"\s+(?:" + "|".join(CONNECTORS) + r")\b|\s+\(|[,;]", re.IGNORECASE)
_NEGATION_BEFORE = re.compile(
    r"\b(?:no longer|not|never|isn't|aren't|wasn't|no more|formerly|previously|used to|was|were|moved from|"
    r"migrated from|switched from|changed from|corrected from|replaced|replacing|instead of|rather than|from|"
    r"old|older|earlier|former|superseded|retired|retiring|dropped|away from)\W+(?:\w+\W+){0,3}$",
    re.IGNORECASE,
)
_NEGATION_AFTER = re.compile(
    r"^\W{0,3}(?:\((?:old|former|previous|superseded|retired|before)|(?:is|was|has been|have been|were|got)\s+"
    r"(?:no longer|replaced|superseded|retired|dropped|gone|corrected|changed)|no longer|before\b|"
    r"(?:is|was) (?:the )?(?:old|former|previous))",
    re.IGNORECASE,
)
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_ACTION = re.compile(
    r"\b(plan|planned|planning|fix|fixing|restart|deploy|migrate|roll ?back|upgrade|patch|apply|run|execute)\b",
    re.IGNORECASE,
)


def plain_text(text: str) -> str:
    """The answer without Markdown marks (``*``, backticks, headings, quotes, table bars), in one pass."""
    return text.translate(_MARKDOWN)


def clauses(text: str) -> list[str]:
    """The answer's clauses: split at ``;``, ``!``, ``?``, a line break, or a period or colon before a space.

    A colon ends a clause only before a space, so ``key: value`` stays whole, and a period inside a value
    (``4.2``, ``billing-worker.log``) does not end it.
    """
    plain = plain_text(text)
    parts: list[str] = []
    start = 0
    for end in _CLAUSE_END.finditer(plain):
        if end.group() == ":" and _ends_in_key(plain, end.start()):
            continue
        parts.append(plain[start : end.start()])
        start = end.end()
    parts.append(plain[start:])
    return [" ".join(p.split()) for p in parts if p.strip()]


def _ends_in_key(text: str, at: int) -> bool:
    """Whether the word before position ``at`` is an allowed key (``module: Billing`` is one statement)."""
    word = re.search(r"(\w+)\W*$", text[max(0, at - 24) : at])
    return word is not None and word[1].lower() in ALLOWED_KEYS


def stated_values(text: str) -> list[tuple[str, str]]:
    """Every ``(key, value)`` the text states in the contract's form, ``key=value`` or ``key: value``, in order.

    Any key case; Markdown bold or code around the key is ignored. Linear in the text's length.
    """
    return [(m["key"].lower(), m["value"].strip()) for m in _STATEMENT.finditer(plain_text(text))]


def prose_values(clause: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` a clause states in prose: "the database is PostgreSQL", "module stays Billing"."""
    found: list[tuple[str, str]] = []
    for m in _COPULA.finditer(clause):
        value = _VALUE_END.split(m["value"], maxsplit=1)[0].strip(" .\"'")
        if value:
            found.append((m["key"].lower(), value))
    return found


def plans_action(text: str) -> bool:
    """Whether the text plans or asks for an action (plan, fix, restart, deploy, ...)."""
    return bool(_ACTION.search(text))


def _norm(text: str) -> str:
    return " ".join(plain_text(text).strip().strip("\"'`*").split()).casefold()


def _same_value(stated: str, current: str) -> bool:
    """Equal up to case, spacing and quotes; a trailing note in parentheses (``Billing (corrected)``) is allowed."""
    return _norm(current) in (_norm(stated), _norm(_TRAILING_NOTE.sub("", stated)))


def _starts_with_value(stated: str, current: str) -> bool:
    """Whether a value begins with the stored one as a whole phrase: "Billing module", "Billing on SQL Server".

    The rest must start after a space or a comma, semicolon, period or parenthesis: "Billing/Reporting" and
    "Billingham" do not begin with ``Billing``.
    """
    said, want = _norm(stated), _norm(current)
    return said == want or (said.startswith(want) and said[len(want)] in " ,;.(")


def _named(value: str) -> bool:
    """Whether a prose value names something (a capital or a digit first): "PostgreSQL", not "fine"."""
    first = value.lstrip("\"'(")[:1]
    return first.isupper() or first.isdigit()


def _carried(value: str, said: str) -> bool:
    """Whether the normalized answer ``said`` contains ``value`` as a whole phrase (not inside a longer word)."""
    return re.search(r"(?<!\w)" + re.escape(_norm(value)) + r"(?!\w)", said) is not None


def mentions(value: str, clause: str) -> list[int]:
    """Where ``value`` occurs in ``clause`` as a whole phrase (case and spacing aside), never inside a longer word."""
    said, want = clause.casefold(), _norm(value)
    found: list[int] = []
    at = said.find(want) if want else -1
    while at >= 0:
        end = at + len(want)
        before = said[at - 1] if at else " "
        after = said[end] if end < len(said) else " "
        if not _word_char(before) and not _word_char(after):
            found.append(at)
        at = said.find(want, at + 1)
    return found


def _word_char(char: str) -> bool:
    """Letters, digits, ``-`` and ``_`` continue a word: "Reporting-free" does not mention ``Reporting``."""
    return char.isalnum() or char in "-_"


def _historical(clause: str, at: int, length: int) -> bool:
    """Whether a mention at ``at`` is a negation or a history ("no longer X", "from X to Y", "X (old)")."""
    return bool(_NEGATION_BEFORE.search(clause[max(0, at - 60) : at])) or bool(
        _NEGATION_AFTER.search(clause[at + length : at + length + 40])
    )


_STOPWORD_TEXT = (
    "the a an of to in on at for and or with by during must should we you be is are any do does our your it this"
    " that these those from as"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_NEGATIVE = frozenset({"never", "not", "no", "don't", "dont", "avoid", "without", "nor", "cannot", "can't", "mustn't"})


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _words(text: str) -> list[str]:
    return re.findall(r"[\w']+", plain_text(text).casefold())


def carries_constraint(constraint: str, answer: str, parts: Sequence[str] | None = None) -> bool:
    """Whether the answer carries a stored constraint in the user's words or close to them.

    Word for word passes. Otherwise one clause must hold every content word of the constraint but at most one
    (stems: "restarting" counts for "restart"), and, for a negative constraint ("never ..."), a negation of its own:
    "Do not restart the production database in business hours" carries "never restart the production database
    during business hours"; "Restart the production database during business hours" does not. ``parts`` are the
    answer's :func:`clauses`, when the caller has them already.
    """
    if _carried(constraint, _norm(answer)):
        return True
    words = _words(constraint)
    content = {_stem(w) for w in words if w not in _STOPWORDS and w not in _NEGATIVE}
    negative = any(w in _NEGATIVE for w in words)
    for clause in clauses(answer) if parts is None else parts:
        said = _words(clause)
        present = content & {_stem(w) for w in said}
        if len(content) - len(present) <= (1 if len(content) > 3 else 0) and (
            not negative or any(w in _NEGATIVE or w.endswith("n't") for w in said)
        ):
            return True
    return False


class Violation(BaseModel):
    """One broken rule: the stored fact, and the other value the answer stated (None: the fact is missing)."""

    model_config = ConfigDict(frozen=True)

    fact: Fact
    stated: str | None = None

    @property
    def problem(self) -> str:
        if self.stated is not None:
            return f"your answer states {self.fact.key}={self.stated} as current."
        return "your answer plans an action but does not carry this constraint."


def check_answer(
    facts: Sequence[Fact], answer: str, task: str = "", superseded: Mapping[str, Iterable[str]] | None = None
) -> list[Violation]:
    """The rules an answer breaks against the stored ``facts``; [] when none. One violation per key at most.

    Read clause by clause: a ``key=value`` (or ``key: value``) statement, or a prose one ("the database is
    PostgreSQL"), whose value is not the stored one; a mention of a ``superseded`` value of a stored key (the values
    the store held before a correction) that is not a negation or a history ("no longer Reporting", "moved from
    Reporting to Billing", "Reporting (old)"). ``task`` is the request the answer responds to: a task (or an answer)
    that plans an action makes each stored ``constraint`` due, carried as :func:`carries_constraint` reads it.
    """
    stored = {f.key: f for f in facts}
    old = _OldValues(
        {
            key: [v for v in values if not _same_value(v, stored[key].value)]
            for key, values in (superseded or {}).items()
            if key in stored
        }
    )
    parts = clauses(answer)
    found: dict[str, str] = {}
    for clause in parts:
        if _KEY_WORD.search(clause) or old.search(clause):  # most clauses of a long answer name nothing
            for key, value in _claims(clause, stored, old):
                found.setdefault(key, value)
    violations = [Violation(fact=stored[key], stated=value) for key, value in found.items()]
    if plans_action(answer) or plans_action(task):
        violations += [
            Violation(fact=f)
            for f in facts
            if f.key == "constraint" and f.key not in found and not carries_constraint(f.value, answer, parts)
        ]
    return violations


_KEY_WORD = re.compile(r"(?<![\w-])(?:" + "|".join(ALLOWED_KEYS) + r")", re.IGNORECASE)


class _OldValues:
    """The superseded values of the stored keys, found in a clause by one pattern (longest value first)."""

    def __init__(self, values: Mapping[str, Sequence[str]]) -> None:
        self.key_of = {_norm(v): (key, v) for key, vs in values.items() for v in vs if _norm(v)}
        names = sorted(self.key_of, key=len, reverse=True)
        alternatives = "|".join(re.escape(n).replace("\\ ", r"\s+") for n in names)
        self.pattern = re.compile(r"(?<![\w-])(?:" + alternatives + r")(?![\w-])", re.IGNORECASE) if names else None

    def search(self, clause: str) -> bool:
        return self.pattern is not None and self.pattern.search(clause) is not None

    def claims(self, clause: str) -> list[tuple[str, str]]:
        """``(key, value)`` for each superseded value the clause states as current (not negated, not history).

        The value is given as the store held it, whatever the answer's case and spacing.
        """
        if self.pattern is None:
            return []
        return [
            self.key_of[_norm(m.group())]
            for m in self.pattern.finditer(clause)
            if not _historical(clause, m.start(), len(m.group()))
        ]


def _claims(clause: str, stored: Mapping[str, Fact], old: _OldValues) -> list[tuple[str, str]]:
    """The ``(key, other value)`` a clause states as current, in the order it states them."""
    claims: list[tuple[str, str]] = []
    for m in _STATEMENT.finditer(clause):
        key, value = m["key"].lower(), m["value"].strip()
        fact = stored.get(key)
        if fact is None or _same_value(value, fact.value) or _historical(clause, m.start(), 0):
            continue
        if key != "constraint":  # "module=Payroll on MariaDB 11" states Payroll, not the whole rest of the clause
            value = _VALUE_END.split(value, maxsplit=1)[0].strip() or value
            if _same_value(value, fact.value):
                continue
        claims.append((key, value))
    for key, value in prose_values(clause):
        fact = stored.get(key)
        if fact is not None and _named(value) and not _starts_with_value(value, fact.value):
            at = clause.casefold().find(value.casefold())
            if not _historical(clause, at, len(value)):
                claims.append((key, value))
    return claims + old.claims(clause)


def verdict(violations: Sequence[Violation]) -> str:
    """A short verdict for a table: ``pass``, or each violation as ``key: stated`` / ``constraint missing``."""
    if not violations:
        return "pass"
    return "; ".join(f"{v.fact.key} missing" if v.stated is None else f"{v.fact.key}: {v.stated}" for v in violations)


# region Feedback that quotes a fact

_QUOTED_FACT = re.compile(
    r'^- (?P<key>\w+) = (?P<value>"(?:[^"\\]|\\.)*") \(evidence: "(?:[^"\\]|\\.)*"; turn \d+\)$', re.MULTILINE
)


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
    return [(m["key"], json.loads(m["value"])) for m in _QUOTED_FACT.finditer(text)]


# region The evaluator


class FactCheck(BaseModel):
    """What the evaluator saw and decided at one iteration: the store it held the answer to, the verdict."""

    model_config = ConfigDict(frozen=True)

    iteration: int
    facts: tuple[Fact, ...]
    answer: str
    violations: tuple[Violation, ...]
    feedback: str | None


def _record_superseded(before: Mapping[str, str], facts: Iterable[Fact], superseded: dict[str, list[str]]) -> None:
    """Add to ``superseded`` each value of ``before`` that a correction replaced in ``facts``.

    The store keeps only the current value; the host and the evaluator both keep the replaced ones, which let the
    evaluator flag a stale value named without its key.
    """
    for fact in facts:
        old = before.get(fact.key)
        if old is not None and old != fact.value and old not in superseded.get(fact.key, []):
            superseded.setdefault(fact.key, []).append(old)


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
        _record_superseded(self._seen, facts, self.superseded)
        self._seen = {f.key: f.value for f in facts}

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        facts = self.memory.facts
        self._watch(facts)
        answer = context.last_response.text
        violations = check_answer(facts, answer, task_text(context.initial_messages), self.superseded)
        feedback = feedback_text(violations) if violations else None
        if self.on_check is not None:
            check = FactCheck(
                iteration=context.iteration, facts=facts, answer=answer, violations=tuple(violations), feedback=feedback
            )
            self.on_check(check)
        return LoopEvaluation.continue_with(feedback) if feedback else LoopEvaluation.stop()


def task_text(messages: Sequence[Message]) -> str:
    """The caller's request: its User messages without any controlled-facts block."""
    return "\n".join(strip_prompt_block(m.text) for m in messages if m.role == "user").strip()


# region The drift-prone offline model


class DriftProneAssistantClient(OfflineAssistantClient):
    """The offline desk assistant with a drifting resolution rule, which honours a facts check.

    Like :class:`~course_lib.memory_models.OfflineAssistantClient` it answers only from what it receives and
    resolves each key by its rule (``earliest`` and ``most_frequent`` drift back to a superseded value
    when both are visible). A User message that quotes facts in the facts-check format overrides what
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
        trace = LoopTrace()
        for number, call in enumerate(self.reader_calls, start=1):
            trace.llm([m.text.replace("\n", "\n" + INDENT) for m in call.messages], call.reply)
            check = next((c for c in self.checks if c.iteration == number), None)
            if check is not None:
                _trace_check(trace, check)
        return trace


def _trace_check(trace: LoopTrace, check: FactCheck) -> None:
    """One evaluation in the trace: the store it held the answer to, the answer, the violations (or "none")."""
    found = tuple(f"{v.fact.key}: {v.problem}" for v in check.violations)
    trace.evaluation(
        check.iteration,
        (
            ("Store", tuple(quote_fact(f) for f in check.facts)),
            ("Last response", (check.answer,)),
            ("Violations", found or ("none",)),
        ),
        saw=f"iteration {check.iteration}; store: {', '.join(f'{f.key}={f.value}' for f in check.facts)}",
        did="stop" if check.feedback is None else "continue: " + "; ".join(found),
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
    superseded: dict[str, list[str]] = {}
    *earlier, final = timeline.turns
    checks: list[FactCheck] = []
    try:
        for number, turn in enumerate(earlier, start=1):
            values = {f.key: f.value for f in memory.facts}
            await policy.turn(turn.user)
            if not own_store:
                await extraction.update(turn.user)
            _track_evictions(memory, number, held, evicted)
            _record_superseded(values, memory.facts, superseded)
        before = len(log)
        evaluator = FactsConsistencyEvaluator(memory, superseded=superseded, on_check=checks.append)
        answer = await _ask_in_loop(policy, final.user, evaluator, max_iterations)
    except SummaryRejected as error:  # the policy's own rule stopped it: shown as such, the other runs go on
        return _stopped(
            timeline,
            policy=policy.name,
            rule=rule,
            max_facts=memory.max_facts,
            checks=checks,
            evicted=evicted,
            reason=str(error),
        )
    reader_calls = [c for c in log.calls[before:] if c.client == "reader"]
    return _graded(
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


def _track_evictions(memory: WorkingMemory, turn: int, held: dict[str, int], evicted: dict[str, int]) -> None:
    keys = {f.key for f in memory.facts}
    for key in set(held) - keys:
        evicted[key] = turn
        del held[key]
    for key in keys:
        held.setdefault(key, turn)
        evicted.pop(key, None)


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
    )


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
    """The reason, computed from the store and the answer: what the evaluator could and could not hold it to."""
    if not missing and not forbidden:
        return "the evaluator found nothing to correct" if iterations == 1 else "the feedback quoted the stored facts"
    keys = _keys_of_values(timeline)
    stored = {f.key: f.value for f in facts}
    stated = dict(stated_values(answer))
    reasons: list[str] = []
    omitted: list[str] = []  # stored keys the answer leaves out: named together, in one reason
    for text in [*missing, *forbidden]:
        key = keys.get(text, "?")
        gone = f"was evicted from the store at turn {evicted[key]}" if key in evicted else "was never stored"
        if key not in stored and key in stated:
            reason = f"the answer states {key}={stated[key]} and {key} {gone}: nothing to hold it to"
        elif key not in stored:
            reason = f"{key} {gone}: it cannot be enforced"
        elif text in missing:
            if key not in omitted:
                omitted.append(key)
            continue
        else:
            reason = f"the answer still states {text!r} for {key}"
        if reason not in reasons:
            reasons.append(reason)
    if omitted:
        them = "it" if len(omitted) == 1 else "them"
        reasons.insert(
            0,
            f"the answer does not state {' or '.join(omitted)}; the store holds {them}, but an omission contradicts "
            "nothing",
        )
    return "; ".join(reasons)


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
