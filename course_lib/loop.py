"""``LoopAgent``: re-invoke an inner agent until its evaluators stop it (MAF .NET semantics, in Python).

MAF .NET ships ``LoopAgent``, a delegating agent that runs its inner agent, asks one or more
``LoopEvaluator`` objects whether the result is good enough, and if not re-invokes the agent with
their feedback. MAF Python has a different mechanism (``AgentLoopMiddleware``); this module
re-creates the .NET type on top of MAF Python agents so the lessons can trace its exact message flow.
``tests/test_dotnet_conformance.py`` runs MAF .NET's own loop unit tests, ported, against it.

The flow, per run:

1. The caller's messages are the *initial messages* (not copied, as in .NET). Without a caller session
   the loop creates one from the inner agent (and reports it to ``session_created_callback``). With
   fresh context and a caller session, the session is serialized once, before the first iteration.
2. Each iteration runs the inner agent, sums usage, and appends to the transcript the on-behalf-of
   messages that drove it (from iteration 2) and then its response messages.
3. A response that asks for tool approval ends the run at once; so do an exhausted token or time
   budget and reaching the iteration cap (inclusive: the evaluators are not asked after the last
   permitted run). A non-streaming result then says why in ``additional_properties["loop_exit_reason"]``.
4. Evaluators are asked in order (an exit reason an earlier pass stamped is cleared first); the first
   that asks to re-invoke wins and the rest are skipped. The loop ends only when all of them say stop
   (with no exit reason, unless one of them stamped its own), or when the time budget ran out while they were
   asked (a slow evaluator starts no other iteration).
   Each re-invocation records its feedback (or None).
5. The next input: an evaluator's explicit messages verbatim; otherwise, without fresh context, the
   latest feedback alone as one User message (nothing when blank: the agent continues from its
   history); with fresh context, the initial messages plus one ``## Feedback`` message listing every
   non-blank feedback so far, on a reset session (a new loop-owned one, or a clone of the caller's).

Every message the loop adds -- feedback, the ``## Feedback`` log, an evaluator's explicit messages --
carries MAF's attribution, ``additional_properties["_attribution"] = {"source_id": "loop",
"source_type": "LoopAgent"}`` (the shape ``SessionContext.extend_messages`` gives a context provider's
messages), so a fact writer or a context provider can tell them from the caller's own words.

Python adaptations of the .NET API: ``CancellationToken`` parameters are gone (cancel the asyncio task);
options classes of the evaluators are keyword arguments; ``ArgumentNullException`` is ``ValueError``
naming the argument, raised at once.
"""

from __future__ import annotations

import copy
import inspect
import logging
import os
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal, TypeVar, overload

from agent_framework import (
    AgentResponse,
    AgentResponseUpdate,
    AgentRunInputs,
    AgentSession,
    BaseAgent,
    Content,
    Message,
    ResponseStream,
    SupportsAgentRun,
    SupportsChatGetResponse,
    UsageDetails,
    add_usage_details,
    normalize_messages,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "CRITERIA_HEADING",
    "DEFAULT_MAX_ITERATIONS",
    "LOOP_SOURCE_ID",
    "REQUEST_HEADING",
    "RESPONSE_HEADING",
    "AIJudgeLoopEvaluator",
    "AIJudgeVerdict",
    "CompletionMarkerLoopEvaluator",
    "DelegateLoopEvaluator",
    "LoopAgent",
    "LoopAgentOptions",
    "LoopContext",
    "LoopEvaluation",
    "LoopEvaluator",
    "LoopExitReason",
    "SessionCallback",
    "SignalProtocolLoopEvaluator",
    "call_guards",
    "guarded_quote",
    "loop_attribution",
    "render_criteria",
]


logger = logging.getLogger(__name__)

DEFAULT_MAX_ITERATIONS = 10
"""What ``max_iterations=None`` falls back to, as ``LoopAgent.DefaultMaxIterations`` in .NET."""
LOOP_SOURCE_ID = "loop"
"""The ``source_id`` of the attribution on every message the loop adds."""
_PRIVATE = object()

SessionCallback = Callable[[AgentSession], Awaitable[None] | None]
_T = TypeVar("_T")


def _required(value: _T | None, name: str) -> _T:
    """.NET's ``Throw.IfNull``: refuse None at once, naming the argument (the value keeps its type)."""
    if value is None:
        raise ValueError(f"{name} is required; got None.")
    return value


