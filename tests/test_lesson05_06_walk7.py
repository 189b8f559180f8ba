"""Lessons 05 and 06 walked by a new student at 4 of 5 (issue 32): hints that point at the reasoning without the
answer, each term named where it appears, the exercises' run-first note, and helpers a comment explains."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from course_lib.exercises import check, exercise
from course_lib.loop_demos import kept_with_numbers, run_seed_demo

ROOT = Path(__file__).resolve().parent.parent
LESSONS = {"05": "05_loop_agent_traced", "06": "06_loop_options_compared"}


def _cells(lesson: str) -> list[nbformat.NotebookNode]:
    return nbformat.read(ROOT / "notebooks" / f"{LESSONS[lesson]}.ipynb", as_version=4).cells


def _path(lesson: str) -> list[nbformat.NotebookNode]:
    """The student's path: every cell before "Under the hood"."""
    cells = _cells(lesson)
    return cells[: next(i for i, c in enumerate(cells) if c.source.startswith("## Under the hood"))]


def _cell(lesson: str, cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in _cells(lesson) if c.get("id") == cell_id)


def _said(label: str, answer: object, expected: object, lesson: str) -> str:
    return check(label, answer, expected, exercise(lesson, label).hint).replace("\n", " ")


def test_lesson_05_exercise_1_hint_points_at_the_chart_not_the_formula():
    hint = exercise("05", "Exercise 1").hint
    assert "chart" in hint and "two more for each" not in hint and "9" not in hint


def test_lesson_05_exercise_2_hint_asks_and_names_the_allowed_3_run():
    hint = exercise("05", "Exercise 2").hint
    assert hint.count("?") >= 1 and "stops after" not in hint
    five = _said("Exercise 2", 5, 1, "05")
    assert "section 2" in five and "allows 3" in five


def test_lesson_06_exercise_3_hint_for_2_points_at_the_reasoning():
    two = _said("Exercise 3", 2, 1, "06")
    assert "?" in two and "B is asked only when A says stop" not in two


@pytest.mark.parametrize("lesson", sorted(LESSONS))
def test_the_exercises_heading_says_what_to_replace_and_to_run_the_cells_above_first(lesson):
    heading = next(c.source for c in _path(lesson) if c.source.startswith("## Exercises"))
    assert "Replace `...` with your prediction and run the cell" in heading
    assert "Run > Run All Cells" in heading


def test_lesson_05_leaves_the_csharp_origin_the_seeds_format_and_contradictions_under_the_hood():
    path = _path("05")
    text = "\n".join(c.source for c in path if c.cell_type == "markdown")
    hood = "\n".join(c.source for c in _cells("05")[len(path) :] if c.cell_type == "markdown")
    # the path names the platform once, in the phrase tests/test_student_path.py allows (walk 19); C# names stay out
    # walk 25: "(MAF for Python has none)"; the longer sentence is under the hood
    assert "MAF for Python has none" in text and "C#" not in text.replace("MAF for .NET (C#)", "")
    assert "no `LoopAgent` class" in hood
    assert "MAF for .NET, written in C#" in hood
    # walk 22: the contradictions are announced under the hood only, the path links them no more
    assert "three places" not in text and "(#seed-contradictions)" not in text and "(#seed-contradictions)" in hood
    assert '"previous feedback: none"' not in text and "already the `Feedback:` line" not in text
    assert '"previous feedback: none"' in hood and "no empty message is sent" in hood


async def test_the_evaluators_row_puts_each_part_on_its_own_line_never_a_full_stop_before_a_semicolon():
    trace, _ = await run_seed_demo()
    for saw in trace.to_frame().query("actor == 'Evaluator'")["saw"]:
        assert ".;" not in saw and saw.count("\n") == 3
        assert saw.splitlines()[1] == kept_with_numbers("the 3 initial messages")  # "the 3": one line (walk 21)
    assert 'lines=["saw"]' in _cell("05", "cell-13").source  # shown one part per line, in every place


def test_the_glossary_has_loop_context_and_says_lesson_05_introduces_the_options_and_updates():
    rows = {
        m.group(1): line
        for line in (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines()
        if (m := re.match(r"\| \*\*([^*]+)\*\*", line))
    }
    assert '<a id="loopcontext"></a>' in rows["`LoopContext`"] and "lesson 05" in rows["`LoopContext`"]
    assert "lesson 05" in rows["`LoopAgentOptions`"] and "lessons 05, 06" in rows["update"]


def test_lesson_06_says_which_evaluator_exercise_2_uses_and_when_a_session_is_new():
    assert "its evaluator allows 3" in _cell("06", "cell-23").source
    assert "when the caller passes no session" in _cell("06", "cell-02").source


def test_a_judges_criterion_is_text_not_one_word_everywhere_it_is_explained():
    sources = [c.source for c in _cells("06")]
    sources += [(ROOT / p).read_text(encoding="utf-8") for p in ("docs/glossary.md", "course_lib/loop_demos.py")]
    assert not [s for s in sources if "mention: WORD" in s]
    assert "`mention: TEXT`" in _cell("06", "8f908dd8").source and "writes what the feedback says is missing" in (
        _cell("06", "8f908dd8").source.replace("\n", " ")
    )


def test_lesson_06_names_the_three_flows_before_the_columns():
    text = _cell("06", "l06-flows-columns").source.split("Its columns")[0]
    assert "`LoopAgent`" in text and "with a session" in text and "without one" in text


@pytest.mark.parametrize(
    ("cell_id", "helpers"),
    [
        ("cell-05", ("call_input_frame",)),
        ("cell-10", ("messages_frame",)),
        ("cell-12", ("feedback_log_words", "spaced")),
    ],
)
def test_each_course_helper_of_sections_1_3_and_4_has_a_comment_saying_what_it_does(cell_id, helpers):
    comments = [line for line in _cell("06", cell_id).source.splitlines() if line.lstrip().startswith("#")]
    for helper in helpers:
        assert any(f"{helper}:" in line for line in comments), (cell_id, helper)
