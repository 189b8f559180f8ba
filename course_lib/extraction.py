"""From a user message to admitted facts: an LLM writer proposes, the host decides.

The writer (any MAF chat client asked for structured output) sees, of the caller's words, the current user message
only (after the course's worked examples), with no session, so it cannot promote an earlier answer or question into
a fact. The host then admits the proposal only if its key/value set equals the explicit declarations of that message
exactly, and the store checks every citation. Whatever fails -- a semantic guess, a paraphrased citation, a dropped
declaration, broken JSON, a writer exception, a stale ticket -- the previous facts stay and the report says so: there
is no fallback that would store something else instead.

The ticket is taken when the user's turn begins (:meth:`MemoryExtraction.begin`), before any model is
called, and the extraction finishes on that ticket (:meth:`MemoryExtraction.complete`): a ``forget``
typed while the model answers or while the writer works makes the whole turn write nothing.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, Protocol, cast

from agent_framework import Agent, ChatOptions, Message, SupportsChatGetResponse
from pydantic import BaseModel, Field, ValidationError, WithJsonSchema, create_model

from .assertions import (
    ALLOWED_KEYS,
    MAX_MESSAGE_CHARS,
    MessageRefused,
    MessageTooLong,
    find_declarations,
    length_in_units,
    nothing_declared_note,
    parse_assertions,
    shown_pair,
)
from .clients import make_chat_client
from .forgetting import hold_client
from .frames import count_noun
from .live import Backends, LiveModelError
from .memory import (
    MAX_CANDIDATES,
    MAX_EVIDENCE_CHARS,
    MAX_VALUE_CHARS,
    Fact,
    FactCandidate,
    ForgottenTurn,
    InvalidFacts,
    MemoryTurn,
    MemoryUpdateError,
    NewerTurnBegan,
    WorkingMemory,
)
from .tracing import CallLog

__all__ = [
    "EMPTY_REPLY",
    "EXAMPLE_SOURCE",
    "FACTS_SCHEMA",
    "JSON_PROBLEMS",
    "MISMATCH",
    "NO_FALLBACK",
    "NO_FALLBACK_AFTER_STORE",
    "NO_OFFLINE_FALLBACK",
    "PYTHON_JSON_PROBLEMS",
    "WRITER_EXAMPLES",
    "WRITER_INSTRUCTIONS",
    "YOUR_MESSAGE",
    "BatchRule",
    "ChatFactWriter",
    "ExtractionReport",
    "ExtractionStatus",
    "FactBatch",
    "FactWriter",
    "GatedWriter",
    "MemoryExtraction",
    "NoBatch",
    "and_listed",
    "ask_fact_writer",
    "careful_batch",
    "counted",
    "counted_batch",
    "declared_count",
    "evicted_facts",
    "evicted_words",
    "make_extraction",
    "make_fact_writer",
    "matches_declarations",
    "mismatch_words",
    "replaced_facts",
    "replaced_words",
    "reply_problem",
    "report_in_words",
    "writer_examples",
]


MISMATCH = "Extraction does not match the explicit key=value assertions. No semantic guess is admitted."
NO_FALLBACK = "The previous facts are kept; no fallback extraction is attempted."
NO_FALLBACK_AFTER_STORE = "No fallback extraction is attempted."
"""What follows the store's own refusal, which already ends "the store is unchanged": said once, not twice."""
NO_OFFLINE_FALLBACK = "No offline fallback is used."
"""The sentence a live client's error ends with; a writer's report says :data:`NO_FALLBACK` in its place, so the
fallback point is said once, not twice (sixth walk)."""

FACTS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "maxItems": MAX_CANDIDATES,
    "items": {
        "type": "object",
        "properties": {
            "key": {"type": "string", "enum": list(ALLOWED_KEYS)},
            "value": {"type": "string", "maxLength": MAX_VALUE_CHARS},
            "evidence": {"type": "string", "maxLength": MAX_EVIDENCE_CHARS},
        },
        "required": ["key", "value", "evidence"],
        "additionalProperties": False,
    },
}
"""What the writer is asked to write: the contract's keys, the batch limit (count) and the store's lengths, no more.

A model that decodes under the schema (llama.cpp's grammar, a strict structured-output endpoint) cannot write an
unknown key, a sixth candidate or a value longer than the store keeps, nor loop inside a string past those lengths. The
bounds are the request's only: :class:`FactBatch` still *parses* any list of candidates, so a writer that ignores the
schema (the offline misbehaving writers, a loose endpoint) is refused by the host and the store, with their own
messages, exactly as before (lesson 01 shows the store refusing an unknown key).
"""