class LoopExitReason:
    """Why a loop stopped, under ``additional_properties["loop_exit_reason"]`` (plain strings, as in .NET).

    The loop stamps the response of a non-streaming run when its cap or a budget stops it; an evaluator may stamp
    ``LoopContext.additional_properties`` before it says stop (the signal protocol does), and the loop copies that
    value to the response. A plain stop of the evaluators (a completion marker, a judge, a delegate) and a pending
    tool approval stamp nothing, as in MAF .NET's ``LoopAgent``: no reason is a reason's absence, not a code.
    """

    ADDITIONAL_PROPERTIES_KEY = "loop_exit_reason"
    COMPLETED = "completed"
    ITERATION_CAP_REACHED = "iteration_cap_reached"
    NEED_INPUT = "need_input"
    CANCELLED = "cancelled"
    TOKEN_BUDGET_EXCEEDED = "token_budget_exceeded"
    TIME_BUDGET_EXCEEDED = "time_budget_exceeded"


class LoopEvaluation:
    """An evaluator's verdict: stop, or re-invoke with feedback, or re-invoke with explicit messages.

    Built only through :meth:`stop`, :meth:`continue_with` and :meth:`continue_with_messages`.
    """

    __slots__ = ("_messages", "feedback", "should_reinvoke")
    _STOP: LoopEvaluation

    def __init__(
        self, should_reinvoke: bool, feedback: str | None, messages: tuple[Message, ...] | None, *, _token: object
    ):
        if _token is not _PRIVATE:
            raise TypeError("Use LoopEvaluation.stop(), .continue_with() or .continue_with_messages().")
        self.should_reinvoke = should_reinvoke
        self.feedback = feedback
        self._messages = messages

    @classmethod
    def stop(cls) -> LoopEvaluation:
        """Stop the loop (as far as this evaluator is concerned). Always the same shared instance."""
        return cls._STOP

    @classmethod
    def continue_with(cls, feedback: str | None = None) -> LoopEvaluation:
        """Re-invoke; ``feedback`` becomes the next User message. Blank feedback counts as none."""
        return cls(True, feedback if feedback and feedback.strip() else None, None, _token=_PRIVATE)

    @classmethod
    def continue_with_messages(cls, messages: Iterable[Message]) -> LoopEvaluation:
        """Re-invoke with exactly these messages as the next input (no feedback string is recorded)."""
        items = tuple(_required(messages, "messages"))
        if not all(isinstance(m, Message) for m in items):
            raise TypeError("continue_with_messages() takes agent_framework.Message objects only.")
        return cls(True, None, items, _token=_PRIVATE)

    @property
    def messages(self) -> tuple[Message, ...] | None:
        """The explicit next-input messages, or None (internal in .NET; read-only here for the lessons)."""
        return self._messages

    def __repr__(self) -> str:
        if not self.should_reinvoke:
            return "LoopEvaluation.stop()"
        if self._messages is not None:
            return f"LoopEvaluation.continue_with_messages({len(self._messages)} messages)"
        return f"LoopEvaluation.continue_with({self.feedback!r})"


LoopEvaluation._STOP = LoopEvaluation(False, None, None, _token=_PRIVATE)


