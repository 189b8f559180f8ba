"""Memory policies compared on a fixed timeline (the seed's Demo170), with costs the code measured.

Each policy decides what the reader model receives at each user turn:

1. ``full history``: every earlier turn, through a MAF session;
2. ``last 3 turns``: a sliding window built by hand;
3. ``summary``: an unverified summary that a model call rewrites after each turn (empty or over 700
   characters stops the comparison: there is no substitute text);
4. ``facts``: the bounded controlled-facts store (lessons 01-03) and its writer;
5. ``compaction``: MAF's ``CompactionProvider`` with the seed's sliding window
   (``SlidingWindowCompactionStrategy(CompactionTriggers.TurnsExceed(3), minimumPreservedTurns: 3)``, ported as
   :class:`SeedSlidingWindow`), which reduces the *view* sent to the model while the stored history stays whole;
   and ``reducer``, the same window rewriting what the session *keeps* (:class:`RetainedWindowHistoryProvider`).

Every call is recorded where MAF hands the final messages to the client (by the client itself when it was built
with the comparison's log, else by :class:`~course_lib.tracing.RecordingMiddleware`), so characters sent and
provider-reported tokens are what really went out.
Nothing here is keyed to a policy's name: the results come from what each policy let the model see.
A replay returns typed rows (:class:`CallRow`, :class:`AnswerRow`, :class:`ScalingRow`, :class:`SessionFootprint`);
a comparison's calls and answers become tables through :func:`~course_lib.frames.rows_frame` (the ground floor), the
other rows through :mod:`~course_lib.presentation` (the top floor, which this module never imports); no pandas here.
"""

from __future__ import annotations

import gc
import itertools
import json
import re
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from agent_framework import (
    EXCLUDE_REASON_KEY,
    EXCLUDED_KEY,
    Agent,
    AgentSession,
    CompactionProvider,
    ContextProvider,
    InMemoryHistoryProvider,
    Message,
    SupportsAgentRun,
    SupportsChatGetResponse,
)
from pydantic import BaseModel, Field

from .assertions import parse_assertions
from .clients import course_backends, make_chat_client
from .conventions import stored_messages
from .environment import course_file
from .extraction import ChatFactWriter, MemoryExtraction, and_listed
from .frames import FORBIDDEN_NAMED, rows_frame, rule_label
from .live import REUSE_VAR, Backends
from .memory import MAX_FACTS, WorkingMemory
from .memory_models import ResolutionRule, SummaryMode, visible_mentions
from .prompts import summary_prompt
from .tracing import EST_TOKENS, USAGE_FIELDS, CallLog, ModelCall, SeenMessage, recording_middleware, shown_count

if TYPE_CHECKING:  # pandas loads when a table is built (by frames.rows_frame): importing the policies stays quick
    import pandas as pd

__all__ = [
    "DATA_DIR",
    "DEFAULT_FINAL_EXPECTATION",
    "DEFAULT_TIMELINE",
    "FILLER_KEYS",
    "KEEPS_EVERYTHING",
    "MAX_SUMMARY_CHARS",
    "NOT_ASKED",
    "OFFLINE",
    "READER_INSTRUCTIONS",
    "RULES",
    "STOP_BRIEFLY",
    "STOP_CAUSES",
    "SUMMARIZER_INSTRUCTIONS",
    "SUMMARY_HEADING",
    "TIME_NOISE_RATIO",
    "TIMINGS",
    "AnswerRow",
    "CallRow",
    "CompactionPolicy",
    "Comparison",
    "Expectation",
    "FactsPolicy",
    "FullHistoryPolicy",
    "LastTurnsPolicy",
    "MemoryPolicy",
    "PolicyFactory",
    "PolicyKind",
    "PolicyStop",
    "ReducerPolicy",
    "RetainedWindowHistoryProvider",
    "ScalingRow",
    "SeedSlidingWindow",
    "SessionFootprint",
    "SessionPolicy",
    "SummaryAtQuestion",
    "SummaryPolicy",
    "SummaryRejected",
    "SummaryReplay",
    "Superseded",
    "Timeline",
    "TimelineTurn",
    "answers_frame",
    "calls_frame",
    "compare_policies",
    "comparison_rules",
    "context_fit_sentence",
    "course_policies",
    "excluded_count_sentence",
    "footprint_sentence",
    "footprint_sentences",
    "generate_timeline",
    "generated_rows_sentence",
    "load_timeline",
    "measure_scaling",
    "replay_calls_sentence",
    "replay_summary",
    "rule_label",
    "rules_note",
    "run_policy",
    "seed_settings_rows",
    "seed_window_label",
    "seed_window_settings",
    "session_footprint",
    "stop_cause",
    "stop_in_words",
    "stop_line",
    "stopped_frame",
    "summary_at_final_question",
    "summary_call_sum",
    "summary_keys",
    "summary_shown",
    "summary_sizes",
    "superseded_sentence",
    "superseded_values",
    "time_growth_sentence",
    "time_range_sentence",
    "turns_phrase",
    "visible_values",
    "window_label",
    "wrong_answers_lines",
]

DATA_DIR = course_file("data")
DEFAULT_TIMELINE = DATA_DIR / "timeline_demo170.json"
MAX_SUMMARY_CHARS = 700
READER_INSTRUCTIONS = "Answer the user from the conversation and any facts you are given. Do not guess."
RULES: tuple[ResolutionRule, ...] = ("latest", "earliest", "most_frequent")
OFFLINE = Backends(backend="offline")
"""The offline models, whatever ``COURSE_LLM`` says: for replays that measure the framework, not a model."""


def comparison_rules(
    rules: Sequence[ResolutionRule] = RULES, backends: Backends | None = None
) -> tuple[ResolutionRule, ...]:
    """The resolution rules worth replaying on the backend: all of them offline, the first alone on a live model.

    A rule shapes only what the offline reader answers (it is the switch that makes a model's tendency visible); a
    live model resolves conflicts its own way, so replaying it under each rule would send the same requests again,
    once per rule, and compare a model with itself. The one live run keeps the first rule's name as its label.
    """
    backends = backends or course_backends()
    return tuple(rules) if backends.live is None else tuple(rules[:1])


def rules_note(rules: Sequence[ResolutionRule] = RULES, backends: Backends | None = None) -> str:
    """The sentence a lesson prints above a comparison: which rules run on this backend, and why.

    The rules are named in words (``most frequent``, :func:`rule_label`), as the tables name them: a student reads
    this sentence, not the identifiers the code passes around.

    The sentence opens with the models that answer, in the words of lessons 01-03 (the offline models, or a live
    model named by its setting): "backend" is lesson 00's word, and lesson 00 is optional.
    """
    backends = backends or course_backends()
    chosen = comparison_rules(rules, backends)
    if backends.live is None:
        named = ", ".join(map(rule_label, chosen))
        return (
            f"The offline models answer here (no live model is set up): the offline reader resolves conflicts by "
            f"each rule ({named}); every policy runs under each, {len(chosen)} replays per policy."
        )
    note = (
        f"A live model answers here (COURSE_LLM={backends.backend}): a live reader resolves conflicts its own way, "
        "and the rules shape only the "
        f"offline models, so every policy runs once (labelled “{rule_label(chosen[0])}”) instead of "
        f"{len(rules)} times."
    )
    if backends.live.reuse_answers:
        note += (
            f" A request this process already sent is not sent again: the model's first answer to it stands "
            f"({REUSE_VAR}=0 sends every call)."
        )
    return note


# region Timelines


class Expectation(BaseModel):
    """What a correct answer to a question turn must contain, and must not (a superseded value, say)."""

    must_contain: list[str] = Field(min_length=1)
    must_not_contain: list[str] = Field(default_factory=list)

    def unmet(self, answer: str) -> tuple[list[str], list[str]]:
        """The one grading rule (lessons 04 and 07 both call it): the ``must_contain`` texts ``answer`` lacks,
        and the ``must_not_contain`` texts it holds. The answer is correct when both lists are empty."""
        missing = [text for text in self.must_contain if text not in answer]
        return missing, [text for text in self.must_not_contain if text in answer]


class TimelineTurn(BaseModel):
    """One user turn; a turn with ``expect`` is a question whose answer is graded."""

    user: str = Field(min_length=1)
    expect: Expectation | None = None


class Timeline(BaseModel):
    """An ordered conversation to replay under each policy (JSON in ``data/``; schema in the README)."""

    name: str
    description: str = ""
    turns: list[TimelineTurn] = Field(min_length=1)

    @property
    def questions(self) -> list[int]:
        """The 1-based numbers of the graded turns."""
        return [i for i, t in enumerate(self.turns, start=1) if t.expect is not None]


def load_timeline(path: str | Path = DEFAULT_TIMELINE) -> Timeline:
    """Read and validate a timeline file; a malformed one fails with pydantic's message naming the field."""
    return Timeline.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


@dataclass(frozen=True)
class Superseded:
    """A value a later declaration of its key replaced: what lesson 04 calls *superseded*."""

    key: str
    value: str
    replaced_at: int
    """The 1-based turn whose declaration replaced it."""


def superseded_values(timeline: Timeline) -> list[Superseded]:
    """Every value the timeline's own declarations replace, in the order they are replaced.

    Read from the user's words with the contract's parser (the last declaration of a key in a turn counts), never
    from the expectations: lesson 04 named only ``Reporting`` when turn 6 replaced ``PostgreSQL`` too.
    """
    current: dict[str, str] = {}
    replaced: list[Superseded] = []
    for number, turn in enumerate(timeline.turns, start=1):
        for key, value in parse_assertions(turn.user).items():
            if key in current and current[key] != value:
                replaced.append(Superseded(key, current[key], number))
            current[key] = value
    return replaced


def superseded_sentence(timeline: Timeline) -> str:
    """The timeline's superseded values in one sentence, each with its key and the turn that replaced it."""
    replaced = superseded_values(timeline)
    if not replaced:
        return "No value is superseded here: no turn declares a key again with another value."
    values = and_listed([f"{s.value} ({s.key}, replaced at turn {s.replaced_at})" for s in replaced])
    return f"Superseded here, read from the declarations above: {values}."


