"""``LoopAgent``: re-invoke an inner agent until its evaluators stop it (MAF .NET semantics, in Python).

MAF .NET ships ``LoopAgent``, a delegating agent that runs its inner agent, asks one or more
``LoopEvaluator`` objects whether the result is good enough, and if not re-invokes the agent with
their feedback. MAF Python has a different mechanism (``AgentLoopMiddleware``); this module
re-creates the .NET type on top of MAF Python agents so the lessons can trace its exact message flow.

The flow, per run:

1. The caller's messages are the *initial messages* (not copied, as in .NET). Without a caller session
   the loop creates one from the inner agent (and reports it to ``session_created_callback``). With
   fresh context and a caller session, the session is serialized once, before the first iteration.
2. Each iteration runs the inner agent, sums usage, and appends to the transcript the on-behalf-of
   messages that drove it (from iteration 2) and then its response messages.
3. A response that asks for tool approval ends the run at once; so does reaching ``max_iterations``
   (inclusive: the evaluators are not asked after the last permitted run).
4. Evaluators are asked in order; the first that asks to re-invoke wins and the rest are skipped.
   The loop ends only when all of them say stop. Each re-invocation records its feedback (or None).
5. The next input: an evaluator's explicit messages verbatim; otherwise, without fresh context, the
   latest feedback alone as one User message (nothing when blank: the agent continues from its
   history); with fresh context, the initial messages plus one ``## Feedback`` message listing every
   non-blank feedback so far, on a reset session (a new loop-owned one, or a clone of the caller's).

Every message the loop adds -- feedback, the ``## Feedback`` log, an evaluator's explicit messages --
carries MAF's attribution, ``additional_properties["_attribution"] = {"source_id": "loop",
"source_type": "LoopAgent"}`` (the shape ``SessionContext.extend_messages`` gives a context provider's
messages), so a fact writer or a context provider can tell them from the caller's own words.
"""

from __future__ import annotations

import copy
import inspect
import logging
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from agent_framework import (
    Agent,
    AgentResponse,
    AgentResponseUpdate,
    AgentRunInputs,
    AgentSession,
    BaseAgent,
    Message,
    ResponseStream,
    SupportsAgentRun,
    UsageDetails,
    add_usage_details,
    normalize_messages,
)
from pydantic import BaseModel

from .tracing import LoopTrace

logger = logging.getLogger(__name__)

DEFAULT_MAX_ITERATIONS = 10
"""What ``max_iterations=None`` falls back to, as ``LoopAgent.DefaultMaxIterations`` in .NET."""
LOOP_SOURCE_ID = "loop"
"""The ``source_id`` of the attribution on every message the loop adds."""
_PRIVATE = object()

SessionCallback = Callable[[AgentSession], Awaitable[None] | None]


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
        items = tuple(messages)
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

    Created once per run and advanced after each iteration. ``additional_properties`` holds per-run
    state so evaluators themselves can stay stateless and be shared between runs.
    """

    def __init__(
        self,
        agent: SupportsAgentRun,
        session: AgentSession,
        initial_messages: Sequence[Message],
        run_options: Mapping[str, Any],
        feedback: list[str | None],
    ) -> None:
        self._agent = agent
        self._session = session
        self._initial = tuple(initial_messages)
        self._run_options = dict(run_options)
        self._feedback = feedback
        self._iteration = 0
        self._last_response: AgentResponse | None = None
        self.additional_properties: dict[str, Any] = {}

    @property
    def agent(self) -> SupportsAgentRun:
        """The inner agent being looped."""
        return self._agent

    @property
    def session(self) -> AgentSession:
        """The session the latest iteration ran on."""
        return self._session

    @property
    def initial_messages(self) -> tuple[Message, ...]:
        """A copy of the caller's messages: the original task."""
        return self._initial

    @property
    def run_options(self) -> dict[str, Any]:
        """The extra keyword arguments the caller passed to ``run`` (forwarded to the inner agent)."""
        return dict(self._run_options)

    @property
    def iteration(self) -> int:
        """Completed runs of the inner agent in this loop run, from 1."""
        return self._iteration

    @property
    def last_response(self) -> AgentResponse:
        """The inner agent's latest response."""
        assert self._last_response is not None, "LoopContext is read only after the first iteration"
        return self._last_response

    @property
    def feedback(self) -> tuple[str | None, ...]:
        """One entry per re-invocation so far: the feedback string, or None. Read-only."""
        return tuple(self._feedback)

    def _advance(self, iteration: int, response: AgentResponse, session: AgentSession) -> None:
        self._iteration, self._last_response, self._session = iteration, response, session


