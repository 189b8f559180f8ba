"""Lesson 04's walk 12 of issue 32 (findings f04): the exercises stay predictions although section 7's panel can
answer two of them, a fact's evidence and provenance are named as the glossary names them, full history's turns are
a user message and an answer each (read from its last call), and the explorer's sliders show their limits."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from test_student_path import lesson

from course_lib.clients import make_chat_client
from course_lib.policies import (
    FullHistoryPolicy,
    SessionFootprint,
    footprint_sentence,
    generate_timeline,
    load_timeline,
    session_footprint,
)
from course_lib.tracing import CallLog
from course_lib.widgets import PolicyExplorer, slider_limits, slider_typing_hint

ROOT = Path(__file__).resolve().parent.parent

LESSON = "04_memory_policies_compared"


def _cell(cell_id: str):
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _prose(cell_id: str) -> str:
    return " ".join(_cell(cell_id).source.split())


def _printed(cell_id: str) -> str:
    return "".join(o.get("text", "") for o in _cell(cell_id).outputs)


# --- 1. the panel of section 7 can answer exercises 1 and 2: the lesson asks for a prediction first ---


def test_the_exercises_ask_for_a_prediction_before_the_panel_checks_it():
    # walk 7 of issue 32 moved exercises 1 and 2 into section 7, before the panel (tests/test_lesson04_walk15.py)
    intro = _prose("l04-section-7")
    assert intro.startswith("## 7.")
    assert "predict first, then check with the explorer below" in intro
    assert "Window at 9" in intro and "Fact bound at 8" in intro
    # the exercises' own values, as the intro names them
    assert "course_policies(window=9)" in _prose("cell-20")
    assert "a bound of 8 facts" in _prose("cell-22")


def test_the_panel_section_tells_the_student_to_predict_exercises_1_and_2_first():
    section = _prose("l04-section-7")
    assert "Exercises 1 and 2" in section and "a window of 9 turns" in section and "a bound of 8 facts" in section
    assert "predict" in section


# --- 2. evidence and provenance, as the seed, lesson 01 and the glossary define them ---


def test_the_cost_section_names_the_evidence_and_the_provenance_as_the_glossary_does():
    prose = _prose("cell-11")
    assert "The provenance is the user's words" not in prose
    # the seed's "Provenance" section: Key, Value, Evidence, Turn and RecordedAt; lesson 01 and the glossary agree
    assert "every fact travels with its *provenance*: the user's words it was quoted from (its *evidence*)" in prose
    assert "those labels add up to more than the messages themselves" in prose  # claim F35's quotation


# --- 3. full history's earlier turns: a user message and an answer each, read from the call ---


async def test_full_historys_earlier_turns_are_a_user_message_and_an_answer_each_read_from_its_last_call():
    policy = FullHistoryPolicy(make_chat_client("reader"), CallLog())
    for turn in load_timeline().turns:
        await policy.turn(turn.user)
    footprint = await session_footprint(policy)
    assert footprint.last_call_roles == ("user", "assistant") * 9 + ("user",)
    said = footprint_sentence(footprint)
    assert "(a user message and an answer each)" in said and "a question and an answer each" not in said
    assert said in _printed("cell-12")


def test_a_footprint_whose_last_call_is_not_user_and_answer_pairs_is_refused():
    odd = SessionFootprint("full history", 4, 3, "x", last_call_roles=("user", "user", "user"))
    with pytest.raises(ValueError, match="a user message and an answer"):
        footprint_sentence(odd)
    assert "turn 2" in footprint_sentence(SessionFootprint("full history", 4, 3, "x", ("user", "assistant", "user")))


# --- 4. the explorer's sliders show their limits, read from the sliders ---


def test_each_slider_shows_its_limits_beside_it_read_from_its_own_min_and_max():
    explorer = PolicyExplorer(generate_timeline(7))
    assert explorer.window_limits.value == "<i>1 to 7 turns</i>"  # the window's maximum is the timeline's length
    assert explorer.max_facts_limits.value == f"<i>1 to {explorer.max_facts.max} facts</i>"
    controls = explorer.children[0].children
    beside = {tuple(box.children) for box in controls if hasattr(box, "children")}
    assert (explorer.window, explorer.window_box, explorer.window_limits) in beside  # walk 24: a box of its own
    assert (explorer.max_facts, explorer.max_facts_box, explorer.max_facts_limits) in beside
    hint = slider_typing_hint([explorer.window, explorer.max_facts])
    assert explorer.typing_hint.value == f"<i>{hint}</i>" and explorer.typing_hint in controls


def test_the_limits_follow_a_changed_slider_and_read_in_words():
    explorer = PolicyExplorer(load_timeline())
    explorer.max_facts.max = 6
    assert explorer.max_facts_limits.value == "<i>1 to 6 facts</i>"
    explorer.window.min = explorer.window.max = 10
    assert explorer.window_limits.value == "<i>10 turns only</i>"
    explorer.window.min = explorer.window.max = 1
    assert explorer.window_limits.value == "<i>1 turn only</i>"


def test_a_value_set_outside_the_limits_is_moved_inside_and_the_status_line_says_the_value_used():
    explorer = PolicyExplorer(load_timeline())
    explorer.window.value = 999
    assert explorer.window.value == explorer.window.max == 10
    assert (
        "Press Run to compute with rule latest, window 10 (the largest it can be), fact bound 5."
        in explorer.message.value
    )
    explorer.max_facts.value = 0
    assert explorer.max_facts.value == explorer.max_facts.min == 1
    hint = slider_typing_hint([explorer.window, explorer.max_facts])
    assert "below 1 becomes 1, above 10 becomes 10" in hint  # walk 21: what a typed number past an end becomes


@pytest.mark.parametrize(
    ("low", "high", "unit", "said"), [(1, 10, "turn", "1 to 10 turns"), (3, 3, "fact", "3 facts only")]
)
def test_slider_limits_says_the_range_in_words(low, high, unit, said):
    import ipywidgets as widgets

    assert slider_limits(widgets.IntSlider(value=low, min=low, max=high), unit) == said


def test_the_glossary_and_lesson_01_count_the_evidence_in_the_provenance_as_the_seed_does():
    """The glossary said the provenance was the turn and the time; lesson 01 and the seed's "Provenance" section
    (Key, Value, Evidence, Turn, RecordedAt) count the quoted words in it."""
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    row = next(line for line in glossary.splitlines() if line.startswith("| **fact** |"))
    assert "with its **provenance**: the exact words it came from (its **evidence**" in row
    lesson_01 = nbformat.read(ROOT / "notebooks" / "01_contract_and_store.ipynb", as_version=4)
    said = " ".join(" ".join(c.source.split()) for c in lesson_01.cells if c.cell_type == "markdown")
    assert "provenance** is where it came from: the words it cites, its turn and the UTC time" in said
