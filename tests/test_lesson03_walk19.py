"""Lesson 03, nineteenth walk (issue 32): ``mem``'s block is labelled where the lesson prints it after a turn, the
loop's table shows the caller's message, and section 1 says which messages are read for facts (the desk panel's
findings are in tests/test_desk_panel_walk19.py)."""

import html
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSON_03 = ROOT / "notebooks" / "03_provider_and_two_desks.ipynb"
BLOCK_HEADER = "[controlled facts:"


def _cells() -> list[dict]:
    return json.loads(LESSON_03.read_text(encoding="utf-8"))["cells"]


def _cell(cell_id: str) -> dict:
    return next(c for c in _cells() if c.get("id") == cell_id)


def _printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def _text(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value.replace("<br>", "\n")))


# 3. mem's block is labelled after a turn


def test_every_mem_block_the_lesson_prints_has_a_label_on_the_line_before():
    printed = [_printed(c) for c in _cells() if c["cell_type"] == "code"]
    blocks = 0
    for text in printed:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(BLOCK_HEADER):
                blocks += 1
                assert i > 0 and lines[i - 1] == "The store (mem):", text
                assert i < 2 or lines[i - 2] == "", text  # a blank line parts it from the reply above
    assert blocks >= 4  # sections 3 and 4 print mem four times


# 4. the loop's table shows the caller's message


def test_the_loops_table_shows_the_callers_message_first_marked_as_the_callers():
    cell = _cell("d6f79827")
    table = next(o["data"]["text/html"] for o in cell["outputs"] if "text/html" in o.get("data", {}))
    rows = re.findall(r"<tr>(.*?)</tr>", "".join(table), re.DOTALL)
    first = _text(rows[1])  # rows[0] is the header
    assert "module=Billing" in first and "the caller" in first and "user" in first
    assert "response.messages" in _text(rows[2])
    said = " ".join("".join(_cell("72291c68-hood")["source"]).split())
    assert "`response.messages` holds only what the run produced" in said


# 5. section 1 says which messages are read


def test_section_1_says_only_the_callers_own_unlabelled_user_messages_are_read():
    said = " ".join("".join(_cell("cell-02")["source"]).split())
    # second walk 25: the unlabelled messages said in words, with a pointer to the label below
    assert (
        "from the caller's own user messages (the ones with no label, see below) passed to `run`, and from those only"
        in said
    )
