"""Lesson 07, fifth walk (issue 32): the student path's fixes, one test each (an exercise hint, the panel's note,
glossed words)."""

import json
from pathlib import Path

from course_lib.exercises import exercise

LESSON_07 = Path(__file__).resolve().parents[1] / "notebooks" / "07_loop_held_to_the_facts.ipynb"


def cells() -> list[dict]:
    return json.loads(LESSON_07.read_text(encoding="utf-8"))["cells"]


def said(cell: dict) -> str:
    """A markdown cell's words on one line, without emphasis marks."""
    return " ".join("".join(cell["source"]).replace("*", "").split())


def printed(cell: dict) -> str:
    texts = []
    for output in cell.get("outputs", []):
        texts.append("".join(output.get("text", "")))
        texts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(texts)


def test_exercise_3_hint_points_at_the_tables_and_does_not_ask_the_question() -> None:
    """The old hint asked "is the constraint still held when the question comes?": the yes/no of the exercise."""
    hint = exercise("07", "Exercise 3").hint
    assert "constraint" not in hint and "which keys would a store of 6 hold" in hint  # a question, not the yes/no
    assert "Section 4's second table" in hint and "section 3" in hint and "a correct answer contains" in hint


def test_the_abstractive_summary_is_said_in_plain_words_where_it_first_appears() -> None:
    markdown = [c for c in cells() if c["cell_type"] == "markdown"]
    first = next(c for c in markdown if "abstractive" in "".join(c["source"]))
    text = said(first)
    assert "rewrites the conversation in its own words, so it can distort it" in text
    assert "(../docs/glossary.md#summary)" in text and "(04_memory_policies_compared.ipynb)" in text


def test_task_and_evicted_are_defined_before_a_table_shows_them() -> None:
    all_cells = cells()
    defined_as = (("task", "A task is the user's message that an answer replies to."), ("evicted", "is evicted"))
    for word, defined in defined_as:
        shown = next(i for i, c in enumerate(all_cells) if c["cell_type"] == "code" and word in printed(c))
        before = " ".join(said(c) for c in all_cells[:shown] if c["cell_type"] == "markdown")
        assert defined in before, f"{word!r} is shown at cell {shown} before the text defines it"


def test_the_sample_store_is_compared_with_the_cell_that_builds_the_small_store() -> None:
    """The cell just above the prose sample prints feedback; the small store is built by section 1's first cell."""
    text = " ".join(said(c) for c in cells() if c["cell_type"] == "markdown")
    assert "as the cell above builds its small store" not in text
    # walk 23: the comparison is cut (density); walk 25: the function that builds it is named under the hood only
    assert "held to a small store like the conversation's" in text
    assert "`sample_store()` builds their store" in text