class FactBatch(BaseModel):
    """The writer's structured output: at most a handful of typed candidates."""

    # The docstring above is sent with the schema (its description): this comment is not. The schema the model
    # gets is FACTS_SCHEMA; parsing stays as permissive as FactCandidate, so the host decides as before.
    facts: Annotated[list[FactCandidate], WithJsonSchema(FACTS_SCHEMA)] = Field(default_factory=list)


def careful_batch(user_text: str) -> FactBatch:
    """The batch that keeps the contract exactly: one candidate per key declared (the last), in the user's words."""
    try:
        declared = {d.key: d for d in find_declarations(user_text)}
    except MessageRefused:
        declared = {}
    return FactBatch(facts=[FactCandidate.from_declaration(d) for d in declared.values()])


def declared_count(user_text: str) -> int:
    """How many facts the message declares under the contract (each allowed key once), as the host will count them.

    The host parses the declarations anyway, to check the writer; the request passes the count on
    (:func:`counted_batch`).
    """
    return len(careful_batch(user_text).facts)


@functools.cache
def counted_batch(count: int) -> type[FactBatch]:
    """:class:`FactBatch` whose schema asks for exactly ``count`` candidates (at most :data:`MAX_CANDIDATES`).

    Why: a small model decoding under a schema stops after the first of several declarations (SmolLM2-135M wrote only
    ``module=Billing`` for ``module=Billing; database=SQL Server 2022``, so the host refused the correction); asked for
    two items, it writes both. The count tells the writer how many, never which: it still writes every key, value and
    evidence, and the host still compares them with the declarations, so no request can let a wrong fact in. Parsing
    stays :class:`FactBatch`'s: a writer that ignores the schema is refused by the host, as before.
    """
    if not 0 <= count <= MAX_CANDIDATES:
        raise ValueError(f"A batch holds 0 to {MAX_CANDIDATES} candidates (the batch limit), not {count}.")
    schema = {**FACTS_SCHEMA, "minItems": count, "maxItems": count}
    facts: tuple[Any, Any] = (Annotated[list[FactCandidate], WithJsonSchema(schema)], Field(default_factory=list))
    return create_model("FactBatch", __base__=FactBatch, __doc__=FactBatch.__doc__, facts=facts)


BatchRule = Callable[[str], type[FactBatch]]
"""Which batch type (so which schema) the writer is asked for, given the user's message."""


def counted(user_text: str) -> type[FactBatch]:
    """The course's rule: a schema bounded to the contract, asking for as many candidates as the message declares."""
    return counted_batch(min(declared_count(user_text), MAX_CANDIDATES))


WRITER_EXAMPLES: tuple[str, ...] = (
    "customer=Northwind Traders",
    "version=4.2.1; environment=qa",
    "priority=P3; priority=P2",
    "owner=dana; version=7",
    "Which version are we on?",
    "Our customer is probably Northwind.",
)
"""The worked examples' messages, with values no lesson uses: a writer that copies one writes a visibly wrong fact.

Their batches are computed by :func:`careful_batch` (never written by hand), so an example cannot contradict the
contract: one declaration, two, a key declared twice (the last wins), an unknown key (dropped), a question and prose
(an empty batch). They go before the message as earlier turns (:func:`writer_examples`): a small model follows them
far better than rules, and far better than the same examples written into its instructions (issue 39 measured all
three: ``benchmarks/writer_request.py``).
"""

EXAMPLE_SOURCE = "writer-examples"
"""The attribution of the example turns: the course wrote them, not the caller."""


def writer_examples(texts: Sequence[str] = WRITER_EXAMPLES) -> list[Message]:
    """Each example as a user turn and the careful batch as the writer's reply, attributed to the course.

    They are not the caller's words: the host compares the proposal with the declarations of the current message
    only, so nothing in an example can become a fact.
    """
    attributed = {"_attribution": {"source_id": EXAMPLE_SOURCE}}
    turns: list[Message] = []
    for text in texts:
        reply = json.dumps(careful_batch(text).model_dump(), ensure_ascii=False)
        turns.append(Message("user", [text], additional_properties=dict(attributed)))
        turns.append(Message("assistant", [reply], additional_properties=dict(attributed)))
    return turns


