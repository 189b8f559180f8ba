"""The capstone (lesson 07): a loop that holds every answer to the controlled facts.

The only module that joins the two halves of the workbook. The memory half keeps a bounded store of
cited facts; the loop half re-invokes an agent until its evaluators are satisfied. Here a
:class:`FactsConsistencyEvaluator` reads each answer of the inner agent and holds it to the store:

* for every stored key, the answer may state no other value as current (``module=Reporting`` where
  the store says ``module=Billing``);
* an answer that plans an action (or answers a task that asks for one) carries every stored
  ``constraint``, word for word.

On a violation the loop re-invokes the agent with feedback that quotes the fact, its evidence and its
turn; otherwise it stops. The evaluator sees only what the store holds: a fact the bound evicted, or
one a summary distorted before the store could keep it, cannot be enforced. The feedback is text the
loop adds: it must never become a fact (the loop attributes it; the facts provider extracts only from
the caller's own words).

A statement is read where the answer writes a key next to a value: ``key=value`` or ``key: value``
(the workbook's contract), ``;``, a line break or a sentence end closing the value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from agent_framework import Message
from pydantic import BaseModel, ConfigDict

from .assertions import ALLOWED_KEYS, find_declarations
from .clients import make_chat_client
from .extraction import MemoryExtraction, make_extraction
from .live import load_course_settings
from .loop import LoopAgent, LoopAgentOptions, LoopContext, LoopEvaluation, LoopEvaluator
from .loop_demos import INDENT, RULE_EVALUATOR, LoopTrace
from .memory import MAX_FACTS, Fact, WorkingMemory
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
    offline_policies,
)
from .tracing import CallLog, ModelCall

if TYPE_CHECKING:  # pandas loads when the table is built
    import pandas as pd

__all__ = [
    "DRIFT_RULES",
    "FEEDBACK_HEADER",
    "CapstoneRun",
    "DriftProneAssistantClient",
    "FactCheck",
    "FactsConsistencyEvaluator",
    "Violation",
    "capstone_policies",
    "capstone_policy",
    "check_answer",
    "compare_repairs",
    "plans_action",
    "quoted_facts",
    "run_capstone",
    "stated_values",
]

DRIFT_RULES: tuple[ResolutionRule, ...] = ("earliest", "most_frequent")
"""The resolution rules that make the offline reader drift back to a superseded value."""

FEEDBACK_HEADER = "[facts check] Your answer disagrees with the controlled facts. Answer again, holding to:"
FEEDBACK_FOOTER = "[end of facts check]"


# region Reading an answer


_STATEMENT = re.compile(
    r"(?<![\w-])[*_`]*(?P<key>" + "|".join(ALLOWED_KEYS) + r")[*_`]*[ \t]*[=:][ \t]*"
    r"(?P<value>(?:[^;\n.,]|[.,](?=\S))+)",
    re.IGNORECASE,
)
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_ACTION = re.compile(
    r"\b(plan|planned|planning|fix|fixing|restart|deploy|migrate|roll ?back|upgrade|patch|apply|run|execute)\b",
    re.IGNORECASE,
)


def stated_values(text: str) -> list[tuple[str, str]]:
    """Every ``(key, value)`` the text states, in order: ``key=value`` or ``key: value``, any key case."""
    return [(m["key"].lower(), m["value"].strip()) for m in _STATEMENT.finditer(text)]


def plans_action(text: str) -> bool:
    """Whether the text plans or asks for an action (plan, fix, restart, deploy, ...)."""
    return bool(_ACTION.search(text))


def _norm(text: str) -> str:
    return " ".join(text.strip().strip("\"'`*").split()).casefold()


def _same_value(stated: str, current: str) -> bool:
    """Equal up to case, spacing and quotes; a trailing note in parentheses (``Billing (corrected)``) is allowed."""
    return _norm(current) in (_norm(stated), _norm(_TRAILING_NOTE.sub("", stated)))


def _carried(value: str, said: str) -> bool:
    """Whether the normalized answer ``said`` contains ``value`` as a whole phrase (not inside a longer word)."""
    return re.search(r"(?<!\w)" + re.escape(_norm(value)) + r"(?!\w)", said) is not None


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


def check_answer(facts: Sequence[Fact], answer: str, task: str = "") -> list[Violation]:
    """The rules an answer breaks against the stored ``facts`` (see the module docstring); [] when none.

    ``task`` is the request the answer responds to: a task that asks for an action makes the
    constraints due even when the answer itself names no action.
    """
    stored = {f.key: f for f in facts}
    violations = [
        Violation(fact=stored[key], stated=value)
        for key, value in stated_values(answer)
        if key in stored and not _same_value(value, stored[key].value)
    ]
    if plans_action(answer) or plans_action(task):
        said = " ".join(answer.split()).casefold()
        flagged = {v.fact for v in violations}
        violations += [
            Violation(fact=f)
            for f in facts
            if f.key == "constraint" and f not in flagged and not _carried(f.value, said)
        ]
    return violations


# region Feedback that quotes a fact

_QUOTED_FACT = re.compile(
    r'^- (?P<key>\w+) = (?P<value>"(?:[^"\\]|\\.)*") \(evidence: "(?:[^"\\]|\\.)*"; turn \d+\)$', re.MULTILINE
)


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def quote_fact(fact: Fact) -> str:
    """A fact as the feedback quotes it: key, value, the user's words and the turn that said them."""
    return f"- {fact.key} = {_quote(fact.value)} (evidence: {_quote(fact.evidence)}; turn {fact.turn})"


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


