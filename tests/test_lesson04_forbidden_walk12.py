"""Lesson 04 walked again (issue 32, walk 12): every row of the footprint table gets its own arithmetic; one name,
*forbidden value*, for what a right answer must not name; the prerequisites agree with the course map; a number
typed in a slider's box is read as the browser reads it, and the panel says so."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.clients import make_chat_client
from course_lib.frames import FORBIDDEN_NAMED
from course_lib.policies import (
    CompactionPolicy,
    FullHistoryPolicy,
    ReducerPolicy,
    SessionFootprint,
    compare_policies,
    footprint_sentences,
    load_timeline,
    session_footprint,
)
from course_lib.presentation import answers_by_rule, final_answers_frame, graded_view_frame
from course_lib.tracing import CallLog
from course_lib.widgets import PolicyExplorer, slider_reads, slider_typing_hint

ROOT = Path(__file__).resolve().parent.parent


def _words(text: str) -> str:
    return " ".join(text.split())


def _prose(number: str) -> str:
    return _words(
        " ".join("".join(c["source"]) for c in stored_lesson(number)["cells"] if c["cell_type"] == "markdown")
    )


# --- 1. each footprint row's counts, worked out ---


async def _footprints() -> list[SessionFootprint]:
    rows = []
    for make in (FullHistoryPolicy, CompactionPolicy, ReducerPolicy):
        policy = make(make_chat_client("reader"), CallLog())
        for turn in load_timeline().turns:
            await policy.turn(turn.user)
        rows.append(await session_footprint(policy))
    return rows


async def test_every_footprint_row_gets_a_sentence_with_its_own_numbers():
    rows = await _footprints()
    said = footprint_sentences(rows).splitlines()
    assert len(said) == len(rows)
    for row, line in zip(rows, said, strict=True):
        assert line.startswith(f"Why {row.policy} ")
        assert str(row.stored) in line and str(row.last_call) in line
    reducer = rows[2]
    assert (reducer.stored, reducer.last_call) == (6, 7)
    assert "6 + 1 = 7" in said[2] and "8 \u2212 2 = 6" in said[2] and "oldest turn" in said[2]
    assert "sends one message fewer than it saves" in said[0]
    assert "saves far more than it sends" in said[1]


def test_counts_no_sentence_explains_are_refused():
    with pytest.raises(ValueError, match="no explanation"):
        footprint_sentences([SessionFootprint("odd", 5, 9, "x")])


async def test_lesson_04_prints_the_sentence_of_every_footprint_row():
    assert "footprint_sentences(rows)" in cell_source("04", "cell-12")
    assert footprint_sentences(await _footprints()) in cell_outputs("04", "cell-12")


# --- 2. one name for one idea: forbidden values ---


async def test_the_answers_tables_and_the_panel_name_forbidden_values_one_way():
    timeline = load_timeline()
    comparison = await compare_policies(timeline, rules=["earliest"])
    final = final_answers_frame(comparison.answers, timeline.questions[-1])
    assert FORBIDDEN_NAMED in final.columns and FORBIDDEN_NAMED in comparison.answers.columns
    full = final[final["policy"] == "full history"].iloc[0]
    assert full[FORBIDDEN_NAMED] == "Reporting; PostgreSQL"
    view = graded_view_frame(comparison.answers, comparison.calls)
    wrong = view[(view["policy"] == "full history") & (view["graded turn"] == 10)].iloc[0]
    assert (wrong["missing"], wrong[FORBIDDEN_NAMED]) == ("Billing; SQL Server 2022", "Reporting; PostgreSQL")
    history = comparison.answers[comparison.answers["policy"] == "full history"]
    assert "- earliest: wrong: missing Billing" in answers_by_rule(history, 10)


def test_lesson_04_defines_forbidden_value_once_and_uses_no_other_label():
    prose = _prose("04")
    assert prose.count("A *forbidden value* is") == 1
    lesson = json.dumps(stored_lesson("04"))
    for old in ("superseded or forbidden", "wrongly held", "| superseded:"):
        assert old not in lesson, old
    assert "forbidden values named: Reporting; PostgreSQL" in cell_outputs("04", "6f3be19a")


# --- 3. lesson 04's prerequisites agree with the course map ---


def test_lesson_04_needs_the_lessons_the_course_map_puts_before_it():
    spec = importlib.util.spec_from_file_location("course_map", ROOT / "docs" / "course_map.py")
    course_map = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course_map)
    source = inspect_arrows(course_map)
    before = sorted(start for start, end in source if end == "04")
    assert before == ["03"]  # the map: 01 -> 02 -> 03 -> 04
    opening = _words(cell_source("04", "cell-00"))
    assert "You need lessons 01 to 03, in the order of the [course map](../docs/course_map.png)" in opening
    assert "You need lessons 01-02" not in opening


def inspect_arrows(course_map) -> list[tuple[str, str]]:
    """The map's arrows, read from its drawing code (pairs of lesson numbers)."""
    text = Path(course_map.__file__).read_text(encoding="utf-8")
    return re.findall(r'\("(\d\d)", "(\d\d)"\)', text)


# --- 4. a number typed in a slider's box ---


@pytest.mark.parametrize(
    ("typed", "read"),
    [("1e3", 1), ("2.5", 2), (" 7 turns", 7), ("-3", None), ("+4", None), ("abc", None), ("", None), ("e3", None)],
)
def test_a_typed_number_is_read_as_the_browser_reads_it(typed, read):
    # walk 24: the box is read in the kernel, digits 0-9 only: a sign no longer reads (parseInt read "-3" as -3)
    assert slider_reads(typed) == read


def test_the_panel_says_how_a_typed_1e3_is_read_and_where_the_value_shows():
    explorer = PolicyExplorer(load_timeline())
    hint = slider_typing_hint([explorer.window, explorer.max_facts])  # one line since walk 17
    assert "up to the first other character (so 1.7 and 1e3 are read as 1)" in hint  # walk 22: 1e3; walk 24: the rule
    explorer.window_box.value = "1e3"  # read in the kernel since walk 24
    assert "window 1 (the smallest it can be)," in explorer.message.value  # the value read, at its limit
