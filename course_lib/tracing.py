"""What each model call saw and returned, kept so a lesson can show it instead of asserting it.

Offline clients append one :class:`ModelCall` per call to their :class:`CallLog`; ``to_frame`` turns the
log into a pandas table with characters sent, the characters/4 *estimate*, and the usage the provider
reported (``unknown`` when it reported none: an estimate is never passed off as a measurement).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_framework import ChatContext, ChatMiddleware, ChatResponse, ChatResponseUpdate, Message, ResponseStream

from .conventions import attribution_source
from .frames import count_noun, rows_frame

if TYPE_CHECKING:  # pandas loads on first use (the table methods): importing the tracing stays quick
    import pandas as pd


__all__ = [
    "CALL_COLUMNS",
    "CHARS_SENT",
    "EST_TOKENS",
    "REUSED",
    "REUSED_COLUMN",
    "UNKNOWN",
    "USAGE_FIELDS",
    "CallLog",
    "ModelCall",
    "RecordingMiddleware",
    "RunCellsAboveFirst",
    "SeenMessage",
    "calls_needed",
    "chars_sent_sum",
    "count_of",
    "log_after_forget",
    "message_text",
    "recording_middleware",
    "reported_label",
    "reported_total",
    "shown_count",
    "values_sent",
]


@dataclass(frozen=True, slots=True)
class SeenMessage:
    """A message as the model received it: role, author, text, and where MAF says it came from."""

    role: str
    text: str
    author_name: str | None = None
    source: str | None = None

    @classmethod
    def of(cls, message: Message) -> SeenMessage:
        return cls(*_seen_fields(message))


def message_text(message: Message | SeenMessage) -> str:
    """``message.text`` (MAF joins the text contents with spaces), with a quick path for one content.

    A full history re-sends every stored message on every turn, so this runs for each of them each time.
    """
    if isinstance(message, SeenMessage):
        return message.text
    contents = message.contents
    if len(contents) == 1:
        return (contents[0].text or "") if contents[0].type == "text" else ""
    return message.text


def _seen_fields(message: Message) -> tuple[str, str, str | None, str | None]:
    return str(message.role), message_text(message), message.author_name, attribution_source(message)


@dataclass(frozen=True)
class ModelCall:
    """One call: the instructions and messages received, the reply text, the usage reported, or the error."""

    client: str
    instructions: str | None
    messages: tuple[SeenMessage, ...]
    reply: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    error: str | None = None
    partial_reply: str = ""
    """What a failed call's model had written before the failure (an answer cut at the output cap), key masked."""
    reused: bool = False
    """Whether the endpoint's earlier answer to this very request was given again instead of a new call (the local
    model's :class:`~course_lib.live_client.AnswerMemo`): the call cost its tokens once, when it was first made."""

    @functools.cached_property
    def chars_sent(self) -> int:
        """Characters of instructions and message text sent: what the model had to read (counted once per call)."""
        return len(self.instructions or "") + sum(len(m.text) for m in self.messages)

    def chars_words(self) -> str:
        """Where this call's characters went, in a sentence: a 14-character message can cost a writer 1096
        characters, and a student reading only the usage table cannot tell the rest is instructions and examples."""
        last = self.messages[-1].text if self.messages else ""
        instructions = len(self.instructions or "")
        earlier = self.chars_sent - instructions - len(last)
        return (
            f"The {self.client} was sent {self.chars_sent} characters for its {len(last)}-character message {last!r}: "
            f"{instructions} of instructions and {earlier} of earlier messages sent with it."
        )


def chars_sent_sum(call: ModelCall) -> str:
    """A call's *chars sent* as the sum it is: its instructions, the messages before the last one, the last message.

    ``1119 = 502 of instructions + 580 of the 12 messages before the last + 37 of the last message``. The count
    includes the instructions (the model reads them too): a lesson's words said they "travel apart and are not
    counted", while the table counted them; the sum says what the number holds. It is instructions and messages
    only: a live writer's structured-output schema (its ``response_format``) is sent too and not counted.
    """
    instructions = len(call.instructions or "")
    parts = [f"{instructions} of instructions"]
    if len(call.messages) > 1:
        earlier = sum(len(m.text) for m in call.messages[:-1])
        before = "the message" if len(call.messages) == 2 else f"the {count_noun(len(call.messages) - 1, 'message')}"
        parts.append(f"{earlier} of {before} before the last")
    if call.messages:
        parts.append(f"{len(call.messages[-1].text)} of the last message")
    return f"{call.chars_sent} = " + " + ".join(parts)


