"""Lesson 04's thirteenth walk (issue 32): the turn and the graded turn are in the glossary, "graded" is not used
before it is defined, the timeline's dashes are said where they are, compaction's smaller requests start at a turn
the lesson computes, and the explorer's text names the table that comes before its plot."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from test_student_path import lesson

from course_lib.presentation import fewer_from_sentence, fewer_from_turn

LESSON = "04_memory_policies_compared"
GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


def _cell(cell_id: str):
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _prose(cell_id: str) -> str:
    return " ".join(_cell(cell_id).source.split())


def _calls(sizes: dict[str, list[int]]) -> pd.DataFrame:
    rows = [
        {"rule": "latest", "call": "reader", "policy": policy, "turn": turn, "chars_sent": chars}
        for policy, by_turn in sizes.items()
        for turn, chars in enumerate(by_turn, start=1)
    ]
    return pd.DataFrame(rows)


def test_the_glossary_defines_the_turn_and_the_graded_turn_for_lesson_04():
    rows = GLOSSARY.read_text(encoding="utf-8").splitlines()
    turn = next(row for row in rows if row.startswith("| **turn** (of a conversation) |"))
    graded = next(row for row in rows if row.startswith("| **graded turn** |"))
    assert '<a id="turn"></a></span>one user message and the answer that follows it' in turn
    assert "(#epoch)" in turn and turn.endswith("| lesson 04 |")
    assert '<a id="graded-turn"></a>' in graded and graded.endswith("| lesson 04 |")


def test_the_intro_does_not_say_graded_before_section_1_defines_it():
    intro = _prose("cell-00")
    assert "graded" not in intro.split("New words")[1].split("glossary")[0]
    assert "the questions whose answers are checked" in intro


def test_the_dash_is_said_to_be_in_the_two_requirement_columns():
    prose = _prose("cell-02")  # named, not counted from the end (walk 16)
    assert "*graded* says no, and the columns *must contain* and *must not contain* show a dash (—)" in prose
    assert "a dash (—) marks a turn" not in prose


def test_the_recording_intro_says_too_not_an_either_that_refers_to_nothing():
    prose = _prose("28c1a801")
    assert "not the offline table's either" not in prose
    assert "The estimated tokens differ from the offline table's too, except for the facts policy." in prose


def test_compaction_sends_fewer_characters_only_from_a_computed_turn():
    calls = _calls({"compaction": [10, 20, 25, 30], "window": [10, 20, 35, 40], "reducer": [10, 20, 30, 41]})
    assert fewer_from_turn(calls, "compaction", ["window", "reducer"]) == 3
    said = fewer_from_sentence(calls, "compaction", ["window", "reducer"])
    assert said == "compaction sent the reader fewer characters than window and reducer at every turn from turn 3 on."
    ties_at_the_end = _calls({"compaction": [5, 20], "window": [10, 20]})
    assert fewer_from_turn(ties_at_the_end, "compaction", ["window"]) is None


def test_the_lesson_prints_the_turn_and_its_text_cites_it():
    printed = "".join(o.get("text", "") for o in _cell("cell-10").outputs)
    assert re.search(r"compaction \(3 turns\) sent the reader fewer characters .* from turn \d+ on\.", printed)
    prose = _prose("l04-after-prompt-plot")
    turn = re.search(r"from turn (\d+) on\.", printed).group(1)  # the prose quotes the printed turn (walk 6)
    assert prose.startswith(f"From turn {turn}, as printed above, compaction sends less than the window")


def test_the_explorer_text_names_the_table_before_the_plot():
    prose = _prose("cell-17")
    assert "The plot comes first" not in prose
    table = "Under the panel's *Computed with* line, a table recalls what a correct answer must contain"
    assert f"{table}; then comes the plot" in prose
