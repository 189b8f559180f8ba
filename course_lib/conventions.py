"""The MAF conventions the workbook reads, each in one place.

* **Attribution.** Every message a context provider (or the loop, or middleware) adds carries
  ``additional_properties["_attribution"]`` (``source_id``, and ``source_type`` when the source is an
  object: see ``SessionContext.extend_messages``). The caller's own messages carry none. This is how
  the facts provider tells the caller's words from history and injected blocks, and how a trace says
  where each message came from.
* **In-memory history.** ``InMemoryHistoryProvider`` keeps a session's messages in
  ``session.state[InMemoryHistoryProvider.DEFAULT_SOURCE_ID]["messages"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_framework import AgentSession, InMemoryHistoryProvider, Message

__all__ = [
    "EXTERNAL",
    "attribution",
    "attribution_source",
    "message_source",
    "stored_messages",
]


EXTERNAL = "external"
"""The source of a message that carries no attribution: the caller's own words."""


def attribution(message: Message) -> Mapping[str, Any]:
    """MAF's attribution of a message; empty when the caller wrote it."""
    value = (message.additional_properties or {}).get("_attribution")
    if value is None:
        return {}
    # A dict first: MAF writes dicts, and a trace reads every message sent, where the ABC check costs a microsecond.
    return value if isinstance(value, (dict, Mapping)) else {}


def attribution_source(message: Message) -> str | None:
    """Who added the message (its ``source_type``, else its ``source_id``), or None for the caller's own."""
    found = attribution(message)
    if not found:
        return None
    return str(found.get("source_type") or found.get("source_id") or "unnamed source")


def message_source(message: Message) -> str:
    """Where MAF says a message came from: ``external`` (the caller) or the adding component's type/id."""
    return attribution_source(message) or EXTERNAL


def stored_messages(session: AgentSession) -> list[Message]:
    """The messages a session's in-memory history holds (empty before the first run)."""
    return list(session.state.get(InMemoryHistoryProvider.DEFAULT_SOURCE_ID, {}).get("messages", []))