class LoopContext:
    """What an evaluator sees: the task, the latest response, the feedback so far, and a scratch dict.

    The loop creates one per run, after the first iteration (so ``last_response`` is never None), and
    advances it after each iteration. It can also be built directly, to test an evaluator on its own:
    ``LoopContext(agent, session, initial_messages, last_response)`` starts at iteration 0 with no feedback.
    ``additional_properties`` holds per-run state so evaluators themselves can stay stateless.
    """

    def __init__(
        self,
        agent: SupportsAgentRun,
        session: AgentSession,
        initial_messages: Sequence[Message],
        last_response: AgentResponse,
        run_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._agent = _required(agent, "agent")
        self.session: AgentSession = _required(session, "session")
        """The session the latest iteration ran on (the loop replaces it for a fresh context)."""
        self._initial = _required(initial_messages, "initial_messages")
        self._last_response: AgentResponse = _required(last_response, "last_response")
        self._run_options = run_options
        self._feedback: Sequence[str | None] = ()
        self._iteration = 0
        self.additional_properties: dict[str, Any] = {}

    @property
    def agent(self) -> SupportsAgentRun:
        """The inner agent being looped."""
        return self._agent

    @property
    def initial_messages(self) -> Sequence[Message]:
        """The caller's messages, as given: the original task."""
        return self._initial

    @property
    def run_options(self) -> Mapping[str, Any] | None:
        """The extra keyword arguments the caller passed to ``run`` (forwarded to the inner agent), or None."""
        return self._run_options

    @property
    def iteration(self) -> int:
        """Completed runs of the inner agent in this loop run, from 1 (0 for a context built by hand)."""
        return self._iteration

    @property
    def last_response(self) -> AgentResponse:
        """The inner agent's latest response."""
        return self._last_response

    @property
    def feedback(self) -> tuple[str | None, ...]:
        """One entry per re-invocation so far: the feedback string, or None. Read-only."""
        return tuple(self._feedback)

    def _advance(self, iteration: int, response: AgentResponse) -> None:
        self._iteration, self._last_response = iteration, response


class LoopEvaluator(ABC):
    """Decides, after each iteration, whether the loop stops or re-invokes the agent (and with what)."""

    @abstractmethod
    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        """Return :meth:`LoopEvaluation.stop` or a ``continue_*`` evaluation."""


@dataclass(frozen=True)
class LoopAgentOptions:
    """The knobs of a loop (.NET's ``LoopAgentOptions``); every one is shown changed, one at a time, in lesson 06.

    The budgets (``max_iterations``, ``max_tokens``, ``max_duration``) are checked after each iteration and
    before the evaluators are asked: a run that reached one ends without asking them.
    """

    max_iterations: int | None = DEFAULT_MAX_ITERATIONS
    """The most times the inner agent runs, inclusive (the evaluators are not asked after the last permitted run).

    ``None`` means the default cap of 10, as in .NET's ``LoopAgent.cs`` (``options?.MaxIterations ??
    DefaultMaxIterations``): there is no unbounded loop. A value below 1 is refused.
    """
    fresh_context_per_iteration: bool = False
    """Re-invoke on a reset session with the initial messages plus one ``## Feedback`` message listing every
    feedback so far, instead of the whole history plus the latest feedback: the input stops growing."""
    on_behalf_of_author_name: str | None = None
    """The ``author_name`` of the messages the loop adds (feedback, the feedback log); None leaves it unset."""
    exclude_on_behalf_of_messages: bool = False
    """Leave the messages the loop added out of what the caller gets back; they are still sent to the inner agent."""
    non_streaming_returns_last_response_only: bool = False
    """A non-streaming run returns only the last iteration's response, not the whole transcript of the loop."""
    session_created_callback: SessionCallback | None = None
    """Called (and awaited, if it returns an awaitable) with each session the loop creates: the one it owns
    without a caller session, and each reset one with fresh context."""
    max_tokens: int | None = None
    """A token budget (.NET's newer option): the run stops once the tokens the inner agent reported (total, else
    input + output) reach it. None: no budget; a client that reports no usage never reaches one."""
    max_duration: timedelta | None = None
    """A time budget (.NET's newer option): the run stops once it has passed; checked again after the evaluators
    answered, so a slow evaluator cannot start another iteration. None: no budget."""

    def __post_init__(self) -> None:
        if self.max_iterations is not None and self.max_iterations < 1:
            raise ValueError(
                f"max_iterations must be at least 1, or None for the default of {DEFAULT_MAX_ITERATIONS}; "
                f"got {self.max_iterations}."
            )
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer or None; got {self.max_tokens}.")
        if self.max_duration is not None and self.max_duration <= timedelta(0):
            raise ValueError(f"max_duration must be a positive duration or None; got {self.max_duration}.")

    @property
    def iteration_cap(self) -> int:
        """The cap the loop enforces: ``max_iterations``, or the default of 10 when it is None."""
        return DEFAULT_MAX_ITERATIONS if self.max_iterations is None else self.max_iterations


class LoopAgent(BaseAgent):
    """A MAF agent that loops an inner agent until every evaluator says stop (or the cap is reached).

    It has the ``SupportsAgentRun`` surface (``run(messages, stream=..., session=...)``,
    ``create_session``), so it can be used wherever an agent is, wrapped, or nested.
    """

    def __init__(
        self,
        inner_agent: SupportsAgentRun,
        evaluators: LoopEvaluator | Sequence[LoopEvaluator],
        options: LoopAgentOptions | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        description: str | None = None,
    ) -> None:
        _required(inner_agent, "inner_agent")
        chain = [evaluators] if isinstance(evaluators, LoopEvaluator) else list(_required(evaluators, "evaluators"))
        if not chain:
            raise ValueError("evaluators must hold at least one LoopEvaluator.")
        if any(not isinstance(e, LoopEvaluator) for e in chain):
            raise ValueError("evaluators must be LoopEvaluator instances; None or another type is not allowed.")
        super().__init__(id=id, name=name or inner_agent.name, description=description or inner_agent.description)
        self.inner_agent = inner_agent
        self.evaluators: tuple[LoopEvaluator, ...] = tuple(chain)
        self.options = options or LoopAgentOptions()

    def create_session(self, *, session_id: str | None = None) -> AgentSession:
        """Sessions come from the inner agent: it is the one that stores history in them."""
        return self.inner_agent.create_session(session_id=session_id)

    def get_session(self, service_session_id: Any, *, session_id: str | None = None) -> AgentSession:
        return self.inner_agent.get_session(service_session_id, session_id=session_id)

    @overload
    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[False] = ...,
        session: AgentSession | None = None,
        **kwargs: Any,
    ) -> Awaitable[AgentResponse]: ...

    @overload
    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: Literal[True],
        session: AgentSession | None = None,
        **kwargs: Any,
    ) -> ResponseStream[AgentResponseUpdate, AgentResponse]: ...

    def run(
        self,
        messages: AgentRunInputs | None = None,
        *,
        stream: bool = False,
        session: AgentSession | None = None,
        **kwargs: Any,
    ) -> Awaitable[AgentResponse] | ResponseStream[AgentResponseUpdate, AgentResponse]:
        """Run the loop; ``kwargs`` (options, tools, ...) are forwarded to every inner run."""
        state = _LoopRun(self, messages, session, kwargs)
        if stream:
            return ResponseStream(state.stream(), finalizer=lambda _updates: state.streamed_result())
        return state.run()


