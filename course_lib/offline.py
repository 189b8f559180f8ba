"""The base of every offline model, shared by both halves: it loads neither.

An offline model is a real MAF ``BaseChatClient`` (function invocation, middleware and telemetry
layers included; ``make_chat_client`` switches the tool loop off, as it does for live models) that
computes its reply from the messages it receives; a subclass only says how to answer, and streaming
comes for free. The memory lessons' models live in :mod:`course_lib.memory_models`,
the loop lessons' in :mod:`course_lib.loop_demos`.
"""

from __future__ import annotations

import re
import uuid
from abc import abstractmethod
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any, TypeVar

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

__all__ = [
    "Client",
    "OfflineChatClient",
    "last_user_text",
    "refuse_tools_without_loop",
    "without_tool_loop",
]


class OfflineChatClient(FunctionInvocationLayer, ChatMiddlewareLayer, ChatTelemetryLayer, BaseChatClient):
    """Base of the offline models: subclasses only say how to answer; streaming comes for free.

    Given a ``log``, a client records each call in it as :class:`~course_lib.tracing.RecordingMiddleware` would
    (the messages MAF hands the client, the reply or the error), without a chat middleware: that saves MAF's
    per-call reconciliation over every message sent (:func:`~course_lib.tracing.recording_middleware`). Without
    one it records nothing: an agent that carries a ``RecordingMiddleware`` already logs every call. Each reply
    carries a fresh message id, as a live provider's does, so MAF's history can tell stored messages apart without
    re-serialising them.
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
        try:
            refuse_tools_without_loop(self, options)
        except ValueError as error:
            self._record(messages, options, error=error)
            raise
        if stream:
            return self._build_response_stream(self._stream(messages, options))
        return self._respond(messages, options)

    async def _respond(self, messages: Sequence[Message], options: Mapping[str, Any]) -> ChatResponse:
        try:
            opts = await self._validate_options(options)
            text = self.answer(messages, opts)
        except Exception as error:
            self._record(messages, options, error=error)
            raise
        self._record(messages, opts, reply=text)
        reply = Message(role="assistant", contents=[text], message_id=f"{self.name}-{uuid.uuid4().hex}")
        return ChatResponse(messages=[reply], response_format=opts.get("response_format"))

    def _record(
        self, messages: Sequence[Message], options: Mapping[str, Any], reply: str = "", error: Exception | None = None
    ) -> None:
        """Log the call, when there is a log, as RecordingMiddleware would: a refused or failed call has no reply."""
        if self.log is not None:
            seen = self.log.seen(messages)
            failure = None if error is None else str(error)
            self.log.record(ModelCall(self.name, options.get("instructions"), seen, reply=reply, error=failure))

    async def _stream(
        self, messages: Sequence[Message], options: Mapping[str, Any]
    ) -> AsyncIterator[ChatResponseUpdate]:
        response = await self._respond(messages, options)
        message_id = response.messages[0].message_id
        for word in re.findall(r"\S+\s*|\s+", response.text):
            yield ChatResponseUpdate(role="assistant", contents=[Content.from_text(word)], message_id=message_id)


Client = TypeVar("Client", bound=FunctionInvocationLayer[Any])


def without_tool_loop(client: Client) -> Client:
    """``client`` with MAF's tool loop switched off, for a model the course gives no tools (offline or live alike).

    MAF's ``FunctionInvocationLayer`` runs on every call, tools or not, and first copies every message it is sent
    (``_copy_messages_for_function_invocation`` in ``agent_framework/_tools.py``): with a full history that is every
    stored message on every turn. ``function_invocation_configuration["enabled"] = False`` is MAF's documented
    switch for a client that needs no tool loop; the request then goes straight to the middleware and the model, and
    what is sent and answered is the same. A request that does carry tools is refused
    (:func:`refuse_tools_without_loop`), so a tool is never silently left uncalled.
    """
    client.function_invocation_configuration["enabled"] = False
    return client


def refuse_tools_without_loop(client: FunctionInvocationLayer[Any], options: Mapping[str, Any]) -> None:
    """Refuse a request that carries tools to a client whose tool loop is off: the tools would never run."""
    if options.get("tools") and not client.function_invocation_configuration.get("enabled", True):
        raise ValueError(
            f"{type(client).__name__} was built without MAF's tool loop (the course gives its models no tools), so "
            "it cannot run the tools this request carries. Turn the loop back on for this client: "
            "client.function_invocation_configuration['enabled'] = True."
        )


def last_user_text(messages: Sequence[Message]) -> str:
    """The text of the last User message, or '' when there is none."""
    return next((m.text for m in reversed(messages) if m.role == "user"), "")
