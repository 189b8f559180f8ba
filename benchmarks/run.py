"""``make bench``: every benchmark's figures in one table, and the plot of the policies' cost per turn.

Each module named in ``BENCHMARKS`` exposes ``figures(repeats) -> list[Figure]``. The table goes to
stdout as Markdown, with the machine it ran on, so the README can carry it as printed.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time
from pathlib import Path

from figures import table

BENCHMARKS = ("policy_costs", "loop_overhead", "local_model")


def machine() -> str:
    cpus = os.cpu_count()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{platform.machine()}, {cpus} CPUs, Python {platform.python_version()}, load average {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3, help="repetitions of every figure (default 3)")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent
    started = time.perf_counter()
    rows = []
    for name in BENCHMARKS:
        if not (here / f"{name}.py").exists():
            print(f"({name}: not present, skipped)", file=sys.stderr)
            continue
        rows += importlib.import_module(name).figures(args.repeats)
    print(table(rows))
    print(f"\nMachine: {machine()}; {time.perf_counter() - started:.0f} s wall for the whole run.")


if __name__ == "__main__":
    main()
