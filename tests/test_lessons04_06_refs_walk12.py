"""Lessons 04 to 06 after the fifth walks (issue 32): the text points at a printed line by what the line says, never
by its place ("the second sentence"); lesson 04 links the course map it names; the note above each panel names a
kernel restart; lesson 06 says where its "2 clones" come from; lesson 05 says the evaluator reads four of the things
it is given (not that it receives only those), defines *session* at its first use in the options table, and says why
its tables and stepper space a message number the trace prints glued."""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import pytest

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import options_rows

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
LESSON_04 = NOTEBOOKS / "04_memory_policies_compared.ipynb"
LESSON_05 = NOTEBOOKS / "05_loop_agent_traced.ipynb"
LESSON_06 = NOTEBOOKS / "06_loop_options_compared.ipynb"
OWNED = (LESSON_04, LESSON_05, LESSON_06)


def _cells(lesson: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(lesson, as_version=4).cells


def _cell(lesson: Path, cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in _cells(lesson) if c.get("id") == cell_id)


def _words(text: str) -> str:
    return " ".join(text.replace("*", "").split())


def _outputs_text(cell: nbformat.NotebookNode) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/html", "")))
    return "".join(parts)


def _printed_lines(cell: nbformat.NotebookNode) -> list[str]:
    text = "".join("".join(o.get("text", "")) for o in cell.outputs if o.get("output_type") == "stream")
    return [line for line in text.splitlines() if line.strip()]


# 1. A printed line is pointed at by what it says, not by its place among the sentences or lines.

PLACE = re.compile(
    r"\b(?:first|second|third|fourth|fifth|last)(?:\s+(?:two|three|four))?\s+(?:sentence|line)s?\b", re.IGNORECASE
)


@pytest.mark.parametrize("lesson", OWNED, ids=lambda p: p.name[:2])
def test_no_text_points_at_a_sentence_or_line_by_its_place(lesson):
    said = [m.group(0) for c in _cells(lesson) if c.cell_type == "markdown" for m in PLACE.finditer(_words(c.source))]
    assert said == [], f"{lesson.name}: say what the line says instead of {said}"


def test_the_quoted_beginnings_in_lesson_04_start_lines_the_cells_print():
    """Each 'the line ... that begins X' of lesson 04 names a line that a cell prints (outputs are committed)."""
    cells = _cells(LESSON_04)
    printed = [line for c in cells if c.cell_type == "code" for line in _printed_lines(c)]
    quoted = [q for c in cells if c.cell_type == "markdown" for q in re.findall(r"begins? '([^']+)'", _words(c.source))]
    assert len(quoted) >= 2, quoted  # the timing lines, whose numbers change from run to run
    for beginning in quoted:
        assert any(line.startswith(beginning) for line in printed), f"no printed line begins {beginning!r}"


# 2. Lesson 04 links the course map it asks the student to follow.


def test_lesson_04_links_the_course_map_where_it_names_it():
    opening = _words(_cells(LESSON_04)[0].source)
    assert "in the order of the [course map](../docs/course_map.png)" in opening
    assert (ROOT / "docs" / "course_map.png").is_file()


# 4. The note above each panel names a kernel restart.

KERNEL_RESTART = "After a kernel restart or a reopen, run the cells above it first"
KERNEL_RESTART_ALONE = (
    "After a kernel restart, a reopen, or a reload that shows the picture again, run the panel's cell"
)
"""The note above a panel whose cell works on its own (lesson 05's stepper since walk 19) says to run that cell only;
both in the short sentences every lesson's note has had since walk 24."""


@pytest.mark.parametrize("lesson", OWNED, ids=lambda p: p.name[:2])
def test_the_note_above_each_panel_names_a_kernel_restart(lesson):
    notes = [
        c for c in _cells(lesson) if c.cell_type == "markdown" and "Until the panel's cell, below, has run" in c.source
    ]
    assert notes, lesson.name
    for note in notes:
        said = _words(note.source)
        assert any(words in said for words in (KERNEL_RESTART, KERNEL_RESTART_ALONE)), lesson.name


# 3. Lesson 06's hood says where the clones it counts come from, and the count is the table's.


def test_lesson_06_says_which_run_made_the_clones_it_counts():
    table = _outputs_text(_cell(LESSON_06, "other-options-table"))
    rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", rows[-1], flags=re.S)
    last = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells]
    assert last[0] == "fresh_context_per_iteration=True + the caller's session"
    detail = _words(_cell(LESSON_06, "hood-options").source)
    clones = re.search(r"(\d+) sessions created", detail)
    assert clones and clones.group(1) == last[-1], detail
    assert "last row" in detail and "other options" in detail and "3 iterations" in detail


# 5. Lesson 05 does not say the evaluator receives only what its demo reads.


def test_lesson_05_never_says_the_evaluator_is_given_only_four_things():
    student = _cells(LESSON_05)[: next(i for i, c in enumerate(_cells(LESSON_05)) if c.get("id") == "hood-head")]
    text = " ".join(_words(c.source) for c in student if c.cell_type == "markdown")
    assert not re.search(r"evaluator (?:receives|sees|gets) only", text)
    assert "what the evaluator is given" in _words(_cell(LESSON_05, "cell-02").source)
    assert "The evaluator reads" in _words(_cell(LESSON_05, "cell-08").source)
    hood = _words(_cell(LESSON_05, "hood-pieces").source)
    for field in ("agent", "session", "run_options", "additional_properties"):
        assert f"`{field}`" in hood


# 6. A message number the trace prints glued is spaced in the tables and the stepper, and the lesson says why first.


# Lesson 06 leaves it to lesson 05 and its own Under the hood since walk 23 (tests/test_lesson06_second_walk23.py).
@pytest.mark.parametrize("lesson", (LESSON_05,), ids=lambda p: p.name[:2])
def test_the_lesson_says_why_its_tables_space_a_number_before_the_first_spaced_one(lesson):
    # walk 25 (tests/test_lesson05_walk25.py): a display detail, said under the hood rather than on the path
    cells = _cells(lesson)
    assert any(re.search(r"\[\d\] [A-Z]", _outputs_text(c)) for c in cells)
    hood = next(i for i, c in enumerate(cells) if c.get("id") == "hood-head")
    said = [_words(c.source) for c in cells[hood:] if c.cell_type == "markdown"]
    assert any(re.search(r"\[\d\][A-Z]", s) and "space" in s for s in said), lesson.name


# 7. The options table defines "session" where it first uses the word.


def test_the_first_option_row_naming_a_session_says_what_one_is():
    notes = [row["what it does"] for row in options_rows(LoopAgentOptions())]
    naming = [note for note in notes if re.search(r"\bsessions?\b", note)]
    assert "a fresh session (a new conversation history)" in naming[0]
    assert not any("session (" in note for note in naming[1:]), "defined again in a later row"
