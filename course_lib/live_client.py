"""The live client: MAF's OpenAI Chat Completions client, bounded, checked, its failures explained.

Kept apart from the settings (:mod:`course_lib.live`) because it loads the openai SDK (about a second):
:func:`course_lib.clients.make_chat_client` imports this module only when it builds a live client, so an
offline lesson never pays for it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any

import openai
from agent_framework import ChatResponse, ChatResponseUpdate, Message, ResponseStream
from agent_framework_openai import OpenAIChatCompletionClient
from openai.types.chat import ChatCompletion

from .live import RETRIES_VAR, TIMEOUT_VAR, LiveModelError, LiveSettings, Role
from .offline import refuse_tools_without_loop


class LiveChatClient(OpenAIChatCompletionClient):
    """MAF's OpenAI Chat Completions client, bounded, checked, and labelled with its course role.

    Everything MAF does (message conversion, structured output, streaming, usage, middleware, telemetry)
    is unchanged; this class only refuses replies that carry no answer and rewrites failures into a
    :class:`LiveModelError` that a student can act on.
    """

    def __init__(self, role: Role, settings: LiveSettings, *, middleware: Sequence[Any] | None = None) -> None:
        sdk = openai.AsyncOpenAI(
            api_key=settings.api_key.get_secret_value(),
            base_url=settings.base_url,
            timeout=openai.Timeout(settings.timeout, connect=min(settings.timeout, 10.0)),
            max_retries=settings.max_retries,
        )
        super().__init__(model=settings.model_for(role), async_client=sdk, middleware=middleware)
        self.role = role
        self.settings = settings

    def __repr__(self) -> str:
        return f"LiveChatClient(role={self.role!r}, model={self.model!r}, endpoint={self.settings.endpoint!r})"

    def _inner_get_response(
        self, *, messages: Sequence[Message], options: Mapping[str, Any], stream: bool = False, **kwargs: Any
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        refuse_tools_without_loop(self, options)
        result = super()._inner_get_response(messages=messages, options=options, stream=stream, **kwargs)
        return result if isinstance(result, ResponseStream) else self._checked(result)

    async def _checked(self, pending: Awaitable[ChatResponse]) -> ChatResponse:
        try:
            return await pending
        except Exception as error:
            raise self.failure(error) from None

    def _build_response_stream(
        self,
        stream: AsyncIterable[ChatResponseUpdate] | Awaitable[AsyncIterable[ChatResponseUpdate]],
        *,
        response_format: Any | None = None,
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse]:
        return super()._build_response_stream(self._checked_stream(stream), response_format=response_format)

    async def _checked_stream(
        self, stream: AsyncIterable[ChatResponseUpdate] | Awaitable[AsyncIterable[ChatResponseUpdate]]
    ) -> AsyncIterator[ChatResponseUpdate]:
        """Pass updates through; at the end, refuse a stream that never finished or only refused."""
        chunks, choices, finished, text, refusal = 0, 0, None, 0, ""
        try:
            updates = await stream if isinstance(stream, Awaitable) else stream
            async for update in updates:
                chunks += 1
                choices += any(c.type != "usage" for c in update.contents) or update.finish_reason is not None
                finished = update.finish_reason or finished
                for content in update.contents:
                    if content.type == "text" and _is_refusal(content.additional_properties):
                        refusal += content.text or ""
                    elif content.type == "text":
                        text += len(content.text or "")
                    elif content.type == "function_call":
                        text += 1
                yield update
        except Exception as error:
            raise self.failure(error) from None
        problem = _stream_problem(chunks, choices, finished, text, refusal)
        if problem:
            raise self.failure(ReplyProblem(problem))

    def _parse_response_from_openai(self, response: ChatCompletion, options: Mapping[str, Any]) -> ChatResponse:
        if not isinstance(response, ChatCompletion):
            raise ReplyProblem(f"the endpoint answered with a non-JSON body ({_preview(response)})")
        if not response.choices:
            raise ReplyProblem("the endpoint returned no choices (an empty 'choices' list)")
        parsed = super()._parse_response_from_openai(response, options)
        message = response.choices[0].message
        if message.refusal:
            raise ReplyProblem(f"the model refused: {message.refusal!r}")
        if not parsed.text and not message.tool_calls:
            raise ReplyProblem(
                f"the endpoint returned an empty message (finish_reason={response.choices[0].finish_reason!r})"
            )
        return parsed

    def failure(self, error: BaseException) -> LiveModelError:
        """The error a student sees: role, model and endpoint, the cause, and what to change."""
        cause, hint = (_scrub(text, self.settings) for text in explain(_root(error), self.settings))
        where = f"{self.role} model {self.model!r} at {self.settings.endpoint}"  # ours, never the key
        message = f"{where}: {cause}." + (f" {hint}" if hint else "") + " No offline fallback is used."
        return LiveModelError(message)


class ReplyProblem(Exception):
    """A reply that arrived but carries no usable answer (raised inside the client, explained outside)."""


def _is_refusal(properties: Mapping[str, Any] | None) -> bool:
    properties = properties or {}
    core = properties.get("core") or {}
    return "refusal" in (core.get("model_output_kind"), properties.get("model_output_kind"))


def _stream_problem(chunks: int, choices: int, finished: object, text: int, refusal: str) -> str | None:
    """What is wrong with a finished stream, or None: a stream must end with a reason and carry text."""
    if refusal:
        return f"the model refused: {refusal!r}"
    if chunks == 0:
        return "the streaming request got no server-sent event (a non-SSE body, e.g. HTML or plain JSON)"
    if choices == 0:
        return "the stream carried no choices (only empty 'choices' lists)"
    if finished is None:
        return f"the stream was cut mid-way: {choices} chunk(s) and no finish_reason"
    if not text:
        return f"the stream carried no text (finish_reason={finished!r})"
    return None


def _preview(body: object) -> str:
    text = str(body).strip().replace("\n", " ")
    return repr(text[:60] + ("..." if len(text) > 60 else ""))


def _root(error: BaseException) -> BaseException:
    """The innermost cause MAF wrapped (``ChatClientException`` -> openai -> httpx)."""
    seen: set[int] = set()
    while id(error) not in seen:
        seen.add(id(error))
        inner = getattr(error, "inner_exception", None) or error.__cause__
        if inner is None or isinstance(error, openai.APIError):
            break
        error = inner
    return error


def explain(error: BaseException, settings: LiveSettings) -> tuple[str, str]:
    """(cause, hint) for a failure: what happened in plain words and which setting to change."""
    tries = f"{settings.max_retries + 1} attempt(s)"
    url = "check OPENAI_BASE_URL (an OpenAI-compatible base URL usually ends in /v1)"
    if isinstance(error, ReplyProblem):
        return str(error), ""
    if isinstance(error, openai.APITimeoutError):
        return (
            f"no answer within {settings.timeout:g} s ({tries})",
            f"Raise {TIMEOUT_VAR} (now {settings.timeout:g}) for a slow model, or check that the server answers.",
        )
    if isinstance(error, openai.APIConnectionError):
        return (
            f"cannot connect ({_connection_cause(error)}; {tries})",
            f"Is the server running? {url[0].upper()}{url[1:]}.",
        )
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return f"the endpoint refused the key (HTTP {error.status_code})", "Check OPENAI_API_KEY."
    if isinstance(error, openai.RateLimitError):
        return (
            f"rate limited (HTTP 429) after {tries}",
            f"Wait and retry, use a cheaper COURSE_<ROLE>_MODEL, or raise {RETRIES_VAR}.",
        )
    if isinstance(error, openai.NotFoundError):
        return "not found (HTTP 404)", f"Check OPENAI_MODEL (or COURSE_<ROLE>_MODEL), and {url}."
    if isinstance(error, openai.APIStatusError):
        kind = "server error" if error.status_code >= 500 else "request refused"
        detail = _status_detail(error)
        return f"{kind} (HTTP {error.status_code}{detail})", (
            "The server failed; retry later." if error.status_code >= 500 else "The endpoint refused this request."
        )
    if isinstance(error, json.JSONDecodeError | openai.APIResponseValidationError):
        return f"the endpoint answered with malformed JSON ({error})", url[0].upper() + url[1:] + "."
    return f"{type(error).__name__}: {error}", ""


def _connection_cause(error: BaseException) -> str:
    inner = error.__cause__ or error.__context__
    return f"{type(inner).__name__}: {inner}" if inner else str(error)


def _status_detail(error: openai.APIStatusError) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error")
    message = inner.get("message") if isinstance(inner, dict) else body.get("message")
    return f": {str(message)[:200]}" if message else ""


def _scrub(text: str, settings: LiveSettings) -> str:
    """The text with the key masked: a server's error body may echo the key it refused."""
    key = settings.api_key.get_secret_value()
    return text.replace(key, "**********") if key else text


def make_live_client(role: Role, settings: LiveSettings, *, middleware: Sequence[Any] | None = None) -> LiveChatClient:
    """A live client for ``role``: its model, the bounded timeout and retries, checked replies."""
    return LiveChatClient(role, settings, middleware=middleware)
