"""Lesson 00's last new-student walks (issue 32, walk 23): "density, not errors".

1. Section 6 (a real model, recorded) brings only what a first read needs: what was recorded, how many of the 15
   cases the small model got as the contract says, its misses grouped in words, and where to read more; the
   battery, the offline scorecard and the three requests compared are under "Under the hood".
2. A cell that needs what an earlier cell made works on its own after a kernel restart: every code cell of the
   lesson makes (or imports) every name it reads, so no cell stops on Python's raw NameError.
3. Exercise 1's likely wrong counts each get a hint naming their slip, computed from the formula, never the answer.
4. A link's text says what opens, never a path such as "docs/live-endpoints.md" or a bare "here".
5. A value is shown as the course shows values elsewhere (``assertions.shown_pair``), never with Python's quotes.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import pytest

from course_lib.assertions import parse_assertions, shown_pair
from course_lib.exercises import check, exercise
from course_lib.live import LiveSettings
from course_lib.providers import LESSON_00_EXERCISE_3_MESSAGE
from course_lib.qualify import case_declares
from tests.support.lesson_cells import plain_words, stored_lesson

ROOT = Path(__file__).resolve().parent.parent


def cells() -> list[dict]:
    return stored_lesson("00")["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def student_path() -> list[dict]:
    """The cells before "## Under the hood"."""
    out = []
    for cell in cells():
        if cell["cell_type"] == "markdown" and source(cell).lstrip().startswith("## Under the hood"):
            break
        out.append(cell)
    return out


def section_6() -> list[dict]:
    """The cells from section 6's heading to the exercises' heading (or the end of the student's path)."""
    path = student_path()
    start = next(i for i, c in enumerate(path) if "## 6." in source(c))
    end = next((i for i, c in enumerate(path) if i > start and "## Exercises" in source(c)), len(path))
    return path[start : end + 1]


def outputs(cell: dict) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        for kind in ("text/plain", "text/html", "text/markdown"):
            parts.append("".join(output.get("data", {}).get(kind, "")))
    return "\n".join(parts)


# 1. Section 6 ------------------------------------------------------------------------------------------------------


def test_section_6_shows_what_was_recorded_how_many_passed_and_the_misses_in_words():
    cells_6 = section_6()
    code = [c for c in cells_6 if c["cell_type"] == "code"]
    assert len(code) == 1, "one cell: the recording's count and its misses in words"
    shown = outputs(code[0])
    assert "misses_in_words" in source(code[0])
    assert re.search(r"\b12 of 15\b", shown), "how many of the 15 cases the small model got as the contract says"
    assert "SmolLM2-135M-Instruct" in shown
    prose = plain_words("\n".join(source(c) for c in cells_6 if c["cell_type"] == "markdown"))
    assert "Under the hood" in prose, "where to read more"


def test_section_6_leaves_the_battery_scorecard_and_comparison_to_under_the_hood():
    path_code = "\n".join(source(c) for c in student_path() if c["cell_type"] == "code")
    for name in ("battery_rows", "offline_view", "compare_qualifications", "wrong_proposals"):
        assert name not in path_code, f"{name} is under the hood now"
    hood = "\n".join(source(c) for c in cells()[len(student_path()) :])
    for name in ("battery_rows", "offline_view", "offline_summary", "compare_qualifications", "wrong_proposals"):
        assert name in hood, f"{name} moved under the hood, not lost"


def test_section_6_is_short():
    prose = plain_words("\n".join(source(c) for c in section_6() if c["cell_type"] == "markdown"))
    prose = prose.split("## Exercises")[0]
    assert len(prose.split()) <= 260, f"section 6's prose has {len(prose.split())} words"


# 2. Every cell works on its own --------------------------------------------------------------------------------------


def free_names(code: str) -> set[str]:
    """The names a cell reads that it neither assigns nor imports (nor Python nor IPython defines)."""
    tree = ast.parse(code)
    made: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (made if isinstance(node.ctx, ast.Store | ast.Del) else read).add(node.id)
        elif isinstance(node, ast.alias):
            made.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            made.add(node.name)
        elif isinstance(node, ast.arg):
            made.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            made.add(node.name)
    return read - made - set(dir(builtins)) - {"display", "get_ipython"}


def test_the_free_names_rule_sees_a_name_an_earlier_cell_made():
    assert free_names("from x import f\nprint(f(card))") == {"card"}
    assert free_names("card = 1\nprint(card)") == set()


@pytest.mark.parametrize("index", range(len(cells())))
def test_every_code_cell_makes_every_name_it_reads(index):
    cell = cells()[index]
    if cell["cell_type"] != "code":
        return
    missing = free_names(source(cell))
    assert not missing, f"cell {cell.get('id')} reads {sorted(missing)}, made by an earlier cell"


# 3. Exercise 1's slips ---------------------------------------------------------------------------------------------

EXERCISE_1 = LiveSettings(model="m", api_key="k", timeout=20, max_retries=2)
ANSWER_1 = EXERCISE_1.worst_case_wait
WAITS = EXERCISE_1.retry_waits
ATTEMPTS = EXERCISE_1.max_retries + 1


def hint_1(answer: float) -> str:
    return " ".join(check("Exercise 1", answer, ANSWER_1, exercise("00", "Exercise 1").hint).split())


SLIPS = [
    # value, words the hint must say (its slip), computed from the formula
    (EXERCISE_1.timeout * EXERCISE_1.max_retries, "first attempt"),  # 40: the retries alone
    (EXERCISE_1.timeout * EXERCISE_1.max_retries + sum(WAITS), "first attempt"),  # 41.5
    (EXERCISE_1.timeout * ATTEMPTS, "wait"),  # 60: no waits
    (ANSWER_1 - WAITS[0], "wait"),  # 61: the wait before the first retry left out
    (ANSWER_1 - WAITS[1], "wait"),  # 60.5: the wait before the second retry left out
    (float(int(ANSWER_1)), "fraction"),  # 61, read as the answer cut to whole seconds too
]


@pytest.mark.parametrize(("answer", "slip"), SLIPS)
def test_exercise_1_names_each_likely_slip_without_the_answer(answer, slip):
    said = hint_1(answer)
    assert said.startswith("Exercise 1: not quite.")
    assert slip in said, said
    assert f"{ANSWER_1:g}" not in said, "the hint never gives the answer away"
    assert f"{answer:g}" in said, "the hint names the count it is about"


def test_exercise_1_says_40_left_out_the_first_attempt_and_61_left_out_a_wait():
    assert "first attempt" in hint_1(40)
    said = hint_1(61)
    assert "wait" in said and "fraction" in said, "61 left out a wait, or rounded the answer down"


def test_exercise_1_integer_answers_get_the_same_hint_as_their_float():
    assert hint_1(40) == hint_1(40.0) and hint_1(61) == hint_1(61.0)


# 4. Links say what opens --------------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)]+)\)")


def lesson_00_links() -> list[tuple[str, str]]:
    return [m.groups() for c in cells() if c["cell_type"] == "markdown" for m in LINK.finditer(source(c))]


def readme_lesson_00_links() -> list[tuple[str, str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    live = readme.split('<a id="live-models"></a>')[1].split("## What the facts are not")[0]
    return [m.groups() for m in LINK.finditer(live)]


@pytest.mark.parametrize(("text", "target"), lesson_00_links() + readme_lesson_00_links())
def test_a_links_text_says_what_opens(text, target):
    assert not re.search(r"\.(md|ipynb)\b|^docs/|/", text), f"[{text}]({target}) names a path, not what opens"
    assert text.strip().lower() not in {"here", "this", "link", "glossary"}, f"[{text}] says nothing of what opens"
    assert len(text.split()) >= 3, f"[{text}] is too short to say what opens"


@pytest.mark.parametrize(("text", "target"), lesson_00_links())
def test_a_lesson_00_link_opens_a_file_of_the_course(text, target):
    if target.startswith(("attachment:", "http", "#")):
        return  # an anchor of this page: tests/test_anchor_links.py checks it lands
    path = (ROOT / "notebooks" / target.split("#")[0]).resolve()
    assert path.is_file(), f"[{text}]({target}) opens nothing under make lab"


# 5. Values shown as the course shows them ----------------------------------------------------------------------------


def test_case_declares_shows_a_value_as_the_course_does():
    said = case_declares("words before a key")
    assert "environment=staging." in said
    assert "environment='" not in said


def test_exercise_3_why_shows_the_declared_value_as_the_course_does():
    declared = parse_assertions(LESSON_00_EXERCISE_3_MESSAGE)
    pair = shown_pair(*next(iter(declared.items())))
    why = exercise("00", "Exercise 3").why
    assert pair in why, why
    assert "='" not in why


def test_no_output_of_lesson_00_shows_a_python_quoted_value():
    for cell in cells():
        shown = outputs(cell)
        assert not re.search(r"\b[a-z]+='", shown), f"cell {cell.get('id')} shows a value in Python's quotes"


def test_section_6s_counts_of_the_battery_are_the_batterys():
    from course_lib.qualify import BATTERY

    prose = plain_words(source(section_6()[0]))
    assert f"a fixed list of {len(BATTERY)} test messages" in prose
    injections = sum(case.kind == "injection" for case in BATTERY)
    assert f"{['No', 'One', 'Two', 'Three', 'Four'][injections]} of the messages are injection" in prose
