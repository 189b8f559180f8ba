"""From a user message to admitted facts: an LLM writer proposes, the host decides.

The writer (any MAF chat client asked for structured output) sees the current user message only,
with no session, so it cannot promote an earlier answer or question into a fact. The host then admits
the proposal only if its key/value set equals the explicit declarations of that message exactly, and
the store checks every citation. Whatever fails -- a semantic guess, a paraphrased citation, a
dropped declaration, broken JSON, a writer exception, a stale ticket -- the previous facts stay and the
report says so: there is no fallback that would store something else instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from agent_framework import Agent, SupportsChatGetResponse
from pydantic import BaseModel, Field, ValidationError

from .assertions import MessageTooLong, parse_assertions
from .memory import Fact, FactCandidate, InvalidFacts, StaleMemoryUpdate, WorkingMemory

MISMATCH = "Extraction does not match the explicit key=value assertions. No semantic guess is admitted."
NO_FALLBACK = "The previous facts are kept; no fallback extraction is attempted."

WRITER_INSTRUCTIONS = """You extract controlled facts from ONE user message.
Return JSON {"facts": [{"key": ..., "value": ..., "evidence": ...}]}.
Only explicit declarations written as key=value count; allowed keys: product, module, priority,
database, constraint, customer, version, environment, symptom, log.
value: the text after the first '=', trimmed. evidence: the user's exact words containing it.
If a key is declared twice, keep the last. Never infer, translate or paraphrase.
A question or prose yields {"facts": []}."""


class FactBatch(BaseModel):
    """The writer's structured output: at most a handful of typed candidates."""

    facts: list[FactCandidate] = Field(default_factory=list)


class FactWriter(Protocol):
    """Anything that proposes a :class:`FactBatch` for one user message."""

    async def propose(self, user_text: str) -> FactBatch: ...


class ChatFactWriter:
    """A writer backed by a MAF chat client with structured output, run without a session."""

    def __init__(
        self,
        client: SupportsChatGetResponse,
        instructions: str = WRITER_INSTRUCTIONS,
        middleware: Sequence[Any] | None = None,
    ) -> None:
        self.agent = Agent(client=client, instructions=instructions, name="fact-writer", middleware=middleware)

    async def propose(self, user_text: str) -> FactBatch:
        response = await self.agent.run(user_text, options={"response_format": FactBatch})
        batch = response.value
        if not isinstance(batch, FactBatch):
            raise ValueError(f"The writer returned no structured batch (got {type(batch).__name__}).")
        return batch


ExtractionStatus = Literal["accepted", "rejected", "nothing_to_extract", "writer_failed", "stale"]


class ExtractionReport(BaseModel):
    """What one extraction did: the outcome, the facts now stored, and why (in plain words)."""

    status: ExtractionStatus
    facts: tuple[Fact, ...]
    diagnostic: str
    turn: int | None = None
    proposed: tuple[FactCandidate, ...] = ()


class MemoryExtraction:
    """Runs the writer on a user message and admits its proposal through the host and the store."""

    def __init__(self, memory: WorkingMemory, writer: FactWriter) -> None:
        self.memory = memory
        self.writer = writer

    async def update(self, user_text: str) -> ExtractionReport:
        """Extract from ``user_text``; the ticket is taken first, so a later forget makes it stale."""
        try:
            declarations = parse_assertions(user_text)
            turn = self.memory.begin_turn(user_text)
        except MessageTooLong as error:
            return self._report("rejected", f"{error} {NO_FALLBACK}")
        try:
            batch = await self.writer.propose(user_text)
        except (ValidationError, ValueError) as error:
            return self._report(
                "writer_failed",
                f"Writer output is not a valid fact batch: {_first_line(error)}. {NO_FALLBACK}",
                turn.number,
            )
        except Exception as error:  # any writer failure is reported, never hidden
            return self._report(
                "writer_failed", f"Writer failed: {type(error).__name__}: {error}. {NO_FALLBACK}", turn.number
            )
        proposed = tuple(batch.facts)
        if not matches_declarations(proposed, declarations):
            return self._report("rejected", f"{MISMATCH} {NO_FALLBACK}", turn.number, proposed)
        try:
            self.memory.apply(turn, proposed)
        except InvalidFacts as error:
            return self._report("rejected", f"{error} {NO_FALLBACK}", turn.number, proposed)
        except StaleMemoryUpdate as error:
            return self._report("stale", str(error), turn.number, proposed)
        if not proposed:
            return self._report("nothing_to_extract", "No explicit key=value declaration in this message.", turn.number)
        keys = ", ".join(c.key for c in proposed)
        return self._report("accepted", f"Admitted {len(proposed)} fact(s): {keys}.", turn.number, proposed)

    def _report(
        self,
        status: ExtractionStatus,
        diagnostic: str,
        turn: int | None = None,
        proposed: tuple[FactCandidate, ...] = (),
    ) -> ExtractionReport:
        return ExtractionReport(
            status=status, facts=self.memory.facts, diagnostic=diagnostic, turn=turn, proposed=proposed
        )


def matches_declarations(proposed: tuple[FactCandidate, ...], declarations: dict[str, str]) -> bool:
    """The host check: same count, and every proposed key declared with exactly that value."""
    return len(proposed) == len(declarations) and all(declarations.get(c.key) == c.value for c in proposed)


def _first_line(error: Exception) -> str:
    """The headline of an error and, for pydantic, its first reason (``Invalid JSON: EOF ...``)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return ": ".join(lines[:2]) or type(error).__name__


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
