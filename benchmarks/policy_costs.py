"""Benchmark: what each memory policy costs as the conversation grows, and whether the store stays flat.

Run with ``make bench`` (all benchmarks, one table) or ``python benchmarks/policy_costs.py``. Each
repetition replays generated timelines of 100 turns (ten times, around the long one: see ``SHORT_REPLAYS``)
and 1,000 turns through the whole six-policy comparison (``compare_policies``, rule *latest*) and times every
policy's turns, so the ratios time(1,000) / time(100) are measured side by side in one run. The bounded
policies then go on to 10,000 turns, the full history's peak memory is measured at 1,000 turns, and the
store's ``apply`` + ``to_prompt_block`` is timed over 10,000 turns. The plot shows time and characters per
turn against the turn number.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from agent_framework import CompactionProvider, SessionContext
from figures import Figure

from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.policies import PolicyFactory, compare_policies, course_policies, generate_timeline, run_policy
from course_lib.tracing import CallLog

SHORT, LONG, LONGEST = 100, 1000, 10_000
SHORT_REPLAYS = 10
"""Replays of the short comparison per repetition, half before and half after the long one: time(100) is their
mean. One 100-turn replay of a bounded policy is a few tens of milliseconds, where one burst of load on a shared
machine moves it by half; ten of them are as long as one 1,000-turn replay, so both sides of the ratio average over
the same span and the same drift."""
UNBOUNDED = ("full_history", "compaction")
PLOT = Path(__file__).resolve().parent / "policy_costs.png"
MAF_WALKS = {"full_history": (SessionContext, "extend_messages"), "compaction": (CompactionProvider, "after_run")}
"""For each unbounded policy, the one MAF method that walks its whole stored history on every turn and costs the most
(lesson 04, section 6): timed inside the 1,000-turn replay, it is the part of the policy's time the course cannot
remove without leaving MAF's own history or compaction (a floor under the target)."""
_running: list[str] = []  # the label of the policy whose turn is being timed


@contextlib.contextmanager
def maf_walks(seconds: dict[tuple[str, str], float]) -> Iterator[None]:
    """Time each ``MAF_WALKS`` method, adding its CPU seconds to ``seconds[(policy label, method name)]``."""
    originals = {kind: getattr(owner, name) for kind, (owner, name) in MAF_WALKS.items()}

    def timed_method(original):
        def add(started: float) -> None:
            key = (_running[-1] if _running else "outside a turn", original.__name__)
            seconds[key] = seconds.get(key, 0.0) + time.process_time() - started

        if inspect.iscoroutinefunction(original):

            @functools.wraps(original)
            async def timed_async(*args, **kwargs):
                started = time.process_time()
                try:
                    return await original(*args, **kwargs)
                finally:
                    add(started)

            return timed_async

        @functools.wraps(original)
        def timed_sync(*args, **kwargs):
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                add(started)

        return timed_sync

    for kind, (owner, name) in MAF_WALKS.items():
        setattr(owner, name, timed_method(originals[kind]))
    try:
        yield
    finally:
        for kind, (owner, name) in MAF_WALKS.items():
            setattr(owner, name, originals[kind])


def timed(factories: dict[str, PolicyFactory], seconds: dict[str, list[float]]) -> dict[str, PolicyFactory]:
    """The same factories, whose policies record the CPU seconds of each turn in ``seconds[label]``."""

    def wrap(label: str, factory: PolicyFactory) -> PolicyFactory:
        def build(rule, log):
            policy = factory(rule, log)
            inner, samples = policy.turn, seconds.setdefault(label, [])

            async def turn(user_text: str, *, reader=None) -> str:  # the policy's own signature, timed
                started = time.process_time()
                _running.append(label)
                try:
                    return await inner(user_text, reader=reader)
                finally:
                    _running.pop()
                    samples.append(time.process_time() - started)

            policy.turn = turn  # type: ignore[method-assign]
            return policy

        return PolicyFactory(factory.policy, label, build)

    return {label: wrap(label, factory) for label, factory in factories.items()}


async def comparison(
    turns: int, in_maf: dict[tuple[str, str], float] | None = None
) -> tuple[float, dict[str, list[float]], dict[str, list[int]]]:
    """The whole comparison at ``turns``: its CPU seconds, each policy's seconds and characters per turn.

    Given ``in_maf``, the seconds each policy spends in its ``MAF_WALKS`` method are added there.
    """
    seconds: dict[str, list[float]] = {}
    started = time.process_time()
    with maf_walks(in_maf) if in_maf is not None else contextlib.nullcontext():
        result = await compare_policies(generate_timeline(turns), timed(course_policies(), seconds), rules=["latest"])
    total = time.process_time() - started
    chars = result.calls.groupby(["policy", "turn"], sort=False)["chars_sent"].sum()
    per_turn = {label: chars[label].tolist() for label in seconds}
    return total, seconds, per_turn


async def bounded_long(turns: int) -> dict[str, float]:
    """CPU seconds of each bounded policy's turns over ``turns`` turns (the unbounded ones would take minutes).

    Timed turn by turn like ``comparison``, so time(10,000) / time(1,000) compares the same thing: the turns,
    not the rows the replay builds from each call.
    """
    timeline = generate_timeline(turns)
    seconds: dict[str, list[float]] = {}
    bounded = {label: factory for label, factory in course_policies().items() if factory.kind not in UNBOUNDED}
    for factory in timed(bounded, seconds).values():
        log = CallLog()
        await run_policy(timeline, factory("latest", log), log, "latest")
    return {label: sum(samples) for label, samples in seconds.items()}


