"""Lesson 07, third walk (issue 32): the panel's notes read as one item each."""

import json
from pathlib import Path

from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.widgets import SINGLE_SPACED

LESSON_07 = Path(__file__).resolve().parents[1] / "notebooks" / "07_loop_held_to_the_facts.ipynb"


def cells() -> list[dict]:
    return json.loads(LESSON_07.read_text(encoding="utf-8"))["cells"]


def html_outputs(cell: dict) -> str:
    return "".join("".join(o.get("data", {}).get("text/html", "")) for o in cell.get("outputs", []))


def test_the_replaced_values_line_is_single_spaced_like_the_other_notes() -> None:
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    assert "Values a correction replaced" in p.replaced.value
    assert SINGLE_SPACED in p.replaced.value  # one block: a two-line list read as two items when double-spaced
