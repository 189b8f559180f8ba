"""Lesson 04's section 6 replays after walk 22 (issue 32): the measurement does not walk the caller's heap.

A new student's Run All of lesson 04 took 40 s headless, 27 of them in the section 6 replay cell. Profiled in the
lesson's kernel, most of that cell's CPU time was ``gc.collect()``: one full collection before each of the 72 timed
replays, each walking every object the notebook held (pandas, matplotlib, the widgets, section 2's calls), about
0.1 to 0.4 s each. The rule: the collection before a timed replay still clears what earlier replays left, but the
objects that were alive before the measurement began are frozen out of it (``gc.freeze``), so its cost no longer
grows with what the caller holds; they are unfrozen when the measurement ends, even after an error.
"""

from __future__ import annotations

import asyncio
import gc
import time

import pytest

from course_lib import policies as policies_module
from course_lib.policies import OFFLINE, course_policies, measure_scaling


def _two_policies():
    every = course_policies(backends=OFFLINE)
    return {name: every[name] for name in ("full history", "facts")}


def test_every_collection_before_a_timed_replay_skips_what_the_caller_held(monkeypatch):
    frozen_at_collect: list[int] = []
    real_collect = gc.collect

    def collect(*args: int) -> int:
        frozen_at_collect.append(gc.get_freeze_count())
        return real_collect(*args)

    monkeypatch.setattr(policies_module.gc, "collect", collect)
    held = [[i] for i in range(50_000)]  # the caller's heap: a notebook's tables, plots and widgets
    before = gc.get_freeze_count()
    asyncio.run(measure_scaling([4, 6], _two_policies(), timings=2))
    walked_all = [count for count in frozen_at_collect if count < len(held)]
    assert len(walked_all) <= 1, frozen_at_collect  # at most one, the one that readies the freeze
    timed = [count for count in frozen_at_collect if count >= len(held)]
    assert len(timed) >= 2 * 2 * 2  # still one collection before every timed replay
    assert gc.get_freeze_count() == before  # unfrozen when the measurement ends


def test_the_caller_s_objects_are_unfrozen_after_an_error(monkeypatch):
    async def broken(*args, **kwargs):
        raise RuntimeError("a replay failed")

    before = gc.get_freeze_count()
    monkeypatch.setattr(policies_module, "run_policy", broken)
    with pytest.raises(RuntimeError):
        asyncio.run(measure_scaling([4], _two_policies(), timings=1))
    assert gc.get_freeze_count() == before


def test_a_large_heap_adds_little_to_the_measurement():
    """Measured, not assumed: two million live objects once cost a full walk per replay (0.1 s or more each)."""
    policies = _two_policies()

    def cpu() -> float:
        started = time.process_time()
        asyncio.run(measure_scaling([4], policies, timings=3))
        return time.process_time() - started

    light = min(cpu() for _ in range(2))
    held = [[i] for i in range(2_000_000)]
    heavy = min(cpu() for _ in range(2))
    del held
    # 6 timed replays and the warm-up: a full walk of 2M objects each would add well over a second
    assert heavy < light + 0.5, (light, heavy)
