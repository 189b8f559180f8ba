"""Benchmark: what ``LoopAgent`` costs on top of the inner agent's own calls, and against MAF Python's own loop.

Three iterations of the same inner agent (a MAF ``Agent`` over the seed's numbering offline model), measured side
by side in one repetition, as CPU-time ratios (``time.process_time``; the machine may be shared):

* ``LoopAgent / by hand``: a ``LoopAgent`` whose evaluator asks for two more passes, against the same three
  ``inner.run`` calls written out by hand (first the task, then the feedback twice, on one session); non-streaming
  and streaming. Target <= 1.05: the loop adds bookkeeping, not work.
* ``LoopAgent / AgentLoopMiddleware``: the same three iterations through MAF Python's ``AgentLoopMiddleware``.
  Target <= 0.95.
* ``fresh context, 200-message caller history``: ``fresh_context_per_iteration`` over a caller session that already
  holds 200 messages (each re-invocation restores a clone of the session) against the middleware's
  ``fresh_context=True`` on the same session. Target <= 1.0.

``make bench`` collects ``figures(repeats)`` through ``benchmarks/run.py``; ``python benchmarks/loop_overhead.py``
prints the medians alone.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import time
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from agent_framework import Agent, AgentLoopMiddleware, AgentSession, Message

from course_lib.loop import DelegateLoopEvaluator, LoopAgent, LoopAgentOptions, LoopEvaluation
from course_lib.loop_demos import MessageNumberer, NumberingChatClient

warnings.filterwarnings("ignore", message=".*AgentLoopMiddleware is experimental.*")

ITERATIONS = 3
ROUNDS = 10  # interleaved rounds per pair per repetition
RUNS_PER_BLOCK = 3  # loop runs per block: each side runs 2 blocks per round, 60 runs per repetition
HISTORY = 200  # messages already in the caller's session for the fresh-context figure
TASK = "Write the release note."
FEEDBACK = "more"

TARGETS = {
    "LoopAgent / by hand, 3 iterations": 1.05,
    "LoopAgent / by hand, 3 iterations, streaming": 1.05,
    "LoopAgent / AgentLoopMiddleware, 3 iterations": 0.95,
    "LoopAgent / AgentLoopMiddleware, fresh context, 200-message history": 1.0,
}


def inner_agent(*middleware: Any) -> Agent:
    return Agent(client=NumberingChatClient(MessageNumberer()), middleware=list(middleware) or None)


def feedback_until_three() -> DelegateLoopEvaluator:
    return DelegateLoopEvaluator(
        lambda context: (
            LoopEvaluation.continue_with(FEEDBACK) if context.iteration < ITERATIONS else LoopEvaluation.stop()
        )
    )


def middleware() -> AgentLoopMiddleware:
    return AgentLoopMiddleware(lambda *, iteration, **_: iteration < ITERATIONS)


async def drained(run: Any) -> None:
    """Read a streamed run to its end, as a caller would, then its final response."""
    async for _ in run:
        pass
    await run.get_final_response()


async def by_hand(inner: Agent, stream: bool) -> None:
    session = inner.create_session()
    for text in (TASK, *[FEEDBACK] * (ITERATIONS - 1)):
        message = Message(role="user", contents=[text])
        if stream:
            await drained(inner.run([message], stream=True, session=session))
        else:
            await inner.run([message], session=session)


async def looped(agent: LoopAgent, stream: bool) -> None:
    if stream:
        await drained(agent.run(TASK, stream=True))
    else:
        await agent.run(TASK)


async def with_middleware(agent: Agent) -> None:
    await agent.run(TASK, session=agent.create_session())


def long_history() -> dict[str, Any]:
    """A caller session holding HISTORY messages, as a snapshot each run restores (both sides pay the same)."""

    async def fill() -> dict[str, Any]:
        agent = inner_agent()
        session = agent.create_session()
        for turn in range(HISTORY // 2):
            await agent.run(f"turn {turn}", session=session)
        return session.to_dict()

    return asyncio.run(fill())


async def from_snapshot(agent: Any, snapshot: dict[str, Any]) -> None:
    await agent.run(TASK, session=AgentSession.from_dict(snapshot))


async def cpu_seconds(variant: Callable[[], Awaitable[None]]) -> float:
    """CPU seconds for RUNS_PER_BLOCK runs of ``variant``, the garbage collector collected before and paused during
    the block, so a collection lands on neither side."""
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        for _ in range(RUNS_PER_BLOCK):
            await variant()
        return time.process_time() - started
    finally:
        gc.enable()


async def interleaved(ours: Callable[[], Awaitable[None]], theirs: Callable[[], Awaitable[None]]) -> float:
    """ours / theirs: the median over ROUNDS rounds of four short blocks, ours-theirs-theirs-ours then the mirror.

    On a shared machine the CPU time of the same work drifts with what else runs (caches, frequency). Short
    blocks, alternated and paired within a round, see the same conditions; the median over rounds ignores a
    round that a burst of load hit on one side only. Both sides run in one event loop.
    """
    ratios = []
    for round_number in range(ROUNDS):
        first, second = (ours, theirs) if round_number % 2 == 0 else (theirs, ours)
        times = [await cpu_seconds(variant) for variant in (first, second, second, first)]
        outer, inner = times[0] + times[3], times[1] + times[2]
        ratios.append(outer / inner if first is ours else inner / outer)
    return statistics.median(ratios)


def once(snapshot: dict[str, Any]) -> dict[str, float]:
    """One repetition: every pair measured in interleaved rounds (see ``interleaved``).

    The agents are built once per repetition, outside the timed runs: what is compared is the calls.
    """
    loop, inner, looping = LoopAgent(inner_agent(), feedback_until_three()), inner_agent(), inner_agent(middleware())
    fresh = LoopAgent(inner_agent(), feedback_until_three(), LoopAgentOptions(fresh_context_per_iteration=True))
    fresh_looping = inner_agent(
        AgentLoopMiddleware(lambda *, iteration, **_: iteration < ITERATIONS, fresh_context=True)
    )
    pairs = {
        "LoopAgent / by hand, 3 iterations": (lambda: looped(loop, False), lambda: by_hand(inner, False)),
        "LoopAgent / by hand, 3 iterations, streaming": (lambda: looped(loop, True), lambda: by_hand(inner, True)),
        "LoopAgent / AgentLoopMiddleware, 3 iterations": (
            lambda: looped(loop, False),
            lambda: with_middleware(looping),
        ),
        "LoopAgent / AgentLoopMiddleware, fresh context, 200-message history": (
            lambda: from_snapshot(fresh, snapshot),
            lambda: from_snapshot(fresh_looping, snapshot),
        ),
    }

    async def all_pairs() -> dict[str, float]:
        return {name: await interleaved(ours, theirs) for name, (ours, theirs) in pairs.items()}

    return asyncio.run(all_pairs())


def measure(repeats: int) -> dict[str, list[float]]:
    """Every ratio, ``repeats`` times (after one warm-up repetition that is thrown away)."""
    snapshot = long_history()
    once(snapshot)
    samples: dict[str, list[float]] = {name: [] for name in TARGETS}
    for _ in range(repeats):
        for name, ratio in once(snapshot).items():
            samples[name].append(ratio)
    return samples


def figures(repeats: int) -> list[Any]:
    """For ``benchmarks/run.py`` (``make bench``): one Figure per ratio, held to its target."""
    from figures import Figure  # benchmarks/figures.py, beside this file

    return [Figure(name, "ratio", samples, target=TARGETS[name]) for name, samples in measure(repeats).items()]


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for name, samples in measure(repeats).items():
        median = statistics.median(samples)
        verdict = "met" if median <= TARGETS[name] else "NOT met"
        spread = f"min {min(samples):.3f}, max {max(samples):.3f}"
        print(f"{name}: median {median:.3f} ({spread}; {repeats} repetitions), target <= {TARGETS[name]}: {verdict}")


if __name__ == "__main__":
    main()
