"""Every exercise cell, run alone in a fresh kernel, says in words which cells to run first (issue 32: the walks of
lessons 01, 02 and 04 met a bare ``NameError`` traceback after Kernel > Restart Kernel).

The guidance is installed when ``course_lib.exercises`` is imported in a running IPython, so each exercise cell
imports it on its first line. A fresh kernel is imitated in a subprocess: before each cell, every ``course_lib``
module is dropped, so the cell's import runs the module anew, as a restarted kernel does.
"""

from __future__ import annotations

import pytest
from support.checker import exercise_cells, run_each_in_a_fresh_shell

CELLS = exercise_cells()


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
    return run_each_in_a_fresh_shell([source for _, _, source in CELLS])


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