class FactsConsistencyEvaluator(LoopEvaluator):
    """Holds each answer of the inner agent to the current store; re-invokes with quoted facts on a violation.

    Deterministic: it reads the store at each evaluation (so a correction made meanwhile counts) and
    the answer's statements; no model is asked. ``on_check`` receives a :class:`FactCheck` per
    evaluation, for the lesson's trace.
    """

    def __init__(self, memory: WorkingMemory, *, on_check: Callable[[FactCheck], None] | None = None) -> None:
        if not isinstance(memory, WorkingMemory):
            raise TypeError(f"FactsConsistencyEvaluator needs a WorkingMemory; got {type(memory).__name__}.")
        self.memory = memory
        self.on_check = on_check

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        facts = self.memory.facts
        answer = context.last_response.text
        violations = check_answer(facts, answer, task_text(context.initial_messages))
        feedback = feedback_text(violations) if violations else None
        if self.on_check is not None:
            self.on_check(FactCheck(iteration=context.iteration, facts=facts, answer=answer,
                                    violations=tuple(violations), feedback=feedback))  # fmt: skip
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


def capstone_reader(rule: ResolutionRule) -> Any:
    """The reader for one run: live, the factory's ``reader``; offline, the drift-prone assistant for ``rule``.

    Either way without MAF's tool loop, as ``make_chat_client`` builds every role: the capstone gives its reader
    no tools, and its offline and live runs then do the same MAF work.
    """
    backends = load_course_settings()
    if backends.live is None:
        return without_tool_loop(DriftProneAssistantClient(rule))
    return make_chat_client("reader", resolution=rule, backends=backends)