class _LoopRun:
    """The state of one loop run, shared by the streaming and non-streaming paths."""

    def __init__(
        self, loop: LoopAgent, messages: AgentRunInputs | None, session: AgentSession | None, kwargs: dict[str, Any]
    ) -> None:
        self.loop, self.options, self.kwargs = loop, loop.options, kwargs
        self.initial = tuple(normalize_messages(messages))
        self.owned = session is None
        self.session = session
        self.snapshot: dict[str, Any] | None = None
        self.feedback: list[str | None] = []
        self.next_input: list[Message] = list(self.initial)
        self.surfaced: list[Message] = []
        self.transcript: list[Message] = []
        self.responses: list[AgentResponse] = []
        self.usage: UsageDetails | None = None
        self.tokens = 0
        self.started = time.monotonic()
        self.exit_reason: str | None = None
        self.context: LoopContext | None = None

    async def start(self) -> None:
        if self.session is None:
            self.session = await self._new_session()
        elif self.options.fresh_context_per_iteration:
            self.snapshot = self.session.to_dict()

    async def run(self) -> AgentResponse:
        await self.start()
        while True:
            response = await self.loop.inner_agent.run(self.next_input, session=self._active(), **self.kwargs)
            if not await self.after(response):
                return self.result()

    async def stream(self) -> AsyncIterator[AgentResponseUpdate]:
        await self.start()
        while True:
            pending = self._surfaced_updates()
            inner = self.loop.inner_agent.run(self.next_input, stream=True, session=self._active(), **self.kwargs)
            async for update in inner:
                if pending:
                    for surfaced in pending:
                        surfaced.response_id = update.response_id or surfaced.response_id
                        yield surfaced
                    pending = []
                yield update
            for surfaced in pending:  # the iteration produced no update: surface the feedback anyway
                yield surfaced
            if not await self.after(await inner.get_final_response()):
                return

    def _active(self) -> AgentSession:
        """The context's session once it exists (a fresh context replaces it), else the resolved one."""
        session = self.context.session if self.context is not None else self.session
        assert session is not None
        return session

    async def after(self, response: AgentResponse) -> bool:
        """Record an iteration; return True when the loop must run the inner agent again."""
        self.responses.append(response)
        iteration = len(self.responses)
        self.usage = _sum_usage(self.usage, response.usage_details)
        self.tokens += _tokens(response.usage_details)
        if iteration >= 2 and not self.options.exclude_on_behalf_of_messages:
            self.transcript += self.surfaced
        self.transcript += response.messages
        context = self._context(response)
        context._advance(iteration, response)
        if response.user_input_requests:
            return False
        self.exit_reason = self._budget_or_cap(iteration)
        if self.exit_reason is not None:
            return False
        evaluation = await self._evaluate(context)
        if evaluation is None:
            self.exit_reason = context.additional_properties.get(LoopExitReason.ADDITIONAL_PROPERTIES_KEY)
            return False
        if self._duration_spent():  # a slow evaluator may have spent the rest of the time budget
            self.exit_reason = LoopExitReason.TIME_BUDGET_EXCEEDED
            return False
        await self._prepare_next(evaluation)
        return True

    def _duration_spent(self) -> bool:
        budget = self.options.max_duration
        return budget is not None and time.monotonic() - self.started >= budget.total_seconds()

    def _budget_or_cap(self, iteration: int) -> str | None:
        """The reason to stop before asking the evaluators (time, then tokens, then the cap), or None."""
        if self._duration_spent():
            return LoopExitReason.TIME_BUDGET_EXCEEDED
        if self.options.max_tokens is not None and self.tokens >= self.options.max_tokens:
            return LoopExitReason.TOKEN_BUDGET_EXCEEDED
        if iteration >= self.options.iteration_cap:
            logger.info(
                "LoopAgent %s reached max_iterations=%d; returning the last response.", self.loop.name, iteration
            )
            return LoopExitReason.ITERATION_CAP_REACHED
        return None

    def result(self) -> AgentResponse:
        final = self._final(last_only=self.options.non_streaming_returns_last_response_only)
        if self.exit_reason is not None:
            final.additional_properties = {
                **(final.additional_properties or {}),
                LoopExitReason.ADDITIONAL_PROPERTIES_KEY: self.exit_reason,
            }
        return final

    def streamed_result(self) -> AgentResponse:
        """A stream's final response: always the whole transcript, no exit reason (as .NET streams)."""
        return self._final(last_only=False)

    def _final(self, *, last_only: bool) -> AgentResponse:
        last = self.responses[-1]
        final = copy.copy(last)
        if not last_only:
            final.messages = list(self.transcript)
        final.usage_details = self.usage
        return final

    def _context(self, first_response: AgentResponse) -> LoopContext:
        if self.context is None:
            assert self.session is not None
            self.context = LoopContext(
                self.loop.inner_agent, self.session, self.initial, first_response, self.kwargs or None
            )
            self.context._feedback = self.feedback  # the same list: evaluators see entries as they are added
        return self.context

    async def _evaluate(self, context: LoopContext) -> LoopEvaluation | None:
        """The first evaluation that re-invokes, or None when all stop.

        An exit reason stamped by an earlier pass is cleared first (as .NET does): only the pass that ends the
        loop says why it ended.
        """
        context.additional_properties.pop(LoopExitReason.ADDITIONAL_PROPERTIES_KEY, None)
        for evaluator in self.loop.evaluators:
            evaluation = await evaluator.evaluate(context)
            if evaluation.should_reinvoke:
                return evaluation
        return None

    async def _prepare_next(self, evaluation: LoopEvaluation) -> None:
        fresh = self.options.fresh_context_per_iteration
        assert self.context is not None
        if fresh:
            self.context.session = await self._reset_session()
        self.feedback.append(evaluation.feedback)
        if evaluation.messages is not None:
            self.next_input = [_attributed(m) for m in evaluation.messages]
            self.surfaced = list(self.next_input)
            return
        text = _feedback_log(self.feedback) if fresh else evaluation.feedback
        message = self._on_behalf_of(text) if text else None
        self.surfaced = [message] if message else []
        self.next_input = [*self.initial, *self.surfaced] if fresh else list(self.surfaced)

    def _on_behalf_of(self, text: str) -> Message:
        return Message(
            role="user",
            contents=[text],
            author_name=self.options.on_behalf_of_author_name,
            message_id=_new_id(),
            additional_properties={"_attribution": loop_attribution()},
        )

    def _surfaced_updates(self) -> list[AgentResponseUpdate]:
        if not self.responses or self.options.exclude_on_behalf_of_messages:
            return []
        return [
            AgentResponseUpdate(
                contents=list(m.contents),
                role=m.role,
                author_name=m.author_name,
                message_id=m.message_id or _new_id(),
                response_id=_new_id(),
                additional_properties=dict(m.additional_properties),
            )
            for m in self.surfaced
        ]

    async def _reset_session(self) -> AgentSession:
        if self.owned:
            return await self._new_session()
        assert self.snapshot is not None and self.session is not None
        clone = type(self.session).from_dict(self.snapshot)  # the caller's session class restores its own
        await self._notify(clone)
        return clone

    async def _new_session(self) -> AgentSession:
        session = self.loop.inner_agent.create_session()
        await self._notify(session)
        return session

    async def _notify(self, session: AgentSession) -> None:
        callback = self.options.session_created_callback
        if callback is not None:
            outcome = callback(session)
            if inspect.isawaitable(outcome):
                await outcome


