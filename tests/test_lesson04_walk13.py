"""Lesson 04's thirteenth walk (issue 32): the turn and the graded turn, the lesson's new words, are in the
glossary."""

from __future__ import annotations

from pathlib import Path

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


def test_the_glossary_defines_the_turn_and_the_graded_turn_for_lesson_04():
    rows = GLOSSARY.read_text(encoding="utf-8").splitlines()
    turn = next(row for row in rows if row.startswith("| **turn** (of a conversation) |"))
    graded = next(row for row in rows if row.startswith("| **graded turn** |"))
    assert '<a id="turn"></a>one user message and the answer that follows it' in turn
    assert "(#epoch)" in turn and turn.endswith("| lesson 04 |")
    assert '<a id="graded-turn"></a>' in graded and graded.endswith("| lesson 04 |")
