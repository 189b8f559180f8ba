"""Lesson 07, sixth walk (issue 32): a constraint said only in a question is not carried."""

import json
from pathlib import Path

from support.capstone_battery import CONSTRAINT, PLAN, SUPERSEDED, lesson_store

from course_lib.answer_reader import carries_constraint, check_answer, verdict

ASKED = f"Billing, SQL Server 2022. {CONSTRAINT.capitalize()}?"
SAID = f"Billing, SQL Server 2022. {CONSTRAINT.capitalize()}."


def test_a_constraint_said_only_inside_a_question_is_not_carried():
    """A question is not a claim (Under the hood): that holds for the constraint rule as for the values."""
    facts = lesson_store().facts
    assert verdict(check_answer(facts, ASKED, PLAN, SUPERSEDED)) == "constraint missing"
    assert verdict(check_answer(facts, SAID, PLAN, SUPERSEDED)) == "pass"
    assert not carries_constraint(CONSTRAINT, ASKED)
    assert not carries_constraint(CONSTRAINT, "Billing. Do not restart the production database in business hours?")
    assert carries_constraint(CONSTRAINT, SAID)
    assert carries_constraint(
        CONSTRAINT, "Should we restart now? No: never restart the production database during business hours."
    )


LESSON_07 = Path(__file__).resolve().parents[1] / "notebooks" / "07_loop_held_to_the_facts.ipynb"
GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


def markdown() -> dict[str, str]:
    cells = json.loads(LESSON_07.read_text(encoding="utf-8"))["cells"]
    return {c["id"]: "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"}


def test_the_facts_check_is_defined_in_section_1_before_any_other_use():
    text = "\n".join(markdown().values())
    defined = text.index("is a **facts check**")
    assert "## 1. The evaluator" in text[:defined]
    assert "facts check" not in text[:defined].replace("**", "")
    assert "| **facts check** |" in GLOSSARY.read_text(encoding="utf-8")


def test_section_8_says_what_the_cell_after_the_panel_does_and_shows():
    said = " ".join(markdown()["capstone-panel-intro"].split())
    assert "drives a second panel of its own" not in said
    said = " ".join(markdown()["capstone-panel-demo-intro"].split())  # walk 9: beside the cell it describes
    assert "builds a second panel (not shown)" in said and "prints the answer and a table of its violations" in said


def test_section_3_lists_the_five_verdicts_one_per_line():
    lines = markdown()["10ead7db"].splitlines()
    verdicts = ["right first time", "repaired", "partly repaired", "not repaired", "stopped at the cap"]
    assert [line for line in lines if line.startswith("* **")] == [
        line for line in lines if any(line.startswith(f"* **{v}**:") for v in verdicts)
    ]
    assert sum(line.startswith("* **") for line in lines) == len(verdicts)
