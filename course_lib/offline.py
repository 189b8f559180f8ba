"""The base of every offline model, shared by both halves: it loads neither.

An offline model is a real MAF ``BaseChatClient`` (function invocation, middleware and telemetry
layers included) that computes its reply from the messages it receives; a subclass only says how to
answer, and streaming comes for free. The memory lessons' models live in :mod:`course_lib.memory_models`,
the loop lessons' in :mod:`course_lib.loop_demos`.
"""

from __future__ import annotations

import re
import uuid
from abc import abstractmethod
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any

from agent_framework import (
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    ResponseStream,
)
from agent_framework.observability import ChatTelemetryLayer

from .tracing import CallLog, ModelCall


class OfflineChatClient(FunctionInvocationLayer, ChatMiddlewareLayer, ChatTelemetryLayer, BaseChatClient):
    """Base of the offline models: subclasses only say how to answer; streaming comes for free.

    Given a ``log``, a client records each call in it. Without one it records nothing: an agent that
    carries :class:`~course_lib.tracing.RecordingMiddleware` already logs every call, and a second copy
    of every prompt would only cost time and memory. Each reply carries a fresh message id, as a live
    provider's does, so MAF's history can tell stored messages apart without re-serialising them.
    """

    OTEL_PROVIDER_NAME = "offline"

    def __init__(self, *, log: CallLog | None = None, name: str | None = None) -> None:
        super().__init__()
        self.log = log
        self.name = name or type(self).__name__

    @abstractmethod
    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        """The reply text, computed from the messages (and instructions in ``options``) only."""

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **_: Any
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        if stream:
            return self._build_response_stream(self._stream(messages, options))
        return self._respond(messages, options)

    async def _respond(self, messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse:
        opts = await self._validate_options(options)
        text = self.answer(messages, opts)
        if self.log is not None:
            seen = self.log.seen(messages)
            self.log.record(
                ModelCall(client=self.name, instructions=opts.get("instructions"), messages=seen, reply=text)
            )
        reply = Message(role="assistant", contents=[text], message_id=f"{self.name}-{uuid.uuid4().hex}")
        return ChatResponse(messages=[reply], response_format=opts.get("response_format"))

    async def _stream(
        self, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> AsyncIterator[ChatResponseUpdate]:
        response = await self._respond(messages, options)
        message_id = response.messages[0].message_id
        for word in re.findall(r"\S+\s*|\s+", response.text):
            yield ChatResponseUpdate(role="assistant", contents=[Content.from_text(word)], message_id=message_id)


def last_user_text(messages: Sequence[Message]) -> str:
    """The text of the last User message, or '' when there is none."""
    return next((m.text for m in reversed(messages) if m.role == "user"), "")