class LoopEvaluator(ABC):
    """Decides, after each iteration, whether the loop stops or re-invokes the agent (and with what)."""

    @abstractmethod
    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        """Return :meth:`LoopEvaluation.stop` or a ``continue_*`` evaluation."""


@dataclass(frozen=True)
class LoopAgentOptions:
    """The knobs of a loop; every one is shown changed, one at a time, in lesson 06.

    ``max_iterations=None`` means the default cap of 10, as in .NET's ``LoopAgent.cs``
    (``options?.MaxIterations ?? DefaultMaxIterations``): there is no unbounded loop.
    """

    max_iterations: int | None = DEFAULT_MAX_ITERATIONS
    fresh_context_per_iteration: bool = False
    on_behalf_of_author_name: str | None = None
    exclude_on_behalf_of_messages: bool = False
    non_streaming_returns_last_response_only: bool = False
    session_created_callback: SessionCallback | None = None

    def __post_init__(self) -> None:
        if self.max_iterations is not None and self.max_iterations < 1:
            raise ValueError(
                f"max_iterations must be at least 1, or None for the default of {DEFAULT_MAX_ITERATIONS}; "
                f"got {self.max_iterations}."
            )

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
        if inner_agent is None:
            raise ValueError("inner_agent is required.")
        chain = [evaluators] if isinstance(evaluators, LoopEvaluator) else list(evaluators)
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
        self.context: LoopContext | None = None

    async def start(self) -> None:
        if self.session is None:
            self.session = await self._new_session()
        elif self.options.fresh_context_per_iteration:
            self.snapshot = self.session.to_dict()

    async def run(self) -> AgentResponse:
        await self.start()
        while True:
            response = await self.loop.inner_agent.run(self.next_input, session=self.session, **self.kwargs)
            if not await self.after(response):
                return self.result()

    async def stream(self) -> AsyncIterator[AgentResponseUpdate]:
        await self.start()
        while True:
            pending = self._surfaced_updates()
            inner = self.loop.inner_agent.run(self.next_input, stream=True, session=self.session, **self.kwargs)
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

    def streamed_result(self) -> AgentResponse:
        """A stream's final response: always the whole transcript (the option is for non-streaming runs)."""
        return self._final(last_only=False)

    async def after(self, response: AgentResponse) -> bool:
        """Record an iteration; return True when the loop must run the inner agent again."""
        self.responses.append(response)
        iteration = len(self.responses)
        self.usage = _sum_usage(self.usage, response.usage_details)
        if iteration >= 2 and not self.options.exclude_on_behalf_of_messages:
            self.transcript += self.surfaced
        self.transcript += response.messages
        context = self._context()
        assert self.session is not None, "start() creates the session before the first iteration"
        context._advance(iteration, response, self.session)
        if response.user_input_requests:
            return False
        cap = self.options.iteration_cap
        if iteration >= cap:
            logger.info("LoopAgent %s reached max_iterations=%d; returning the last response.", self.loop.name, cap)
            return False
        evaluation = await self._evaluate(context)
        if evaluation is None:
            return False
        self.feedback.append(evaluation.feedback)
        await self._prepare_next(evaluation)
        return True

    def result(self) -> AgentResponse:
        return self._final(last_only=self.options.non_streaming_returns_last_response_only)

    def _final(self, *, last_only: bool) -> AgentResponse:
        last = self.responses[-1]
        final = copy.copy(last)
        if not last_only:
            final.messages = list(self.transcript)
        final.usage_details = self.usage
        return final

    def _context(self) -> LoopContext:
        if self.context is None:
            assert self.session is not None
            self.context = LoopContext(self.loop.inner_agent, self.session, self.initial, self.kwargs, self.feedback)
        return self.context

    async def _evaluate(self, context: LoopContext) -> LoopEvaluation | None:
        for evaluator in self.loop.evaluators:
            evaluation = await evaluator.evaluate(context)
            if evaluation.should_reinvoke:
                return evaluation
        return None

    async def _prepare_next(self, evaluation: LoopEvaluation) -> None:
        fresh = self.options.fresh_context_per_iteration
        if fresh:
            self.session = await self._reset_session()
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
            message_id=uuid.uuid4().hex,
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
                message_id=m.message_id or uuid.uuid4().hex,
                response_id=uuid.uuid4().hex,
                additional_properties=dict(m.additional_properties),
            )
            for m in self.surfaced
        ]

    async def _reset_session(self) -> AgentSession:
        if self.owned:
            return await self._new_session()
        assert self.snapshot is not None
        clone = AgentSession.from_dict(self.snapshot)
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


