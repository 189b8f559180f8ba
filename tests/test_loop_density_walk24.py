"""Lessons 05 and 06, walk 24 (issue 32): "density, not errors".

1. Where the seed contradicts itself: each lesson says it in two sentences and one small table (what the seed says in
   one place, what in another, what the code does); the quotations, the Chinese and the .NET file names move below the
   table, as detail.
2. The note above each lesson's stepper was two sentences of 43 and 26 words: it is now three short sentences that
   still say all it said (a saved picture, its red marks and JupyterLab's "model not found", controls that do
   nothing yet, what to run again, a panel that starts afresh).
3. The student's path of each lesson: no paragraph over four sentences, no sentence over 30 words, and a word budget
   (lesson 05: 1600, lesson 06: 2100), counted as the walks' measure counts them.
"""

from __future__ import annotations

import re

import pytest
from support.lesson_cells import stored_lesson
from test_reading import PANEL_CONTROLS, panel_note

from tests.support.lesson_cells import paragraphs, sentences

BUDGET = {"05": 1600, "06": 2100}


def _source(cell: dict) -> str:
    return "".join(cell["source"])


_paragraphs = paragraphs  # the shared splitter (tests/support/lesson_cells.py), as the density rule reads
_sentences = sentences


def _student_markdown(number: str) -> list[str]:
    sources = []
    for cell in stored_lesson(number)["cells"]:
        source = _source(cell)
        if cell["cell_type"] == "markdown" and source.lstrip().startswith("## Under the hood"):
            break
        if cell["cell_type"] == "markdown":
            sources.append(source)
    return sources


def _contradictions(number: str) -> tuple[str, list[str]]:
    """The hood's section on the seed's contradictions: its opening words, and its table's rows."""
    cells = stored_lesson(number)["cells"]
    (cell,) = [c for c in cells if "seed-contradictions" in c.get("metadata", {}).get("tags", [])]
    source = _source(cell)
    table = [line for line in source.splitlines() if line.startswith("|")]
    opening = source.split("|")[0].split("### Where the seed contradicts itself")[1]
    return opening, table


# --- finding 1: two sentences and a small table ---


@pytest.mark.parametrize("number", ["05", "06"])
def test_the_contradictions_are_said_in_two_sentences_and_a_small_table(number):
    opening, table = _contradictions(number)
    assert len(_sentences(" ".join(opening.split()))) <= 2, opening
    head = [cell.strip() for cell in table[0].strip("|").split("|")]
    assert head == ["", "the seed says in one place", "and in another", "what the code does"], head
    rows = table[2:]
    assert len(rows) >= 3, table
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == 4, row
        assert all(len(cell.split()) <= 16 for cell in cells), row
        assert not re.search(r"[\u4e00-\u9fff]", row), f"the Chinese is detail, below the table: {row}"
        assert ".cs" not in row, f"the .NET file names are detail, below the table: {row}"


def test_both_lessons_name_the_same_three_contradictions_in_the_same_words():
    rows = {number: _contradictions(number)[1][2:] for number in ("05", "06")}
    first_cells = {number: [row.strip("|").split("|")[0].strip() for row in table] for number, table in rows.items()}
    assert first_cells["05"] == first_cells["06"][: len(first_cells["05"])], first_cells
    assert rows["05"] == rows["06"][: len(rows["05"])]


def test_the_detail_stays_below_the_table_in_the_hood():
    """The quotations with the seed's Chinese and the source files that settle each one are kept, under the table."""
    for number in ("05", "06"):
        cells = stored_lesson(number)["cells"]
        hood = next(i for i, c in enumerate(cells) if _source(c).lstrip().startswith("## Under the hood"))
        (where,) = [i for i, c in enumerate(cells) if "seed-contradictions" in c.get("metadata", {}).get("tags", [])]
        assert where > hood
        below = " ".join(_source(c) for c in cells[where:])
        for chinese in ("依次调用每个LoopEvaluator", "在下一次迭代中排除", "如果为null则表示没有限制"):
            assert chinese in below, (number, chinese)
        assert "LoopAgent.cs" in below and "LoopAgentOptions.cs" in below


# --- finding 2: the note above the stepper, three short sentences ---


@pytest.mark.parametrize(("number", "panel_id"), [("05", "cell-19"), ("06", "cell-20")])
def test_the_note_above_the_stepper_is_three_short_sentences_saying_all_it_said(number, panel_id):
    cells = stored_lesson(number)["cells"]
    (index,) = [i for i, c in enumerate(cells) if c.get("id") == panel_id]
    above = _source(cells[index - 1])
    (note,) = [part for part in above.split("\n\n") if part.startswith("*Until")]
    said = " ".join(note.replace("*", "").split())
    assert said == panel_note(PANEL_CONTROLS["LoopStepper"], alone=True)
    sentences = _sentences(said)
    assert len(sentences) <= 3 and all(len(s.split()) <= 25 for s in sentences), sentences
    for kept in (
        "saved picture",
        "red broken-link marks",
        '"Error displaying widget: model not found"',
        "buttons and slider do nothing yet",
        "kernel restart",
        "reopen",
        "reload that shows the picture again",
        "run the panel's cell",
        "a new panel starts afresh",
    ):
        assert kept.lower() in said.lower(), kept


# --- the student's path: short paragraphs, short sentences, a word budget ---


@pytest.mark.parametrize("number", ["05", "06"])
def test_the_students_path_is_short_paragraphs_of_short_sentences_within_its_budget(number):
    paragraphs = [p for source in _student_markdown(number) for p in _paragraphs(source)]
    long_paragraphs = [p for p in paragraphs if len(_sentences(p)) > 4]
    long_sentences = [s for p in paragraphs for s in _sentences(p) if len(s.split()) > 30]
    assert long_paragraphs == [] and long_sentences == [], (long_paragraphs, long_sentences)
    said = sum(len(p.split()) for p in paragraphs)
    assert said <= BUDGET[number], said
