"""Lesson 07 says what its evaluator does, and puts the panel on the student's path, before "Under the hood"."""

import json
import re
from pathlib import Path

from course_lib.capstone import check_answer
from course_lib.memory import FactCandidate, WorkingMemory

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "07_loop_held_to_the_facts.ipynb"


def cells() -> list[dict]:
    return json.loads(LESSON.read_text())["cells"]


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.;:])\s+", " ".join(text.split()))


def test_no_sentence_says_the_evaluator_reads_only_the_contracts_form():
    """It reads prose too (section 1's table shows it): "only ... key=value" would teach the opposite."""
    markdown = " ".join("".join(c["source"]) for c in cells() if c["cell_type"] == "markdown")
    only_contract = [s for s in sentences(markdown) if re.search(r"\bonly\b", s) and "`key=value`" in s]
    assert only_contract == []
    memory, said = WorkingMemory(), "database=SQL Server 2022"
    memory.apply(memory.begin_turn(said), [FactCandidate(key="database", value="SQL Server 2022", evidence=said)])
    (violation,) = check_answer(memory.facts, "The database is PostgreSQL.")
    assert (violation.fact.key, violation.stated) == ("database", "PostgreSQL")


def test_the_panel_is_on_the_students_path_and_under_the_hood_comes_last():
    every = cells()
    headings = [
        i
        for i, c in enumerate(every)
        if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## Under the hood")
    ]
    assert len(headings) == 1
    hood = headings[0]
    panel = next(i for i, c in enumerate(every) if "CapstonePanel.from_timeline" in "".join(c["source"]))
    takeaways = next(i for i, c in enumerate(every) if "".join(c["source"]).startswith("## Key takeaways"))
    assert panel < takeaways < hood
    assert all(not "".join(c["source"]).startswith("## ") for c in every[hood + 1 :])


def path_cells() -> list[dict]:
    """The student's path: every cell before "Under the hood"."""
    every = cells()
    hood = next(i for i, c in enumerate(every) if "".join(c["source"]).startswith("## Under the hood"))
    return every[:hood]


def shown_tables(cell: dict) -> list[str]:
    return [
        "".join(output.get("data", {}).get("text/html", ""))
        for output in cell.get("outputs", [])
        if "<table" in "".join(output.get("data", {}).get("text/html", ""))
    ]


def test_the_tables_on_the_path_say_yes_or_no_and_show_no_row_numbers():
    """A student reads True/False as Python, and 0, 1, 2 beside the first column as data."""
    tables = [(i, html) for i, cell in enumerate(path_cells()) for html in shown_tables(cell)]
    assert len(tables) >= 10
    raw = [i for i, html in tables if re.search(r"<td[^>]*>\s*(True|False)\s*</td>", html)]
    numbered = [i for i, html in tables if re.search(r"<th[^>]*(row_heading|>\s*\d+\s*</th>)", html)]
    assert raw == [] and numbered == [], f"cells with True/False: {raw}; cells with row numbers: {numbered}"


def test_the_path_names_no_private_field_of_the_framework():
    """ "MAF's `_attribution`" means nothing to a student: the path says it in words, "Under the hood" names it."""
    named = [i for i, c in enumerate(path_cells()) if re.search(r"`_\w+`|\b_attribution\b", "".join(c["source"]))]
    assert named == []
    hood = "".join("".join(c["source"]) for c in cells()[len(path_cells()) :])
    assert "_attribution" in hood
