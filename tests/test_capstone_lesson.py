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
