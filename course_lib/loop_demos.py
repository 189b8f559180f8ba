"""The loop lessons' scenarios: the seed's demo, its fake model and evaluator, an offline judge, MAF's loop beside it.

Scenario code, kept apart from :mod:`course_lib.loop` (the library, which ships only what MAF .NET
ships): the seed's numbering fake LLM and its iteration-counting evaluator (MAF does not ship that
one), the seed's console trace, and the offline worker and judge of lesson 06. Tests run them too, so
the lessons' set-ups are not cells only a notebook holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from agent_framework import Agent, AgentLoopMiddleware, AgentResponse, AgentSession, Message

from .environment import course_file
from .loop import (
    CRITERIA_HEADING,
    RESPONSE_HEADING,
    LoopAgent,
    LoopAgentOptions,
    LoopContext,
    LoopEvaluation,
    LoopEvaluator,
)
from .offline import OfflineChatClient
from .tracing import CallLog

if TYPE_CHECKING:  # pandas loads when a table is built: importing the loop scenarios stays quick
    import pandas as pd

SIGNAL_REQUEST = "emit 'TASK_COMPLETE:"
"""What :class:`~course_lib.loop.SignalProtocolLoopEvaluator`'s feedback asks; the offline worker obeys it."""

# region The seed's trace, fake LLM and evaluator

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
                "sections": {"Incoming messages": list(incoming)},
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
            {
                "step": len(self.rows) + 1,
                "actor": "Evaluator",
                "call": context.iteration,
                "saw": saw,
                "did": did,
                "sections": {"Last response": last, "Previous feedback": previous},
            }
        )

    def text(self) -> str:
        return "\n".join(self.lines)

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.rows, columns=["step", "actor", "call", "saw", "did"])


def _indented(texts: Sequence[str]) -> list[str]:
    return [INDENT + t for t in texts]


def render_messages(messages: Sequence[Message]) -> str:
    """The seed's final listing: ``--------------------Message1--------------------`` then the text."""
    rule = "-" * 20
    return "\n".join(f"{rule}Message{i}{rule}\n{m.text}" for i, m in enumerate(messages, start=1))


SEED_OUTPUT = course_file("data", "loopagent_seed_output.json")
"""The seed's console output of its demo (line breaks folded to spaces in the copy): the golden file."""


def fold(text: str) -> str:
    """White space folded to single spaces, as in the golden file."""
    return " ".join(text.split())


def compare_with_seed(trace: LoopTrace, response: AgentResponse) -> dict[str, bool]:
    """Whether a run's trace and final messages are the seed's, word for word (white space folded)."""
    seed = json.loads(SEED_OUTPUT.read_text(encoding="utf-8"))
    return {
        "trace": fold(trace.text()) == seed["trace"],
        "final_messages": fold(render_messages(response.messages)) == seed["final_messages"],
    }


class MessageNumberer:
    """The seed's ``ChatMessageGenerator``: every message it creates gets the next number, ``[n]text``."""

    def __init__(self) -> None:
        self.count = 0

    def message(self, text: str, role: str = "user") -> Message:
        self.count += 1
        return Message(role=role, contents=[f"[{self.count}]{text}"])


class NumberingChatClient(OfflineChatClient):
    """The seed's ``FakeChatClient``: answers ``[n]Response message from LLM.`` and traces every call.

    Built directly, not by ``make_chat_client``, so it keeps MAF's default tool loop: it stands in for the seed's
    fake client, and lesson 06 and ``make bench`` run ``LoopAgent`` and MAF's ``AgentLoopMiddleware`` on the very
    same client, so neither side of that comparison gets a cheaper client than the other.
    """

    def __init__(self, numberer: MessageNumberer, trace: LoopTrace | None = None, *, log: CallLog | None = None):
        super().__init__(log=log, name="llm")
        self.numberer = numberer
        self.trace = trace

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        reply = self.numberer.message("Response message from LLM.", "assistant").text
        if self.trace is not None:
            self.trace.llm([m.text for m in messages], reply)
        return reply


class IterationCountEvaluator(LoopEvaluator):
    """The seed's ``InterationCountEvaluator``: allows ``allowed`` iterations, then says stop.

    Until then it asks for more with ``Feedback for iteration N``.

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


# region Lesson 06's offline worker and judge


class OfflineJudgeClient(OfflineChatClient):
    """An offline judge for :class:`~course_lib.loop.AIJudgeLoopEvaluator`: checks each criterion it can check.

    It reads the criteria from the judge's System message (the block ``AIJudgeLoopEvaluator`` renders)
    and the latest response from the end of its User message. A criterion written ``mention: WORD`` is
    met when WORD appears in the response (case-insensitive); any other criterion cannot be checked
    offline and is reported as unmet, never assumed met. It answers the structured verdict as JSON.
    With no criterion at all it has nothing it can check, so it cannot say the request is addressed:
    it answers ``VERDICT: MORE`` in plain text, the way a model without structured output would.
    """

    def __init__(self, *, log: CallLog | None = None) -> None:
        super().__init__(log=log, name="judge")

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        instructions = next((m.text for m in messages if m.role == "system"), "")
        criteria = judge_criteria(instructions)
        if not criteria:
            return "VERDICT: MORE (no criterion I can check offline, so I cannot say the request is addressed)"
        request = next((m.text for m in reversed(messages) if m.role == "user"), "")
        response = request.rpartition(RESPONSE_HEADING)[2]
        missing = [c for c in criteria if not _criterion_met(c, response)]
        return json.dumps({"answered": not missing, "gapAnalysis": "; ".join(missing) + "." if missing else None})


def judge_criteria(instructions: str) -> list[str]:
    """The criteria listed under the judge instructions' criteria heading."""
    _, found, block = instructions.partition(CRITERIA_HEADING)
    return [line[2:].strip() for line in block.splitlines() if line.startswith("- ")] if found else []


