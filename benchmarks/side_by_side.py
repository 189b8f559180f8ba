"""Old code against new in one process: each policy's CPU seconds over a generated timeline, today against a revision.

    python benchmarks/side_by_side.py 9f71c99 "full history,facts" 300 --repeats 3

extracts ``course_lib`` as it was at the revision into a temporary folder, as the package ``course_lib_old``, and
replays the timeline under each policy with the old and the new code, in the order old, new, new, old within each
repetition, so both sides see the same drift of a shared machine. Each replay's call rows and graded answers must be
identical between old and new (a faster version that sends or answers something else is not the same work). It prints
new / old per policy: the median, min and max over the repetitions, the median seconds of each side, and the load.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def old_policies(revision: str, folder: Path) -> ModuleType:
    """``course_lib.policies`` as it was at ``revision``, importable beside today's as ``course_lib_old.policies``."""
    archive = subprocess.run(
        ["git", "archive", revision, "course_lib"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "course_lib_old"
    (folder / "course_lib").rename(package)
    for source in package.glob("*.py"):  # the few absolute imports inside the package point at the old copy
        text = source.read_text(encoding="utf-8")
        source.write_text(text.replace("from course_lib.", "from course_lib_old."), encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module("course_lib_old.policies")


def replay(policies: ModuleType, label: str, turns: int) -> tuple[float, object]:
    """CPU seconds of one replay, and what it produced (call rows and graded answers)."""
    log = importlib.import_module(policies.__package__ + ".tracing").CallLog()

    async def run() -> object:
        factory = policies.course_policies()[label]
        return await policies.run_policy(policies.generate_timeline(turns), factory("latest", log), log, "latest")

    started = time.process_time()
    produced = asyncio.run(run())
    return time.process_time() - started, produced


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("revision", help="the old code: a commit, tag or branch of this repository")
    parser.add_argument("policies", help="comma-separated policy labels, e.g. 'full history,facts'")
    parser.add_argument("turns", type=int, help="turns in the generated timeline")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    new = importlib.import_module("course_lib.policies")
    with tempfile.TemporaryDirectory() as folder:
        old = old_policies(args.revision, Path(folder))
        for label in args.policies.split(","):
            ratios, old_seconds, new_seconds = [], [], []
            for _ in range(args.repeats):
                (a1, old_out), (b1, new_out) = replay(old, label, args.turns), replay(new, label, args.turns)
                (b2, _), (a2, _) = replay(new, label, args.turns), replay(old, label, args.turns)
                if old_out != new_out:
                    raise SystemExit(f"{label}: the old and new code sent or answered something different.")
                ratios.append((b1 + b2) / (a1 + a2))
                old_seconds.append((a1 + a2) / 2)
                new_seconds.append((b1 + b2) / 2)
            print(
                f"{label}, {args.turns} turns: new/old {statistics.median(ratios):.2f} "
                f"(min {min(ratios):.2f}, max {max(ratios):.2f}, {args.repeats} repetitions); "
                f"old {statistics.median(old_seconds):.2f} s, new {statistics.median(new_seconds):.2f} s CPU; "
                f"calls and answers identical; load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
