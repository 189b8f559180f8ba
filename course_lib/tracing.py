"""What each model call saw and returned, kept so a lesson can show it instead of asserting it.

Offline clients append one :class:`ModelCall` per call to their :class:`CallLog`; ``to_frame`` turns the
log into a pandas table with characters sent, the characters/4 *estimate*, and the usage the provider
reported (``unknown`` when it reported none: an estimate is never passed off as a measurement).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd
from agent_framework import ChatContext, ChatMiddleware, ChatResponse, Message

if TYPE_CHECKING:
    from .loop import LoopContext


@dataclass(frozen=True)
class SeenMessage:
    """A message as the model received it: role, author, text, and where MAF says it came from."""

    role: str
    text: str
    author_name: str | None = None
    source: str | None = None

    @classmethod
    def of(cls, message: Message) -> SeenMessage:
        attribution = (message.additional_properties or {}).get("_attribution") or {}
        return cls(
            role=str(message.role),
            text=message.text,
            author_name=message.author_name,
            source=attribution.get("source_type"),
        )


@dataclass(frozen=True)
class ModelCall:
    """One call: the instructions and messages received, the reply text, the usage reported."""

    client: str
    instructions: str | None
    messages: tuple[SeenMessage, ...]
    reply: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None

    @property
    def chars_sent(self) -> int:
        """Characters of instructions and message text sent: what the model had to read."""
        return len(self.instructions or "") + sum(len(m.text) for m in self.messages)


USAGE_FIELDS = ("input_tokens", "output_tokens", "total_tokens")
"""The token counts a provider reports (input, output, total); ``None`` on a call means not reported."""


@dataclass
class CallLog:
    """An append-only list of :class:`ModelCall`, shared by the clients of one experiment."""

    calls: list[ModelCall] = field(default_factory=list)

    def record(self, call: ModelCall) -> None:
        self.calls.append(call)

    def clear(self) -> None:
        self.calls.clear()

    def __len__(self) -> int:
        return len(self.calls)

    def to_frame(self) -> pd.DataFrame:
        """One row per call: client, messages received, characters sent, estimate, reported usage."""
        return pd.DataFrame([_row(i, c) for i, c in enumerate(self.calls, start=1)])

    def usage_by_role(self) -> pd.DataFrame:
        """One row per client (role): calls, characters sent, the chars/4 estimate, reported tokens.

        A reported column is a sum only when every call of that role reported it; otherwise it says
        ``unknown`` (a partial sum would pass for a measurement).
        """
        columns = ["client", "calls", "chars_sent", "est_tokens (chars/4)", *USAGE_FIELDS]
        rows = []
        for client in dict.fromkeys(c.client for c in self.calls):
            calls = [c for c in self.calls if c.client == client]
            chars = sum(c.chars_sent for c in calls)
            row: dict[str, object] = {"client": client, "calls": len(calls), "chars_sent": chars}
            row["est_tokens (chars/4)"] = chars // 4
            for usage in USAGE_FIELDS:
                counts = [getattr(c, usage) for c in calls]
                row[usage] = "unknown" if None in counts else sum(counts)
            rows.append(row)
        return pd.DataFrame(rows, columns=columns)


class RecordingMiddleware(ChatMiddleware):
    """Chat middleware that logs exactly what reaches the client and the usage the provider reported.

    Works for any client, offline or live: it sits where MAF hands the final message list to the model,
    after context providers and compaction have done their work.
    """

    def __init__(self, log: CallLog, name: str) -> None:
        self.log = log
        self.name = name

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        sent = seen(context.messages)
        instructions = (context.options or {}).get("instructions")
        await call_next()

        def record(response: ChatResponse) -> None:
            usage = response.usage_details or {}
            self.log.record(
                ModelCall(
                    client=self.name,
                    instructions=instructions,
                    messages=sent,
                    reply=response.text,
                    input_tokens=usage.get("input_token_count"),
                    output_tokens=usage.get("output_token_count"),
                    total_tokens=usage.get("total_token_count"),
                )
            )

        if context.stream:
            # A stream is not consumed yet: record once MAF has assembled the final response from it.
            context.stream_result_hooks.append(record)
        elif isinstance(context.result, ChatResponse):
            record(context.result)


def _row(index: int, call: ModelCall) -> dict[str, object]:
    return {
        "call": index,
        "client": call.client,
        "messages": len(call.messages),
        "chars_sent": call.chars_sent,
        "est_tokens (chars/4)": call.chars_sent // 4,
        "input_tokens": "unknown" if call.input_tokens is None else call.input_tokens,
        "reply": call.reply,
    }


def seen(messages: Sequence[Message]) -> tuple[SeenMessage, ...]:
    """The messages as the model received them."""
    return tuple(SeenMessage.of(m) for m in messages)


RULE_LLM = "-" * 30 + "LLM" + "-" * 30
RULE_EVALUATOR = "-" * 30 + "Evaluator" + "-" * 30
INDENT = "    "


@dataclass
class LoopTrace:
    """The seed's console trace of a loop: each LLM call and each evaluation, in order.

    ``text()`` renders it in the seed's layout (what the LLM received and returned; what the evaluator
    saw and decided); ``to_frame()`` gives the same steps as a table.
    """

    lines: list[str] = field(default_factory=list)
    rows: list[dict[str, object]] = field(default_factory=list)
    calls: list[list[str]] = field(default_factory=list)

    def llm(self, incoming: Sequence[str], outgoing: str) -> None:
        self.calls.append(list(incoming))
        self.lines += [RULE_LLM, "Incoming messages:", *_indented(incoming), "Outgoing response:", INDENT + outgoing]
        self.rows.append(
            {
                "step": len(self.rows) + 1,
                "actor": "LLM",
                "call": len(self.calls),
                "saw": " | ".join(incoming),
                "did": outgoing,
            }
        )

    def evaluator(self, context: LoopContext, feedback: str | None) -> None:
        initial = [m.text for m in context.initial_messages]
        last = [m.text for m in context.last_response.messages]
        previous = [f or "" for f in context.feedback]
        self.lines += [
            RULE_EVALUATOR,
            f"Iteration: {context.iteration}",
            "Initial messages:",
            *_indented(initial),
            "Last response:",
            *_indented(last),
            "Previous feedback:",
            *_indented(previous),
        ]
        if feedback is not None:
            self.lines += [f"Feedback:{feedback}", ""]
        saw = f"iteration {context.iteration}; last: {' | '.join(last)}; previous: {' | '.join(previous) or '-'}"
        did = "stop" if feedback is None else f"continue: {feedback}"
        self.rows.append(
            {"step": len(self.rows) + 1, "actor": "Evaluator", "call": context.iteration, "saw": saw, "did": did}
        )

    def text(self) -> str:
        return "\n".join(self.lines)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=["step", "actor", "call", "saw", "did"])


def _indented(texts: Sequence[str]) -> list[str]:
    return [INDENT + t for t in texts]


def render_messages(messages: Sequence[Message]) -> str:
    """The seed's final listing: ``--------------------Message1--------------------`` then the text."""
    rule = "-" * 20
    return "\n".join(f"{rule}Message{i}{rule}\n{m.text}" for i, m in enumerate(messages, start=1))
