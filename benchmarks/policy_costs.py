"""Benchmark: what each memory policy sends, and how long it takes, relative to full history, in one run.

Run with ``make bench``. Every policy replays the same generated timelines on the offline models; the
ratios compare policies measured side by side in this run (characters are exact; seconds are this
machine's wall clock, so only their ratios mean something).
"""

from __future__ import annotations

import asyncio
import gc
import time

import pandas as pd

from course_lib.policies import generate_timeline, offline_policies, run_policy
from course_lib.tracing import CallLog

SIZES = (10, 20, 40, 80)
REPEATS = 5


async def replay(n: int, factory) -> tuple[list[dict], float]:
    """One replay, timed with the garbage collector paused so a collection does not land on one policy."""
    log = CallLog()
    timeline = generate_timeline(n)
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        calls, _ = await run_policy(timeline, factory("latest", log), log, "latest")
        return calls, time.perf_counter() - started
    finally:
        gc.enable()


async def measure() -> pd.DataFrame:
    """Each (size, policy) replayed REPEATS times after one warm-up replay; the fastest time is kept."""
    policies = offline_policies()
    for factory in policies.values():
        await replay(SIZES[0], factory)
    rows = []
    for n in SIZES:
        for name, factory in policies.items():
            runs = [await replay(n, factory) for _ in range(REPEATS)]
            calls = runs[0][0]
            fastest = min(seconds for _, seconds in runs)
            chars = sum(c["chars_sent"] for c in calls)
            rows.append({"turns": n, "policy": name, "chars": chars, "calls": len(calls), "seconds": fastest})
    return pd.DataFrame(rows)


def ratios(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    table = frame.pivot(index="turns", columns="policy", values=column)
    return table.div(table["full history"], axis=0).round(2)


def main() -> None:
    frame = asyncio.run(measure())
    pd.set_option("display.width", 200)
    print("Characters sent (all calls, writer and summarizer included), relative to full history:")
    print(ratios(frame, "chars").to_string())
    print("\nWall-clock time of the whole replay, relative to full history (same run, same machine):")
    print(ratios(frame, "seconds").to_string())
    print("\nAbsolute characters sent:")
    print(frame.pivot(index="turns", columns="policy", values="chars").to_string())


if __name__ == "__main__":
    main()
