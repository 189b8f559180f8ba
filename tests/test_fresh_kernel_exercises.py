"""Every exercise cell, run alone in a fresh kernel, says in words which cells to run first (issue 32: the walks of
lessons 01, 02 and 04 met a bare ``NameError`` traceback after Kernel > Restart Kernel).

The guidance is installed when ``course_lib.exercises`` is imported in a running IPython, so each exercise cell
imports it on its first line. A fresh kernel is imitated in a subprocess: before each cell, every ``course_lib``
module is dropped, so the cell's import runs the module anew, as a restarted kernel does.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKING = re.compile(r'check\(\s*"(Exercise \d+)"')

RUNNER = r"""
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


def _exercise_cells() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and (label := CHECKING.search(cell.source)):
                found.append((path.stem[:2], label.group(1), cell.source))
    return found


CELLS = _exercise_cells()


def test_every_lesson_has_its_exercise_cells():
    assert len(CELLS) == 24 and {lesson for lesson, _, _ in CELLS} == {f"0{n}" for n in range(8)}


@pytest.mark.parametrize("index", range(len(CELLS)), ids=[f"{lesson}-{label}" for lesson, label, _ in CELLS])
def test_an_exercise_cell_run_alone_in_a_fresh_kernel_says_which_cells_to_run(fresh_runs, index):
    lesson, label, source = CELLS[index]
    said = " ".join(fresh_runs[index].split())
    assert any(line.startswith("from course_lib.exercises import") for line in source.splitlines()[:2])
    assert "Traceback" not in said, f"lesson {lesson}, {label}: {said[:400]}"
    if "is not defined in this kernel yet" in said:  # lesson 00's cells define all they use
        assert said.startswith(f"{label}: not checked yet. "), said[:200]
        assert "Run the cells above first (Run > Run All Above Selected Cell), then this cell again." in said


@pytest.fixture(scope="module")
def fresh_runs() -> list[str]:
    sources = [source for _, _, source in CELLS]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER], input=json.dumps(sources), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_awaiting_exercise_cell_first_in_a_real_kernel_gets_its_reply():
    """Lesson 05's walk: run first after a restart, an exercise cell with a top-level ``await`` stayed at ``[*]``.
    ipykernel runs such a cell without resetting ``_last_traceback``, which only a shown traceback sets, and the
    course's handler shows none: building the reply raised AttributeError and no reply reached the browser."""
    from support.checker import run_in_real_kernel

    _, source = next((label, s) for lesson, label, s in CELLS if lesson == "05" and "await " in s)
    reply, said = run_in_real_kernel(source)  # the execute reply itself, not a kernel_info reply left from the start
    assert reply["status"] == "error" and reply["ename"] == "NameError"
    assert "is not defined in this kernel yet" in said


def test_the_shells_advice_opens_on_the_same_line_as_a_graded_forms(fresh_runs):
    """Lesson 01's walk: "Exercise 2: not checked yet." stood on a line of its own before the shell's advice, and
    on the same line as the advice in check()'s forms; one layout now."""
    for (_, label, _), said in zip(CELLS, fresh_runs, strict=True):
        if label in said and "not checked yet" in said:
            assert f"{label}: not checked yet. " in said.splitlines()[0], said[:200]


def test_an_exercise_cell_that_stops_says_run_all_stopped_there(fresh_runs):
    """Lesson 04's walk: after Run All, a cell that stopped left every cell below it empty, and nothing said why."""
    from course_lib.exercises import RUN_ALL_STOPS

    stopped = [said for said in fresh_runs if "not checked yet" in said]
    missing = [said for said in stopped if "is not defined in this kernel yet" in said]
    assert stopped and missing
    # a name the cells above define is missing only when they did not run, which Run All never does: the fifth walks,
    # who had run that one cell, were puzzled by a Run All note there
    assert not any(RUN_ALL_STOPS in said for said in missing)
    assert all(said.rstrip().endswith(RUN_ALL_STOPS) for said in stopped if said not in missing)


def test_an_answer_that_stops_its_cell_says_run_all_waits_for_it(capsys):
    """An answer line Python cannot read stops the cell, and Run All with it: said in words true either way."""
    from support.checker import run_in_shell

    from course_lib.exercises import RUN_ALL_STOPS

    out = run_in_shell(capsys, "answer_1 = \nprint(check('Exercise 1', answer_1, 4, ''))")
    assert "not checked yet" in out and out.rstrip().endswith(RUN_ALL_STOPS)
    assert "If you used Run All" not in RUN_ALL_STOPS
