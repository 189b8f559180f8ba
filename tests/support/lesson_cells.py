"""A lesson's stored cells, read by id: what a test of a lesson's words checks (its source, its stored outputs)."""

from __future__ import annotations

import json
import re
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


HOOD = "## Under the hood"


def student_path(number: str) -> list[str]:
    """The markdown a student reads before lesson ``number``'s "Under the hood" section, one text per cell."""
    said = []
    for cell in stored_lesson(number)["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and text.lstrip().startswith(HOOD):
            break
        if cell["cell_type"] == "markdown":
            said.append(text)
    return said


def _prose(markdown: str) -> str:
    """``markdown`` without code blocks, HTML tags, link targets and tables: the words a student reads as prose."""
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    markdown = re.sub(r"<[^>]+>", " ", markdown)
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)


def paragraphs(markdown: str) -> list[str]:
    """The paragraphs and list items of a markdown cell, each as one line; headings and table rows left out."""
    found = []
    for block in re.split(r"\n\s*\n|\n(?=\s*[-*] )|\n(?=\s*\d+\. )|\n(?=#)", _prose(markdown)):
        said = words(block)
        if said and not said.startswith(("#", "|")):
            found.append(said)
    return found


def sentences(paragraph: str) -> list[str]:
    """A paragraph's sentences: split after ``.``, ``?`` or ``!`` before a capital, a quote, a bracket or code."""
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*(\"'`])", paragraph) if s]