def capstone_policies(
    window: int = 3, max_facts: int = MAX_FACTS, summary_budget: int = 240, summary_mode: SummaryMode = "abstractive"
) -> dict[str, PolicyFactory]:
    """Lesson 04's six policies with the capstone's reader (drift-prone offline, the factory's when live)."""
    return offline_policies(window, max_facts, summary_budget, summary_mode, reader=capstone_reader)


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
    rule: str
    max_facts: int
    checks: list[FactCheck]
    reader_calls: list[ModelCall]
    final_answer: str
    first_correct: bool
    final_correct: bool
    missing: list[str]
    forbidden: list[str]
    evicted: dict[str, int]
    verdict: Verdict
    why: str

    @property
    def iterations(self) -> int:
        return len(self.reader_calls)

    @property
    def reader_chars(self) -> int:
        """Characters the reader received over every iteration of the loop."""
        return sum(c.chars_sent for c in self.reader_calls)

    @property
    def feedback_chars(self) -> int:
        return sum(len(c.feedback or "") for c in self.checks)

    def row(self) -> dict[str, object]:
        return {
            "policy": self.policy,
            "rule": self.rule,
            "store bound": self.max_facts,
            "iterations": self.iterations,
            "reader chars (loop)": self.reader_chars,
            "feedback chars": self.feedback_chars,
            "first answer correct": self.first_correct,
            "final answer correct": self.final_correct,
            "verdict": self.verdict,
            "why": self.why,
        }

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
    store = [quote_fact(f) for f in check.facts]
    found = [f"{v.fact.key}: {v.problem}" for v in check.violations]
    trace.lines += [RULE_EVALUATOR, f"Iteration: {check.iteration}", "Store:", *(INDENT + s for s in store),
                    "Last response:", INDENT + check.answer, "Violations:", *(INDENT + f for f in found)]  # fmt: skip
    if check.feedback is not None:
        trace.lines += [f"Feedback:{check.feedback}", ""]
    saw = f"iteration {check.iteration}; store: {', '.join(f'{f.key}={f.value}' for f in check.facts)}"
    did = "stop" if check.feedback is None else "continue: " + "; ".join(found)
    trace.rows.append(
        {"step": len(trace.rows) + 1, "actor": "Evaluator", "call": check.iteration, "saw": saw, "did": did}
    )


async def run_capstone(
    timeline: Timeline,
    factory: PolicyFactory,
    rule: ResolutionRule,
    *,
    max_facts: int = MAX_FACTS,
    max_iterations: int = 5,
) -> CapstoneRun:
    """Replay ``timeline`` through one policy; ask its final question through a loop held to the store.

    The host keeps one controlled-facts store for the conversation, fed from the user's own words at
    every turn whatever the policy (the facts policy's own store, when the policy is that one). The
    policy decides what the reader sees; the loop decides whether the reader's answer stands.
    """
    log = CallLog()
    policy = factory(rule, log)
    extraction = policy.extraction if isinstance(policy, FactsPolicy) else _host_store(max_facts)
    own_store = isinstance(policy, FactsPolicy)
    memory = extraction.memory
    held: dict[str, int] = {}
    evicted: dict[str, int] = {}
    *earlier, final = timeline.turns
    checks: list[FactCheck] = []
    try:
        for number, turn in enumerate(earlier, start=1):
            await policy.turn(turn.user)
            if not own_store:
                await extraction.update(turn.user)
            _track_evictions(memory, number, held, evicted)
        before = len(log)
        answer = await _ask_in_loop(policy, final.user, FactsConsistencyEvaluator(memory, on_check=checks.append),
                                    max_iterations)  # fmt: skip
    except SummaryRejected as error:  # the policy's own rule stopped it: shown as such, the other runs go on
        return _stopped(policy.name, rule, memory.max_facts, timeline, checks, evicted, str(error))
    reader_calls = [c for c in log.calls[before:] if c.client == "reader"]
    return _graded(policy.name, rule, memory.max_facts, timeline, checks, reader_calls, answer, evicted, max_iterations)


def _host_store(max_facts: int) -> MemoryExtraction:
    return make_extraction(WorkingMemory(max_facts))


def _track_evictions(memory: WorkingMemory, turn: int, held: dict[str, int], evicted: dict[str, int]) -> None:
    keys = {f.key for f in memory.facts}
    for key in set(held) - keys:
        evicted[key] = turn
        del held[key]
    for key in keys:
        held.setdefault(key, turn)
        evicted.pop(key, None)


async def _ask_in_loop(policy: MemoryPolicy, question: str, evaluator: LoopEvaluator, max_iterations: int) -> str:
    """One policy turn whose reader is wrapped in the loop: the policy still decides what the reader sees."""
    reader = policy.reader
    options = LoopAgentOptions(max_iterations=max_iterations, non_streaming_returns_last_response_only=True)
    policy.reader = LoopAgent(reader, evaluator, options)  # type: ignore[assignment]
    try:
        return await policy.turn(question)
    finally:
        policy.reader = reader