def _criterion_met(criterion: str, response: str) -> bool:
    kind, sep, word = criterion.partition(":")
    return bool(sep) and kind.strip() == "mention" and word.strip().lower() in response.lower()


class OfflineDraftClient(OfflineChatClient):
    """An offline worker that revises a draft: it covers every item its User messages asked it to mention.

    It reads its whole conversation, collects every ``mention: ITEM`` in User messages (a judge's gap
    analysis, passed on as feedback) and answers with a draft that covers them, so a loop visibly converges.
    Once a User message has asked it to emit ``TASK_COMPLETE:`` (the signal protocol's feedback), it ends
    its draft with that signal.
    """

    def __init__(self, *, log: CallLog | None = None) -> None:
        super().__init__(log=log, name="worker")

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        asked = [
            item.strip() for m in messages if m.role == "user" for item in re.findall(r"mention: ([^;.\n]+)", m.text)
        ]
        drafts = sum(1 for m in messages if m.role == "assistant") + 1
        covered = ", ".join(dict.fromkeys(asked)) or "the basics"
        draft = f"Draft {drafts}: covers {covered}."
        told_to_signal = any(m.role == "user" and SIGNAL_REQUEST in m.text for m in messages)
        return f"{draft} TASK_COMPLETE: draft {drafts} delivered." if told_to_signal else draft


# region The demos

SEED_INPUT = (
    ("Original message from user.", "user"),
    ("Original response from LLM.", "assistant"),
    ("Original message from user.", "user"),
)


def seed_loop(
    allowed: int = 3, options: LoopAgentOptions | None = None, trace: LoopTrace | None = None
) -> tuple[LoopAgent, list[Message]]:
    """The seed's demo wired up: a loop over the numbered fake LLM, and the three numbered input messages."""
    numberer = MessageNumberer()
    inner = Agent(client=NumberingChatClient(numberer, trace))
    agent = LoopAgent(inner, IterationCountEvaluator(allowed, trace), options)
    return agent, [numberer.message(text, role) for text, role in SEED_INPUT]


async def run_seed_demo(
    allowed: int = 3, options: LoopAgentOptions | None = None, *, stream: bool = False, caller_session: bool = False
) -> tuple[LoopTrace, AgentResponse]:
    """Run the seed's demo; return the trace (what the LLM and the evaluator saw and did) and the response.

    ``caller_session`` passes a session the caller created (instead of letting the loop create one).
    """
    trace = LoopTrace()
    agent, messages = seed_loop(allowed, options, trace)
    session = agent.create_session() if caller_session else None
    if stream:
        response = await agent.run(messages, stream=True, session=session).get_final_response()
    else:
        response = await agent.run(messages, session=session)
    return trace, response


async def profile_options(
    options: LoopAgentOptions, allowed: int = 3, *, stream: bool = False, caller_session: bool = False
) -> dict[str, object]:
    """One row for lesson 06: what a loop with these options sent, returned, and created."""
    created: list[AgentSession] = []
    counted = replace(options, session_created_callback=created.append)
    trace, response = await run_seed_demo(allowed, counted, stream=stream, caller_session=caller_session)
    return {
        "LLM calls": len(trace.calls),
        "messages sent per call": ", ".join(str(len(c)) for c in trace.calls),
        "messages returned": len(response.messages),
        "returned": "\n".join(_label(m) for m in response.messages),
        "sessions created": len(created),
    }


def _label(message: Message) -> str:
    author = f" ({message.author_name})" if message.author_name and message.role == "user" else ""
    return " / ".join(line for line in message.text.splitlines() if line) + author


async def run_middleware_demo(allowed: int = 3, *, with_session: bool = True) -> tuple[LoopTrace, AgentResponse]:
    """The seed's input through MAF Python's ``AgentLoopMiddleware`` (continue while iteration < allowed)."""
    numberer, trace = MessageNumberer(), LoopTrace()
    middleware = AgentLoopMiddleware(lambda *, iteration, **_: iteration < allowed)
    agent = Agent(client=NumberingChatClient(numberer, trace), middleware=[middleware])
    session = agent.create_session() if with_session else None
    response = await agent.run([numberer.message(text, role) for text, role in SEED_INPUT], session=session)
    return trace, response


def flow_summary(name: str, trace: LoopTrace, response: AgentResponse) -> dict[str, object]:
    """How a loop fed the model: input sizes per call, what a re-invocation added, what came back."""
    first, second = trace.calls[0], trace.calls[1] if len(trace.calls) > 1 else []
    kept_history = second[: len(first)] == first
    added = second[len(first) + 1 :] if kept_history else second
    return {
        "loop": name,
        "messages sent per call": ", ".join(str(len(c)) for c in trace.calls),
        "history kept": kept_history,
        "added for a re-invocation": "\n".join(added),
        "messages returned": len(response.messages),
    }
