"""Lessons 00 and 01, fourth walk (issue 32): plain words, short paragraphs, names that say what a case tests.

The time line of lesson 00 is one plain sentence per part; the battery's sentence case is named for what it tests
(words before a key make it no allowed key); the dense paragraphs of sections 2 and 4 are lists; `Agent` is defined
without the word "agent"; the memo's "29 of 32" says what was counted and where it was measured; and the claim map
fits JupyterLab's Markdown viewer at 1300 pixels.
"""

import json
import re
from pathlib import Path

from course_lib.qualify import BATTERY, case_declares

ROOT = Path(__file__).resolve().parent.parent
LESSON_00 = ROOT / "notebooks" / "00_setup_and_backends.ipynb"
CLAIMS = ROOT / "docs" / "seed-claims.md"


def _cells(path: Path) -> dict[str, dict]:
    return {cell["id"]: cell for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]}


def _text(cell_id: str) -> str:
    return "".join(_cells(LESSON_00)[cell_id]["source"])


def _outputs(cell_id: str) -> str:
    cell = _cells(LESSON_00)[cell_id]
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def test_the_time_line_names_each_part_and_why_the_lesson_is_optional():
    opening = _text("92605e2c")
    assert "and optional:*" not in opening
    time_line = " ".join(opening.split("**Time.**")[1].split("\n\n")[0].split())
    # walk 25: one time for the whole lesson, every section and exercise named
    assert time_line.startswith("About 30 minutes for sections 1-6 and Exercises 1-3.")
    assert "optional" in opening and "offline" in opening


def test_the_sentence_case_is_named_for_what_it_tests_and_the_lesson_explains_its_row():
    names = [case.name for case in BATTERY]
    assert "declarations in a sentence" not in names
    case = next(c for c in BATTERY if c.text.startswith("We are on database="))
    assert case.name == "words before a key"
    said = case_declares(case.name)
    assert "environment=staging." in said and "so the '.' is part of it" in said
    assert "'We are on database' is not an allowed key" in said
    # the lesson prints it, and its words about the case use the new name
    assert f"print(case_declares({case.name!r}))".replace("'", '"') in _text("4cbb642b")
    assert "“words before a key” declares 1 fact" in _outputs("4cbb642b")
    lesson = LESSON_00.read_text(encoding="utf-8")
    assert "declarations in a sentence" not in lesson and "declaration in a sentence" not in lesson


def test_the_dense_paragraphs_of_lesson_00_are_short_lists():
    """Sections 2 and 4: no paragraph of prose longer than about four lines; the content is in bullets."""
    for cell_id in ("a6f50877", "3b3d8f4d", "787bc88b"):
        paragraphs = re.split(r"\n\s*\n", _text(cell_id))
        prose = [p for p in paragraphs if not p.lstrip().startswith(("-", "#", "|"))]
        longest = max(len(" ".join(p.split())) for p in prose)
        assert longest <= 420, f"cell {cell_id}: a paragraph of {longest} characters"
        assert "\n- " in _text(cell_id), f"cell {cell_id} has no list"


def test_agent_is_defined_without_the_word_agent():
    cell = " ".join(_text("7be02f73").split())
    definition = cell[cell.index("`Agent`") :]
    definition = definition[: definition.index(".") + 1]
    # walk 23: tools, which this Agent has none of, are no longer named (one term fewer on the screen)
    assert "object" in definition and "instructions" in definition and "chat client" in definition
    assert "agent" not in definition.replace("`Agent`", "").lower()


def test_the_memo_says_what_its_29_of_32_counted_and_where_it_was_measured():
    hood = " ".join(_text("under-the-hood").split())
    sentence = hood[hood.index("29 of 32") - 200 : hood.index("29 of 32") + 200]
    assert "lesson 04" in sentence and "performance.md" in sentence
    measured = " ".join((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").split())
    assert "29 of 32 identical requests of lesson 04's replays" in measured


def _widest_row(line: str) -> int:
    """The row's width in characters when every cell is as narrow as its longest unbreakable word."""
    cells = [cell for cell in line.strip().strip("|").split(" | ")]
    return sum(
        max(
            len(word) for word in re.split(r"\s+|<br>", re.sub(r"(<span[^>]*>)?<a id=\"[^\"]+\"></a>(</span>)?", "", c))
        )
        for c in cells
    )


def test_the_claim_map_fits_jupyterlab_markdown_viewer_at_1300_pixels():
    """At 1300 px the viewer shows about 110 characters of monospace; no row may need more than that."""
    rows = [line for line in CLAIMS.read_text(encoding="utf-8").splitlines() if re.match(r"^\| [FL]\d{2} \|", line)]
    assert len(rows) >= 60
    widest = max(rows, key=_widest_row)
    assert _widest_row(widest) <= 110, widest


def test_lesson_01s_takeaway_on_sentences_is_true_of_its_table():
    """A sentence may hold a declaration after a separator (lesson 00's 'words before a key' stores environment);
    what never counts is words before the key, or a sentence with no '=': the two rows section 1 prints."""
    from course_lib.assertions import left_out, parse_assertions

    cells = _cells(ROOT / "notebooks" / "01_contract_and_store.ipynb")
    takeaway = " ".join("".join(cells["student-takeaways"]["source"]).split())
    assert "a question or a sentence never is" not in takeaway
    assert "Words before the key make it no key (`Hello! module=Billing`)" in takeaway
    assert parse_assertions("Hello! module=Billing") == {}
    assert "has no '='" in left_out("Where can I find logs?")[0]
    assert parse_assertions("We are on database=SQL Server 2022; environment=staging.") == {"environment": "staging."}