def _feedback_log(feedback: Sequence[str | None]) -> str | None:
    """Fresh-context feedback: every non-blank entry so far under ``## Feedback`` and a blank line (as .NET)."""
    entries = [f for f in feedback if f and f.strip()]
    return "## Feedback\n" + "".join(f"\n- {f}" for f in entries) if entries else None


def _new_id() -> str:
    """A fresh message id: 32 random hex digits, the shape of .NET's ``Guid.NewGuid().ToString("N")``."""
    return os.urandom(16).hex()


def loop_attribution() -> dict[str, str]:
    """MAF's attribution for a message the loop adds (``SessionContext.extend_messages`` uses this shape)."""
    return {"source_id": LOOP_SOURCE_ID, "source_type": "LoopAgent"}


def _attributed(message: Message) -> Message:
    """A shallow copy of an evaluator's message with the loop's attribution, the evaluator's own kept.

    Merges as MAF's ``extend_messages`` does: keys already in the message's attribution win. The
    evaluator's object is left as it was.
    """
    attributed = copy.copy(message)
    attributed.additional_properties = dict(message.additional_properties)
    existing = attributed.additional_properties.get("_attribution")
    attributed.additional_properties["_attribution"] = {**loop_attribution(), **(existing or {})}
    return attributed


def _sum_usage(total: UsageDetails | None, usage: UsageDetails | None) -> UsageDetails | None:
    if usage is None:
        return total
    return add_usage_details(total, usage)