FILLER_KEYS = ("customer", "version", "environment", "symptom", "log", "priority")


DEFAULT_FINAL_EXPECTATION = {
    "must_contain": ["Billing", "SQL Server 2022", "never restart the production database during business hours"],
    "must_not_contain": ["Reporting", "PostgreSQL"],
}


def generate_timeline(n_turns: int) -> Timeline:
    """A timeline of ``n_turns`` for scaling: the seed's pattern stretched with numbered filler facts.

    Turn 1 declares product, module and database; turn 2 the prohibition; the module and database are
    corrected in the middle; the last turn asks for the corrected values and the prohibition.
    """
    if n_turns < 4:
        raise ValueError(
            f"A generated timeline needs at least 4 turns (declare, prohibit, correct, ask); got {n_turns}."
        )
    turns = [
        TimelineTurn(user="product=Contoso Invoicing\nmodule=Reporting\ndatabase=PostgreSQL"),
        TimelineTurn(user="constraint=never restart the production database during business hours"),
    ]
    middle = max(3, 2 + (n_turns - 3) // 2)  # turn 3 at the earliest: 4 turns still hold the correction
    for number in range(3, n_turns):
        if number == middle:
            turns.append(TimelineTurn(user="module=Billing; database=SQL Server 2022"))
        else:
            key = FILLER_KEYS[number % len(FILLER_KEYS)]
            turns.append(TimelineTurn(user=f"{key}={key} value {number}"))
    turns.append(
        TimelineTurn(
            user="Plan the fix: which module and database, and what must we never do?",
            expect=Expectation(**DEFAULT_FINAL_EXPECTATION),
        )
    )
    return Timeline(name=f"generated-{n_turns}", description=f"{n_turns} generated turns", turns=turns)


# region Policies


PolicyKind = Literal["full_history", "last_turns", "summary", "facts", "compaction", "reducer"]


class MemoryPolicy(ABC):
    """Builds what the reader receives at each turn, and keeps whatever state the policy needs.

    ``kind`` is the policy's stable identity (code compares it); ``name`` is its display label, built
    from its parameters by the class's ``label`` and shown in tables ("last 3 turns"). Every model call lands
    once in ``log``: recorded by the client when it was built with that log, else by a ``RecordingMiddleware``
    (:func:`~course_lib.tracing.recording_middleware`).
    """

    kind: ClassVar[PolicyKind]
    name: str
    seed_settings: str = ""
    """The seed's exact .NET settings where the policy ports one (compaction, reducer), else "": the name a
    student reads is ``name``, short; these stay for the lesson's "Under the hood" and the conformance tests."""

    def __init__(
        self, reader: SupportsChatGetResponse, log: CallLog, providers: Sequence[ContextProvider] | None = None
    ) -> None:
        self.log = log
        self.reader = Agent(
            client=reader,
            name="reader",
            instructions=READER_INSTRUCTIONS,
            middleware=recording_middleware(reader, log, "reader"),
            context_providers=list(providers) if providers else None,
        )

    def _reader(self, reader: SupportsAgentRun | None) -> SupportsAgentRun:
        """The agent that answers a turn: the one passed for it, else the policy's own reader."""
        return self.reader if reader is None else reader

    @abstractmethod
    async def turn(self, user_text: str, *, reader: SupportsAgentRun | None = None) -> str:
        """Send one user turn the policy's way; return the reader's answer.

        ``reader`` answers this turn in place of the policy's own reader agent (the capstone passes that agent
        wrapped in a loop): the policy still decides what it receives, and keeps its own state.
        """


class SessionPolicy(MemoryPolicy):
    """A reader that keeps its history in one MAF session; the context providers decide what it sees."""

    def __init__(
        self,
        reader: SupportsChatGetResponse,
        log: CallLog,
        name: str,
        providers: Sequence[ContextProvider] | None = None,
    ) -> None:
        super().__init__(reader, log, providers)
        self.name = name
        self.session = self.reader.create_session()

    async def turn(self, user_text: str, *, reader: SupportsAgentRun | None = None) -> str:
        # A message id lets MAF's history recognise stored messages by id (its fast path) instead of
        # re-serialising every stored message on every turn (``filter_new_messages``).
        message = Message(role="user", contents=[user_text], message_id=f"user-{uuid.uuid4().hex}")
        return (await self._reader(reader).run(message, session=self.session)).text


class FullHistoryPolicy(SessionPolicy):
    """Every earlier turn, kept by MAF's in-memory history in one session."""

    kind = "full_history"

    @staticmethod
    def label() -> str:
        return "full history"

    def __init__(self, reader: SupportsChatGetResponse, log: CallLog) -> None:
        super().__init__(reader, log, self.label())


class LastTurnsPolicy(MemoryPolicy):
    """A sliding window: the last ``turns`` user/answer pairs, then the new message; older turns are gone."""

    kind = "last_turns"

    @staticmethod
    def label(turns: int) -> str:
        return f"last {turns_phrase(turns)}"

    def __init__(self, reader: SupportsChatGetResponse, log: CallLog, turns: int = 3) -> None:
        if turns < 1:
            raise ValueError(f"The window must hold at least 1 turn; got {turns}.")
        super().__init__(reader, log)
        self.window = turns
        self.name = self.label(turns)
        self.history: list[tuple[str, str]] = []

    async def turn(self, user_text: str, *, reader: SupportsAgentRun | None = None) -> str:
        messages = [m for user, answer in self.history[-self.window :] for m in _pair(user, answer, self.reader.name)]
        answer = (await self._reader(reader).run([*messages, Message(role="user", contents=[user_text])])).text
        self.history = [*self.history, (user_text, answer)][-self.window :]  # bounded: older turns are not kept
        return answer


class SummaryRejected(RuntimeError):
    """The summarizer returned an empty summary or one over the limit, or failed: the summary policy stops here."""


SUMMARIZER_INSTRUCTIONS = (
    "Rewrite the running summary of a support conversation so it includes the new turn. Keep what matters "
    f"for later questions. Answer with the summary only, at most {MAX_SUMMARY_CHARS} characters."
)


SUMMARY_HEADING = "Summary so far (unverified):"
"""The line the summary policy puts above the summary it sends the reader."""


class SummaryPolicy(MemoryPolicy):
    """An unverified running summary, rewritten by a model call after every turn, sent before the new message."""

    kind = "summary"

    @staticmethod
    def label() -> str:
        return "summary"

    def __init__(self, reader: SupportsChatGetResponse, log: CallLog, summarizer: SupportsChatGetResponse) -> None:
        super().__init__(reader, log)
        self.name = self.label()
        self.summarizer = Agent(
            client=summarizer,
            name="summarizer",
            instructions=SUMMARIZER_INSTRUCTIONS,
            middleware=recording_middleware(summarizer, log, "summarizer"),
        )
        self.summary = ""
        self.turns = 0

    async def turn(self, user_text: str, *, reader: SupportsAgentRun | None = None) -> str:
        self.turns += 1
        note = f"{SUMMARY_HEADING}\n{self.summary}"
        messages = [Message(role="user", contents=[note])] if self.summary else []
        answer = (await self._reader(reader).run([*messages, Message(role="user", contents=[user_text])])).text
        try:
            summary = (await self.summarizer.run(summary_prompt(self.summary, user_text, answer))).text.strip()
        except Exception as error:  # a live summarizer cut at its output cap, or timed out: the same stop
            raise SummaryRejected(
                f"The summarizer failed after turn {self.turns}: {error} The summary policy stops here: no "
                "substitute summary is used."
            ) from error
        if not summary or len(summary) > MAX_SUMMARY_CHARS:
            raise SummaryRejected(
                f"The summary after turn {self.turns} has {len(summary)} characters; it must be 1 to "
                f"{MAX_SUMMARY_CHARS}. The summary policy stops here: no substitute summary is used."
            )
        self.summary = summary
        return answer


class FactsPolicy(MemoryPolicy):
    """The bounded controlled facts: the block and the new message; the writer extracts after the answer."""

    kind = "facts"

    @staticmethod
    def label(max_facts: int = MAX_FACTS, *, name_the_bound: bool = False) -> str:
        """``facts``, or ``facts (8)`` for another bound; ``name_the_bound`` names the default one too (``facts (5)``),
        as lesson 04's explorer does from the start (its seventh walk: the number appeared only once a slider moved)."""
        return "facts" if max_facts == MAX_FACTS and not name_the_bound else f"facts ({max_facts})"

    def __init__(
        self,
        reader: SupportsChatGetResponse,
        log: CallLog,
        writer: SupportsChatGetResponse,
        max_facts: int = MAX_FACTS,
        *,
        name_the_bound: bool = False,
    ) -> None:
        super().__init__(reader, log)
        self.name = self.label(max_facts, name_the_bound=name_the_bound)
        writer_agent = ChatFactWriter(writer, middleware=recording_middleware(writer, log, "writer"))
        self.extraction = MemoryExtraction(WorkingMemory(max_facts), writer_agent)

    async def turn(self, user_text: str, *, reader: SupportsAgentRun | None = None) -> str:
        begun = self.extraction.begin(user_text)  # the turn begins before the reader answers
        block = Message(role="user", contents=[self.extraction.memory.to_prompt_block()])
        answer = (await self._reader(reader).run([block, Message(role="user", contents=[user_text])])).text
        await self.extraction.complete(begun)
        return answer


class SeedSlidingWindow:
    """The seed's ``SlidingWindowCompactionStrategy(CompactionTriggers.TurnsExceed(max_turns), minimumPreservedTurns)``.

    MAF Python has neither turn triggers nor a preserved-turns floor (its ``SlidingWindowStrategy`` keeps a fixed
    number of message groups), so this ports the .NET source (``SlidingWindowCompactionStrategy.cs``,
    ``CompactionTriggers.cs``) onto MAF Python's compaction-strategy protocol, rule for rule:

    * a turn is a user message and everything after it up to the next one; messages before the first user
      message (turn 0) and system messages are always kept;
    * trigger ``TurnsExceed(max_turns)``: it compacts only when more than ``max_turns`` turns are included;
    * target (the default, the trigger's inverse): it stops as soon as at most ``max_turns`` are left;
    * ``minimumPreservedTurns``: the last ones are a hard floor, never excluded even if the target is not met;
    * the oldest turns go first, a whole turn at a time (marked excluded, as MAF's strategies do).

    ``incoming_turns`` says how many turns the request will add after the messages this strategy sees. The seed's
    ``CompactionProvider`` wraps the chat client, so it counts the new user message too; MAF Python's provider
    compacts the stored history after a run, and the next run adds its one new message: ``incoming_turns=1``
    counts it, so the request still holds at most ``max_turns`` turns, the new one included. The reducer runs on
    the stored list itself, like the seed's ``AsChatReducer`` after each addition: ``incoming_turns=0``.
    """

    def __init__(self, max_turns: int = 3, minimum_preserved_turns: int = 3, *, incoming_turns: int = 0) -> None:
        if max_turns < 0:
            raise ValueError(f"max_turns (TurnsExceed's threshold) must not be negative; got {max_turns}.")
        if minimum_preserved_turns < 0:
            raise ValueError(
                "minimum_preserved_turns must not be negative (.NET: EnsureNonNegative); "
                f"got {minimum_preserved_turns}."
            )
        self.max_turns = max_turns
        self.minimum_preserved_turns = minimum_preserved_turns
        self.incoming_turns = incoming_turns

    async def __call__(self, messages: list[Message]) -> bool:
        """Exclude the oldest unprotected turns until the target holds; True when anything was excluded."""
        turns: dict[int, list[Message]] = {}  # turn index (1 = first user message) -> its included messages
        index = 0
        for message in messages:
            if message.role == "user":
                index += 1
            if message.role != "system" and index > 0 and not message.additional_properties.get(EXCLUDED_KEY):
                turns.setdefault(index, []).append(message)
        order = list(turns)  # included turns, oldest first
        count = len(order) + self.incoming_turns
        if count <= self.max_turns:  # TurnsExceed(max_turns) does not fire
            return False
        floor = max(0, self.minimum_preserved_turns - self.incoming_turns)  # the incoming turns are the newest
        changed = False
        for turn in order[: len(order) - floor]:
            for message in turns[turn]:
                message.additional_properties[EXCLUDED_KEY] = True
                message.additional_properties[EXCLUDE_REASON_KEY] = f"Excluded by {type(self).__name__}"
            changed, count = True, count - 1
            if count <= self.max_turns:  # the target: the trigger would no longer fire
                break
        return changed


def turns_phrase(count: int) -> str:
    """``1 turn``, ``3 turns``: a count of turns as a sentence says it."""
    return f"{count} turn" if count == 1 else f"{count} turns"


def window_label(kind: str, max_turns: int, minimum_preserved_turns: int) -> str:
    """A compaction or reducer policy as a student reads it: ``compaction (3 turns)``.

    The floor is named only when it differs from the window (``compaction (3 turns, 2 always kept)``); the seed's
    exact settings are in :func:`seed_window_settings` and :func:`seed_window_label`, for the lesson's "Under the
    hood" and the conformance tests.
    """
    if minimum_preserved_turns == max_turns:
        return f"{kind} ({turns_phrase(max_turns)})"
    return f"{kind} ({turns_phrase(max_turns)}, {minimum_preserved_turns} always kept)"


def seed_window_label(kind: str, max_turns: int, minimum_preserved_turns: int) -> str:
    """A compaction or reducer policy named in the seed's terms: ``compaction (TurnsExceed(3), preserved 3)``."""
    return f"{kind} (TurnsExceed({max_turns}), preserved {minimum_preserved_turns})"


def seed_window_settings(kind: str, max_turns: int, minimum_preserved_turns: int) -> str:
    """The seed's exact .NET settings for the compaction or the reducer of that window, as its code writes them."""
    strategy = (
        f"SlidingWindowCompactionStrategy(CompactionTriggers.TurnsExceed({max_turns}), "
        f"minimumPreservedTurns: {minimum_preserved_turns})"
    )
    if kind == "compaction":
        return f"CompactionProvider({strategy}) on the chat client"
    return f"InMemoryChatHistoryProvider, ChatReducer = {strategy}.AsChatReducer(), AfterMessageAdded"


class CompactionPolicy(SessionPolicy):
    """MAF's ``CompactionProvider`` with the seed's window over the *view* sent; the session keeps everything.

    The seed: ``CompactionProvider(new SlidingWindowCompactionStrategy(CompactionTriggers.TurnsExceed(3),
    minimumPreservedTurns: 3))`` on the chat client, so at most 3 user turns reach the model, the new one
    included. Here the provider runs :class:`SeedSlidingWindow` after each turn, counting the turn the next
    request adds: it marks the turns outside the window as excluded in the stored history (they stay stored,
    with their annotations), and the history loads only the included ones. The provider comes first in the list
    so that its ``after_run`` sees the turn the history has just saved.
    """

    kind = "compaction"

    @staticmethod
    def label(max_turns: int, minimum_preserved_turns: int) -> str:
        return window_label("compaction", max_turns, minimum_preserved_turns)

    def __init__(
        self, reader: SupportsChatGetResponse, log: CallLog, max_turns: int = 3, minimum_preserved_turns: int = 3
    ) -> None:
        window = SeedSlidingWindow(max_turns, minimum_preserved_turns, incoming_turns=1)
        providers = [CompactionProvider(after_strategy=window), InMemoryHistoryProvider(skip_excluded=True)]
        super().__init__(reader, log, self.label(max_turns, minimum_preserved_turns), providers)
        self.seed_settings = seed_window_settings("compaction", max_turns, minimum_preserved_turns)


class RetainedWindowHistoryProvider(InMemoryHistoryProvider):
    """A history that reduces its stored list with the seed's window after each save: the session itself shrinks.

    The seed's ``InMemoryChatHistoryProvider`` with ``ChatReducer = SlidingWindowCompactionStrategy(...)
    .AsChatReducer()`` and ``ReducerTriggerEvent.AfterMessageAdded``: after each exchange is stored, the list
    is replaced by the window's included messages, so the snapshot holds only those.
    """

    def __init__(self, max_turns: int = 3, minimum_preserved_turns: int = 3) -> None:
        super().__init__()
        self.window = SeedSlidingWindow(max_turns, minimum_preserved_turns)

    async def save_messages(
        self, session_id: str | None, messages: Sequence[Message], *, state: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        await super().save_messages(session_id, messages, state=state, **kwargs)
        if state is not None:
            stored = state["messages"]
            await self.window(stored)
            state["messages"] = [m for m in stored if not m.additional_properties.pop(EXCLUDED_KEY, False)]
            for message in state["messages"]:
                message.additional_properties.pop(EXCLUDE_REASON_KEY, None)


class ReducerPolicy(SessionPolicy):
    """The seed's retained-history reducer: the same window as compaction, applied to what the session stores."""

    kind = "reducer"

    @staticmethod
    def label(max_turns: int, minimum_preserved_turns: int) -> str:
        return window_label("reducer", max_turns, minimum_preserved_turns)

    def __init__(
        self, reader: SupportsChatGetResponse, log: CallLog, max_turns: int = 3, minimum_preserved_turns: int = 3
    ) -> None:
        history = RetainedWindowHistoryProvider(max_turns, minimum_preserved_turns)
        super().__init__(reader, log, self.label(max_turns, minimum_preserved_turns), [history])
        self.seed_settings = seed_window_settings("reducer", max_turns, minimum_preserved_turns)


def _pair(user: str, answer: str, author: str | None) -> list[Message]:
    """A kept turn as the full history stores it: the answer carries the reader's name as its author."""
    return [Message(role="user", contents=[user]), Message(role="assistant", contents=[answer], author_name=author)]


# region The comparison


@dataclass(frozen=True)
class PolicyFactory:
    """Builds a fresh policy for a resolution rule and a log; ``kind`` and ``label`` say which, before it runs."""

    policy: type[MemoryPolicy]
    label: str
    build: Callable[[ResolutionRule, CallLog], MemoryPolicy]
    seed_settings: str = ""
    """The seed's exact settings the policy it builds runs (its ``seed_settings``), known before it runs."""

    @property
    def kind(self) -> PolicyKind:
        return self.policy.kind

    def __call__(self, rule: ResolutionRule, log: CallLog) -> MemoryPolicy:
        return self.build(rule, log)


def course_policies(
    window: int = 3,
    max_facts: int = MAX_FACTS,
    summary_budget: int = 240,
    summary_mode: SummaryMode = "abstractive",
    reader: Callable[[ResolutionRule], SupportsChatGetResponse] | None = None,
    backends: Backends | None = None,
    *,
    name_the_bound: bool = False,
) -> dict[str, PolicyFactory]:
    """The six policies on the factory's models (offline by default), by label; the reader built for each rule.

    ``name_the_bound`` labels the facts policy with its bound even at the default (``facts (5)``, not ``facts``): a
    panel whose slider sets the bound shows the number from the start, as the window's labels do.

    The summary is abstractive by default, as real summarizers are; ``summary_mode="extractive"`` is the contrast.

    ``reader`` builds the reader's client for a rule (default: the factory's reader, which offline resolves
    conflicts by that rule); lesson 07 passes its drift-prone one. ``backends`` chooses the models (default: the
    settings'; :data:`OFFLINE` for a replay that measures the framework).
    """

    def make_reader(rule: ResolutionRule, log: CallLog) -> SupportsChatGetResponse:
        # Built with the policy's log, a model records its own calls (no chat middleware: see recording_middleware).
        if reader is not None:
            return reader(rule)
        return make_chat_client("reader", resolution=rule, log=log, backends=backends)

    factories = [
        PolicyFactory(
            FullHistoryPolicy, FullHistoryPolicy.label(), lambda r, log: FullHistoryPolicy(make_reader(r, log), log)
        ),
        PolicyFactory(
            LastTurnsPolicy,
            LastTurnsPolicy.label(window),
            lambda r, log: LastTurnsPolicy(make_reader(r, log), log, window),
        ),
        PolicyFactory(
            SummaryPolicy,
            SummaryPolicy.label(),
            lambda r, log: SummaryPolicy(
                make_reader(r, log),
                log,
                make_chat_client(
                    "summarizer", log=log, summary_budget=summary_budget, summary_mode=summary_mode, backends=backends
                ),
            ),
        ),
        PolicyFactory(
            FactsPolicy,
            FactsPolicy.label(max_facts, name_the_bound=name_the_bound),
            lambda r, log: FactsPolicy(
                make_reader(r, log),
                log,
                make_chat_client("writer", log=log, backends=backends),
                max_facts,
                name_the_bound=name_the_bound,
            ),
        ),
        PolicyFactory(  # the seed's TurnsExceed(window), minimumPreservedTurns: window (3 and 3 by default)
            CompactionPolicy,
            CompactionPolicy.label(window, window),
            lambda r, log: CompactionPolicy(make_reader(r, log), log, window, window),
            seed_window_settings("compaction", window, window),
        ),
        PolicyFactory(
            ReducerPolicy,
            ReducerPolicy.label(window, window),
            lambda r, log: ReducerPolicy(make_reader(r, log), log, window, window),
            seed_window_settings("reducer", window, window),
        ),
    ]
    return {factory.label: factory for factory in factories}


def seed_settings_rows(factories: dict[str, PolicyFactory]) -> list[dict[str, str]]:
    """Each policy that ports a setting of the seed: the short name the lesson's tables show, and the seed's exact
    settings behind it (lesson 04's "Under the hood" shows them as a table)."""
    return [
        {"policy (as the tables name it)": label, "the seed's exact settings": factory.seed_settings}
        for label, factory in factories.items()
        if factory.seed_settings
    ]


STOP_CAUSES = (
    (
        r"cut at the output cap of (?P<n>\d+) tokens",
        "summary cut at the {n}-token output cap",
        "the model's summary ran past its {n}-token limit and was cut off",
    ),
    (r"has 0 characters; it must be 1 to", "empty summary", "the summarizer returned an empty summary"),
    (
        r"has (?P<n>\d+) characters; it must be 1 to (?P<most>\d+)",
        "summary of {n} characters",
        "the summary ran to {n} characters, over the {most}-character limit",
    ),
    (r"timed out", "summarizer timed out", "the summarizer took too long and timed out"),
)
"""How a stop's message reads: a pattern of the message, its words for a table cell, and its plain sentence (first
match wins). The message itself names the endpoint's address and the setting to change, for whoever runs the model;
a student reads the sentence."""


def _stop_turn(reason: str) -> str:
    turn = re.search(r"after turn (\d+)", reason)
    return turn[1] if turn else ""


def _known_cause(reason: str) -> tuple[str, str] | None:
    """The first :data:`STOP_CAUSES` entry the message matches, filled in: (table words, sentence); None if none."""
    for pattern, words, sentence in STOP_CAUSES:
        found = re.search(pattern, reason)
        if found:
            return words.format(**found.groupdict()), sentence.format(**found.groupdict())
    return None


def stop_cause(reason: str, *, brief: bool = False) -> str:
    """A policy's stop in a few words for a table cell, with the turn; the sentence under the table says where the
    full message is (a "see below" in the cell pointed at that sentence, which repeats the cell, not at the message).

    ``The summarizer failed after turn 4: ... the answer was cut at the output cap of 256 tokens ...`` reads
    ``summary cut at the 256-token output cap (turn 4)``; a message no pattern knows reads ``stopped (turn 4)``,
    never a guess at its cause. ``brief=True`` names no cap (:data:`STOP_BRIEFLY`): ``summary cut off (turn 4)``,
    as lesson 04's recorded table says it (the cap is under the hood).
    """
    turn, known = _stop_turn(reason), _known_cause(reason)
    where = f" (turn {turn})" if turn else ""
    if brief:
        short = next((cell for pattern, (cell, _) in STOP_BRIEFLY.items() if re.search(pattern, reason)), None)
        known = (short, "") if short else known
    return f"{known[0] if known else 'stopped'}{where}"


STOP_BRIEFLY = {STOP_CAUSES[0][0]: ("summary cut off", "{model}'s summary was too long and was cut off")}
"""A cause's table words and sentence without its numbers, where a student's path states no cap (:func:`stop_line`,
``stop_cause(..., brief=True)``), by the :data:`STOP_CAUSES` pattern it shortens; a cause not here reads as its
words and sentence (their numbers are the student's)."""


def stop_line(policy: str, reason: str, model: str = "the model") -> str:
    """A policy's stop as the one sentence lesson 04's recording prints: which policy, at which turn, and what went
    wrong, with no cap, address or setting: ``The summary policy stopped at turn 1: the small model's summary was too
    long and was cut off.`` (``model`` "the small model"). The cap is in the full message (lesson 04's walk 25: the
    256-token cap was server detail on a student's path; the hood prints the message, cap included).
    """
    turn = _stop_turn(reason)
    where = f" at turn {turn}" if turn else ""
    for pattern, _, sentence in STOP_CAUSES:
        found = re.search(pattern, reason)
        if found:
            said = STOP_BRIEFLY.get(pattern, ("", sentence))[1].format(model=model, **found.groupdict())
            return f"The {policy} policy stopped{where}: {said}."
    return f"The {policy} policy stopped{where} (the full message is under the hood)."


def stop_in_words(reason: str) -> str:
    """A policy's stop as one plain clause a student reads: what went wrong and at which turn, no address or setting.

    ``The summarizer failed after turn 4: model 'x' at http://...: the answer was cut at the output cap of 256
    tokens ...`` reads ``the model's summary ran past its 256-token limit and was cut off at turn 4``; a message no
    pattern knows reads ``it stopped at turn 4 (the full message is under the hood)``, never a guess at its cause.
    """
    turn, known = _stop_turn(reason), _known_cause(reason)
    where = f" at turn {turn}" if turn else ""
    return f"{known[1]}{where}" if known else f"it stopped{where} (the full message is under the hood)"


@dataclass(frozen=True)
class PolicyStop:
    """A policy that refused to go on (a summary out of bounds): where, and the rule's own words."""

    policy: str
    rule: str
    turn: int
    reason: str

    def in_words(self) -> str:
        """The stop as one sentence a student reads (:func:`stop_in_words`): no endpoint address, no setting."""
        return f"The {self.policy} policy stopped: {self.why()}."

    def why(self) -> str:
        """Why it stopped, in a clause: a known cause in plain words; another failure as its message says it, with
        the endpoint's address left out and the turn named (a live run has no "under the hood" to point to)."""
        if _known_cause(self.reason) is not None:
            return stop_in_words(self.reason)
        said = self.reason.split(" The summary policy stops here")[0]
        said = re.sub(r"^The summarizer failed after turn \d+: ", "", said)
        said = re.sub(r" at https?://\S+?(?=:(?:\s|$)|\s|$)", "", said).rstrip(" .")
        return f"the summarizer failed at turn {self.turn} ({said})"


@dataclass(frozen=True)
class CallRow:
    """One model call of a replay, as it was measured where MAF handed the messages to the client."""

    policy: str
    """The policy's label (``"last 3 turns"``)."""
    rule: str
    """The reader's resolution rule."""
    turn: int
    """The 1-based user turn the call belongs to."""
    call: str
    """The role called: ``reader``, ``writer`` or ``summarizer``."""
    visible: str
    """Every value the reader could see (:func:`visible_values`), on graded turns only: "" otherwise (reading every
    prompt of a long history again would cost as much as the replay itself)."""
    chars_sent: int
    """Characters of every message sent, instructions included."""
    input_tokens: int | None
    """Tokens the provider reported for the input; None when it reported none (never an estimate)."""
    output_tokens: int | None
    """Tokens the provider reported for the output; None when it reported none."""
    total_tokens: int | None
    """The provider's total; None when it reported none."""

    @property
    def est_tokens(self) -> int:
        """The characters/4 estimate: not what a provider bills."""
        return self.chars_sent // 4


@dataclass(frozen=True)
class AnswerRow:
    """One graded answer: the question, the answer, and what the expectation found (:meth:`Expectation.unmet`)."""

    policy: str
    """The policy's label (``"last 3 turns"``)."""
    rule: str
    """The reader's resolution rule."""
    turn: int
    """The 1-based user turn of the graded question."""
    question: str
    """The question as the user asked it."""
    answer: str
    """The reader's answer, as it came back."""
    missing: tuple[str, ...]
    """The ``must_contain`` texts the answer lacks."""
    forbidden: tuple[str, ...]
    """The ``must_not_contain`` texts (the question's *forbidden values*: superseded, or not yet declared) it names."""

    @property
    def correct(self) -> bool:
        return not self.missing and not self.forbidden


def calls_frame(rows: Sequence[CallRow]) -> pd.DataFrame:
    """One row per model call; a token count the provider did not report reads ``unknown`` (never an estimate)."""
    columns = ["policy", "rule", "turn", "call", "visible", "chars_sent", EST_TOKENS]
    columns += [f"reported_{usage}" for usage in USAGE_FIELDS]
    return rows_frame(
        (
            {c: getattr(r, c) for c in columns[:6]}
            | {EST_TOKENS: r.est_tokens}
            | {f"reported_{usage}": shown_count(getattr(r, usage)) for usage in USAGE_FIELDS}
            for r in rows
        ),
        columns,
    )


def answers_frame(rows: Sequence[AnswerRow]) -> pd.DataFrame:
    """One row per graded answer: correct, and the texts it lacks or must not hold, joined with ``; ``."""
    columns = ["policy", "rule", "turn", "question", "correct", "missing", FORBIDDEN_NAMED, "answer"]
    return rows_frame(
        (
            {c: getattr(r, c) for c in columns[:5]}
            | {"missing": "; ".join(r.missing), FORBIDDEN_NAMED: "; ".join(r.forbidden), "answer": r.answer}
            for r in rows
        ),
        columns,
    )


_STOPPED_COLUMNS = ["policy", "rule", "why it stopped"]


def stopped_frame(stops: Sequence[PolicyStop]) -> pd.DataFrame:
    """One row per policy run that stopped, its reason in words (:meth:`PolicyStop.why`); no row: none stopped.

    The full message (``PolicyStop.reason``) names a live endpoint's address and the setting to raise: it is for
    whoever runs the model, and stays on the stop itself.
    """
    rows = ({"policy": s.policy, "rule": s.rule, "why it stopped": s.why()} for s in stops)
    return rows_frame(rows, _STOPPED_COLUMNS).set_index("policy")


@dataclass(frozen=True)
class Comparison:
    """Every model call and every graded answer of a comparison, as typed rows; the policies that stopped, and why.

    ``calls``, ``answers`` and :meth:`stopped_frame` show them as tables (:func:`calls_frame`, :func:`answers_frame`,
    :func:`stopped_frame`, made by the ground floor's :func:`~course_lib.frames.rows_frame`).
    """

    call_rows: tuple[CallRow, ...]
    answer_rows: tuple[AnswerRow, ...]
    stopped: tuple[PolicyStop, ...] = ()

    @property
    def calls(self) -> pd.DataFrame:
        """One row per model call (:func:`calls_frame`)."""
        return calls_frame(self.call_rows)

    @property
    def answers(self) -> pd.DataFrame:
        """One row per graded answer (:func:`answers_frame`)."""
        return answers_frame(self.answer_rows)

    def stopped_frame(self) -> pd.DataFrame:
        """One row per policy run that stopped, and why in words (:func:`stopped_frame`)."""
        return stopped_frame(self.stopped)


NOT_ASKED = "(not answered: the policy stopped at turn {turn})"
"""The answer recorded for a graded turn a stopped policy never answered: graded wrong, never a guess."""


async def run_policy(
    timeline: Timeline,
    policy: MemoryPolicy,
    log: CallLog,
    rule: str,
    *,
    stops: list[PolicyStop] | None = None,
) -> tuple[list[CallRow], list[AnswerRow]]:
    """Replay ``timeline`` through one policy; return its call rows and its graded-answer rows.

    A :class:`SummaryRejected` ends the replay: it is raised, or, with a ``stops`` list, recorded there, and every
    graded turn from that one on is recorded as not answered (graded wrong) -- so a comparison can show that the
    policy stopped, and why, and go on with the others.
    """
    calls: list[CallRow] = []
    answers: list[AnswerRow] = []
    for number, turn in enumerate(timeline.turns, start=1):
        before = len(log)
        try:
            answer = await policy.turn(turn.user)
        except SummaryRejected as error:
            if stops is None:
                raise
            stops.append(PolicyStop(policy.name, rule, number, str(error)))
            calls += [_call_row(policy.name, rule, number, call, False) for call in log.calls[before:]]
            answers += [
                _answer_row(policy.name, rule, later, t.user, t.expect, NOT_ASKED.format(turn=number))
                for later, t in enumerate(timeline.turns, start=1)
                if later >= number and t.expect is not None
            ]
            break
        graded = turn.expect is not None
        calls += [_call_row(policy.name, rule, number, call, graded) for call in log.calls[before:]]
        if turn.expect is not None:
            answers.append(_answer_row(policy.name, rule, number, turn.user, turn.expect, answer))
    return calls, answers


async def compare_policies(
    timeline: Timeline,
    policies: dict[str, PolicyFactory] | None = None,
    rules: Sequence[ResolutionRule] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Comparison:
    """Run every policy under every resolution rule, each from a fresh state.

    ``rules`` by default: :func:`comparison_rules` (all three offline, one on a live model; :func:`rules_note` is
    the sentence that says which). ``progress`` receives one line per policy run, as a progress bar counts them.

    A policy that refuses to go on (a summary out of bounds) stops there, alone: :attr:`Comparison.stopped` says
    where and why, its unanswered graded turns count as wrong, and the other policies still run.
    """
    policies = policies or course_policies()
    if rules is None:
        rules = comparison_rules()
    calls: list[CallRow] = []
    answers: list[AnswerRow] = []
    stops: list[PolicyStop] = []
    runs = [(name, rule) for rule in rules for name in policies]
    for index, (name, rule) in enumerate(runs, start=1):
        log = CallLog()
        stopped = len(stops)
        more_calls, more_answers = await run_policy(timeline, policies[name](rule, log), log, rule, stops=stops)
        calls += more_calls
        answers += more_answers
        if progress is not None:
            end = f", stopped at turn {stops[-1].turn}" if len(stops) > stopped else ""
            count = f"{len(more_calls)} call{'' if len(more_calls) == 1 else 's'}"
            progress(f"[{index}/{len(runs)}] {name} under '{rule_label(rule)}': {count}{end}")
    return Comparison(call_rows=tuple(calls), answer_rows=tuple(answers), stopped=tuple(stops))


def visible_values(messages: Sequence[Message | SeenMessage]) -> str:
    """Every value a reader could see for each key, in order of appearance: ``module: Reporting, Billing``."""
    values: dict[str, list[str]] = {}
    for key, value in visible_mentions(messages):
        if value not in values.setdefault(key, []):
            values[key].append(value)
    return "; ".join(f"{key}: {', '.join(vs)}" for key, vs in values.items()) or "(nothing)"


def _call_row(policy: str, rule: str, turn: int, call: ModelCall, graded: bool) -> CallRow:
    """One call; ``visible`` is read for the reader on graded turns only, the turns whose answers are explained."""
    return CallRow(
        policy=policy,
        rule=rule,
        turn=turn,
        call=call.client,
        visible=visible_values(call.messages) if graded and call.client == "reader" else "",
        chars_sent=call.chars_sent,
        input_tokens=call.input_tokens,
        output_tokens=call.output_tokens,
        total_tokens=call.total_tokens,
    )


def _answer_row(policy: str, rule: str, turn: int, question: str, expect: Expectation, answer: str) -> AnswerRow:
    missing, forbidden = expect.unmet(answer)
    return AnswerRow(policy, rule, turn, question, answer, tuple(missing), tuple(forbidden))


# region Scaling and footprint


@dataclass(frozen=True)
class ScalingRow:
    """One policy replaying a generated timeline of ``turns`` turns: what it sent, and the CPU time it took."""

    turns: int
    """The generated timeline's length in user turns."""
    policy: str
    """The policy's label."""
    last_reader_chars: int
    """Characters of the reader's last call (the final question)."""
    all_chars: int
    """Characters of every call of the replay, the writer's and summarizer's included."""
    calls: int
    """Model calls of the replay, every role."""
    cpu_seconds: float
    """CPU seconds of the replay (the fastest of ``timings`` runs): they depend on the machine, the characters don't."""
    timings: int = 1
    """How many times the replay was run and timed; ``cpu_seconds`` is the fastest of those times."""


TIMINGS = 2
"""How many times :func:`measure_scaling` times each replay by default: the fastest of two drops one slow run (a
busy machine, a garbage collection: they only ever add time) that a single timing would show as a bump in lesson 04's
time plot. Three timings (a median) cost lesson 04's section 6 cell about 3.3 s of CPU against 2.3 s for two, for the
same words: in ten re-runs with two timings (walk 22), :func:`time_growth_sentence` put the same policies in the same
groups every time (full history 3.9 to 4.9 times as long, compaction 2.9 to 4.1, the others 0.8 to 1.2)."""
TIME_NOISE_RATIO = 1.5
"""The growth in time per turn under which a policy's turns did not really slow down. Sixteen re-runs of lesson 04's
measurement (10 to 200 turns, medians of 3 timings, on a shared machine) gave the policies that store a capped
amount 0.53 to 1.05 (1.39 once, with another lesson executing beside it), and those that store everything 2.4 to
5.0. Below 1, the gap is each replay's one-off start-up work (about 1 ms) shared by more turns, and noise. A growth
under ``TIME_NOISE_RATIO`` is said to mean "no noticeably longer" (:func:`time_growth_sentence`)."""


async def measure_scaling(
    sizes: Sequence[int],
    policies: dict[str, PolicyFactory] | None = None,
    rule: ResolutionRule = "latest",
    progress: Callable[[str], None] | None = None,
    timings: int = TIMINGS,
) -> list[ScalingRow]:
    """For generated timelines of each size, each policy from a fresh state: one :class:`ScalingRow` per replay
    (:func:`~course_lib.presentation.scaling_frame` shows them).

    Each replay is run ``timings`` times, each from a fresh state after a garbage collection, in rounds that time
    every replay once, and its CPU time is the fastest: one timing per point made lesson 04's plot bump (full history
    slower at 100 turns than at 200); what else the machine does only ever adds time. The objects alive before the
    measurement are frozen out of those collections (``gc.freeze``, undone at the end): a full collection walked the
    whole notebook's heap before each of lesson 04's timed replays, most of its section 6 cell's CPU time (walk 22);
    now each collection walks only what the replays made.

    By default on the offline models whatever ``COURSE_LLM`` says: what this measures is the policies' and the
    framework's work per turn, and a live model would need one call per turn and policy, plus one per turn for the
    facts' writer and the summarizer (2,880 for 10 to 200 turns, each once: the timing repeats are offline only),
    and a 200-turn full history may not fit a small model's context (:func:`context_fit_sentence`). Pass
    ``policies`` to replay on others.
    """
    policies = policies or course_policies(backends=OFFLINE)
    # untimed: a policy's first run pays one-off costs the shortest replay would carry
    for factory in policies.values():
        warm_up = CallLog()
        await run_policy(generate_timeline(4), factory(rule, warm_up), warm_up, rule)
    if timings < 1:
        raise ValueError(f"measure_scaling times each replay at least once; timings={timings}.")
    timelines = {n: generate_timeline(n) for n in sizes}
    seconds: dict[tuple[int, str], list[float]] = {(n, name): [] for n in sizes for name in policies}
    replayed: dict[tuple[int, str], list[CallRow]] = {}
    gc.collect()
    gc.freeze()  # what the caller holds is not walked again by the collections below
    try:
        for round_ in range(timings):  # a round times every replay once: a busy spell slows all sizes alike
            for n, timeline in timelines.items():
                for name, factory in policies.items():  # from a fresh state each time: the same calls every round
                    log = CallLog()
                    gc.collect()  # a collection left over from the previous run is not charged to this one
                    started = time.process_time()
                    replayed[n, name], _ = await run_policy(timeline, factory(rule, log), log, rule)
                    seconds[n, name].append(time.process_time() - started)
                    if progress is not None and round_ == timings - 1:
                        progress(f"{name}, {n} turns")
    finally:
        gc.unfreeze()
    rows = []
    for (n, name), calls in replayed.items():
        reader = [c for c in calls if c.call == "reader"]
        chars = sum(c.chars_sent for c in calls)
        fastest = min(seconds[n, name])
        rows.append(ScalingRow(n, name, reader[-1].chars_sent, chars, len(calls), fastest, timings))
    return rows


async def summary_call_sum(n_turns: int) -> str:
    """The summary policy's last reader call on ``generate_timeline(n_turns)`` (offline, as lesson 04's section 6
    replays it), as the sum of its parts: the reader's instructions, the heading, the summary, the question.

    The section's table counts every character of a call, the reader's instructions included; a student who added
    the 240-character budget, the heading and the question found a number short of the table's.
    """
    log = CallLog()
    policy = course_policies(backends=OFFLINE)[SummaryPolicy.label()]("latest", log)
    await run_policy(generate_timeline(n_turns), policy, log, "latest")
    call = [c for c in log.calls if c.client == "reader"][-1]
    instructions, question = len(call.instructions or ""), len(call.messages[-1].text)
    heading = len(SUMMARY_HEADING) + 1  # with its line break
    summary = call.chars_sent - instructions - heading - question
    return (
        f"At {n_turns} turns, the summary's last reader call sent {call.chars_sent} characters = {instructions} of "
        f"the reader's instructions + {heading} of the heading {SUMMARY_HEADING!r} (with its line break) + {summary} "
        f"of the summary + {question} of the question."
    )


@dataclass(frozen=True)
class SessionFootprint:
    """What a session policy's serialized session stores, against what its last call sent."""

    policy: str
    stored: int
    """Messages in the serialized session (``AgentSession.to_dict`` read back)."""
    last_call: int
    """Messages the last call sent to the reader."""
    first_stored: str
    """The oldest message the session still stores ("" when it stores none)."""
    last_call_roles: tuple[str, ...] = ()
    """The role of each message the last call sent, in order ("user", "assistant"); empty when not read."""


async def session_footprint(policy: SessionPolicy) -> SessionFootprint:
    """What the serialized session stores against what the last call sent: compaction and reducer differ here."""
    stored = stored_messages(AgentSession.from_dict(policy.session.to_dict()))
    return SessionFootprint(
        policy=policy.name,
        stored=len(stored),
        last_call=len(policy.log.calls[-1].messages),
        first_stored=stored[0].text if stored else "",
        last_call_roles=tuple(str(m.role) for m in policy.log.calls[-1].messages),
    )


async def excluded_count_sentence(policy: SessionPolicy, turns: Sequence[str]) -> str:
    """Compaction's last call worked out from its session: plays ``turns`` on ``policy``, counts the user turns stored
    and flagged excluded just before the last one, then the user turns that last call sent (read from the log).

    A student reads "10 stored, 8 flagged excluded" and cannot see why the last call held 3 turns; the subtraction
    and the new question, with the run's own numbers, make it one line of arithmetic. The counts are taken before
    the last turn: after it, that turn is stored and one more is flagged, which would describe a call never made.
    """
    if not turns:
        raise ValueError("excluded_count_sentence needs at least one turn: it describes the last call.")
    for text in turns[:-1]:
        await policy.turn(text)
    users = [m for m in stored_messages(policy.session) if m.role == "user"]
    excluded = sum(bool(m.additional_properties.get(EXCLUDED_KEY)) for m in users)
    kept = len(users) - excluded
    await policy.turn(turns[-1])
    sent = sum(m.role == "user" for m in policy.log.calls[-1].messages)
    return (
        f"{policy.name}, at the call of turn {len(users) + 1}: {len(users)} user turns stored \u2212 {excluded} "
        f"flagged excluded = {kept} still in view; + the new question = {sent} user turns in the last call."
    )


def footprint_sentence(footprint: SessionFootprint) -> str:
    """Why a policy that keeps every message saves more messages than its last call sent, in its own numbers.

    The footprint is read after the last answer; the last call was made before that answer existed. So full history's
    last call held the earlier turns (a user message and an answer each: most turns declare, only some ask) and the
    new question, and the saved session then holds that question's answer too: 19 sent, 20 saved on lesson 04's
    timeline. A student who sees "20 saved, 19 sent" with no word of this suspects a lost message. When the
    footprint read the last call's roles, they must be those pairs and the new message, or the sentence would be
    untrue: it is refused.
    """
    earlier = footprint.last_call - 1
    later = footprint.stored - footprint.last_call
    if earlier < 2 or earlier % 2 or later != 1:  # compaction and the reducer send another count: their own story
        raise ValueError(
            f"footprint_sentence explains a policy that sends every message it saved: {footprint.policy} saved "
            f"{footprint.stored} and sent {footprint.last_call} in its last call."
        )
    turns = earlier // 2
    pairs = ("user", "assistant") * turns + ("user",)
    if footprint.last_call_roles and footprint.last_call_roles != pairs:
        raise ValueError(
            f"footprint_sentence says the last call held a user message and an answer for each earlier turn, then the "
            f"new message; {footprint.policy}'s last call held {', '.join(footprint.last_call_roles)}."
        )
    return (
        f"Why {footprint.policy} sends one message fewer than it saves: its last call, the question of turn "
        f"{turns + 1}, was made before that question had an answer. It held the {earlier} messages of turns 1 to "
        f"{turns} (a user message and an answer each) and the new question: {earlier} + 1 = {footprint.last_call}. The "
        f"session is saved after the answer: {footprint.last_call} + 1 = {footprint.stored}."
    )


def footprint_sentences(footprints: Sequence[SessionFootprint]) -> str:
    """Why each row of lesson 04's footprint table saves one count of messages and sends another, in its own numbers.

    The table puts full history (20 saved, 19 sent), compaction (20 saved, 5 sent) and the reducer (6 saved, 7 sent)
    side by side; a sentence about full history alone left "the reducer sends more than it saves" unexplained. Each
    row gets the arithmetic of its own kind, told from the counts: a policy that sent every message it saves but the
    last answer (:func:`footprint_sentence`); one whose last call held its whole stored list and the question, so it
    saves fewer than it sent (the reducer: the answer joined the list and the oldest turn left it); one that saves
    more than it sent (compaction: the view was cut, the stored list was not). Counts that fit none are refused.
    """
    lines = []
    for footprint in footprints:
        saved, sent = footprint.stored, footprint.last_call
        if saved == sent + 1:
            lines.append(footprint_sentence(footprint))
        elif saved == sent - 1 and saved % 2 == 0:
            turns = saved // 2
            lines.append(
                f"Why {footprint.policy} sends one message more than it saves: before its last call the session held "
                f"{saved} messages, the last {turns} turns (a user message and an answer each), and the call sent "
                f"them with the new question: {saved} + 1 = {sent}. After the answer the session held {sent} + 1 = "
                f"{sent + 1}, then dropped its oldest turn to keep {turns}: {sent + 1} \u2212 2 = {saved} saved."
            )
        elif saved > sent + 1:
            lines.append(
                f"Why {footprint.policy} saves far more than it sends: its saved session keeps all {saved} messages, "
                f"while its last call was sent only {sent}, the earlier messages still in view and the new question "
                f"(the count in user turns is worked out below)."
            )
        else:
            raise ValueError(
                f"footprint_sentences has no explanation for {footprint.policy}: {saved} saved, {sent} sent."
            )
    return "\n".join(lines)


def summary_shown(summary: str, budget: int) -> str:
    """A summary as a student checks it by eye: its length against its budget, then the text, one line a line."""
    return f"The summary sent with the final question: {len(summary)} characters (budget {budget}):\n{summary}"


@dataclass(frozen=True)
class SummaryReplay:
    """A summary policy replayed once up to a timeline's last question: the summary sent with it, why it is that
    long, the graded answer, and the policy's stop if its own rule stopped it.

    A live summarizer can stop the policy (a 135M model cut at its output cap after turn 1): the stop is kept, in
    the comparison's own :class:`PolicyStop`, not raised, so lesson 04's exercise 3 says it in words and goes on;
    the final question is then not answered, and graded wrong, as :func:`run_policy` grades it.
    """

    summary: str
    """The summary sent with the last question; ``""`` if the policy stopped."""
    trim: str
    """Why the summary is as far under its budget as it is (:func:`_trim_sentence`), or ``""``."""
    question: int
    """The last question's turn."""
    correct: bool
    """Whether the answer to the last question meets its expectation (False when the policy stopped)."""
    stop: PolicyStop | None = None

    def why(self, budget: int, answer_why: str) -> str:
        """Exercise 3's "Why": the reason, the summary against its budget and the trim sentence; or, when the policy
        stopped, the stop and what it means for the answer (the offline reason would be false of that run)."""
        if self.stop is not None:
            return (
                f"{self.stop.in_words()} So the final question (turn {self.question}) got no answer: the comparison "
                "counts it as not answered, which is wrong."
            )
        return "\n".join(part for part in (answer_why, summary_shown(self.summary, budget), self.trim) if part)


async def replay_summary(timeline: Timeline, factory: PolicyFactory, rule: ResolutionRule = "latest") -> SummaryReplay:
    """Replay a timeline through a fresh summary policy under ``rule``, once, up to its last graded question, as a
    comparison replays it (:func:`run_policy`, a stop kept): the summary sent with that question, each rewrite read
    back from the summarizer's logged replies (for the trim sentence), and the question's graded answer.
    """
    log = CallLog()
    policy = factory(rule, log)
    if not isinstance(policy, SummaryPolicy):
        raise TypeError(f"replay_summary needs a summary policy, not {factory.label}.")
    if not timeline.questions:
        raise ValueError(f"The timeline {timeline.name} asks no graded question: no summary is sent with one.")
    question = timeline.questions[-1]
    stops: list[PolicyStop] = []
    asked = timeline.model_copy(update={"turns": timeline.turns[:question]})
    _, graded = await run_policy(asked, policy, log, rule, stops=stops)
    if stops:
        return SummaryReplay("", "", question, False, stops[0])
    summaries = [call.reply.strip() for call in log.calls if call.client == "summarizer"][: question - 1]
    lines = [[], *(summary.split("\n") for summary in summaries)]
    sent = summaries[-1] if summaries else ""
    return SummaryReplay(sent, _trim_sentence(list(itertools.pairwise(lines))), question, graded[-1].correct)


def _trim_sentence(rewrites: list[tuple[list[str], list[str]]]) -> str:
    """Why the last summary is as far under its budget as it is, computed from its rewrites: the last one that
    dropped lines says how far over its new lines took the summary and what dropping the oldest whole lines left;
    the turns after it say what they added (lesson 04's exercise 3: "158 characters (budget 200)" read as if the
    budget had not mattered, walk 22).

    Said only of a summary that keeps its lines whole (the extractive kind: each rewrite keeps the previous lines,
    minus some of the oldest, then adds new ones); ``""`` when no rewrite dropped a line or one rewrote a line.
    """
    last_drop: tuple[int, int, list[str], int, int] | None = None  # turn, over, dropped, added, length after
    for number, (before, after) in enumerate(rewrites, start=1):
        added = [line for line in after if line not in before]
        kept = after[: len(after) - len(added)]
        dropped = before[: len(before) - len(kept)]
        if before[len(dropped) :] != kept or kept + added != after or len(after) < 2:
            return ""  # a rewritten line, or one line of merged declarations: not the whole-line kind
        if dropped:
            last_drop = (number, len("\n".join(before + added)), dropped, len(added), len("\n".join(after)))
    if last_drop is None:
        return ""
    number, over, dropped, new, trimmed = last_drop
    final = len("\n".join(rewrites[-1][1]))
    lines = "the oldest line" if len(dropped) == 1 else f"the {len(dropped)} oldest lines"
    new_lines = "new line" if new == 1 else "new lines"
    cut = sum(len(line) + 1 for line in dropped)
    sentence = (
        f"Why {final} characters: a line goes whole or not at all. At turn {number}, its {new_lines} "
        f"took the summary to {over} characters, over its budget; dropping {lines}, {', '.join(dropped)} ({cut} "
        f"characters with the line breaks), took it to {trimmed}"
    )
    if trimmed == final:
        return f"{sentence}."
    later = f"turn {len(rewrites)}" if number + 1 == len(rewrites) else f"turns {number + 1} to {len(rewrites)}"
    return f"{sentence}; {later} added {final - trimmed}: {final}."


def summary_keys(summary: str) -> list[str]:
    """The keys a summary names, in order, once per declaration: each part between semicolons and line breaks that
    holds an ``=`` gives the text before it (``module=Reporting/Billing`` gives ``module``); other parts give none."""
    parts = re.split(r"[;\n]", summary)
    return [part.split("=")[0].strip() for part in parts if "=" in part]


@dataclass(frozen=True)
class SummaryAtQuestion:
    """One summarizer mode replayed on a timeline: what the reader received with the last question, and its grade.

    ``sent`` is that message whole (the heading, then the summary), ``summary`` the summary alone and ``answer`` the
    graded answer to the last question; when the summary policy stopped first (:class:`SummaryRejected`), these are
    ``None`` and ``stop`` says where and why.
    """

    mode: SummaryMode
    sent: str | None
    summary: str | None
    answer: AnswerRow | None
    stop: PolicyStop | None = None

    def in_words(self) -> str:
        """The summary sent, the reader's answer and its grade, each under a heading line; or why the policy stopped.

        It ends with an empty line, so that printed one after the other, two modes stand apart.
        """
        if self.stop is not None or self.sent is None or self.answer is None:
            why = self.stop.in_words() if self.stop is not None else "no graded question was answered"
            return f"--- {self.mode}: {why} ---\n"
        answer = self.answer
        missing = "; ".join(answer.missing) or "nothing"
        named = "; ".join(answer.forbidden) or "nothing"
        correct = "yes" if answer.correct else "no"
        return (
            f"--- {self.mode}: the summary sent with the question of turn {answer.turn} ---\n{self.sent}\n"
            f"--- the reader's answer ---\n{answer.answer}\n"
            f"correct: {correct} | missing: {missing} | {FORBIDDEN_NAMED}: {named}\n"
        )


async def summary_at_final_question(
    timeline: Timeline, mode: SummaryMode, rule: ResolutionRule = "latest", *, budget: int | None = None
) -> SummaryAtQuestion:
    """Replay ``timeline`` under a summary policy whose summarizer works in ``mode``; keep what its reader received
    with the timeline's last graded question (the first message of that call: the heading and the summary) and the
    grade of its answer. ``budget`` is the summarizer's (its default, 240 characters, when ``None``).

    A summary that breaks the seed's rule (empty, or over 700 characters), or a live summarizer that fails, stops the
    policy with no substitute summary, as in a comparison: the result then holds the stop, and no summary.
    """
    log = CallLog()
    shape: dict[str, Any] = {"summary_mode": mode} | ({} if budget is None else {"summary_budget": budget})
    summarizer = make_chat_client("summarizer", **shape)
    policy = SummaryPolicy(make_chat_client("reader", resolution=rule), log, summarizer)
    stops: list[PolicyStop] = []
    _, graded = await run_policy(timeline, policy, log, rule, stops=stops)
    if stops:
        return SummaryAtQuestion(mode, None, None, None, stops[0])
    readers = [call for call in log.calls if call.client == "reader"]
    if not graded or not readers:
        return SummaryAtQuestion(mode, None, None, None)
    sent = readers[-1].messages[0].text
    summary = sent.split("\n", 1)[1] if sent.startswith(SUMMARY_HEADING) else ""
    return SummaryAtQuestion(mode, sent, summary, graded[-1])


def summary_sizes(runs: Sequence[SummaryAtQuestion]) -> str:
    """Each summary's length in characters and its number of keys (:func:`summary_keys`), one line a mode, then the
    keys only the first mode's summary kept; when a policy stopped there is nothing to compare, and the line says so.
    """
    if any(run.summary is None for run in runs) or not runs:
        return "No characters or keys to compare: a summary policy stopped before the question."
    keys = {run.mode: summary_keys(run.summary or "") for run in runs}
    lines = [f"{run.mode}: {len(run.summary or '')} characters, {len(keys[run.mode])} keys" for run in runs]
    if len(runs) > 1:
        first, others = runs[0].mode, [key for run in runs[1:] for key in keys[run.mode]]
        only = [key for key in keys[first] if key not in others]
        lines.append(f"keys only the {first} summary kept: {', '.join(only) or 'none'}")
    return "\n".join(lines)


_NO_LONGER = "no noticeably longer"
"""What :func:`time_growth_sentence` says of a policy whose turn took under ``TIME_NOISE_RATIO`` times as long."""

KEEPS_EVERYTHING: tuple[PolicyKind, ...] = ("full_history", "compaction")
"""The policy kinds whose session stores the whole conversation (compaction only narrows what is sent)."""


def time_growth_sentence(rows: Sequence[ScalingRow]) -> str:
    """What lesson 04's time-per-turn plot shows, in computed words: how much longer a turn took on the longest
    timeline than on the shortest, each policy said against ``TIME_NOISE_RATIO``, and why those that keep everything
    grew less than what they store (said only of those that did grow).

    A policy whose turn took ``TIME_NOISE_RATIO`` times as long or more "grew"; one under it took "no noticeably
    longer" and is named in that group, whatever it stores (lesson 04's twenty-first walk: a keeper that grew 1.3-fold
    was listed with the growing ones, then said not to have slowed down 20-fold). The ratio shown, to one decimal,
    decides the group, so a ratio shown as 1.5 is never called under 1.5. A ratio shown below 1 is said, in the same
    sentence, to be less time per turn on average, and why: the replay's one-off start-up work is shared by more
    turns (lesson 04's walk 22: "0.7 times as long" read as "faster", the reason being in the markdown below).

    A policy that keeps everything ends the longest timeline holding as many times more messages as the timeline is
    longer; its turns slow down less than that, because part of every turn's work is the same at any length. The
    figures are this run's CPU times (:func:`measure_scaling`), so the sentence changes from run to run as the plot.
    """
    kinds = {label: factory.kind for label, factory in course_policies().items()}
    shortest, longest = min(r.turns for r in rows), max(r.turns for r in rows)
    if shortest == longest:
        raise ValueError(f"A growth needs timelines of two lengths; these are all {shortest} turns long.")
    per_turn = {(r.policy, r.turns): r.cpu_seconds / r.turns for r in rows}
    growth = {  # as shown, to one decimal: the figure a student reads decides the words beside it
        policy: round(per_turn[policy, longest] / per_turn[policy, shortest], 1)
        for policy in dict.fromkeys(r.policy for r in rows)
        if (policy, shortest) in per_turn and (policy, longest) in per_turn and per_turn[policy, shortest] > 0
    }
    keepers = [policy for policy in growth if kinds.get(policy) in KEEPS_EVERYTHING]
    capped = [policy for policy in growth if policy not in keepers]
    longer = longest / shortest
    grew = [policy for policy in growth if growth[policy] >= TIME_NOISE_RATIO]

    def named(policies: list[str]) -> str:
        return "the others" if keepers and policies == capped else and_listed(policies)

    def stores(policies: list[str], what: str) -> str:
        plural = len(policies) > 1 or named(policies) == "the others"
        return f"which {'store' if plural else 'stores'} {what}"

    def said(group: list[str], to: str = "") -> str:
        parts = []
        kept = [policy for policy in group if policy in keepers]
        if kept:
            took = " and ".join(f"{growth[p]:.1f} times as long for {p}" for p in kept)
            parts.append(f"{took}, {stores(kept, 'every message')}")
        rest = [policy for policy in group if policy not in keepers]
        if rest:
            low, high = f"{min(growth[p] for p in rest):.1f}", f"{max(growth[p] for p in rest):.1f}"
            took = f"{low if low == high else f'{low} to {high}'} times as long for {named(rest)}"
            parts.append(f"{took}, {stores(rest, 'a capped amount at any length')}")
        return f", and {to}".join(parts)

    flat = [policy for policy in growth if policy not in grew]
    under = f"{_NO_LONGER} (under {TIME_NOISE_RATIO:g} times as long)"
    below_one = (  # only a policy that took no noticeably longer can show a figure below 1
        f"; below 1, a turn took less time on average, because the replay's one-off start-up work (setting the policy "
        f"up) is shared by {longest} turns instead of {shortest}"
        if any(growth[policy] < 1 for policy in flat)
        else ""
    )
    sentence = f"From {shortest} to {longest} turns ({longer:g} times as many), a turn "
    if grew:
        sentence += f"grew to {said(grew, 'to ')}"
        if flat:
            sentence += f". A turn took {under}: {said(flat)}{below_one}"
    else:
        sentence += (
            f"took {_NO_LONGER} for any policy (under {TIME_NOISE_RATIO:g} times as long): {said(flat)}{below_one}"
        )
    if slowed := [k for k in keepers if k in grew and growth[k] < longer]:
        who = and_listed(slowed)
        one = len(slowed) == 1
        sentence += (
            f". {who[0].upper()}{who[1:]} end{'s' if one else ''} with {longer:g} times as many stored messages, yet "
            f"{'its' if one else 'their'} turns did not slow down {longer:g}-fold, because part of every turn's work "
            "is the same at any length: only the walk through what is stored grows"
        )
    noisy = []
    close = [k for k in keepers if capped and (k in flat or growth[k] <= max(growth[p] for p in capped))]
    if close:
        of = "" if close == keepers else f" of {and_listed(close)}"
        noisy.append(f"the times{of} were too close to tell the two kinds apart")
    if loud := [policy for policy in capped if policy in grew]:
        noisy.append(f"{named(loud)} grew though {'they store' if len(loud) > 1 else 'it stores'} a capped amount")
    if noisy:
        sentence += (
            f". In this run {', and '.join(noisy)}: times this short move that much when the machine is busy; "
            "run the cell again"
        )
    return sentence + "."


def context_fit_sentence(
    rows: Sequence[ScalingRow], context_tokens: int, ratio: float, model: str, policy: str = "full history"
) -> str:
    """Would ``policy``'s last reader call on the longest replayed timeline fit a small model's context? Worked out
    from the call's characters, the chars / 4 estimate, and ``ratio``, the reported tokens per estimated token that
    ``model``'s server counted for ``policy`` in a recording (lesson 04, section 4): its ``context_tokens``.

    Lesson 04 said "a 200-turn full history would overflow a small model's memory" with no number; a student found
    15,523 characters / 4 = about 3,880 tokens, under the recorded 4,096-token context (walk 22). It only overflows at
    the recorded ratio, so the sentence says both steps.
    """
    longest = max(r.turns for r in rows if r.policy == policy)
    chars = next(r.last_reader_chars for r in rows if r.policy == policy and r.turns == longest)
    estimate = chars // 4
    start = (
        f"At {longest} turns, {policy}'s last reader call sent {chars:,} characters: about {estimate:,} tokens by the "
        "estimate (chars / 4), "
    )
    if estimate > context_tokens:
        return start + (
            f"already more than the {context_tokens:,}-token context of {model}, the small model recorded in section "
            "4, so it would not fit."
        )
    counted = round(estimate * round(ratio, 2))  # the ratio as shown: a student's own product gives the same
    fits = "more than its context holds, so it would not fit" if counted > context_tokens else "within its context"
    return start + (
        f"under the {context_tokens:,}-token context of {model}, the small model recorded in section 4. But for "
        f"{policy} that model's server counted {ratio:.2f} tokens per estimated token, so the call would be about "
        f"{counted:,} tokens: {fits}."
    )


def generated_rows_sentence(timeline: Timeline, n_turns: int) -> str:
    """Why lesson 04's section 6 table does not repeat section 4 at the same turn: its rows replay timelines made by
    :func:`generate_timeline`, not the lesson's ``timeline``; compared here at ``n_turns`` by their own counts.

    A student read 1007 characters for full history at 10 turns in the table and about 1240 at turn 10 on section
    4's plot, and suspected a miscount.
    """
    generated = generate_timeline(n_turns)
    ours = Timeline(name=timeline.name, turns=timeline.turns[:n_turns])
    filler = next(t.user for t in generated.turns[2:] if t.user.split("=")[0] in FILLER_KEYS)

    def chars(t: Timeline) -> int:
        return sum(len(turn.user) for turn in t.turns)

    def questions(t: Timeline) -> str:
        return f"{len(t.questions)} question{'s' if len(t.questions) != 1 else ''}"

    if n_turns >= len(timeline.turns):  # the whole timeline is one, not "the first 10 turns" of a 10-turn one
        lessons = f"the lesson's {len(timeline.turns)}-turn timeline holds {chars(ours)} characters and asks"
    else:
        lessons = f"the first {n_turns} turns of the lesson's timeline hold {chars(ours)} characters and ask"
    return (
        f"These rows replay timelines generated for this measurement, not the lesson's: at {n_turns} turns the "
        f"generated one's user messages hold {chars(generated)} characters, with filler such as {filler!r}, and it "
        f"asks {questions(generated)}; {lessons} {questions(ours)}. So the {n_turns}-turn row is not section 4's "
        f"plot at turn {n_turns}."
    )


def wrong_answers_lines(answers: pd.DataFrame) -> list[str]:
    """Per policy, its wrong answers counted and said where: ``summary: 3 of 6 answers wrong (turn 10 under
    'latest', ...)``, in the order the policies ran.

    A policy wrong at every graded turn under every rule that ran is said so in words, "(every graded turn under every
    rule)" (or under the one rule that ran), rather than by listing all of them (lesson 04's seventh walk: six cases
    listed said no more than "all"); a policy with none wrong lists nothing.
    """
    rules = list(dict.fromkeys(answers["rule"]))
    every = "every rule" if len(rules) > 1 else f"'{rule_label(rules[0])}'" if rules else ""
    lines = []
    for policy, rows in answers.groupby("policy", sort=False):
        wrong = rows[~rows["correct"].astype(bool)]
        counted = f"{policy}: {len(wrong)} of {len(rows)} answer{'s' if len(rows) != 1 else ''} wrong"
        if wrong.empty:
            lines.append(counted)
        elif len(wrong) == len(rows):
            lines.append(f"{counted} (every graded turn under {every})")
        else:
            pairs = zip(wrong["rule"], wrong["turn"], strict=True)
            where = ", ".join(f"turn {t} under '{rule_label(r)}'" for r, t in pairs)
            lines.append(f"{counted} ({where})")
    return lines


def time_range_sentence(rows: Sequence[ScalingRow]) -> str:
    """How long a turn took in :func:`measure_scaling`'s replays, fastest and slowest, in CPU milliseconds: the
    size of the times lesson 04 warns move from run to run, said from this run rather than guessed in its prose."""
    per_turn = [1000 * r.cpu_seconds / r.turns for r in rows if r.turns > 0]
    if not per_turn:
        raise ValueError("No replays to time: measure_scaling returned no rows.")
    fastest, slowest = f"{min(per_turn):.2g} ms", f"{max(per_turn):.2g} ms"
    took = fastest if fastest == slowest else f"from {fastest} to {slowest}"
    timings = {r.timings for r in rows}
    each = (
        f" Each time is the fastest of {timings.pop()} runs of the same replay."
        if len(timings) == 1 and 1 not in timings
        else ""
    )
    return f"In these replays, a turn took {took} of CPU time, depending on the policy and the timeline's length.{each}"


def replay_calls_sentence(rows: Sequence[ScalingRow]) -> str:
    """How many model calls :func:`measure_scaling`'s replays made, worked out in one sentence: why lesson 04 replays
    them on the offline models (a live model would have to answer every one of them, each once: the repeats that time
    the replays run offline only, and the sentence says so, walk 19).

    Each replay makes one reader call per turn; the facts policy's writer and the summary's summarizer add one call per
    turn each, counted from the rows rather than assumed.
    """
    if not rows:
        raise ValueError("No replays to count: measure_scaling returned no rows.")
    sizes = list(dict.fromkeys(r.turns for r in rows))
    policies = list(dict.fromkeys(r.policy for r in rows))
    turns = sum(sizes)
    reader = sum(r.turns for r in rows)
    extra = sum(r.calls for r in rows) - reader
    lengths = ", ".join(str(n) for n in sizes[:-1]) + f" and {sizes[-1]}" if len(sizes) > 1 else str(sizes[0])
    sentence = (
        f"These replays: timelines of {lengths} turns ({turns} turns in all), each under {len(policies)} policies: "
        f"{turns} \u00d7 {len(policies)} = {reader:,} reader calls"
    )
    if extra:
        sentence += f", plus {extra:,} writer and summarizer calls: {reader + extra:,} model calls in all"
    sentence += ", all answered here by the offline models."
    timings = max(r.timings for r in rows)
    if timings > 1:  # measure_scaling runs every replay that many times, to time it
        sentence += (
            f" Each replay ran {timings} times, to time it (the time per turn, below): {timings} \u00d7 "
            f"{reader + extra:,} = {timings * (reader + extra):,} calls. Only the offline models ran the repeats: "
            f"a live model would answer each of the {reader + extra:,} calls once."
        )
    return sentence
