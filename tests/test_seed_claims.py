"""docs/seed-claims.md maps every claim of both seeds to the lesson cell that shows it and the test that checks it.

Each row names a notebook, the text the cell must show (in its source or its stored output), and a test. The cell
is found by its tag, ``claim-<ID>``, in the cell's metadata. These tests fail when a notebook, a tagged cell, the
text it should show or a named test disappears, and when a tag names a claim the map does not hold.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "docs" / "seed-claims.md"
ROW = re.compile(
    r"^\| (?P<id>[FL]\d{2}) \| (?P<claim>[^|]+?) \| `(?P<notebook>\d\d_[a-z0-9_]+)` \| `(?P<shows>[^`]+)` "
    r"\| `(?P<test>tests/test_[a-z0-9_]+\.py::(?:Test\w+::)?test_\w+)` \|$"
)
TAG = "claim-{}"


def claims() -> list[dict[str, str]]:
    """Every row of the map; a row that looks like a claim but does not parse is an error, not a skip."""
    rows = []
    for number, line in enumerate(CLAIMS.read_text(encoding="utf-8").splitlines(), start=1):
        if re.match(r"^\| [FL]\d", line):
            match = ROW.match(line)
            assert match, f"docs/seed-claims.md line {number} does not follow the row format: {line}"
            rows.append(match.groupdict())
    return rows


@cache
def notebook(stem: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)


def shown_text(cell: nbformat.NotebookNode) -> str:
    """What a cell shows a reader: its source, its printed text (one stream, however it was split) and its data."""
    outputs = cell.get("outputs", [])
    parts = [cell.source, "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")]
    for output in outputs:
        data = output.get("data", {})
        parts += [data.get(kind, "") for kind in ("text/plain", "text/markdown", "text/html")]
    return "\n".join(part if isinstance(part, str) else "".join(part) for part in parts)


@cache
def defined_tests(path: str) -> frozenset[str]:
    """The test functions of a file, and its test classes' methods as ``Class::method``."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    names = set()
    for node in ast.parse((ROOT / path).read_text(encoding="utf-8")).body:
        if isinstance(node, functions):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{item.name}" for item in node.body if isinstance(item, functions)}
    return frozenset(names)


CLAIM_ROWS = claims()


def test_the_map_holds_both_seeds_with_unique_ids():
    ids = [row["id"] for row in CLAIM_ROWS]
    assert len(ids) == len(set(ids)), "a claim id is used twice"
    assert sum(i.startswith("F") for i in ids) >= 40 and sum(i.startswith("L") for i in ids) >= 20
    text = " ".join(row["claim"] for row in CLAIM_ROWS)
    for anchor in ("700", "256", "512", "4096", "EP013", "TurnsExceed(3)", "AsChatReducer", "MaxIterations"):
        assert anchor in text, f"no claim mentions {anchor}"


@pytest.mark.parametrize("row", CLAIM_ROWS, ids=[row["id"] for row in CLAIM_ROWS])
def test_each_claim_has_a_tagged_cell_that_shows_it_and_an_existing_test(row):
    tag = TAG.format(row["id"])
    cells = [c for c in notebook(row["notebook"]).cells if tag in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{row['notebook']} should have exactly one cell tagged {tag}; found {len(cells)}"
    assert row["shows"] in shown_text(cells[0]), f"the cell tagged {tag} no longer shows {row['shows']!r}"
    path, _, name = row["test"].partition("::")
    assert name in defined_tests(path), f"{row['test']} (named for {row['id']}) does not exist"


def test_every_claim_tag_in_the_lessons_is_in_the_map():
    known = {TAG.format(row["id"]) for row in CLAIM_ROWS}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in notebook(path.stem).cells:
            stray = {t for t in cell.metadata.get("tags", []) if t.startswith("claim-")} - known
            assert not stray, f"{path.name} has claim tags the map does not hold: {sorted(stray)}"
