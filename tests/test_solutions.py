"""The instructor's solutions (``instructor/solutions/``, one file per lesson) and the student notebooks.

The student notebooks hold no answer: every exercise cell assigns ``...`` to its answer names, and its stored
output says "not answered yet". Each lesson has a solutions file that answers exactly those names.

``make solutions`` (tests marked ``solutions``, apart from ``make test``: they execute every lesson again) runs
each lesson with its stubs replaced by the solutions, offline, and requires every checking cell to report the
answer correct, in the words ``course_lib.exercises.check`` uses. The solutions are literal predictions, not
computed: when the library's behaviour changes, a solution stops passing and the instructor hears of it here.
"""

import ast
import re
from pathlib import Path

import nbformat
import pytest

from course_lib.exercises import UNANSWERED, check

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = ROOT / "instructor" / "solutions"
LESSONS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
STUB = re.compile(r"^(?P<name>\w+) = \.\.\.(?:\s*#.*)?$", flags=re.MULTILINE)
EXERCISE = re.compile(r"""check\(\s*["'](Exercise \d+)["']""")


def solutions(lesson: str) -> dict[str, str]:
    """Each answer name of a lesson's solutions file and the assignment's source, ready to paste."""
    text = (SOLUTIONS / f"{lesson}.py").read_text()
    found = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = ast.get_source_segment(text, node)
    return found


def exercise_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in nb.cells if c.cell_type == "code" and EXERCISE.search(c.source)]


def stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def with_solutions(nb: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    """A copy of the notebook whose stubs are replaced by the solutions' assignments, as an instructor pastes them."""
    nb = nbformat.from_dict(nb)
    for cell in exercise_cells(nb):
        cell.source = STUB.sub(lambda m: answers[m["name"]], cell.source)
    return nb


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_student_notebook_holds_only_stubs_and_the_solutions_answer_each_of_them(lesson):
    nb = nbformat.read(NOTEBOOKS / f"{lesson}.ipynb", as_version=4)
    cells = exercise_cells(nb)
    assert len(cells) >= 3, f"{lesson}: expected at least three exercises"
    stubs = [m["name"] for cell in cells for m in STUB.finditer(cell.source)]
    assert set(stubs) == set(solutions(lesson)), f"{lesson}: the solutions file and the stubs name different answers"
    # the words every unanswered check begins with; the rest may name which stub is missing (lesson 03's message_1)
    not_answered = check("Exercise", UNANSWERED, None).removeprefix("Exercise").split(".")[0]
    for cell in cells:
        assert STUB.search(cell.source), f"{lesson}: an exercise cell without a `... ` stub:\n{cell.source}"
        assert not_answered in stdout(cell), f"{lesson}: a stored exercise output is not the unanswered one"


def test_every_solutions_file_belongs_to_a_lesson():
    assert sorted(p.stem for p in SOLUTIONS.glob("*.py")) == LESSONS


@pytest.mark.solutions
@pytest.mark.timeout(600)
@pytest.mark.parametrize("lesson", LESSONS)
def test_every_solution_passes_its_checking_cell(lesson, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("COURSE_LLM", "offline")
    nb = with_solutions(nbformat.read(NOTEBOOKS / f"{lesson}.ipynb", as_version=4), solutions(lesson))
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    for cell in exercise_cells(nb):
        said = stdout(cell)
        for exercise in EXERCISE.findall(cell.source):
            correct = check(exercise, True, True)
            assert correct in said.splitlines(), f"{lesson}, {exercise}: the checking cell said\n{said}"
