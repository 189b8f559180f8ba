"""The live client: MAF's OpenAI Chat Completions client, bounded, checked, its failures explained.

Kept apart from the settings (:mod:`course_lib.live`) because it loads the openai SDK (about a second):
:func:`course_lib.clients.make_chat_client` imports this module only when it builds a live client, so an
offline lesson never pays for it.

What this client adds to MAF's, each at the one place every path crosses:

* **one deadline per call** (:attr:`~course_lib.live.LiveSettings.deadline`): the SDK's timeout bounds each
  read, so a body sent a byte at a time or a stream of keep-alive comments would hold a call for as long as
  the server likes; here the whole call -- retries, backoff, every chunk of a stream -- ends at the deadline;
* **a bounded output**: every request carries the output cap (``COURSE_LLM_MAX_TOKENS``), and an answer the
  cap cut (``finish_reason: length``) is an error, or, for an answer a student reads, carries a visible mark;
* **no empty success**: no choice, a choice without a message, an error object inside a 200, an empty
  message, a refusal, a tool call nobody asked for (the course offers none) are errors naming the cause;
* **no key anywhere**: the answer's text (what the desk console shows and the :class:`CallLog` records), every
  error, and every log record the process emits once a live client exists have each run of the key masked
  (:func:`course_lib.live.mask_secrets`), before anything is cut.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx2
import openai
from agent_framework import ChatResponse, ChatResponseUpdate, Content, Message, ResponseStream, UsageDetails
from agent_framework_openai import OpenAIChatCompletionClient
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from .frames import count_noun
from .live import (
    MASK,
    MAX_TOKENS_VAR,
    MIN_SECRET_RUN,
    MODEL_ANSWER_FAILURES,
    RETRIES_VAR,
    REUSE_VAR,
    TIMEOUT_VAR,
    FailureKind,
    LiveModelError,
    LiveSettings,
    Role,
    mask_secrets,
    secret_coverage,
)
from .offline import refuse_tools_without_loop
from .tracing import REUSED

__all__ = [
    "MAX_CHARS_PER_TOKEN",
    "MAX_PLAUSIBLE_TOKENS",
    "NOT_CONNECTED",
    "SHOWN_ROLES",
    "AnswerMemo",
    "DeadlinePassed",
    "KeptFailure",
    "LiveChatClient",
    "ReplyProblem",
    "StreamMask",
    "StreamTally",
    "answer_bound",
    "answer_memo",
    "choices_problem",
    "cut_advice",
    "cut_mark",
    "cut_problem",
    "explain",
    "filtered",
    "forget_answers",
    "guard_logs",
    "make_live_client",
    "mask_other_contents",
    "mask_record",
    "memo_totals",
    "plausible_usage",
    "too_long",
    "unasked_tool_call",
]


SHOWN_ROLES: frozenset[Role] = frozenset({"assistant", "reader", "worker"})
"""Roles whose answer a student reads as it is: an answer cut at the output cap gets a visible mark.