WRITER_INSTRUCTIONS = f"""You extract controlled facts from ONE user message.
Return JSON {{"facts": [{{"key": ..., "value": ..., "evidence": ...}}]}}.
Only explicit declarations written as key=value count; allowed keys: {", ".join(ALLOWED_KEYS)}.
value: the text after the first '=', trimmed. evidence: the user's exact words containing it.
If a key is declared twice, keep the last. Never infer, translate or paraphrase.
A question or prose yields {{"facts": []}}."""
"""The writer's instructions; the allowed keys come from the contract, so the two cannot drift apart."""


class FactWriter(Protocol):
    """Anything that proposes a :class:`FactBatch` for one user message."""

    async def propose(self, user_text: str) -> FactBatch: ...


class NoBatch(ValueError):
    """The writer's reply held no text to parse: an empty answer, or a refusal MAF left out."""


class ChatFactWriter:
    """A writer backed by a MAF chat client with structured output, run without a session."""

    def __init__(
        self,
        client: SupportsChatGetResponse,
        instructions: str = WRITER_INSTRUCTIONS,
        middleware: Sequence[Any] | None = None,
        *,
        examples: Sequence[str] = WRITER_EXAMPLES,
        batch: BatchRule = counted,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """``examples``, ``batch`` and ``options`` (sampling) vary the request: ``benchmarks/writer_request.py``."""
        self.agent = Agent(client=client, instructions=instructions, name="fact-writer", middleware=middleware)
        self.examples = writer_examples(examples)
        self.batch = batch
        self.options = dict(options or {})

    async def propose(self, user_text: str) -> FactBatch:
        """The batch the model writes for ``user_text``, asked after the worked examples (no session)."""
        options = cast("ChatOptions[Any]", {**self.options, "response_format": self.batch(user_text)})
        response = await self.agent.run([*self.examples, Message("user", [user_text])], options=options)
        batch = response.value
        if not isinstance(batch, FactBatch):
            raise NoBatch(f"The writer returned no structured batch (got {type(batch).__name__}).")
        return batch


ExtractionStatus = Literal["accepted", "rejected", "nothing_to_extract", "writer_failed", "stale", "forgotten"]
"""``stale``: a newer turn began before this one could write; ``forgotten``: ``forget`` ran since it began."""


class ExtractionReport(BaseModel):
    """What one extraction did: the outcome, the facts now stored, and why (in plain words)."""

    status: ExtractionStatus
    facts: tuple[Fact, ...]
    diagnostic: str
    turn: int | None = None
    proposed: tuple[FactCandidate, ...] = ()
    reason: str = ""
    """Why nothing was stored, in a student's words ("" when facts were stored or none were declared):
    :func:`report_in_words` says it; ``diagnostic`` keeps the rule's exact statement."""
    evicted: tuple[Fact, ...] = ()
    """The facts this message's batch pushed out of the full store (the oldest go first), as they were: the diagnostic
    names them, so a report never leaves a fact's disappearance unsaid."""
    replaced: tuple[Fact, ...] = ()
    """The stored facts this message's batch replaced with a new value, as they were before it (their old value and
    turn): ``facts`` shows the store after, so without these a correction reads like a first statement."""


class MemoryExtraction:
    """Runs the writer on a user message and admits its proposal through the host and the store."""

    def __init__(self, memory: WorkingMemory, writer: FactWriter) -> None:
        self.memory = memory
        self.writer = writer

    async def update(self, user_text: str) -> ExtractionReport:
        """Begin a turn for ``user_text`` and extract from it at once (:meth:`begin` then :meth:`complete`)."""
        return await self.complete(self.begin(user_text))

    def begin(self, user_text: str) -> MemoryTurn | ExtractionReport:
        """The user's turn begins: take its ticket now, before any model is called.

        Returns the ticket, or the ``rejected`` report when the contract refuses the message (too long,
        a lone surrogate): then no turn begins and nothing will be extracted.
        """
        try:
            return self.memory.begin_turn(user_text)
        except MessageRefused as error:
            return self._report("rejected", f"{error} {NO_FALLBACK}", reason=_refused_message(error, user_text))

    async def complete(self, begun: MemoryTurn | ExtractionReport) -> ExtractionReport:
        """Extract from the ticket's own text and admit the result on that ticket, or report why not.

        A ticket that can no longer write (forgotten, superseded, unknown) is reported before the writer
        is called; one that goes stale while the writer works is refused by the store.
        """
        if isinstance(begun, ExtractionReport):
            return begun
        turn, user_text = begun, begun.user_text
        try:
            self.memory.check_ticket(turn)
        except MemoryUpdateError as error:
            return self._refused(error, turn.number)
        declarations = parse_assertions(user_text)
        try:
            batch = await self.writer.propose(user_text)
        except (ValidationError, ValueError) as error:
            return self._report(
                "writer_failed",
                f"{reply_problem(error)} {NO_FALLBACK}",
                turn.number,
                reason=_sentence_part(reply_problem(error)),
            )
        except Exception as error:  # any writer failure is reported, never hidden
            said = str(error).removesuffix(NO_OFFLINE_FALLBACK).rstrip().rstrip(".")  # NO_FALLBACK says it
            named = _class_named(error)
            cls = f"{named.strip(' ()')}: " if named else ""
            return self._report(
                "writer_failed",
                f"Writer failed{named}: {said}. {NO_FALLBACK}",
                turn.number,
                reason=f"the writer could not answer ({cls}{str(error).rstrip('.')})",
            )
        proposed = tuple(batch.facts)
        try:  # a forget or a newer turn during the writer's call is what happened, whatever the writer saw
            self.memory.check_ticket(turn)
        except MemoryUpdateError as error:
            return self._refused(error, turn.number, proposed)
        if not matches_declarations(proposed, declarations):
            reason = mismatch_words(proposed, declarations)
            return self._report("rejected", f"{MISMATCH} {NO_FALLBACK}", turn.number, proposed, reason=reason)
        before = self.memory.facts
        try:
            self.memory.apply(turn, proposed)
        except MemoryUpdateError as error:
            return self._refused(error, turn.number, proposed)
        if not proposed:
            return self._report("nothing_to_extract", "No explicit key=value declaration in this message.", turn.number)
        keys = ", ".join(c.key for c in proposed)
        said = f"Admitted {count_noun(len(proposed), 'fact')}: {keys}."
        evicted = evicted_facts(before, self.memory.facts, proposed)
        if evicted:  # a full store pushed facts out: the report says which, as it says what it admitted
            said += f" {evicted_words(evicted, self.memory.max_facts)}"
        return self._report(
            "accepted", said, turn.number, proposed, replaced=replaced_facts(before, proposed), evicted=evicted
        )

    def rejected(self, diagnostic: str) -> ExtractionReport:
        """A ``rejected`` report for a refusal decided outside the store (no fallback follows it)."""
        return self._report("rejected", f"{diagnostic} {NO_FALLBACK}", reason=diagnostic.rstrip("."))

    def _refused(
        self, error: MemoryUpdateError, turn: int, proposed: tuple[FactCandidate, ...] = ()
    ) -> ExtractionReport:
        """The store's refusal as a report whose status says what happened."""
        if isinstance(error, ForgottenTurn):
            return self._report("forgotten", str(error), turn, proposed, reason=_FORGOTTEN_WORDS)
        if isinstance(error, NewerTurnBegan):
            return self._report("stale", str(error), turn, proposed, reason=_STALE_WORDS)
        if isinstance(error, InvalidFacts):  # the store's words end "the store is unchanged": not said again
            return self._report("rejected", f"{error} {NO_FALLBACK_AFTER_STORE}", turn, proposed, reason=error.plain)
        return self._report("rejected", f"{error} {NO_FALLBACK}", turn, proposed, reason=str(error).rstrip("."))

    def _report(
        self,
        status: ExtractionStatus,
        diagnostic: str,
        turn: int | None = None,
        proposed: tuple[FactCandidate, ...] = (),
        *,
        reason: str = "",
        replaced: tuple[Fact, ...] = (),
        evicted: tuple[Fact, ...] = (),
    ) -> ExtractionReport:
        return ExtractionReport(
            status=status,
            facts=self.memory.facts,
            diagnostic=diagnostic,
            turn=turn,
            proposed=proposed,
            reason=reason,
            replaced=replaced,
            evicted=evicted,
        )


def _sentence_part(sentence: str) -> str:
    """A sentence as the part after "Not stored: ": its first letter small, its full stop dropped."""
    return sentence[:1].lower() + sentence[1:].rstrip(".")


_MISMATCH_WORDS = "the facts the writer proposed are not exactly what your message declares"
_NO_GUESS = "and no guess is stored"


def mismatch_words(proposed: tuple[FactCandidate, ...], declarations: dict[str, str]) -> str:
    """Why the host check refused a batch, naming the keys: one the writer added, left out or changed.

    "the writer proposed priority, which your message does not declare" tells a student which fact broke the
    check; two rows of a table (a writer that infers, one that drops) then no longer read the same. "and no guess
    is stored" closes it only when the writer guessed (a key or a value the message does not hold).
    """
    keys = [c.key for c in proposed]
    added = [k for k in dict.fromkeys(keys) if k not in declarations]
    left_out = [k for k in declarations if k not in keys]
    changed = [shown_pair(c.key, c.value) for c in proposed if c.key in declarations and declarations[c.key] != c.value]
    parts = []
    if added:
        parts.append(f"the writer proposed {and_listed(added)}, which your message does not declare")
    if left_out:
        parts.append(f"the writer left out {and_listed(left_out)}, which your message declares")
    if changed:
        parts.append(f"the writer proposed {and_listed(changed)}, not the value your message declares")
    guessed = bool(added or changed)  # a key or a value the message does not hold; a left-out one is no guess
    return f"{'; '.join(parts) or _MISMATCH_WORDS}" + (f", {_NO_GUESS}" if guessed else "")


def replaced_facts(before: Sequence[Fact], proposed: Sequence[FactCandidate]) -> tuple[Fact, ...]:
    """The facts of ``before`` that ``proposed`` gives a new value, in the batch's order: what a correction replaced.

    A key declared again with the same value replaces nothing a student would miss, so it is left out.
    """
    old = {f.key: f for f in before}
    return tuple(old[c.key] for c in proposed if c.key in old and old[c.key].value != c.value)


def replaced_words(replaced: Sequence[Fact]) -> str:
    """What a correction replaced, as the console says it: "module replaced 'Reporting', database replaced 'X'".

    Said in the "[memory]" line, a correction no longer reads word for word like the first statement it corrects.
    """
    return ", ".join(f"{f.key} replaced {f.value!r}" for f in replaced)


def and_listed(words: Sequence[str]) -> str:
    """Words as a phrase: "module", "module and database", "module, database and symptom"."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


_STALE_WORDS = "a newer message began before this one could be stored, and only the latest message may write"
_FORGOTTEN_WORDS = "a Forget ran while this message was being read, and nothing said before a Forget is ever stored"


def _refused_message(error: MessageRefused, text: str) -> str:
    """Why the contract refused a whole message, in a student's words."""
    if isinstance(error, MessageTooLong):
        return f"your message has {length_in_units(text)}; a message may have at most {MAX_MESSAGE_CHARS}"
    return "your message holds a broken character that no text can carry"


YOUR_MESSAGE = "your message"
"""How a refusal's words name the message: in a panel or a console the student wrote it."""


def report_in_words(
    report: ExtractionReport, text: str = "", message: str = YOUR_MESSAGE, *, name_replaced: bool = False
) -> str:
    """One extraction's outcome as a student reads it: "Stored: module." or "Not stored: <the reason>."

    The panels (lessons 02, 03 and 07) say this rather than the status and diagnostic, which name the batch, a
    candidate's number and the fallback that is not attempted: words of the port, not of the student's message.
    Given the message ``text``, a question or a sentence with no '=' is said to be one (the console's "[memory]"
    line; a panel says it on a "Why:" line of its own). ``message`` names the message in a refusal: a table about
    messages a cell wrote passes "the message", since "your message" would be untrue there. With ``name_replaced``,
    a correction names the values it replaced (the console's line, which has no table of facts beside it).
    """
    if report.status == "accepted":
        replaced = f" ({replaced_words(report.replaced)})" if name_replaced and report.replaced else ""
        return f"Stored: {and_listed([c.key for c in report.proposed])}{replaced}."
    if report.status == "nothing_to_extract":
        why = nothing_declared_note(text).rstrip(".") if text else ""
        # the why in brackets: after "Nothing stored:" a second run of colons read as a chain of causes
        return "Nothing stored: the message holds no declaration the contract accepts" + (f" ({why})." if why else ".")
    reason = report.reason or report.diagnostic.rstrip(".")
    return f"Not stored: {reason.replace(YOUR_MESSAGE, message)}. The store is unchanged."


def evicted_facts(before: Sequence[Fact], after: Sequence[Fact], proposed: Sequence[FactCandidate]) -> tuple[Fact, ...]:
    """The facts held ``before`` a batch that are gone ``after`` it without being declared again: pushed out."""
    kept = {fact.key for fact in after} | {candidate.key for candidate in proposed}
    return tuple(fact for fact in before if fact.key not in kept)


def evicted_words(evicted: Sequence[Fact], max_facts: int) -> str:
    """``The store holds at most 5 facts: database (turn 1) was pushed out.``"""
    gone = and_listed([f"{fact.key} (turn {fact.turn})" for fact in evicted])
    verb = "was" if len(evicted) == 1 else "were"
    return f"The store holds at most {count_noun(max_facts, 'fact')}: {gone} {verb} pushed out."


def matches_declarations(proposed: tuple[FactCandidate, ...], declarations: dict[str, str]) -> bool:
    """The host check: same count, and every proposed key declared with exactly that value."""
    return len(proposed) == len(declarations) and all(declarations.get(c.key) == c.value for c in proposed)


JSON_PROBLEMS: tuple[tuple[str, str], ...] = (
    ("EOF while parsing", "stopped in the middle of its JSON (it was cut off before the end)"),
    ("expected value at line 1 column 1", "does not start with JSON (it starts with other text, such as a sentence)"),
    ("trailing characters", "has more text after its JSON ended"),
    ("key must be a string", "writes a name without double quotes (JSON wants \"facts\", not 'facts' or facts)"),
    ("trailing comma", "has a comma just before a closing bracket, which JSON does not allow"),
    ("expected `:`", "misses the ':' between a name and its value"),
    ("expected `,`", "misses a comma between two items of its JSON"),
    ("control character", "holds a raw line break or tab inside a text, which JSON wants written as \\n or \\t"),
    ("escape", "holds a backslash sequence inside a text that JSON does not allow"),
    ("number", "holds a number that JSON cannot read"),
    ("expected ident", "holds a bare word where JSON allows only true, false, null, a number or a quoted text"),
    ("expected value", "holds something JSON cannot read where a value should be"),
    ("recursion limit", "nests its JSON too deeply"),
)
"""What a JSON parser's message means, as the end of "The writer's reply ...": the first prefix found wins.

The messages are pydantic's parser's (``EOF while parsing a string at line 1 column 76``); a student reads the
sentence, never the parser's words or its line and column.
"""

EMPTY_REPLY = "The writer's reply was empty (or a refusal): it holds no facts to check."


def reply_problem(error: Exception) -> str:
    """What is wrong with the writer's reply, as one sentence a student can read: the one place it is said.

    A pydantic dump ("1 validation error for FactBatch: Invalid JSON: EOF while parsing...") names a class and a
    parser state a student never met; this says "The writer's reply stopped in the middle of its JSON" instead,
    for every kind of broken JSON (:data:`JSON_PROBLEMS`), for JSON of the wrong shape, and for an empty reply.
    """
    if isinstance(error, ValidationError):
        problems = list(dict.fromkeys(_problem_in_words(problem) for problem in error.errors()))
        more = len(problems) - 1
        extra = f" (and {more} more problem{'s' * (more > 1)})" if more > 0 else ""
        return f"The writer's reply {problems[0]}{extra}." if problems else "The writer's reply is not a fact list."
    if isinstance(error, json.JSONDecodeError):
        return f"The writer's reply {_python_json_problem(error)}."
    if isinstance(error, NoBatch):
        return EMPTY_REPLY
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return ": ".join(lines[:2]) or type(error).__name__


PYTHON_JSON_PROBLEMS: tuple[tuple[str, str], ...] = (
    ("Unterminated string", "EOF while parsing"),
    ("Extra data", "trailing characters"),
    ("Expecting property name", "key must be a string"),
    ("Expecting ':'", "expected `:`"),
    ("Expecting ','", "expected `,`"),
    ("Invalid control character", "control character"),
    ("Invalid \\escape", "escape"),
    ("Invalid \\uXXXX escape", "escape"),
)
"""Python's ``json`` messages, each with the pydantic message that means the same: both read as one sentence."""


def _python_json_problem(error: json.JSONDecodeError) -> str:
    """The end of "The writer's reply ..." for Python's ``json``: a reply that ends where the parser stopped was cut."""
    if error.pos >= len(error.doc.rstrip()):
        said = "EOF while parsing"
    elif error.msg.startswith("Expecting value"):
        said = "expected value at line 1 column 1" if not error.doc[: error.pos].strip() else "expected value"
    else:
        said = next((theirs for ours, theirs in PYTHON_JSON_PROBLEMS if error.msg.startswith(ours)), "")
    return next((words for prefix, words in JSON_PROBLEMS if said and prefix in said), "is not valid JSON")


def _problem_in_words(problem: Any) -> str:
    """One pydantic error (a dict with ``type``, ``loc``, ``msg``) as the end of "The writer's reply ..."."""
    loc = tuple(problem.get("loc", ()))
    kind = problem.get("type", "")
    if kind == "json_invalid":
        said = str(problem.get("ctx", {}).get("error", problem.get("msg", "")))
        return next((words for prefix, words in JSON_PROBLEMS if prefix in said), "is not valid JSON")
    where = _where(loc)
    if kind == "missing":
        return f"has no {where}"
    if kind == "model_type":
        return 'is not a JSON object with a "facts" list' if not loc else f"has {where} that is not an object"
    if kind == "list_type":
        return f"has {where} that is not a list"
    if kind == "string_type":
        return f"has {where} that is not a text"
    return f"has {where} that breaks a rule: {str(problem.get('msg', '')).rstrip('.')}"


def _where(loc: tuple[Any, ...]) -> str:
    """A place in the reply in words: ``("facts", 0, "value")`` is "a value in fact 1"."""
    if len(loc) >= 3 and isinstance(loc[1], int):
        return f'"{loc[2]}" in fact {loc[1] + 1}'
    if len(loc) == 2 and isinstance(loc[1], int):
        return f"fact {loc[1] + 1}"
    return f'"{".".join(str(part) for part in loc)}"' if loc else "the whole reply"


class GatedWriter:
    """Wraps a writer and holds its answer until ``release()``: a slow model, to show races with ``forget``."""

    def __init__(self, writer: FactWriter) -> None:
        self.writer = writer
        self.started = asyncio.Event()
        self._gate = asyncio.Event()

    def release(self) -> None:
        self._gate.set()

    async def propose(self, user_text: str) -> FactBatch:
        self.started.set()
        await self._gate.wait()
        return await self.writer.propose(user_text)


def make_fact_writer(log: CallLog | None = None) -> ChatFactWriter:
    """``ChatFactWriter(make_chat_client("writer", log=log))``: the writer on the model the settings choose."""
    return ChatFactWriter(make_chat_client("writer", log=log))


def make_extraction(memory: WorkingMemory | None = None, *, log: CallLog | None = None) -> MemoryExtraction:
    """``memory`` (a fresh store by default) fed by the factory's writer: where most lesson cells start.

    The writer is held to the store's forgets (:func:`~course_lib.forgetting.hold_client`): a writer call that
    starts after a forget is never sent the forgotten fact, even for a turn that began before it.
    """
    store = memory if memory is not None else WorkingMemory()
    writer = ChatFactWriter(hold_client(make_chat_client("writer", log=log), store))
    return MemoryExtraction(store, writer)


async def ask_fact_writer(
    message: str, *, log: CallLog | None = None, backends: Backends | None = None
) -> ExtractionReport:
    """Lesson 02's fact writer asked once about ``message``, from an empty store: the report of that one extraction.

    It builds what lesson 02 names one by one (a :class:`~course_lib.memory.WorkingMemory`, a :class:`ChatFactWriter`
    on the ``writer`` role's model, a :class:`MemoryExtraction`), so a lesson that only needs the writer's call, such
    as lesson 00's usage table, shows one plain call instead of lesson 02's names on a first-day student's path.
    ``log`` records the writer's call; ``backends`` chooses its model (the settings' choice by default).
    """
    writer = ChatFactWriter(make_chat_client("writer", log=log, backends=backends))
    return await MemoryExtraction(WorkingMemory(), writer).update(message)


def _class_named(error: BaseException) -> str:
    """`` (RuntimeError)`` for an unforeseen failure, whose class is its only name; nothing for a live model's error.

    A :class:`~course_lib.live.LiveModelError` already says its cause in words (role, model, endpoint, what failed,
    what to check): "Writer failed (LiveModelError)" put a library class on the student's path (lesson 00's walk 22).
    """
    return "" if isinstance(error, LiveModelError) else f" ({type(error).__name__})"
