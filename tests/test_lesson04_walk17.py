"""Lesson 04 after its ninth walk (issue 32): section 3b no longer names section 4's recording and its output cap
before section 4 shows them, section 1 calls its table the script of user messages (a turn is a message and its
answer), and the explorer's note on typed numbers is one line, its range read from the sliders.

The typed text itself never reaches the kernel: ipywidgets' slider box parses it in the browser (``parseInt``, then
the slider's limits) and sends only a changed ``value``, so the panel cannot say "you typed 2.5, the slider took 2".
Its line says what is true of every input instead, and the rule is checked against :func:`slider_takes`.
"""

from __future__ import annotations

import re

import ipywidgets as widgets
import pytest

from course_lib.policies import generate_timeline, load_timeline
from course_lib.widgets import PolicyExplorer, slider_reads, slider_takes, slider_typing_hint
from tests.support.lesson_cells import cell_outputs, cell_source, stored_lesson


def _words(text: str) -> str:
    return " ".join(text.split())


def _markdown_before(heading: str) -> list[tuple[str, str]]:
    """Each markdown cell (id, words) that comes before the cell opening with ``heading``."""
    cells = stored_lesson("04")["cells"]
    end = next(i for i, c in enumerate(cells) if "".join(c["source"]).lstrip().startswith(heading))
    return [(c.get("id", ""), _words("".join(c["source"]))) for c in cells[:end] if c["cell_type"] == "markdown"]


# region Finding 1: section 3b does not lean on section 4's recording before section 4


def test_no_cell_before_section_4_names_the_recordings_output_cap():
    for cell_id, words in _markdown_before("## 4. What it cost"):
        assert "output cap" not in words and "256-token" not in words, cell_id
        assert "recorded in section 4" not in words, cell_id


def test_section_3b_points_to_section_4_and_section_4_says_the_summary_was_cut_off():
    summarizer = _words(cell_source("04", "44536822"))
    assert "Section 4 shows how a small real model" not in summarizer  # second walk 25 cut the pointer
    recording = _words(cell_outputs("04", "0dfdbc21"))
    assert "The summary policy stopped at turn 1" in recording and "was cut off" in recording


# endregion

# region Finding 3: section 1's table is the script of user messages, not the whole conversation


def test_section_1_calls_the_table_the_script_of_user_messages():
    # third walk 25: section 2's compaction bullet may say "the whole conversation"; section 1 may not
    words = _words(cell_source("04", "cell-02").split("## 2.")[0])
    assert words.startswith("## 1. The timeline and the reader The table above is the whole script: every user message")
    assert "the timeline replays" in words
    assert "whole conversation" not in words
    table = cell_outputs("04", "cell-01")  # the table above: the user's messages, no answers
    assert "Plan the fix" in table and "From what I can see" not in table


# endregion

# region Finding 2: the typing note is one line, with each slider's real range


def test_the_note_gives_the_sliders_range_read_from_them():
    explorer = PolicyExplorer(load_timeline())
    assert (explorer.window.min, explorer.window.max, explorer.max_facts.max) == (1, 10, 10)
    hint = slider_typing_hint([explorer.window, explorer.max_facts])
    # walk 21: the line says what each kind of input becomes (tests/test_policies04_walk21.py)
    assert hint.startswith("A slider's number box reads") and "below 1 becomes 1, above 10 becomes 10" in hint
    assert explorer.typing_hint.value == f"<i>{hint}</i>"
    assert "\n" not in hint and len(hint) <= 220  # one line a student reads


def test_sliders_of_different_ranges_are_each_named_with_their_own():
    explorer = PolicyExplorer(generate_timeline(7))
    hint = slider_typing_hint([explorer.window, explorer.max_facts])
    assert "above a slider's highest (Window 7, Fact bound 10) becomes that highest" in hint
    assert explorer.typing_hint.value == f"<i>{hint}</i>"


def test_the_note_follows_a_slider_whose_limits_change():
    explorer = PolicyExplorer(load_timeline())
    explorer.max_facts.max = 6
    assert "above a slider's highest (Window 10, Fact bound 6) becomes that highest" in explorer.typing_hint.value
    explorer.max_facts.max = 10
    assert "above 10 becomes 10" in explorer.typing_hint.value
    explorer.window.min = explorer.window.max = 10
    assert "below a slider's lowest (Window 10, Fact bound 1) becomes that lowest" in explorer.typing_hint.value


def test_the_old_four_line_note_is_gone_from_the_panel_and_the_lesson():
    explorer = PolicyExplorer(load_timeline())
    for gone in ("first character", "1e3 reads as", "minus sign", "Blanks before"):
        assert gone not in explorer.typing_hint.value
    stored = cell_outputs("04", "cell-18") + cell_outputs("04", "cell-19")
    widget_state = str(stored_lesson("04")["metadata"].get("widgets", ""))
    assert "first character that is not a digit" not in stored + widget_state
    assert "A slider's number box reads a whole number in digits" in widget_state  # walk 24's wording


@pytest.mark.parametrize("typed", ["abc", "2.5", "1e3", "999", "0", "-5", " 7 turns", "", "+4"])
def test_what_is_not_a_whole_number_in_range_is_ignored_or_changed(typed):
    """The note's claim, "other text is ignored or changed", on the inputs a student tried."""
    for slider in PolicyExplorer(load_timeline()).window, widgets.IntSlider(value=4, min=1, max=10):
        slider.value = 4
        taken = slider_takes(slider, typed)
        ignored = slider_reads(typed) is None and taken == 4
        changed = str(taken) != typed
        assert ignored or changed, (typed, taken)


@pytest.mark.parametrize("number", range(1, 11))
def test_a_whole_number_in_range_is_taken_as_typed(number):
    explorer = PolicyExplorer(load_timeline())
    for slider in explorer.window, explorer.max_facts:
        assert slider_takes(slider, str(number)) == number
        slider.value = slider_takes(slider, str(number))  # what the browser sends
        assert re.search(rf"\b{slider.description.lower()} {number}\b", explorer.message.value)


def test_the_slider_sends_no_typed_text_to_the_kernel():
    """Why the panel cannot echo what was typed: no synced trait of the slider holds the box's text."""
    slider = widgets.IntSlider(value=3, min=1, max=10)
    synced = set(slider.keys)
    text_traits = {name for name in synced if isinstance(getattr(slider, name), str)}
    assert text_traits <= {
        "_model_module",
        "_model_module_version",
        "_model_name",
        "_view_module",
        "_view_module_version",
        "_view_name",
        "_dom_classes",
        "description",
        "orientation",
        "readout_format",
        "tooltip",
        "behavior",
        "layout",
        "style",
        "tabbable",
    }, text_traits


# endregion