class RunCellsAboveFirst(RuntimeError):
    """A lesson cell reached before the cells it reads have run (after a restart): shown as its one sentence.

    IPython shows what ``_render_traceback_`` returns in place of a traceback, so the student reads one line saying
    what to run, not ``ValueError: not enough values to unpack`` (lesson 02's walk 24). The cell still ends in an
    error, so Run All stops there, as with the course's other "run the cells above first" lines.
    """

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def calls_needed(log: CallLog, count: int, sections: str) -> None:
    """Raise :class:`RunCellsAboveFirst` when ``log`` holds fewer than ``count`` calls: ``sections`` make them."""
    if len(log) < count:
        held = "none" if not len(log) else f"only {len(log)}"
        raise RunCellsAboveFirst(
            f"This cell reads the first {count} model calls, and this kernel has logged {held} yet: run {sections} "
            "first (Run > Run All Above Selected Cell), then this cell again."
        )


REUSED_COLUMN = "answered again (memo)"
"""The column that says which calls the memo answered again, shown only when it answered one."""
REUSED = "course_reused"
"""The mark an answer given again carries in its ``additional_properties`` (:attr:`ModelCall.reused` records it)."""
USAGE_FIELDS = ("input_tokens", "output_tokens", "total_tokens")
"""The token counts a provider reports (input, output, total); ``None`` on a call means not reported."""
EST_TOKENS = "estimated tokens (chars / 4)"
"""The column of the characters/4 *estimate*, spelled once: every table that shows it names it so."""
CHARS_SENT = "chars sent"
"""The column of the characters a call sent (instructions and messages), named as every table names it."""


def reported_label(field: str) -> str:
    """A table's label for a reported count: ``input_tokens`` -> ``reported input tokens``, in plain words.

    Every table that shows what a provider reported (lessons 00, 02, 04, 06, ``make qualify``) names it so, beside
    the estimate, so that a measured count and an estimate are never confused.
    """
    return f"reported {field.replace('_', ' ')}"


UNKNOWN = "unknown"
"""What a table shows for a count the provider did not report: an estimate is never shown in its place."""


def reported_total(counts: Iterable[int | None]) -> int | None:
    """A sum of reported counts; None when there is none or any is unreported (a partial sum is no measurement)."""
    counts = list(counts)
    return None if not counts or None in counts else sum(c for c in counts if c is not None)


def count_of(shown: object) -> int | None:
    """A count read back from a table (:func:`shown_count`'s inverse): None for :data:`UNKNOWN`."""
    return None if shown == UNKNOWN else int(str(shown))


def shown_count(count: int | None) -> int | str:
    """A reported count as a table shows it: the number, or :data:`UNKNOWN`."""
    return UNKNOWN if count is None else count


@dataclass
class CallLog:
    """An append-only list of :class:`ModelCall`, shared by the clients of one experiment."""

    calls: list[ModelCall] = field(default_factory=list)
    _seen: dict[tuple[str, str, str | None, str | None], SeenMessage] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def record(self, call: ModelCall) -> None:
        self.calls.append(call)

    def seen(self, messages: Sequence[Message]) -> tuple[SeenMessage, ...]:
        """The messages as the model received them, each distinct one stored once in this log.

        A full history sends every earlier message again on every turn; sharing the (immutable) records
        makes each re-sent message cost the log one reference instead of a new record.
        """
        records = []
        for message in messages:
            fields = _seen_fields(message)
            record = self._seen.get(fields)
            if record is None:
                record = self._seen[fields] = SeenMessage(*fields)
            records.append(record)
        return tuple(records)

    def clear(self) -> None:
        self.calls.clear()
        self._seen.clear()

    def __len__(self) -> int:
        return len(self.calls)

    def to_frame(self) -> pd.DataFrame:
        """One row per call: client, messages received, characters sent, estimate, reported usage."""
        frame = rows_frame((_row(i, c) for i, c in enumerate(self.calls, start=1)), CALL_COLUMNS)
        if self.reused_any:  # said only where it happened: offline, and live without the memo, no such column
            frame[REUSED_COLUMN] = [c.reused for c in self.calls]
        return frame

    @property
    def reused_any(self) -> bool:
        """Whether the memo answered any of these calls again (their tokens were reported for the first one)."""
        return any(c.reused for c in self.calls)

    def usage_by_role(self) -> pd.DataFrame:
        """One row per client (role): calls, characters sent, the chars/4 estimate, reported tokens.

        A reported column is a sum only when every call of that role reported it; otherwise it says
        ``unknown`` (a partial sum would pass for a measurement). When the memo answered calls again, a column
        counts them: their reported tokens are the first call's, what the request costs.
        """
        rows = []
        for client in dict.fromkeys(c.client for c in self.calls):
            calls = [c for c in self.calls if c.client == client]
            chars = sum(c.chars_sent for c in calls)
            row: dict[str, object] = {"role": client, "calls": len(calls), CHARS_SENT: chars}
            row[EST_TOKENS] = chars // 4
            for usage in USAGE_FIELDS:
                row[reported_label(usage)] = shown_count(reported_total(getattr(c, usage) for c in calls))
            rows.append(row)
        usage_columns = [reported_label(usage) for usage in USAGE_FIELDS]
        frame = rows_frame(rows, ["role", "calls", CHARS_SENT, EST_TOKENS, *usage_columns])
        if self.reused_any:
            frame[REUSED_COLUMN] = [sum(c.reused for c in self.calls if c.client == row["role"]) for row in rows]
        return frame


