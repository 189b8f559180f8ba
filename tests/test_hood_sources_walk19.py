"""Every line a lesson prints with ``inspect.getsource`` fits in 100 characters, in every lesson.

Why: at 1300 px a longer source line wraps, and its tail lands at column 0 under the code it belongs to, which reads
as broken indentation in real code (lesson 07's walk found it; lessons 03 and 06 had the same lines).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("0*.ipynb"))
WIDEST = 100


def printed_source(notebook: Path) -> list[str]:
    """The text lines every code cell calling ``getsource`` printed, as stored."""
    lines: list[str] = []
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code" and "getsource" in "".join(cell["source"]):
            for out in cell.get("outputs", []):
                lines += "".join(out.get("text", "")).splitlines()
    return lines


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_no_printed_source_line_is_wider_than_100_characters(notebook: Path) -> None:
    wide = [line for line in printed_source(notebook) if len(line) > WIDEST]
    assert not wide, f"{notebook.name}: {len(wide)} printed source lines over {WIDEST} characters: {wide[:3]}"
