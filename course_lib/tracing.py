"""What each model call saw and returned, kept so a lesson can show it instead of asserting it.

Offline clients append one :class:`ModelCall` per call to their :class:`CallLog`; ``to_frame`` turns the
log into a pandas table with characters sent, the characters/4 *estimate*, and the usage the provider
reported (``unknown`` when it reported none: an estimate is never passed off as a measurement).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
from agent_framework import Message


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

    @property
    def chars_sent(self) -> int:
        """Characters of instructions and message text sent: what the model had to read."""
        return len(self.instructions or "") + sum(len(m.text) for m in self.messages)


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
