"""`make stress`: the trust-boundary properties at scale, with the counts run and the violations found.

Runs each hypothesis property of ``trust_harness`` and ``forget_harness`` (issue 33: folding, matching, redaction)
for ``--examples`` examples (10,000 by default) and each path's random interleavings of turns and forgets (and the
forget races: desk, writer and a loop's judge) ``--interleavings`` times (1,000 by default), on
``--jobs`` worker processes. Prints one line per check as it finishes, then a summary table; exits
non-zero if any violation was found. Every example and interleaving is seeded, so a run is repeatable.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from forget_harness import FORGET_PROPERTIES, FORGET_RACES, run_forget_races
from hypothesis import HealthCheck, Phase, given, seed, settings
from trust_harness import PATHS, PROPERTIES, run_interleavings

ALL_PROPERTIES = {**PROPERTIES, **FORGET_PROPERTIES}


def run_property(name: str, examples: int) -> tuple[str, str, int, list[str], float]:
    """Run one property for ``examples`` hypothesis examples; collect violations instead of stopping."""
    strategy, check = ALL_PROPERTIES[name]
    counted = {"examples": 0}
    violations: list[str] = []

    @seed(20261130)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def prop(value):
        counted["examples"] += 1
        found = check(value)
        if found:
            violations.extend(f"{v} <- {value!r}" for v in found)

    start = time.perf_counter()
    prop()
    return "property", name, counted["examples"], violations, time.perf_counter() - start


def run_path(name: str, count: int) -> tuple[str, str, int, list[str], float]:
    start = time.perf_counter()
    if name == FORGET_RACES:
        ran, violations = asyncio.run(run_forget_races(count, seed=20261130))
    else:
        ran, violations = asyncio.run(run_interleavings(name, count, seed=20261130))
    return "interleavings", name, ran, violations, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000, help="hypothesis examples per property")
    parser.add_argument("--interleavings", type=int, default=1_000, help="random interleavings per path")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (the machine's cores)")
    parser.add_argument("--only", default="", help="run only the checks whose name starts with this (e.g. forget:)")
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"stress: {args.examples} examples per property, {args.interleavings} interleavings per path", flush=True)
    results = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        # the longest first (the panels and the forget races, then the properties), so the workers finish together
        first = [name for name in ("panels", FORGET_RACES) if name.startswith(args.only)]
        rest = [name for name in PATHS if name != "panels" and name.startswith(args.only)]
        futures = [pool.submit(run_path, name, args.interleavings) for name in first]
        futures += [
            pool.submit(run_property, name, args.examples)
            for name in reversed(ALL_PROPERTIES)
            if name.startswith(args.only)
        ]
        futures += [pool.submit(run_path, name, args.interleavings) for name in rest]
        for future in as_completed(futures):
            kind, name, ran, violations, seconds = future.result()
            results.append((kind, name, ran, violations, seconds))
            print(f"  {kind:13} {name:75} {ran:>6} run  {len(violations)} violations  ({seconds:.0f} s)", flush=True)
            for violation in violations[:5]:
                print(f"      {violation}", flush=True)
    total = sum(len(v) for _, _, _, v, _ in results)
    print(f"\n{'check':92} {'run':>6}  violations")
    for kind, name, ran, violations, _ in sorted(results):
        print(f"{kind + ': ' + name:92} {ran:>6}  {len(violations)}")
    print(f"total: {total} violations; {time.perf_counter() - start:.0f} s wall clock", flush=True)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