def _tokens(usage: UsageDetails | None) -> int:
    """Tokens an iteration spent for the budget: the total, else input + output (as .NET counts them)."""
    if not usage:
        return 0
    total = usage.get("total_token_count")
    if total is not None:
        return total
    return (usage.get("input_token_count") or 0) + (usage.get("output_token_count") or 0)


# region Evaluators


class DelegateLoopEvaluator(LoopEvaluator):
    """Wraps a function of the context that returns a :class:`LoopEvaluation` (or an awaitable of one)."""

    def __init__(self, evaluate: Callable[[LoopContext], LoopEvaluation | Awaitable[LoopEvaluation]]) -> None:
        if not callable(_required(evaluate, "evaluate")):
            raise TypeError(f"evaluate must be a function of the LoopContext; got {type(evaluate).__name__}.")
        self.decide = evaluate

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        outcome = self.decide(_required(context, "context"))
        return await outcome if inspect.isawaitable(outcome) else outcome


class CompletionMarkerLoopEvaluator(LoopEvaluator):
    """Stops once the latest response contains ``completion_marker``; otherwise asks for another pass.

    The feedback comes from a template: ``{completion_marker}`` is replaced by the marker, and
    ``{last_response}`` by the latest response text (useful with a fresh context per iteration, where
    the agent has no record of what it wrote). The default template leaves the response out.
    """

    COMPLETION_MARKER_PLACEHOLDER = "{completion_marker}"
    LAST_RESPONSE_PLACEHOLDER = "{last_response}"
    DEFAULT_FEEDBACK_MESSAGE_TEMPLATE = (
        "Continue working on the request. When you have fully completed the task, end your response with the "
        "marker '{completion_marker}' to indicate completion."
    )

    def __init__(self, completion_marker: str, *, feedback_message_template: str | None = None) -> None:
        if completion_marker is not None and not isinstance(completion_marker, str):
            raise TypeError(f"completion_marker must be a string; got {type(completion_marker).__name__}.")
        if completion_marker is None or not completion_marker.strip():
            raise ValueError("completion_marker must not be None, empty or blank: every response would contain it.")
        self.completion_marker = completion_marker
        template = (
            self.DEFAULT_FEEDBACK_MESSAGE_TEMPLATE if feedback_message_template is None else feedback_message_template
        )
        self.feedback_message_template = template.replace(self.COMPLETION_MARKER_PLACEHOLDER, completion_marker)

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        text = _required(context, "context").last_response.text
        if self.completion_marker in text:
            return LoopEvaluation.stop()
        return LoopEvaluation.continue_with(
            self.feedback_message_template.replace(self.LAST_RESPONSE_PLACEHOLDER, text)
        )