class RecordingMiddleware(ChatMiddleware):
    """Chat middleware that logs exactly what reaches the client and the usage the provider reported.

    Works for any client, offline or live: it sits where MAF hands the final message list to the model,
    after context providers and compaction have done their work.
    """

    def __init__(self, log: CallLog, name: str) -> None:
        self.log = log
        self.name = name

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        sent = self.log.seen(context.messages)
        instructions = (context.options or {}).get("instructions")

        def failed(error: BaseException) -> None:
            """A failed call was still sent: it is logged with its error, no reply, and what the error kept.

            A live error (:class:`~course_lib.live.LiveModelError`) keeps the usage the provider billed for a reply
            the course refused, and the text the model had written before it was cut; its message has the key masked.
            """
            usage = getattr(error, "usage", None) or {}
            self.log.record(
                ModelCall(
                    self.name,
                    instructions,
                    sent,
                    reply="",
                    error=str(error),
                    input_tokens=usage.get("input_token_count"),
                    output_tokens=usage.get("output_token_count"),
                    total_tokens=usage.get("total_token_count"),
                    partial_reply=getattr(error, "partial", None) or "",
                    reused=getattr(error, "reused", False) is True,
                )
            )

        try:
            await call_next()
        except Exception as error:
            failed(error)
            raise

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
                    reused=bool((response.additional_properties or {}).get(REUSED)),
                )
            )

        if context.stream and isinstance(context.result, ResponseStream):
            # A stream is not consumed yet: record once MAF has assembled the final response from it, or, if it
            # fails while it is read (no final response is ever built), record the failure then.
            context.result = _watch_failure(context.result, failed)
            context.stream_result_hooks.append(record)
        elif isinstance(context.result, ChatResponse):
            record(context.result)


CALL_COLUMNS = ("call", "client", "messages", CHARS_SENT, EST_TOKENS, reported_label("input_tokens"), "reply")
"""The columns of :meth:`CallLog.to_frame`, one row per model call."""


def _watch_failure(
    stream: ResponseStream[ChatResponseUpdate, ChatResponse], on_failure: Callable[[BaseException], None]
) -> ResponseStream[ChatResponseUpdate, ChatResponse]:
    """``stream`` as it is, its updates and final response unchanged, with ``on_failure`` called if reading it fails.

    MAF's stream hooks run on a final response (result hooks) or without the error (cleanup hooks), so the error a
    stream raises while it is read is seen here, in a stream that reads the original one. The original stream's own
    finalizer and hooks still build the final response (``get_final_response`` on the consumed original).
    """

    reported: list[BaseException] = []

    def report(error: BaseException) -> None:
        if not reported:  # once per call, whether reading or finalizing failed
            reported.append(error)
            on_failure(error)

    async def updates() -> AsyncIterator[ChatResponseUpdate]:
        try:
            async for update in stream:
                yield update
        except Exception as error:
            report(error)
            raise

    async def final(_: Sequence[ChatResponseUpdate]) -> ChatResponse:
        try:
            return await stream.get_final_response()
        except Exception as error:  # the final response could not be built (structured output that does not parse)
            report(error)
            raise

    return ResponseStream(updates(), finalizer=final)


def _row(index: int, call: ModelCall) -> dict[str, object]:
    return {
        "call": index,
        "client": call.client,
        "messages": len(call.messages),
        CHARS_SENT: call.chars_sent,
        EST_TOKENS: call.chars_sent // 4,
        reported_label("input_tokens"): shown_count(call.input_tokens),
        "reply": call.reply,
    }


def recording_middleware(client: object, log: CallLog, name: str) -> list[ChatMiddleware]:
    """What an agent on ``client`` needs so that each call lands once in ``log``: nothing if the client records there.

    A client built with this log (``make_chat_client(role, log=log)``) already records every call: an offline
    model in its own ``_respond``, a live one with a :class:`RecordingMiddleware` of its own. Otherwise the agent
    gets a ``RecordingMiddleware``. Both record the same messages, those MAF hands to the client (the course sets no
    in-run ``compaction_strategy``, which MAF would apply between the two). The difference is cost: any chat
    middleware makes MAF's chat-middleware layer reconcile compaction summaries over every message sent after each
    call (``_reconcile_compaction_summaries`` in ``agent_framework/_middleware.py``), which with a full history is
    every stored message on every turn.
    """
    if getattr(client, "log", None) is log:
        return []
    own = getattr(client, "chat_middleware", None) or []
    if any(isinstance(m, RecordingMiddleware) and m.log is log for m in own):
        return []
    return [RecordingMiddleware(log, name)]


