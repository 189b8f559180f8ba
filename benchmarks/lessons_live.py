"""``make lessons-live``: every lesson executed on the live model the settings name (``COURSE_LLM=local`` there).

Each lesson is copied to a temporary folder and run top to bottom in its own kernel, so the committed notebooks
keep their offline outputs (strict nbval checks those). A cell that raises fails the run: the lesson's name, the
cell's number and the error's last line are printed, and the exit status is 1. The seconds per lesson and the
machine's load average are printed beside it (the machine may be shared: the figures are then pessimistic).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


MEMO_PROBE = """
import sys
if "course_lib.live_client" in sys.modules:
    asked, again = sys.modules["course_lib.live_client"].memo_totals()
    print(f"memo: {asked} answers from the model, {again} calls answered again")
"""


def memo_line(copy: Path) -> str:
    """What the probe cell of an executed copy printed (empty if the lesson made no live call or stopped before)."""
    outputs = nbformat.read(copy, as_version=4).cells[-1].get("outputs", [])
    return "".join(o.get("text", "") for o in outputs).strip()


def run_lesson(
    lesson: Path, folder: Path, timeout: int, cells: dict[int, float] | None = None
) -> tuple[float, str | None]:
    """Seconds the lesson took and, if a cell raised, ``cell N: <error>``; the copy runs beside the others.

    ``cells``, when given, receives the seconds each code cell took, by its index.
    """
    copy = folder / lesson.name
    shutil.copy(lesson, copy)
    notebook = nbformat.read(copy, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(MEMO_PROBE))  # the copy's last cell: what the memo answered
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": folder}})
    running = {"cell": -1}  # the index of the cell being run: the copy's stored execution counts are the offline ones

    began = {"at": time.perf_counter()}

    def started(cell: object, cell_index: int) -> None:
        running["cell"] = cell_index
        began["at"] = time.perf_counter()

    def completed(cell: object, cell_index: int, **_: object) -> None:
        if cells is not None:
            cells[cell_index] = time.perf_counter() - began["at"]

    client.on_cell_start = started
    client.on_cell_executed = completed  # after the reply: the cell's whole time
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as error:
        index = running["cell"]
        first = str(error.evalue).strip().splitlines()[:1]
        return time.perf_counter() - start, f"cell {index}: {error.ename}: {first[0] if first else ''}"[:300]
    except CellTimeoutError:
        return time.perf_counter() - start, f"cell {running['cell']}: timed out after {timeout} s"
    finally:
        nbformat.write(notebook, copy)
    return time.perf_counter() - start, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("lessons", nargs="*", help="lesson names or prefixes (default: all), e.g. 02 04")
    parser.add_argument("--timeout", type=int, default=1200, help="seconds one cell may take (default 1200)")
    parser.add_argument("--keep", type=Path, help="a folder to keep the executed copies in")
    args = parser.parse_args()
    if os.environ.get("COURSE_LLM", "offline") == "offline":
        print("lessons-live runs the lessons on a live model: set COURSE_LLM=local (or openai).", file=sys.stderr)
        return 2
    chosen = [p for p in LESSONS if not args.lessons or any(p.name.startswith(a) for a in args.lessons)]
    failures = 0
    total = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lessons-live-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for lesson in chosen:
            cells: dict[int, float] = {}
            seconds, error = run_lesson(lesson, folder, args.timeout, cells)
            load = os.getloadavg()[0]
            status = "ok" if error is None else f"FAILED at {error}"
            slowest = sorted(cells.items(), key=lambda item: -item[1])[:4]
            where = ", ".join(f"cell {index} {took:.0f} s" for index, took in slowest if took >= 1)
            memo = memo_line(folder / lesson.name)
            memo = f"; {memo}" if memo else ""
            print(f"{lesson.stem}: {seconds:.0f} s (load average {load:.1f}) {status}{memo}", flush=True)
            if where:
                print(f"  slowest: {where}", flush=True)
            failures += error is not None
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{len(chosen) - failures} of {len(chosen)} lessons ran without an error; {time.perf_counter() - total:.0f} s"
    )
    print(f"COURSE_LLM={os.environ.get('COURSE_LLM')}; load average {load}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