class AIJudgeVerdict(BaseModel):
    """The judge's structured answer (.NET's ``JudgeVerdict``; JSON ``answered`` and ``gapAnalysis``).

    Named apart from ``agent_framework.JudgeVerdict`` (``answered``, ``reasoning``: MAF Python's
    ``AgentLoopMiddleware`` judge), which has no gap analysis.
    """

    model_config = ConfigDict(populate_by_name=True)

    answered: bool
    gap_analysis: str | None = Field(default=None, alias="gapAnalysis")


CRITERIA_HEADING = "The response must satisfy all of the following criteria:"
REQUEST_HEADING = "# Has the original request been fully addressed?\n\n## Original request:\n"
RESPONSE_HEADING = "\n\n## Agent's latest response:\n"


def render_criteria(criteria: Iterable[str] | None) -> str:
    """The block that replaces ``{criteria}``: a blank line, the heading, one ``- `` line per non-blank criterion."""
    lines = "".join(f"\n- {c}" for c in criteria or () if c and c.strip())
    return f"\n\n{CRITERIA_HEADING}{lines}" if lines else ""


class AIJudgeLoopEvaluator(LoopEvaluator):
    """Asks a separate judge chat client whether the original request is fully addressed.

    The judge is called directly (no agent, tools, session or middleware) with two messages: the
    instructions as a System message, and one User message holding the original request's full
    contents (images included) and the latest response text, each quote held to the looped agent's guards
    (:func:`guarded_quote`: a forget filter on the desk holds its judge too). It is asked for an
    :class:`AIJudgeVerdict`; a client that gives no structured verdict is read for the markers
    ``VERDICT: DONE`` / ``VERDICT: MORE`` (MORE wins, and no marker means more: the loop keeps going
    rather than stopping on an incomplete answer). Not answered -> continue with the feedback template,
    ``{gap_analysis}`` replaced by the judge's gap analysis (``<unknown>`` when it gave none).
    ``{criteria}`` in the instructions is replaced by the criteria block, or removed when there are none.
    """

    DONE_VERDICT_MARKER = "VERDICT: DONE"
    MORE_VERDICT_MARKER = "VERDICT: MORE"
    CRITERIA_PLACEHOLDER = "{criteria}"
    GAP_ANALYSIS_PLACEHOLDER = "{gap_analysis}"
    UNKNOWN_GAP_ANALYSIS = "<unknown>"
    DEFAULT_INSTRUCTIONS = (
        "You are an evaluator. You are given a user's original request and an agent's latest response. "
        "Decide whether the agent has fully addressed the original request. "
        "Set 'answered' to true if the request has been fully addressed, or false if more work is still required. "
        "When 'answered' is false, use 'gapAnalysis' to explain what is still missing or what work remains. "
        "If you cannot return structured output, reply with VERDICT: DONE when the request has been fully "
        "addressed, or VERDICT: MORE when more work is still required.{criteria}"
    )
    DEFAULT_FEEDBACK_MESSAGE_TEMPLATE = (
        "Your previous response did not fully address the original request. "
        "The following is still missing or incomplete: {gap_analysis} "
        "Please continue and fully address the original request."
    )

    def __init__(
        self,
        judge_client: SupportsChatGetResponse,
        *,
        instructions: str | None = None,
        criteria: Iterable[str] | None = None,
        feedback_message_template: str | None = None,
    ) -> None:
        self.judge_client = _required(judge_client, "judge_client")
        self.criteria = tuple(criteria or ())
        template = self.DEFAULT_INSTRUCTIONS if instructions is None else instructions
        self.instructions = template.replace(self.CRITERIA_PLACEHOLDER, render_criteria(self.criteria))
        self.feedback_message_template = (
            self.DEFAULT_FEEDBACK_MESSAGE_TEMPLATE if feedback_message_template is None else feedback_message_template
        )

    def judge_messages(self, context: LoopContext) -> list[Message]:
        """What the judge receives: the instructions, then the request's contents and the latest response."""
        quote = guarded_quote(context.agent)  # the looped agent's forget filter holds the judge too
        contents: list[Content] = [Content.from_text(REQUEST_HEADING)]
        for message in context.initial_messages:
            contents += [_quoted(c, quote) for c in message.contents]
        contents.append(Content.from_text(RESPONSE_HEADING + quote(context.last_response.text)))
        return [Message(role="system", contents=[self.instructions]), Message(role="user", contents=contents)]

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        messages = self.judge_messages(_required(context, "context"))
        response = await self.judge_client.get_response(messages, options={"response_format": AIJudgeVerdict})
        answered, gap = _read_verdict(response.text, self.DONE_VERDICT_MARKER, self.MORE_VERDICT_MARKER)
        if answered:
            return LoopEvaluation.stop()
        gap = gap if gap and gap.strip() else self.UNKNOWN_GAP_ANALYSIS
        return LoopEvaluation.continue_with(self.feedback_message_template.replace(self.GAP_ANALYSIS_PLACEHOLDER, gap))