# region Evaluators


class DelegateLoopEvaluator(LoopEvaluator):
    """Wraps a function of the context that returns a :class:`LoopEvaluation` (or an awaitable of one)."""

    def __init__(self, decide: Callable[[LoopContext], LoopEvaluation | Awaitable[LoopEvaluation]]) -> None:
        self.decide = decide

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        outcome = self.decide(context)
        return await outcome if inspect.isawaitable(outcome) else outcome


class CompletionMarkerEvaluator(LoopEvaluator):
    """Stops when the latest response contains ``marker``; otherwise asks for another pass."""

    def __init__(self, marker: str = "DONE", feedback: str | None = None) -> None:
        if not marker.strip():
            raise ValueError("marker must not be blank: every response would contain it.")
        self.marker = marker
        self.feedback = feedback or f"Not finished: continue, and write {marker} when the task is complete."

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        if self.marker in context.last_response.text:
            return LoopEvaluation.stop()
        return LoopEvaluation.continue_with(self.feedback)


class IterationCountEvaluator(LoopEvaluator):
    """The seed's evaluator: allows ``allowed`` iterations, asks for more with ``Feedback for iteration N``.

    It writes what it sees (iteration, initial messages, last response, previous feedback) and what it
    decides into ``trace`` when one is given, in the seed's console layout.
    """

    def __init__(self, allowed: int, trace: LoopTrace | None = None) -> None:
        self.allowed = allowed
        self.trace = trace

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        stop = context.iteration >= self.allowed
        feedback = None if stop else f"Feedback for iteration {context.iteration}"
        if self.trace is not None:
            self.trace.evaluator(context, feedback)
        return LoopEvaluation.stop() if stop else LoopEvaluation.continue_with(feedback)


class JudgeVerdict(BaseModel):
    """The judge's structured answer: is the task done, and if not, what is missing."""

    done: bool
    feedback: str = ""


JUDGE_INSTRUCTIONS = (
    "You judge whether a response completes a task against explicit criteria. "
    'Answer JSON {"done": true|false, "feedback": "..."}; when not done, say precisely what is missing.'
)
TASK_HEADER, CRITERIA_HEADER, RESPONSE_HEADER = "## Task", "## Criteria", "## Response"


def judge_prompt(context: LoopContext, criteria: Sequence[str]) -> str:
    """The judge's user message: the original task, the criteria (one per line), the latest response."""
    task = "\n".join(m.text for m in context.initial_messages if m.role == "user")
    lines = "\n".join(f"- {c}" for c in criteria)
    return f"{TASK_HEADER}\n{task}\n\n{CRITERIA_HEADER}\n{lines}\n\n{RESPONSE_HEADER}\n{context.last_response.text}"


class LLMJudgeEvaluator(LoopEvaluator):
    """Asks a chat client (structured output, no session) whether the latest response meets the criteria."""

    def __init__(self, client: Any, criteria: Sequence[str], instructions: str = JUDGE_INSTRUCTIONS) -> None:
        if not criteria:
            raise ValueError("An LLM judge needs at least one criterion.")
        self.criteria = tuple(criteria)
        self.judge = Agent(client=client, instructions=instructions, name="judge")

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        response = await self.judge.run(judge_prompt(context, self.criteria), options={"response_format": JudgeVerdict})
        verdict = response.value
        if not isinstance(verdict, JudgeVerdict):
            raise ValueError(f"The judge returned no verdict (got {type(verdict).__name__}); the loop cannot decide.")
        return LoopEvaluation.stop() if verdict.done else LoopEvaluation.continue_with(verdict.feedback)
