"""Lesson 03, eleventh walk (issue 32): the gate is said in plain words where it first appears, the instructions'
route is said without "the call's options", the router's glossary row says whole words, and the loop's echo of the
feedback is explained by the rule on where a value ends."""

import json
from pathlib import Path

from course_lib.providers import route_by_topic

ROOT = Path(__file__).resolve().parents[1]
LESSON_03 = ROOT / "notebooks" / "03_provider_and_two_desks.ipynb"
GLOSSARY = ROOT / "docs" / "glossary.md"


def _cell(cell_id: str) -> dict:
    cells = json.loads(LESSON_03.read_text(encoding="utf-8"))["cells"]
    return next(c for c in cells if c.get("id") == cell_id)


def _said(cell_id: str) -> str:
    return " ".join("".join(_cell(cell_id)["source"]).split())


def test_the_routers_glossary_row_says_whole_words_as_the_router_reads() -> None:
    row = next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("| **router**"))
    assert "a line with a whole word on its list of operations words" in row
    assert route_by_topic("Where are the logs?") == "operations" and route_by_topic("I cannot login") == "triage"