def call_guards(agent: object) -> list[Any]:
    """The guards ``agent`` carries: its middleware's, its client's, and those of the agents it wraps (a loop).

    A guard is middleware that marks itself ``guards_every_model_call = True`` and can ``redact_text(text)`` (the
    memory half's forget filter): every model call made on the agent's behalf must go through it, including one
    the agent does not make itself. Read by duck typing, so the loop loads nothing of the memory half.
    """
    found: list[Any] = []
    seen: set[int] = set()
    while agent is not None and id(agent) not in seen:
        seen.add(id(agent))
        client = getattr(agent, "client", None)
        for item in [*(getattr(agent, "middleware", None) or ()), *(getattr(client, "chat_middleware", None) or ())]:
            if getattr(item, "guards_every_model_call", False) is True and item not in found:
                found.append(item)
        agent = getattr(agent, "inner_agent", None)
    return found


def guarded_quote(agent: object) -> Callable[[str], str]:
    """How a text quoted to another model on ``agent``'s behalf (the judge's prompt) must read: every guard applied."""
    guards = call_guards(agent)

    def quote(text: str) -> str:
        for guard in guards:
            text = str(guard.redact_text(text))
        return text

    return quote


def _quoted(content: Content, quote: Callable[[str], str]) -> Content:
    """A text content as the guards let it be quoted (the same object when they change nothing)."""
    if content.type != "text" or not content.text:
        return content
    text = quote(content.text)
    return content if text == content.text else Content.from_text(text)


def _read_verdict(text: str, done: str, more: str) -> tuple[bool, str | None]:
    """The structured verdict when the text is one; else the markers (MORE wins; no marker is MORE)."""
    try:
        verdict = AIJudgeVerdict.model_validate_json(text)
    except ValidationError:
        upper = text.upper()
        return (more not in upper and done in upper), None
    return verdict.answered, verdict.gap_analysis


class SignalProtocolLoopEvaluator(LoopEvaluator):
    """The newer .NET signal protocol: an assistant message saying ``TASK_COMPLETE:`` or ``NEED_INPUT:`` stops.

    ``TASK_COMPLETE:`` wins over ``NEED_INPUT:``; the matching exit reason is written to
    ``context.additional_properties["loop_exit_reason"]`` (``completed`` or ``need_input``), which the
    loop copies to its response. Each message is checked on its own, so a token cannot be formed
    across messages, and only assistant messages count.
    """

    TASK_COMPLETE_TOKEN = "TASK_COMPLETE:"
    NEED_INPUT_TOKEN = "NEED_INPUT:"
    DEFAULT_FEEDBACK_MESSAGE = (
        "Continue working on the task. When done, emit 'TASK_COMPLETE: <summary>'. "
        "If you need input, emit 'NEED_INPUT: <question>'."
    )

    def __init__(self, feedback_message: str | None = None) -> None:
        self.feedback_message = self.DEFAULT_FEEDBACK_MESSAGE if feedback_message is None else feedback_message

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        _required(context, "context")
        for token, reason in (
            (self.TASK_COMPLETE_TOKEN, LoopExitReason.COMPLETED),
            (self.NEED_INPUT_TOKEN, LoopExitReason.NEED_INPUT),
        ):
            if any(m.role == "assistant" and token in m.text for m in context.last_response.messages):
                context.additional_properties[LoopExitReason.ADDITIONAL_PROPERTIES_KEY] = reason
                return LoopEvaluation.stop()
        return LoopEvaluation.continue_with(self.feedback_message)
