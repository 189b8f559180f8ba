"""Lesson 04's sixth student walk (issue 32): the polish items, each checked at its rule.

The cost table says what its characters add up; full history's "20 saved, 19 sent" is explained with the run's own
numbers; exercise 3's "Why" shows the summary it is about; the recording's fold is in plain words and its exact names
are under the hood; the explorer's chosen policies look chosen; the progress bars say what they are before Run All;
the glossary and the lesson agree on Demo170 and both define a message group.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from test_student_path import hood_index, lesson

from course_lib.clients import make_chat_client
from course_lib.policies import (
    CompactionPolicy,
    FullHistoryPolicy,
    ReducerPolicy,
    SessionFootprint,
    course_policies,
    footprint_sentence,
    load_timeline,
    replay_summary,
    session_footprint,
    summary_shown,
)
from course_lib.presentation import ALL_CHARS, EXTRA_CHARS, READER_CHARS
from course_lib.recordings import load_policy_costs
from course_lib.tracing import CallLog
from course_lib.widgets import CHOSEN_STYLE, PolicyExplorer

ROOT = Path(__file__).resolve().parent.parent
LESSON = "04_memory_policies_compared"


def _student_text(name: str = LESSON) -> str:
    """Every source and text output of the student's path (before "Under the hood")."""
    nb = lesson(name)
    parts = []
    for cell in nb.cells[: hood_index(nb.cells)]:
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            parts.extend(str(v) for k, v in output.get("data", {}).items() if k.startswith("text/"))
    return "\n".join(parts)


def test_the_cost_tables_characters_say_what_they_add_up():
    assert ALL_CHARS == "chars sent (all calls)"
    assert {READER_CHARS, EXTRA_CHARS} == {"chars sent to the reader", "chars sent by extra calls"}


async def test_full_history_says_why_it_sends_one_message_fewer_than_it_saves():
    footprints = []
    for make in (FullHistoryPolicy, CompactionPolicy, ReducerPolicy):
        policy = make(make_chat_client("reader"), CallLog())
        for turn in load_timeline().turns:
            await policy.turn(turn.user)
        footprints.append(await session_footprint(policy))
    full, compaction, reducer = footprints
    said = footprint_sentence(full)
    assert (full.stored, full.last_call) == (20, 19)
    assert "one message fewer" in said and "question of turn 10" in said
    assert "18 messages of turns 1 to 9" in said and "18 + 1 = 19" in said and "19 + 1 = 20" in said
    for other in (compaction, reducer):  # they send another count, explained by their own section
        with pytest.raises(ValueError, match="sends every message it saved"):
            footprint_sentence(other)
    assert "turn 4" in footprint_sentence(SessionFootprint("full history", 8, 7, "x"))


async def test_exercise_3s_why_shows_the_summary_it_is_about_and_its_length():
    timeline = load_timeline()
    tight = await replay_summary(timeline, course_policies(summary_budget=200, summary_mode="extractive")["summary"])
    roomy = await replay_summary(timeline, course_policies(summary_mode="extractive")["summary"])
    assert "constraint=" not in tight.summary and "constraint=" in roomy.summary and len(tight.summary) <= 200
    shown = summary_shown(tight.summary, budget=200)
    assert shown.startswith(
        f"The summary sent with the final question: {len(tight.summary)} characters (budget 200):\n"
    )
    assert shown.endswith(tight.summary) and shown in tight.why(budget=200, answer_why="")
    with pytest.raises(TypeError, match="needs a summary policy"):
        await replay_summary(timeline, course_policies()["facts"])
    cell = next(c for c in lesson(LESSON).cells if c.get("id") == "cell-25")
    assert "replay.why(" in cell.source and "why=why" in cell.source


def test_the_recordings_fold_speaks_plainly_and_its_exact_names_are_under_the_hood():
    recording = load_policy_costs()
    plain = recording.plain_caption()
    assert "local server" in plain and "maximum output tokens 256" in plain
    assert not re.search(r"xllamacpp|n_predict|SHA|top_k|==", plain)
    assert html.escape(plain) in recording.details_html(plain=True)
    assert "xllamacpp" in recording.details_html()  # lesson 00's fold is unchanged
    student = _student_text()
    assert "xllamacpp" not in student and "n_predict" not in student
    nb = lesson(LESSON)
    hood_cells = [c for c in nb.cells[hood_index(nb.cells) :] if c.cell_type == "code"]
    hood = "\n".join(o.get("text", "") for c in hood_cells for o in c.get("outputs", []))
    assert "xllamacpp" in hood and "n_predict" in hood


def test_the_explorers_chosen_policies_are_painted_as_chosen_even_without_the_focus():
    explorer = PolicyExplorer(load_timeline())
    assert "course-policy-list" in explorer.policies._dom_classes
    assert explorer.chosen_style in explorer.children and explorer.chosen_style.value == CHOSEN_STYLE
    assert (
        ".course-policy-list select option:checked" in CHOSEN_STYLE and explorer.chosen_style.layout.display == "none"
    )


def test_the_text_above_each_progress_bar_says_what_it_is_before_run_all():
    cells = lesson(LESSON).cells
    for i, cell in enumerate(cells):
        if "ProgressBar(" in cell.source:
            said = " ".join(cells[i - 1].source.split())
            assert "saved picture" in said and "Run All" in said, f"cell {cell.get('id')}"


def test_the_glossary_and_the_lesson_agree_on_demo170_and_define_a_message_group():
    glossary = (ROOT / "docs" / "glossary.md").read_text()
    entry = next(line for line in glossary.splitlines() if '<a id="demo170"></a>' in line)
    # walk 25: the opening says "one of the three demo programs"; which one is said under the hood
    hood = next(c.source for c in lesson(LESSON).cells if c.get("id") == "hood-reducer")
    assert "third program" in entry and "third program" in hood
    assert "one of the three demo programs" in " ".join(lesson(LESSON).cells[0].source.split())
    assert '<a id="message-group"></a>' in glossary
    cells = lesson(LESSON).cells
    first = next(c for c in cells if c.cell_type == "markdown" and "message group" in c.source)
    assert "a message group\nis what compaction keeps or leaves out as one piece" in first.source
