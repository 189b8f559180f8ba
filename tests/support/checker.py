"""What an exercise's checking cell prints, as the checker tests read it: through ``check`` and through a shell."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
from IPython.core.interactiveshell import InteractiveShell

from course_lib.exercises import check, exercise, explain_unquoted_names


def said(lesson: str, label: str, answer: Any, expected: Any, line: str | None = None) -> str:
    """What a checking cell of ``lesson``'s ``label`` prints, as one line; ``line`` is the answer line typed."""
    cell = (line or f"answer_1 = {answer!r}") + f"\nprint(check({label!r}, answer_1, expected, hint))"
    hint = exercise(lesson, label).hint
    return " ".join(check(label, answer, expected, hint, namespace={"In": ["", cell]}).split())


def run_in_shell(capsys: Any, cell: str, **names: Any) -> str:
    """What a notebook cell prints in a shell set up as the lessons set it up, as one line."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, exercise=exercise, **names)
        shell.run_cell(cell, store_history=True)
        return " ".join(capsys.readouterr().out.split())
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def run_in_real_kernel(source: str) -> tuple[dict[str, Any], str]:
    """Run ``source`` first in a new real kernel (ipykernel, as JupyterLab starts one): its execute reply's content
    and what it printed. The reply is the one whose parent is this request: under load, a kernel_info reply from the
    kernel's start can still be waiting on the shell channel."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        request = client.execute(source)
        while (reply := client.get_shell_msg(timeout=60))["parent_header"].get("msg_id") != request:
            pass
        shown = []
        while True:
            msg = client.get_iopub_msg(timeout=10)
            if msg["parent_header"].get("msg_id") != request:
                continue
            if msg["content"].get("execution_state") == "idle":
                break
            shown.append(msg["content"].get("text", ""))
        return reply["content"], "".join(shown)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
CHECKING = re.compile(r'check\(\s*"(Exercise \d+)"')

FRESH_SHELL_RUNNER = r"""
import contextlib, io, json, sys
from IPython.core.interactiveshell import InteractiveShell

said = []
for source in json.load(sys.stdin):
    for name in [m for m in sys.modules if m == "course_lib" or m.startswith("course_lib.")]:
        del sys.modules[name]
    InteractiveShell.clear_instance()
    shell = InteractiveShell.instance()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        shell.run_cell(source)
    said.append(out.getvalue())
print(json.dumps(said))
"""
"""Each source run as the first cell of a restarted kernel: every ``course_lib`` module dropped before it."""


def exercise_cells(lessons: tuple[str, ...] | None = None) -> list[tuple[str, str, str]]:
    """Each exercise's checking cell as stored: (lesson, label, source), lesson by lesson, ``lessons`` or all."""
    found = []
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        if lessons is not None and path.stem[:2] not in lessons:
            continue
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and (label := CHECKING.search(cell.source)):
                found.append((path.stem[:2], label.group(1), cell.source))
    return found


def run_each_in_a_fresh_shell(sources: list[str]) -> list[str]:
    """What each source prints, run alone in a fresh IPython shell (a restarted kernel imitated in a subprocess)."""
    done = subprocess.run(
        [sys.executable, "-c", FRESH_SHELL_RUNNER],
        input=json.dumps(sources),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