PEAK_MB = """
import asyncio, sys
from course_lib.policies import generate_timeline, course_policies, run_policy
from course_lib.tracing import CallLog

def status_mb(field):
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(field)) / 1024

async def replay(turns):
    log = CallLog()
    await run_policy(generate_timeline(turns), course_policies()["full history"]("latest", log), log, "latest")

before = status_mb("VmRSS:")
asyncio.run(replay(int(sys.argv[1])))
print(status_mb("VmHWM:") - before)
"""


def full_history_peak_mb(turns: int) -> float:
    """Growth of the peak resident memory (MB) of a fresh process over a full-history replay, call log included.

    A separate process, so no earlier run's memory is reused; tracemalloc would say the same more precisely
    but slows this replay about thirty-fold (26.5 MB traced at 1,000 turns, measured once by hand).
    """
    done = subprocess.run([sys.executable, "-c", PEAK_MB, str(turns)], capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def store_per_turn(turns: int) -> list[float]:
    """Microseconds of ``begin_turn`` + ``apply`` + ``to_prompt_block`` for each of ``turns`` turns."""
    memory = WorkingMemory()
    keys = ("module", "database", "customer", "version", "environment", "symptom", "priority")
    micros = []
    for number in range(turns):
        key = keys[number % len(keys)]
        value = f"{key} value {number}"
        candidate = FactCandidate(key=key, value=value, evidence=f"{key}={value}")
        started = time.perf_counter()
        memory.apply(memory.begin_turn(f"{key}={value}"), [candidate])
        memory.to_prompt_block()
        micros.append((time.perf_counter() - started) * 1e6)
    return micros


def decile_ratio(samples: list[float]) -> float:
    """Median of the last tenth over median of the first tenth: 1.0 when the cost per step is flat."""
    tenth = max(len(samples) // 10, 1)
    return statistics.median(samples[-tenth:]) / statistics.median(samples[:tenth])


def figures(repeats: int = 3) -> list[Figure]:
    """Every policy figure, each measured ``repeats`` times; the last repetition's curves are plotted."""
    labels = course_policies()
    out: dict[str, Figure] = {}

    def add(name: str, unit: str, value: float, target: float | None = None) -> None:
        out.setdefault(name, Figure(name, unit, target=target)).samples.append(value)

    curves: tuple[dict[str, list[float]], dict[str, list[int]]] = ({}, {})
    for _ in range(repeats):
        shorts = [asyncio.run(comparison(SHORT))[1] for _ in range(SHORT_REPLAYS // 2)]
        in_maf: dict[tuple[str, str], float] = {}
        whole, long, chars = asyncio.run(comparison(LONG, in_maf))
        shorts += [asyncio.run(comparison(SHORT))[1] for _ in range(SHORT_REPLAYS - len(shorts))]
        short = {label: statistics.mean(sum(run[label]) for run in shorts) for label in labels}
        longest = asyncio.run(bounded_long(LONGEST))
        curves = (long, chars)
        for label, factory in labels.items():
            ratio = sum(long[label]) / short[label]
            if factory.kind in UNBOUNDED:
                target = 20.0 if factory.kind == "full_history" else 10.0
                add(f"{label}: CPU at {LONG:,} turns", "s", sum(long[label]), target)
                owner, method = MAF_WALKS[factory.kind]
                add(f"{label}: of which in MAF's {owner.__name__}.{method}", "s", in_maf.get((label, method), 0.0))
                add(f"{label}: time({LONG:,}) / time({SHORT})", "ratio", ratio)
            else:
                add(f"{label}: time({LONG:,}) / time({SHORT})", "ratio", ratio, 12.0)
                add(f"{label}: time({LONGEST:,}) / time({LONG:,})", "ratio", longest[label] / sum(long[label]), 12.0)
        add(f"six-policy comparison: CPU at {LONG:,} turns", "s", whole, 30.0)
        add(f"full history: peak RSS growth at {LONG:,} turns", "MB", full_history_peak_mb(LONG), 60.0)
        micros = store_per_turn(LONGEST)
        add(f"store apply + to_prompt_block: median per turn over {LONGEST:,}", "µs", statistics.median(micros))
        add(f"store: last / first decile per turn over {LONGEST:,}", "ratio", decile_ratio(micros), 1.5)
    plot(*curves)
    return list(out.values())


def plot(seconds: dict[str, list[float]], chars: dict[str, list[int]]) -> Path:
    """Time and characters per turn against the turn number, one line per policy (a 25-turn rolling median)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    for label in seconds:
        turns = range(1, len(seconds[label]) + 1)
        smooth = pd.Series(seconds[label], index=turns).mul(1000).rolling(25, min_periods=1).median()
        top.plot(smooth.index, smooth.values, label=label)
        bottom.plot(turns, chars[label], label=label)
    top.set_ylabel("CPU ms per turn")
    top.set_title(f"Cost per turn along a {LONG:,}-turn conversation (rule: latest)")
    bottom.set_ylabel("characters sent per turn\n(all calls)")
    bottom.set_xlabel("turn")
    for axis in (top, bottom):
        axis.set_yscale("log")
        axis.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)
    plt.close(fig)
    return PLOT


if __name__ == "__main__":
    from figures import table

    print(table(figures()))
