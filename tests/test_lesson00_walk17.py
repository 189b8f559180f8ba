"""Lesson 00, walk 9 of issue 32 (tests named for walk 17's round): section 6 defines *injection* where the battery
first appears, says what is true of the battery's questions (not of every question), tags each of its four words with
where it is taught, and the three exercise cells work their expected value out in course_lib, out of sight."""

import json
import re
from pathlib import Path

from course_lib.assertions import ALLOWED_KEYS, find_declarations
from course_lib.qualify import BATTERY

ROOT = Path(__file__).resolve().parent.parent
LESSON_00 = next((ROOT / "notebooks").glob("00_*.ipynb"))
GLOSSARY = ROOT / "docs" / "glossary.md"
WORKS_ALONE = "# this cell works on its own, even after a restart"


def cells() -> list[dict]:
    return json.loads(LESSON_00.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def words(text: str) -> str:
    return " ".join(text.split())


def printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) + json.dumps(o.get("data", {})) for o in cell.get("outputs", []))


def glossary_row(word: str) -> str:
    return next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith(f"| **{word}**"))


# --- finding 1: injection is defined where the battery first appears, and in the glossary ---


def test_injection_is_defined_in_the_cell_that_introduces_the_battery_before_any_cell_shows_the_word():
    all_cells = cells()
    first_shown = next(
        i for i, c in enumerate(all_cells) if "injection" in (source(c) + printed(c)).lower().replace("manual inj", "")
    )
    defining = words(source(all_cells[first_shown]))
    assert "**battery**" in defining
    assert "*injection*: a message written to trick the writer into storing something it does not declare" in defining
    assert "prompt injection" in defining and "manual injection" in defining
    row = glossary_row("injection")
    assert "trick the writer" in row and "manual injection" in row
    assert row.rstrip(" |").endswith("lesson 00 (section 6)")


# --- finding 2: what is said of questions is true of the battery's, and the glossary no longer overclaims ---


def test_the_words_on_the_batterys_questions_are_true_of_each_and_no_longer_said_of_every_question():
    questions = [case.text for case in BATTERY if case.kind == "question"]
    assert len(questions) == 2
    assert all(find_declarations(text) == [] for text in questions)
    with_equals = [text for text in questions if "=" in text]
    assert len(with_equals) == 1 and len([text for text in questions if "=" not in text]) == 1
    before = with_equals[0].partition("=")[0]
    assert before == "Is priority" and before not in ALLOWED_KEYS
    # why the old words were wrong: a question can declare a fact
    assert find_declarations("priority=P1?")[0].value == "P1?"
    markdown = words(" ".join(source(c) for c in cells() if c["cell_type"] == "markdown"))
    assert "a question declares nothing" not in markdown
    assert (
        "(the battery's two questions declare nothing, so it asks for no fact for them: one has no `=`, and in the "
        "other the text before `=` is `Is priority`, no allowed key)" in markdown
    )
    contract = glossary_row("contract")
    assert "a question or a sentence never becomes a fact" not in contract
    assert "`priority=P1?` declares `priority=P1?`" in contract


# --- finding 4: each of section 6's four words says where it is taught ---


def test_section_6s_four_words_each_say_where_they_are_taught():
    intro = next(source(c) for c in cells() if source(c).startswith("## 6. What the tests do not tell you"))
    bullets = re.findall(r"^- \*\*(.+?)\*\* \((.+?)\):", intro, flags=re.M)
    assert [word for word, _ in bullets] == ["declared facts", "writer", "host check", "battery"]
    tags = dict(bullets)
    assert tags["declared facts"] == "lesson 01" and tags["writer"] == "lesson 02"
    assert tags["battery"] == "this lesson"
    assert tags["host check"] == "lessons 01 and 02; section 4 gave it in short"
    # true of the lessons: lesson 01's word list defines it, lesson 02 runs it, section 4 of this lesson stated it
    lesson_01 = json.loads(next((ROOT / "notebooks").glob("01_*.ipynb")).read_text(encoding="utf-8"))["cells"]
    assert any("- **host check**:" in source(c) for c in lesson_01)
    stated = "`MemoryExtraction` runs the writer, then the *host check*"
    assert any(stated in source(c) for c in cells())
