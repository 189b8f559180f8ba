"""Feeding controlled facts to a model: manual injection (the seed's Demo150).

Manual injection prefixes the memory block to the user's message before ``run`` and extracts from
the user's own words after the response. The block therefore travels inside the user message -- and
is stored in the session history with it, which is why forgetting must also replace the session.
"""

from __future__ import annotations

from typing import Literal

from agent_framework import Agent, AgentSession
from pydantic import BaseModel

from .extraction import ExtractionReport, MemoryExtraction
from .memory import WorkingMemory


def inject(block: str, user_text: str) -> str:
    """The message manual injection sends: the memory block, a blank line, then the user's words."""
    return f"{block}\n\n{user_text}"


class DeskEvent(BaseModel):
    """What one console line did: the command kind, what was sent and answered, the extraction."""

    kind: Literal["turn", "mem", "forget"]
    line: str
    sent: str | None = None
    reply: str | None = None
    report: ExtractionReport | None = None
    output: str = ""


class ManualInjectionDesk:
    """One agent, one session, one store; the memory block is prefixed to each user message by hand."""

    def __init__(self, agent: Agent, extraction: MemoryExtraction) -> None:
        self.agent = agent
        self.extraction = extraction
        self.session: AgentSession = agent.create_session()

    @property
    def memory(self) -> WorkingMemory:
        return self.extraction.memory

    async def ask(self, user_text: str) -> DeskEvent:
        """Run the agent on the injected message, then extract from ``user_text`` alone."""
        sent = inject(self.memory.to_prompt_block(), user_text)
        response = await self.agent.run(sent, session=self.session)
        report = await self.extraction.update(user_text)
        return DeskEvent(
            kind="turn",
            line=user_text,
            sent=sent,
            reply=response.text,
            report=report,
            output=f"{response.text}\n[memory] {report.status}: {report.diagnostic}",
        )

    def forget(self, key: str | None = None) -> DeskEvent:
        """Forget one key or all, and start a new, empty session so history cannot bring it back."""
        removed = self.memory.forget(key)
        self.session = self.agent.create_session()
        what = "all facts" if key is None else f"{key!r}"
        line = "forget" if key is None else f"forget {key}"
        return DeskEvent(
            kind="forget",
            line=line,
            output=f"Forgot {what} ({removed} removed); the session was replaced by a new, empty one.",
        )

    async def handle(self, line: str) -> DeskEvent:
        """The console: ``mem`` shows the facts, ``forget [KEY]`` forgets, anything else is a user turn."""
        command = line.strip()
        if command == "mem":
            return DeskEvent(kind="mem", line=line, output=self.memory.to_prompt_block())
        if command == "forget" or command.startswith("forget "):
            key = command.removeprefix("forget").strip() or None
            return self.forget(key)
        return await self.ask(line)
