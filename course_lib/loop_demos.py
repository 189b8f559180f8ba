"""The loop lessons' scenarios: the seed's demo, option profiles, and MAF Python's own loop beside it.

Kept apart from :mod:`course_lib.loop` (the library) so the lessons' set-ups are code that tests can
run too, not cells only a notebook holds.
"""

from __future__ import annotations

from dataclasses import replace

from agent_framework import Agent, AgentLoopMiddleware, AgentResponse, AgentSession, Message

from .clients import MessageNumberer, NumberingChatClient
from .loop import IterationCountEvaluator, LoopAgent, LoopAgentOptions
from .tracing import LoopTrace

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
        "returned": " | ".join(_label(m) for m in response.messages),
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
        "added for a re-invocation": " | ".join(added),
        "messages returned": len(response.messages),
    }
