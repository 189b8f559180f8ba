"""A lesson's stored cells, read by id: what a test of a lesson's words checks (its source, its stored outputs)."""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"


def stored_lesson(number: str) -> dict:
    """Lesson ``number`` ("04") as stored: its notebook's JSON."""
    return json.loads(next(NOTEBOOKS.glob(f"{number}_*.ipynb")).read_text(encoding="utf-8"))


def stored_cell(number: str, cell_id: str) -> dict:
    """The cell with id ``cell_id`` of lesson ``number``."""
    return next(c for c in stored_lesson(number)["cells"] if c.get("id") == cell_id)


def cell_source(number: str, cell_id: str) -> str:
    """What the cell says or runs, as one text."""
    return "".join(stored_cell(number, cell_id)["source"])


def cell_outputs(number: str, cell_id: str) -> str:
    """Every text the cell's stored outputs show: streams, plain text and HTML, one after the other."""
    parts = []
    for output in stored_cell(number, cell_id).get("outputs", []):
        parts.append("".join(output.get("text", "")))
        for kind in ("text/plain", "text/html"):
            parts.append("".join(output.get("data", {}).get(kind, "")))
    return "\n".join(parts)


def words(text: str) -> str:
    """``text`` with every run of white space made one space: Markdown's line breaks do not split a phrase."""
    return " ".join(text.split())


def plain_words(text: str) -> str:
    """:func:`words` of ``text`` without Markdown's emphasis marks (``*``)."""
    return words(text.replace("*", ""))