The others (writer, summarizer, judge) feed the program, which cannot read a mark: a cut answer is an error.
An answer asked for as structured output (``response_format``) is an error in every role: cut JSON is no answer.
"""


class LiveChatClient(OpenAIChatCompletionClient):
    """MAF's OpenAI Chat Completions client, bounded, checked, and labelled with its course role.

    Everything MAF does (message conversion, structured output, streaming, usage, middleware, telemetry)
    is unchanged; this class only bounds the call and its output, refuses replies that carry no answer,
    masks the key, and rewrites failures into a :class:`LiveModelError` that a student can act on.
    """

    def __init__(self, role: Role, settings: LiveSettings, *, middleware: Sequence[Any] | None = None) -> None:
        guard_logs(settings.secrets)  # before the SDK exists: nothing it or MAF logs can carry the key
        base_url, query = _split_query(settings.base_url)
        sdk = openai.AsyncOpenAI(
            api_key=settings.api_key.get_secret_value(),
            base_url=base_url,
            default_query=query,
            timeout=openai.Timeout(settings.timeout, connect=min(settings.timeout, 10.0)),
            max_retries=settings.max_retries,
        )
        super().__init__(model=settings.model_for(role), async_client=sdk, middleware=middleware)
        self.role = role
        self.settings = settings

    def __repr__(self) -> str:
        return f"LiveChatClient(role={self.role!r}, model={self.model!r}, endpoint={self.settings.endpoint!r})"

    @property
    def max_tokens(self) -> int:
        """This role's output cap (:meth:`~course_lib.live.LiveSettings.max_tokens_for`)."""
        return self.settings.max_tokens_for(self.role)

    @property
    def output_cap_field(self) -> str:
        """The request field that carries the output cap.

        ``max_tokens`` is what OpenAI-compatible servers read (llama.cpp, Ollama, LM Studio, vLLM); OpenAI's
        own API has deprecated it and refuses it on its reasoning models, and reads ``max_completion_tokens``.
        """
        return "max_completion_tokens" if self.settings.base_url is None else "max_tokens"

    def _prepare_options(self, messages: Sequence[Message], options: Mapping[str, Any]) -> dict[str, Any]:
        """MAF's request options, with the output cap on every request (a caller's smaller cap is kept) and the
        role's sampling where the caller set none (:data:`~course_lib.live.LOCAL_ROLE_SAMPLING`)."""
        prepared = super()._prepare_options(messages, options)
        for name, value in self.settings.role_sampling.get(self.role, {}).items():
            prepared.setdefault(name, value)
        asked = [prepared.pop(name) for name in ("max_tokens", "max_completion_tokens") if name in prepared]
        prepared[self.output_cap_field] = min([self.max_tokens, *asked])
        return prepared

    def _inner_get_response(
        self, *, messages: Sequence[Message], options: Mapping[str, Any], stream: bool = False, **kwargs: Any
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        refuse_tools_without_loop(self, options)
        if not stream and self.settings.reuse_answers:
            return self._remembered(messages, options, **kwargs)
        result = super()._inner_get_response(messages=messages, options=options, stream=stream, **kwargs)
        return result if isinstance(result, ResponseStream) else self._checked(result)

    async def _remembered(self, messages: Sequence[Message], options: Mapping[str, Any], **kwargs: Any) -> ChatResponse:
        """The endpoint's first answer to this very request, or a new call whose answer is kept for the next time."""
        memo = answer_memo(self.settings)
        # The role is part of the key: what the course makes of one reply depends on it (a cut answer is marked for
        # a reader, an error for the writer).
        key = memo.key({"course_role": self.role, **self._prepare_options(messages, options)})
        kept = memo.get(key) if key is not None else None
        if isinstance(kept, KeptFailure):
            raise kept.error()
        if kept is not None:
            return kept
        pending = super()._inner_get_response(messages=messages, options=options, stream=False, **kwargs)
        assert not isinstance(pending, ResponseStream)  # stream=False
        try:
            answer = await self._checked(pending)
        except LiveModelError as error:
            if key is not None:
                memo.put(key, error)  # kept only if it is the model's whole answer, refused (a cut, a refusal)
            raise
        if key is not None:
            memo.put(key, answer)
        return answer

    async def _checked(self, pending: Awaitable[ChatResponse]) -> ChatResponse:
        """The answer, within the call's deadline; any failure becomes a :class:`LiveModelError`.

        The error is raised outside the ``except`` block, so it carries no link to the provider's raw
        error (whose text may echo the key).
        """
        scope = asyncio.timeout(self.settings.deadline)
        try:
            async with scope:
                answer = await pending
            # Reading, checking and masking the body run without a pause the timeout could cancel at: a body that
            # took them past the deadline is refused here rather than returned late.
            if asyncio.get_running_loop().time() >= (scope.when() or float("inf")):
                raise DeadlinePassed()
            return answer
        except TimeoutError as error:
            failure = self.failure(DeadlinePassed() if scope.expired() else error)
        except Exception as error:
            failure = self.failure(error)
        raise failure

    def _build_response_stream(
        self,
        stream: AsyncIterable[ChatResponseUpdate] | Awaitable[AsyncIterable[ChatResponseUpdate]],
        *,
        response_format: Any | None = None,
    ) -> ResponseStream[ChatResponseUpdate, ChatResponse]:
        checked = self._checked_stream(stream, structured=response_format is not None)
        return super()._build_response_stream(checked, response_format=response_format)

    async def _checked_stream(
        self,
        stream: AsyncIterable[ChatResponseUpdate] | Awaitable[AsyncIterable[ChatResponseUpdate]],
        *,
        structured: bool,
    ) -> AsyncIterator[ChatResponseUpdate]:
        """Pass updates through, masked, within the deadline; at the end, refuse a stream with no answer.

        The deadline runs from the first request to the last chunk: each wait for the next chunk gets what
        is left of it, so neither a slow body nor keep-alive comments can stretch the call.
        """
        deadline = asyncio.get_running_loop().time() + self.settings.deadline
        tally, masker = StreamTally(), StreamMask(self.settings.secrets)
        updates: AsyncIterator[ChatResponseUpdate] | None = None
        failure: LiveModelError | None = None
        try:
            async with asyncio.timeout_at(deadline):
                source = await stream if isinstance(stream, Awaitable) else stream
            updates = aiter(source)
            while True:
                scope = asyncio.timeout_at(deadline)
                try:
                    async with scope:
                        update = await anext(updates)
                except StopAsyncIteration:
                    break
                except TimeoutError as error:
                    failure = self.failure(DeadlinePassed() if scope.expired() else error)
                    break
                tally.add(update)
                if tally.text > answer_bound(self.max_tokens):
                    failure = self.failure(too_long(tally.text, self.max_tokens))
                    break
                masker.apply(update)
                mask_other_contents(update.contents, self.settings)
                yield update
        except TimeoutError:  # the first request's part of the deadline passed
            failure = self.failure(DeadlinePassed())
        except Exception as error:
            failure = self.failure(error)
        finally:
            closer = getattr(updates, "aclose", None)
            if closer is not None:
                await closer()
        if failure is None and asyncio.get_running_loop().time() >= deadline:
            failure = self.failure(DeadlinePassed())
        if failure is None:
            cut_is_error = structured or self.role not in SHOWN_ROLES
            problem = tally.problem(
                self.max_tokens,
                cut_is_error=cut_is_error,
                structured=structured,
                server_cap=self.settings.server_max_tokens,
            )
            if problem is not None:
                failure = self.failure(problem)
        if failure is not None:
            # What was known when it failed: the text written so far (masked) and the usage reported, if any.
            failure.partial = failure.partial or masker.written() or None
            failure.usage = failure.usage or tally.usage
            raise failure
        tail = masker.flush() + (cut_mark(self.max_tokens) if tally.finished == "length" else "")
        if tail:  # no role, no message id: MAF adds it to the message the stream built
            yield ChatResponseUpdate(contents=[Content.from_text(tail)])

    def _parse_response_from_openai(self, response: ChatCompletion, options: Mapping[str, Any]) -> ChatResponse:
        if not isinstance(response, ChatCompletion):
            raise ReplyProblem(
                f"the endpoint answered with a non-JSON body ({_preview(response, self.settings)})", "broken_reply"
            )
        server_error = (response.model_extra or {}).get("error")
        if server_error:
            raise ReplyProblem(
                f"the endpoint answered HTTP 200 with an error instead of an answer: "
                f"{_clip(_error_message(server_error), self.settings)}",
                "broken_reply",
            )
        shape = choices_problem(response.choices)
        if shape is not None:
            raise shape
        if not response.choices:
            raise ReplyProblem("the endpoint returned no choices (an empty 'choices' list)", "broken_reply")
        choice = response.choices[0]
        message = choice.message
        if message is None:
            raise ReplyProblem(
                f"the endpoint returned a choice without a message (finish_reason={choice.finish_reason!r})",
                "broken_reply",
            )
        if message.refusal:
            raise ReplyProblem(f"the model refused: {message.refusal!r}", "refusal")
        called = [getattr(getattr(call, "function", None), "name", "") or "" for call in message.tool_calls or []]
        if called or message.tool_calls or getattr(message, "function_call", None):
            raise unasked_tool_call(called)
        parsed = super()._parse_response_from_openai(response, options)
        texts = [c for m in parsed.messages for c in m.contents if c.type == "text" and c.text]
        length = sum(len(c.text or "") for c in texts)
        if length > answer_bound(self.max_tokens):  # refused before masking: masking costs about 1 s per MB
            raise too_long(length, self.max_tokens, parsed.usage_details)
        for message_parsed in parsed.messages:
            mask_other_contents(message_parsed.contents, self.settings)
        for content in texts:
            content.text = self.settings.mask(content.text or "")
        if choice.finish_reason == "content_filter":
            raise filtered(parsed.usage_details, "".join(c.text or "" for c in texts))
        if choice.finish_reason == "length":
            structured = options.get("response_format") is not None
            if structured or self.role not in SHOWN_ROLES or not texts:
                written = "".join(c.text or "" for c in texts)  # masked above
                raise cut_problem(
                    self.max_tokens,
                    structured,
                    parsed.usage_details,
                    written,
                    server_cap=self.settings.server_max_tokens,
                )
            texts[-1].text = (texts[-1].text or "") + cut_mark(self.max_tokens)
        if not parsed.text:
            raise ReplyProblem(
                f"the endpoint returned an empty message (finish_reason={choice.finish_reason!r})", "empty_answer"
            )
        return parsed

    def _parse_response_update_from_openai(self, chunk: ChatCompletionChunk) -> ChatResponseUpdate:
        """MAF's parse of one chunk, once its ``choices`` have the protocol's shape (a list, index 0, text)."""
        shape = choices_problem(chunk.choices, streamed=True)
        if shape is not None:
            raise shape
        return super()._parse_response_update_from_openai(chunk)

    def _parse_usage_from_openai(self, usage: CompletionUsage) -> UsageDetails:
        """MAF's usage, each count kept only if it is a plausible count (:func:`plausible_usage`)."""
        if not isinstance(usage, CompletionUsage):
            return UsageDetails()
        return plausible_usage(super()._parse_usage_from_openai(usage))

    def failure(self, error: BaseException) -> LiveModelError:
        """The error a student sees: role, model and endpoint, the cause, and what to change; no key in it.

        It keeps what the refused reply carried (usage billed, text written before a cut), as the reply had it.
        """
        root = _root(error)
        cause, hint, kind = explain(root, self.settings)
        where = f"{self.role} model {self.model!r} at {self.settings.endpoint}"
        message = f"{where}: {cause.rstrip('.')}." + (f" {hint}" if hint else "") + " No offline fallback is used."
        partial = getattr(root, "partial", None)
        return LiveModelError(
            self.settings.mask(message),
            kind,
            getattr(root, "usage", None),
            self.settings.mask(partial) if partial else None,
        )


class AnswerMemo:
    """The answers one endpoint gave, by the exact request: the same request again gets the first answer back.

    Why: lessons 04 and 07 replay the same requests under several policies, rules and store bounds (the window's
    first turns are the full history's, compaction and the reducer send the same view, a reader's request does not
    depend on the store the evaluator holds), and a live run would pay seconds for each again. The local server
    samples with a fixed seed, yet re-asked it wrote 29 of 32 identical requests of lesson 04's replays alike, not
    all (llama.cpp's prompt cache, which starts each request from what the previous one left, is a likely cause):
    with the memo a lesson's cells agree, the same conversation getting the same answer in every table that shows it.

    The key is the whole request the SDK would send (model, messages, instructions, output cap, response format)
    and the course role that sends it.
    Only the model's whole answers are kept: an answer, or one the course refused whole (cut at the output cap, a
    refusal, a tool call: :data:`MODEL_ANSWER_FAILURES`); the endpoint's own failures (a timeout, a 5xx) are asked
    again. Never a streamed answer, at most ``size`` of them and at most ``max_bytes`` of requests and answers (the
    oldest go first: a request carries the whole conversation, about 40 KiB each in lesson 04, so 4,096 of them
    would hold 160 MiB; an entry larger than ``max_bytes`` alone is not kept). An answer given again is a copy
    marked :data:`REUSED`, a refusal a new error marked ``reused``: the call log says which calls the endpoint did
    not answer anew.
    """

    def __init__(self, size: int = 4096, max_bytes: int = 32 * 2**20) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        """The characters the kept requests and answers hold (a request's JSON key and the answer's texts)."""
        self.sizes: dict[str, int] = {}
        self.answers: OrderedDict[str, ChatResponse | KeptFailure] = OrderedDict()
        self.reused = 0
        """How many calls this memo answered instead of the endpoint."""

    @staticmethod
    def key(request: Mapping[str, Any]) -> str | None:
        """The request as its key; None (nothing kept, nothing reused) for one that is not plain JSON all through.

        A value that JSON cannot write has no faithful text (a repr can leave out what tells two requests apart).
        """
        try:
            return json.dumps(request, sort_keys=True)
        except (TypeError, ValueError):
            return None

    def get(self, key: str) -> ChatResponse | KeptFailure | None:
        """A copy of the answer kept for ``key``, marked :data:`REUSED`, or the refusal kept; None if there is none."""
        found = self.answers.get(key)
        if found is None:
            return None
        self.answers.move_to_end(key)
        self.reused += 1
        if isinstance(found, KeptFailure):
            return found
        again = copy.deepcopy(found)
        again.additional_properties = {**(again.additional_properties or {}), REUSED: True}
        return again

    def put(self, key: str, answer: ChatResponse | LiveModelError) -> None:
        """Keep an answer, or a failure that is the model's whole answer refused (:data:`MODEL_ANSWER_FAILURES`)."""
        kept: ChatResponse | KeptFailure
        if isinstance(answer, LiveModelError):
            if answer.kind not in MODEL_ANSWER_FAILURES:
                return  # the endpoint's trouble (a timeout, a 5xx, a dropped stream): the next call may go through
            kept = KeptFailure(str(answer), answer.kind, answer.usage, answer.partial)
            size = len(key) + len(kept.message) + len(kept.partial or "")
        else:
            kept = copy.deepcopy(answer)
            size = len(key) + sum(len(c.text or "") for m in kept.messages for c in m.contents)
        if size > self.max_bytes:
            return
        self._drop(key)
        self.answers[key], self.sizes[key] = kept, size
        self.bytes += size
        while len(self.answers) > self.size or self.bytes > self.max_bytes:
            self._drop(next(iter(self.answers)))

    def _drop(self, key: str) -> None:
        if key in self.answers:
            del self.answers[key]
            self.bytes -= self.sizes.pop(key)


@dataclass(frozen=True)
class KeptFailure:
    """A refused answer as the memo keeps it: what the error said and kept, not the error (its traceback holds the
    frames, sessions and logs of the call that raised it)."""

    message: str
    kind: FailureKind
    usage: Mapping[str, Any] | None
    partial: str | None

    def error(self) -> LiveModelError:
        """The error again, marked reused, saying so: a student who runs the cell again gets the same refusal."""
        again = LiveModelError(
            f"{self.message} (The model's earlier answer to this very request, given again: {REUSE_VAR}=0 asks it "
            "anew.)",
            self.kind,
            self.usage,
            self.partial,
        )
        again.reused = True
        return again


_MEMOS: dict[str, AnswerMemo] = {}


def memo_totals() -> tuple[int, int]:
    """Over this process: the answers the endpoints wrote that a memo keeps, and the calls a memo answered again."""
    return sum(len(m.answers) for m in _MEMOS.values()), sum(m.reused for m in _MEMOS.values())


def forget_answers(base_url: str) -> None:
    """Drop the memo of the endpoint at ``base_url`` (its server stopped: a new one may listen there)."""
    _MEMOS.pop(base_url, None)


def answer_memo(settings: LiveSettings) -> AnswerMemo:
    """The process's memo for the endpoint ``settings`` name (a local server's URL carries its port: one per server)."""
    return _MEMOS.setdefault(str(settings.base_url), AnswerMemo())


def _split_query(url: str | None) -> tuple[str | None, dict[str, str] | None]:
    """A base URL's query (``?api-key=...``, ``?api-version=...``) as the SDK's default query.

    The SDK appends ``/chat/completions`` to the base URL as text, so a query left in it would end up in
    the middle of the path (``/v1/?api-key=...chat/completions``, a 404); sent as a default query, every
    request carries it.
    """
    if not url:
        return url, None
    parts = urlsplit(url)
    if not parts.query:
        return url, None
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", parts.fragment)), dict(parse_qsl(parts.query))


class ReplyProblem(Exception):
    """A reply that arrived but carries no usable answer (raised inside the client, explained outside)."""

    def __init__(
        self,
        message: str,
        kind: FailureKind,
        usage: Mapping[str, Any] | None = None,
        partial: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.usage = usage  # what the provider billed for the reply, when it sent one
        self.partial = partial  # the (masked) text the reply carried before it was refused


class DeadlinePassed(Exception):
    """The call's one deadline passed before a complete answer arrived (raised by the client itself)."""


def unasked_tool_call(names: Sequence[str]) -> ReplyProblem:
    what = ", ".join(repr(name) for name in names) or "a tool"
    return ReplyProblem(
        f"the model answered with a tool call ({what}) though the course offered it no tool, so there is no "
        "answer to show",
        "unasked_tool_call",
    )


def cut_problem(
    max_tokens: int,
    structured: bool,
    usage: Mapping[str, Any] | None = None,
    partial: str | None = None,
    *,
    server_cap: int | None = None,
) -> ReplyProblem:
    """An answer the output cap cut, refused; it keeps the usage billed and the text written before the cut.

    Its advice names what can help: at a server's own cap (``server_cap``, the local server's ``n_predict``), no
    setting raises it, and the course refuses a larger ``COURSE_LLM_MAX_TOKENS`` there (lesson 04's walk).
    """
    what = "the JSON was cut" if structured else "the answer was cut"
    advice = cut_advice(max_tokens, server_cap)
    return ReplyProblem(
        f"{what} at the output cap of {max_tokens} tokens (finish_reason='length'); {advice}",
        "cut_at_output_cap",
        usage,
        partial,
    )


def cut_advice(max_tokens: int, server_cap: int | None = None) -> str:
    """What to do about an answer cut at ``max_tokens``: raise the setting, unless the server's own cap is reached."""
    if server_cap is not None and max_tokens >= server_cap:
        return (
            f"{max_tokens} tokens is the server's own cap, which no setting raises: ask for a shorter answer "
            "(or use a model served with a larger cap)"
        )
    return f"raise {MAX_TOKENS_VAR} (now {max_tokens}) or ask for a shorter answer"


def cut_mark(max_tokens: int) -> str:
    """The visible mark an answer a student reads carries when the output cap cut it."""
    return f" [cut: this answer reached the output cap of {max_tokens} tokens, {MAX_TOKENS_VAR}]"


def filtered(usage: Mapping[str, Any] | None = None, partial: str | None = None) -> ReplyProblem:
    """An answer the endpoint's content filter stopped: what it wrote is kept as partial, never shown as complete.

    A ``refusal`` by its kind: the provider withheld the model's answer, and the same request gets the same verdict.
    """
    return ReplyProblem(
        "the endpoint's content filter stopped the answer (finish_reason='content_filter'); what was written before "
        "is kept as a partial answer, not shown as a complete one",
        "refusal",
        usage,
        partial or None,
    )


MAX_CHARS_PER_TOKEN = 64
"""More characters per token than any tokenizer makes on average (English text: about 4; the longest tokens of
common vocabularies are runs of spaces or punctuation of a few dozen characters)."""


def answer_bound(max_tokens: int) -> int:
    """The most characters an answer of ``max_tokens`` tokens can plausibly carry; a longer one is refused."""
    return max_tokens * MAX_CHARS_PER_TOKEN + 1024


def too_long(characters: int, max_tokens: int, usage: Mapping[str, Any] | None = None) -> ReplyProblem:
    return ReplyProblem(
        f"the answer has {characters:,} characters or more, far longer than the output cap of {max_tokens} tokens "
        f"could make (at most {answer_bound(max_tokens):,}): the endpoint does not keep the cap the request carries",
        "broken_reply",
        usage,
    )


MAX_PLAUSIBLE_TOKENS = 100_000_000
"""More tokens than any one call reads or writes (the largest context windows hold a few million)."""


def plausible_usage(details: UsageDetails) -> UsageDetails:
    """``details`` without the counts that are not a plausible count (negative, huge, fractional, text, a boolean).

    A count left out is ``unknown`` in the call log: a number a server made up is not passed off as a measurement.
    """
    kept = {
        name: value
        for name, value in details.items()
        if type(value) is int and 0 <= value <= MAX_PLAUSIBLE_TOKENS  # bool is an int subclass: excluded by type()
    }
    plausible = UsageDetails()
    plausible.update(kept)  # type: ignore[typeddict-item]
    return plausible


def choices_problem(choices: object, *, streamed: bool = False) -> ReplyProblem | None:
    """What is wrong with a reply's ``choices`` (a list of one choice at index 0, whose content is text), or None.

    The SDK builds replies without validating them: ``choices`` as an object, a second choice (``n=2``, which the
    course never asks for) or content that is not text would otherwise surface as a ``KeyError``, two answers
    glued into one, or "an empty message".
    """
    if not isinstance(choices, list):
        return ReplyProblem(f"'choices' is {_kind_of(choices)}, not a list", "broken_reply")
    indexes = [_field(choice, "index") for choice in choices]
    if len(choices) > 1 or indexes not in ([], [0]):
        listed = " and ".join(str(i) for i in indexes)
        return ReplyProblem(
            f"the endpoint sent {len(choices)} choices (indexes {listed}); the course asks for one",
            "broken_reply",
        )
    for choice in choices:
        part = _field(choice, "delta" if streamed else "message")
        content = _field(part, "content")
        if content is not None and not isinstance(content, str):
            return ReplyProblem(
                f"the message content is {_kind_of(content)}, not text (the Chat Completions answer is a string)",
                "broken_reply",
            )
    return None


def _field(value: object, name: str) -> Any:
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def _kind_of(value: object) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return f"a {type(value).__name__}"


def mask_other_contents(contents: Iterable[Content], settings: LiveSettings) -> None:
    """Mask the key in what a reply carries besides its answer text: reasoning (text and protected data), refusals.

    The answer's own text is masked by the caller (whole, or a stream piece by piece): it is left alone here.
    """
    for content in contents:
        if content.type == "text":
            continue
        if content.text:
            content.text = settings.mask(content.text)
        if getattr(content, "protected_data", None):
            content.protected_data = settings.mask(content.protected_data or "")


class StreamTally:
    """What a stream carried, counted as it passes: enough to say, at its end, whether it was an answer."""

    def __init__(self) -> None:
        self.chunks = self.choices = self.text = 0
        self.finished: str | None = None
        self.refusal = ""
        self.tools: list[str] = []
        self.usage: Mapping[str, Any] | None = None

    def add(self, update: ChatResponseUpdate) -> None:
        self.chunks += 1
        self.choices += any(c.type != "usage" for c in update.contents) or update.finish_reason is not None
        self.finished = str(update.finish_reason) if update.finish_reason else self.finished
        for content in update.contents:
            if content.type == "text" and _is_refusal(content.additional_properties):
                self.refusal += content.text or ""
            elif content.type == "text":
                self.text += len(content.text or "")
            elif content.type == "function_call":
                self.tools.append(content.name or "")
            elif content.type == "usage":
                self.usage = content.usage_details

    def problem(
        self, max_tokens: int, *, cut_is_error: bool, structured: bool, server_cap: int | None = None
    ) -> ReplyProblem | None:
        """What is wrong with the finished stream, or None: it must end with a reason and carry text."""
        if self.refusal:
            return ReplyProblem(f"the model refused: {self.refusal!r}", "refusal")
        if self.tools:
            return unasked_tool_call([name for name in dict.fromkeys(self.tools) if name])
        if self.chunks == 0:
            return ReplyProblem(
                "the streaming request got no server-sent event (a non-SSE body, e.g. HTML or plain JSON)",
                "broken_reply",
            )
        if self.choices == 0:
            return ReplyProblem("the stream carried no choices (only empty 'choices' lists)", "broken_reply")
        if self.finished is None:
            return ReplyProblem(
                f"the stream was cut mid-way: {count_noun(self.choices, 'chunk')} and no finish_reason", "broken_reply"
            )
        if self.finished == "content_filter":
            return filtered(self.usage)
        if self.finished == "length" and (cut_is_error or not self.text):
            return cut_problem(max_tokens, structured, self.usage, server_cap=server_cap)
        if not self.text:
            return ReplyProblem(f"the stream carried no text (finish_reason={self.finished!r})", "empty_answer")
        return None


class StreamMask:
    """Masks the key in streamed text even when it arrives split over several chunks, in time linear in its length.

    Each chunk's text is shown only up to where no run of the key can still be starting: the last
    ``MIN_SECRET_RUN - 1`` characters wait for the next chunk (or the end of the stream). Only what is held back,
    with the ``MIN_SECRET_RUN - 1`` characters shown before it as context, is scanned again: a run that started in
    the shown part is found in that context, and a masked run that goes on is not masked twice. What is shown is
    exactly the masked text of the whole answer.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(s for s in secrets if s)
        self.shown: list[str] = []  # what was released, masked
        self.context = ""  # the last MIN_SECRET_RUN - 1 raw characters released
        self.pending = ""  # raw characters not yet released
        self.masking = False  # whether the last character released was masked

    def apply(self, update: ChatResponseUpdate) -> None:
        """Replace the update's text by the part of the answer that is safe to show now."""
        texts = [c for c in update.contents if c.type == "text" and c.text]
        if not texts:
            return
        released = self.feed("".join(c.text or "" for c in texts))
        texts[0].text = released
        update.contents = [c for c in update.contents if c not in texts[1:] and not (c is texts[0] and not released)]

    def feed(self, text: str) -> str:
        """Take the next piece of the stream; return the masked text that is safe to show now."""
        self.pending += text
        return self._release(final=False)

    def flush(self) -> str:
        """What was held back, masked: the end of the stream means no run can go on."""
        return self._release(final=True)

    def written(self) -> str:
        """Everything the stream carried so far, masked as a whole (what a failed stream had written)."""
        return "".join(self.shown) + self._masked(self.pending, "", commit=False)

    def _release(self, *, final: bool) -> str:
        limit = len(self.pending) if final else len(self.pending) - (MIN_SECRET_RUN - 1)
        if limit <= 0:
            return ""
        piece, self.pending = self.pending[:limit], self.pending[limit:]
        released = self._masked(piece, self.pending, commit=True)
        self.shown.append(released)
        return released

    def _masked(self, piece: str, after: str, *, commit: bool) -> str:
        """``piece`` masked, its runs found with the released context before it and the text ``after`` it."""
        scanned = self.context + piece + after
        covered = secret_coverage(scanned, self.secrets)[len(self.context) : len(self.context) + len(piece)]
        masked = mask_secrets(piece, self.secrets, covered=covered)
        if self.masking and covered[:1] == b"\x01":
            masked = masked.removeprefix(MASK)  # the mask shown last already stands for this run
        if commit:
            self.context = (self.context + piece)[-(MIN_SECRET_RUN - 1) :]
            self.masking = bool(covered[-1:] == b"\x01")
        return masked


def _is_refusal(properties: Mapping[str, Any] | None) -> bool:
    properties = properties or {}
    core = properties.get("core") or {}
    return "refusal" in (core.get("model_output_kind"), properties.get("model_output_kind"))


def _clip(text: str, settings: LiveSettings, limit: int = 200) -> str:
    """``text`` masked, then cut to ``limit`` characters: in this order, so no cut can show part of the key."""
    masked = " ".join(settings.mask(str(text)).split())
    return masked[:limit] + ("..." if len(masked) > limit else "")


def _preview(body: object, settings: LiveSettings) -> str:
    return repr(_clip(str(body), settings, 60))


def _error_message(error: object) -> str:
    if isinstance(error, Mapping):
        return str(error.get("message") or json.dumps(error))
    return str(error)


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


NOT_CONNECTED = "No connection to the endpoint could be opened, so no request was sent."
"""What a ``ConnectError`` means, said after its name: nothing accepted the connection (no server on that port, a wrong
host, a refused secure connection), so the request never left."""


def explain(error: BaseException, settings: LiveSettings) -> tuple[str, str, FailureKind]:
    """(cause, hint, kind) for a failure: what happened in plain words, which setting to change, its category.

    Every piece of the server's own text is masked before it is cut (:func:`_clip`).
    """
    tries = count_noun(settings.max_retries + 1, "attempt")
    url = "check OPENAI_BASE_URL (an OpenAI-compatible base URL usually ends in /v1)"
    slow = f"Raise {TIMEOUT_VAR} (now {settings.timeout:g}) for a slow model, or check that the server answers."
    if isinstance(error, ReplyProblem):
        return str(error), "", error.kind
    if isinstance(error, DeadlinePassed):
        return (
            f"the call's deadline of {settings.deadline:g} s passed before the answer was complete "
            f"({settings.timeout:g} s per attempt, {tries}, retries and streaming included)",
            slow,
            "deadline",
        )
    if isinstance(error, openai.APITimeoutError):
        return (
            f"every attempt timed out: no answer within {settings.timeout:g} s ({tries}; the call's deadline is "
            f"{settings.deadline:g} s)",
            slow,
            "deadline",
        )
    if isinstance(error, openai.APIConnectionError):
        inner = error.__cause__ or error.__context__
        if isinstance(inner, httpx2.RemoteProtocolError | httpx2.ReadError):
            return (
                f"the connection was cut before the answer was complete ({_clip(_described(inner), settings)}; "
                f"{tries})",
                "The server closed the connection mid-answer; check its log.",
                "broken_reply",
            )
        where = (
            f"Is the server running? {url[0].upper()}{url[1:]}."
            if settings.base_url
            else "Check this machine's network: OpenAI's own endpoint could not be reached (OPENAI_BASE_URL is "
            "unset, as it should be for OpenAI)."
        )
        if isinstance(inner, httpx2.ConnectError):  # said in words: the name alone means nothing to a student
            where = f"{NOT_CONNECTED} {where}"
        return f"cannot connect ({_clip(_connection_cause(error), settings)}; {tries})", where, "unreachable"
    if isinstance(error, httpx2.RemoteProtocolError | httpx2.ReadError):  # a stream's body, read after the request
        return (
            f"the stream was cut mid-way: the connection closed ({_clip(_described(error), settings)})",
            "The server closed the connection mid-answer; check its log.",
            "broken_reply",
        )
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return f"the endpoint refused the key (HTTP {error.status_code})", "Check OPENAI_API_KEY.", "key_refused"
    if isinstance(error, openai.RateLimitError):
        return (
            f"rate limited (HTTP 429) after {tries}",
            f"Wait and retry, use a cheaper COURSE_<ROLE>_MODEL, or raise {RETRIES_VAR}.",
            "rate_limited",
        )
    if isinstance(error, openai.NotFoundError):
        return "not found (HTTP 404)", f"Check OPENAI_MODEL (or COURSE_<ROLE>_MODEL), and {url}.", "not_found"
    if isinstance(error, openai.APIStatusError):
        server = error.status_code >= 500
        detail = _status_detail(error, settings)
        return (
            f"{'server error' if server else 'request refused'} (HTTP {error.status_code}{detail})",
            "The server failed; retry later." if server else "The endpoint refused this request.",
            "server_error" if server else "request_refused",
        )
    if isinstance(error, json.JSONDecodeError | openai.APIResponseValidationError):
        return (
            f"the endpoint answered with malformed JSON ({_clip(str(error), settings)})",
            url[0].upper() + url[1:] + ".",
            "broken_reply",
        )
    if isinstance(error, openai.APIError):  # an error event inside a stream, or an error the SDK found in a body
        return (
            f"the endpoint sent an error instead of an answer: {_clip(error.message, settings)}",
            "",
            "server_error",
        )
    return f"{type(error).__name__}: {_clip(str(error), settings)}", "", "other"


def _described(error: BaseException) -> str:
    """A connection error in words, for a student: its message, or its class said as words when it has none.

    ``ConnectError: All connection attempts failed`` named a library class on the student's path (lesson 00's
    walk 22); the class stays in the exception's ``__cause__`` for a maintainer.
    """
    said = str(error).strip().rstrip(".")
    if not said:
        return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type(error).__name__).lower()
    return said[0].lower() + said[1:] if len(said) < 2 or not said[1].isupper() else said


def _connection_cause(error: BaseException) -> str:
    inner = error.__cause__ or error.__context__
    return _described(inner) if inner else str(error)


def _status_detail(error: openai.APIStatusError, settings: LiveSettings) -> str:
    body = error.body if isinstance(error.body, dict) else {}
    inner = body.get("error")
    message = inner.get("message") if isinstance(inner, dict) else body.get("message")
    return f": {_clip(str(message), settings)}" if message else ""


# region The key never reaches a log handler

_LOG_SECRETS: set[str] = set()
_LOG_GUARD = threading.Lock()
_installed = False


def guard_logs(secrets: Iterable[str]) -> None:
    """Mask ``secrets`` in every log record the process makes from now on, whatever logger makes it.

    MAF logs the provider's raw error at DEBUG (a 401 body, an SSE error event: text that may echo the key)
    on ``agent_framework``; the openai SDK and httpx log requests and responses on theirs. A filter on a
    logger sees only the records made on that very logger, not those its children pass up (MAF's
    ``agent_framework.openai``, the SDK's ``openai._base_client``), nor loggers created later; a log record
    factory sees every record once, as it is made, before any filter or handler. It wraps the factory in
    place (installed once; later clients add their secrets) and masks the message, the traceback and the
    stack text of any record that holds a run of a secret.
    """
    global _installed
    with _LOG_GUARD:
        _LOG_SECRETS.update(s for s in secrets if s)
        if _installed:
            return
        previous = logging.getLogRecordFactory()

        def masked_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            mask_record(record, tuple(_LOG_SECRETS))
            return record

        logging.setLogRecordFactory(masked_record)
        _installed = True


def mask_record(record: logging.LogRecord, secrets: Sequence[str]) -> None:
    """Mask ``secrets`` in a record's message, exception text and stack text (in place)."""
    try:
        message = record.getMessage()
    except Exception:  # a record whose arguments do not fit its format: logging reports it itself
        return
    masked = mask_secrets(message, secrets)
    if masked != message:
        record.msg, record.args = masked, None
    if record.exc_info:
        text = logging.Formatter().formatException(record.exc_info)
        masked = mask_secrets(text, secrets)
        if masked != text:  # handlers print exc_text; the live exception itself is dropped from the record
            record.exc_info, record.exc_text = None, masked
    if record.stack_info:
        record.stack_info = mask_secrets(record.stack_info, secrets)


def make_live_client(role: Role, settings: LiveSettings, *, middleware: Sequence[Any] | None = None) -> LiveChatClient:
    """A live client for ``role``: its model, the bounded call and output, checked replies, no key shown."""
    return LiveChatClient(role, settings, middleware=middleware)