def _graded(
    policy: str,
    rule: str,
    max_facts: int,
    timeline: Timeline,
    checks: list[FactCheck],
    reader_calls: list[ModelCall],
    answer: str,
    evicted: dict[str, int],
    cap: int,
) -> CapstoneRun:
    expect = timeline.turns[-1].expect
    if expect is None:
        raise ValueError(f"The last turn of timeline {timeline.name!r} must be a graded question (with 'expect').")
    missing = [t for t in expect.must_contain if t not in answer]
    forbidden = [t for t in expect.must_not_contain if t in answer]
    first = reader_calls[0].reply if reader_calls else answer
    first_correct = all(t in first for t in expect.must_contain) and not any(
        t in first for t in expect.must_not_contain
    )
    final_correct = not missing and not forbidden
    capped = len(reader_calls) >= cap and all(c.iteration < len(reader_calls) for c in checks)
    if final_correct:
        verdict: Verdict = "right first time" if len(reader_calls) == 1 else "repaired"
    elif capped:
        verdict = "stopped at the cap"
    else:
        verdict = "partly repaired" if len(reader_calls) > 1 else "not repaired"
    memory_facts = checks[-1].facts if checks else ()
    why = _why(timeline, memory_facts, answer, missing, forbidden, evicted, len(reader_calls))
    return CapstoneRun(
        policy=policy, rule=rule, max_facts=max_facts, checks=checks, reader_calls=reader_calls, final_answer=answer,
        first_correct=first_correct, final_correct=final_correct, missing=missing, forbidden=forbidden,
        evicted=evicted, verdict=verdict, why=why,
    )  # fmt: skip


def _stopped(
    policy: str,
    rule: str,
    max_facts: int,
    timeline: Timeline,
    checks: list[FactCheck],
    evicted: dict[str, int],
    reason: str,
) -> CapstoneRun:
    """A run whose policy refused to go on (a summary out of bounds): no final answer, graded wrong, and why."""
    expect = timeline.turns[-1].expect
    missing = list(expect.must_contain) if expect is not None else []
    return CapstoneRun(
        policy=policy, rule=rule, max_facts=max_facts, checks=checks, reader_calls=[], final_answer="",
        first_correct=False, final_correct=False, missing=missing, forbidden=[], evicted=evicted,
        verdict="policy stopped", why=reason,
    )  # fmt: skip


def _why(
    timeline: Timeline,
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
    for text in [*missing, *forbidden]:
        key = keys.get(text, "?")
        gone = f"was evicted from the store at turn {evicted[key]}" if key in evicted else "was never stored"
        if key not in stored and key in stated:
            reason = f"the answer states {key}={stated[key]} and {key} {gone}: nothing to hold it to"
        elif key not in stored:
            reason = f"{key} {gone}: it cannot be enforced"
        elif text in missing:
            reason = f"the answer does not state {key}; the store holds it, but an omission contradicts nothing"
        else:
            reason = f"the answer still states {text!r} for {key}"
        if reason not in reasons:
            reasons.append(reason)
    return "; ".join(reasons)


def _keys_of_values(timeline: Timeline) -> dict[str, str]:
    """Which key each declared value of the timeline belongs to (the last declaration of a value wins)."""
    return {d.value: d.key for turn in timeline.turns for d in find_declarations(turn.user)}


async def compare_repairs(
    timeline: Timeline,
    policies: Mapping[str, PolicyFactory] | None = None,
    rules: Sequence[ResolutionRule] = DRIFT_RULES,
    *,
    max_facts: int = MAX_FACTS,
    max_iterations: int = 5,
) -> list[CapstoneRun]:
    """Every policy under every rule, each from a fresh state, its final question asked inside the loop."""
    policies = policies or capstone_policies(max_facts=max_facts)
    return [
        await run_capstone(timeline, factory, rule, max_facts=max_facts, max_iterations=max_iterations)
        for rule in rules
        for factory in policies.values()
    ]


def repairs_frame(runs: Sequence[CapstoneRun]) -> pd.DataFrame:
    """One row per run: iterations, characters, correctness before and after the loop, the verdict and why."""
    import pandas as pd

    return pd.DataFrame([run.row() for run in runs])
