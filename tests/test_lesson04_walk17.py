"""Lesson 04 after its ninth walk (issue 32): section 3b no longer names section 4's recording and its output cap
before section 4 shows them, section 1 calls its table the script of user messages (a turn is a message and its
answer), and the explorer's note on typed numbers is one line, its range read from the sliders.

The typed text itself never reaches the kernel: ipywidgets' slider box parses it in the browser (``parseInt``, then
the slider's limits) and sends only a changed ``value``, so the panel cannot say "you typed 2.5, the slider took 2".
Its line says what is true of every input instead, and the rule is checked against :func:`slider_takes`.
"""

from __future__ import annotations

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
    assert "Section 4 shows a small real model's attempt." in summarizer
    recording = _words(cell_outputs("04", "0dfdbc21"))
    assert "The summary policy stopped" in recording and "cut off at turn 1" in recording


# endregion

# region Finding 3: section 1's table is the script of user messages, not the whole conversation


def test_section_1_calls_the_table_the_script_of_user_messages():
    words = _words(cell_source("04", "cell-02"))
    assert words.startswith("## 1. The timeline and the reader The table above is the whole script: every user message")
    assert "the timeline replays" in words
    assert "whole conversation" not in words
    table = cell_outputs("04", "cell-01")  # the table above: the user's messages, no answers
    assert "Plan the fix" in table and "From what I can see" not in table


# endregion