def log_after_forget(log: CallLog, value: str, forgotten_at: int, forget_line: str | None = None) -> str:
    """What ``log`` still holds of a forgotten ``value``, in sentences: the calls before the forget that sent it,
    and whether any of the calls made since did.

    A student who reads "forgotten" may expect every trace of the value to be gone; the promise is about the store
    and what later calls send the model. The log is a record of past calls and keeps them: this says so from the run.
    ``forgotten_at`` is the number of calls logged when the forget ran; ``forget_line`` is that forget's line as
    typed (``forget module``), so the count is said of the forget it was taken at, when a script runs more than one.
    The sentence is printed, not rendered: the forget is quoted ('forget module'), and the bracket that says why the
    log holds that many calls stands right after their number (issue 32, walk 7).
    """
    sent = [i for i, call in enumerate(log.calls, start=1) if any(value in m.text for m in call.messages)]
    before = sum(i <= forgotten_at for i in sent)
    after = [i for i in sent if i > forgotten_at]
    later = len(log) - forgotten_at
    forget = f"'{' '.join(forget_line.split())}'" if forget_line else "the forget"  # printed text, not Markdown
    counted = _calls_counted(log.calls[:forgotten_at])  # why that many calls: said beside their number
    whose = _whose_calls([log.calls[i - 1] for i in sent if i <= forgotten_at])  # which calls: named, not counted
    said = (
        f"The call log still holds {value}: of the {forgotten_at} calls made before {forget}{counted}, "
        f"{before} sent it{whose}"
    )
    if after:
        since = "the one call made since did" if later == 1 else f"{len(after)} of the {later} calls made since did"
        return f"{said}, and {since}: the user's own words sent it again."
    # a cell re-run out of order can leave no call after the forget: said in words, never "none of the 0 calls"
    since = {0: "no call has been made since", 1: "the one call made since did not"}.get(
        max(later, 0), f"none of the {later} calls made since did"
    )
    return (
        f"{said}, and {since}. Forgetting reaches the store and the sessions, so "
        "no later call sends the value; the log is a record of past calls, and forgetting does not rewrite it."
    )


def _whose_calls(calls: Sequence[ModelCall]) -> str:
    """Which clients the ``calls`` went to, in brackets, in the order of their first call, or ``""`` for none.

    "3 sent it" left a student to guess which three (lesson 03's third walk, issue 32). A client is named as
    :func:`_calls_counted` counts them: the writer, or a desk under its log label (``triage`` is the triage desk).
    """
    if not calls:
        return ""
    counts = Counter(call.client for call in calls)
    names = [_client_named(client) for client in counts]
    if all(n == 1 for n in counts.values()):
        if len(names) == 1:
            return f" (the call to {names[0]})"
        return f" (one call each to {', '.join(names[:-1])} and {names[-1]})"
    parts = [f"{n} to {name}" for n, name in zip(counts.values(), names, strict=True)]
    return f" ({', '.join(parts[:-1])} and {parts[-1]})" if len(parts) > 1 else f" ({parts[0]})"


def _client_named(client: str) -> str:
    """A log label in words: ``writer`` is the writer, ``assistant`` the desk, any other label that desk's name."""
    return {"writer": "the writer", "assistant": "the desk"}.get(client, f"the {client} desk")


def _calls_counted(calls: Sequence[ModelCall]) -> str:
    """Why the log holds that many calls, from its own records: each turn calls its desk, then the writer.

    A student who typed three lines does not expect six calls; the writer's calls are the hidden half.
    """
    writers = sum(call.client == "writer" for call in calls)
    desks = len(calls) - writers
    if not writers:
        return ""
    if writers == desks == 1:
        return " (the one turn called its desk, then the writer)"
    if writers == desks:
        return f" (each of the {writers} turns called its desk, then the writer)"
    return f" ({desks} desk calls and {writers} writer calls)"


def values_sent(call: ModelCall, values: Sequence[str]) -> list[str]:
    """The ``values`` whose words one model call carried, in its instructions or messages, in ``values``' order.

    Lesson 02's walk: with the store emptied and the old session kept, the forget filter hides the values the store
    forgot, and a value a correction had replaced before (``Reporting``) still reaches the model from the kept
    history; the lesson prints which ones did, so its sentence on why ``forget`` replaces the session is computed.
    """
    text = "\n".join([call.instructions or "", *(m.text for m in call.messages)])
    return [value for value in values if value in text]
