"""Lesson 02, tenth walk (issue 32): the objectives count the writer's failures as section 5 shows them, no code
line is cut off on screen, the dense paragraphs are lists, the cell that names "the message" says why, and
exercise 2's hint points at section 5 without stating the rule that gives the answer."""

import json
import re
from pathlib import Path

from course_lib.exercises import check, exercise

LESSON_02 = Path(__file__).resolve().parents[1] / "notebooks" / "02_correct_then_forget.ipynb"
WIDEST_CODE_LINE = 95
"""About the width JupyterLab shows of a code cell before it cuts a line off (the walker's screen)."""


def _cells() -> list[dict]:
    return json.loads(LESSON_02.read_text(encoding="utf-8"))["cells"]


def _source(cell_id: str) -> str:
    return "".join(next(c for c in _cells() if c.get("id") == cell_id)["source"])


def _flat(cell_id: str) -> str:
    return " ".join(_source(cell_id).split())


def test_the_objectives_say_three_failures_are_refused_and_a_fourth_stops_before_either_check() -> None:
    intro = _flat("cell-00")
    assert "four ways" not in intro
    # walk 23: the objective defines no term (the writer is defined where it first appears)
    # second walk 23: two plain bullets, the refusals, then the reply cut off before its end
    assert "refuse three wrong proposals from a model" in intro
    assert "see what a reply cut off before its end does: nothing is checked" in intro
    assert "no batch to check at all" in _flat("cell-20")  # section 5 says the same of broken_json


def test_no_code_line_of_the_lesson_is_wider_than_the_cell_shows() -> None:
    wide = [
        line
        for cell in _cells()
        if cell["cell_type"] == "code" and "colab-setup" not in cell.get("metadata", {}).get("tags", [])
        for line in "".join(cell["source"]).splitlines()
        if len(line) > WIDEST_CODE_LINE
    ]
    assert wide == []


def test_why_forget_replaces_the_session_lists_one_api_a_bullet() -> None:
    # walk 21: the list sits right above the cell that makes the calls, in a cell of its own
    bullets = [line for line in _source("replay-calls").splitlines() if line.startswith("* ")]
    # walk 23: the cell shows a table of where each value is, and no reply: `.reply` is no longer called
    starts = ["* `replay.ask(text)`", "* `replay.memory.forget()`", "* `replay.forget()`"]
    assert [next((b for b in bullets if b.startswith(s)), None) is not None for s in starts] == [True] * 3


def test_the_writer_paragraph_defines_each_term_once_in_its_own_sentence() -> None:
    # walk 24: four terms in bullets were too many at once ("structured output" was never used again); the terms the
    # story uses are defined once each, each in a sentence of its own
    sentences = re.split(r"(?<=[.?])\s+", " ".join(_source("cell-02").split()))
    for term in ("*batch*", "*evidence*", "*host check*"):
        assert sum(term in s for s in sentences) == 1, term
    assert not any(sum(t in s for t in ("*batch*", "*host check*")) > 1 for s in sentences)
    assert "*structured output*" not in _source("cell-02") and "*schema*" not in _source("cell-02")
    assert "**without a session**" in _source("cell-02")  # the claim map quotes it (F06)


def test_the_cell_that_names_the_message_says_what_the_argument_does() -> None:
    source = _source("mem-after-rejection")
    assert "# the cell wrote it, not you" not in source
    # second walk 25: the cell's comment read like a port-audit note; what message= does is said under the hood
    assert "message=" in source and "[memory] line" not in source
    hood = " ".join(" ".join(c["source"]).replace("\n ", " ") for c in _cells() if c["cell_type"] == "markdown")
    hood = " ".join(hood.split())
    hood = hood[hood.index("## Under the hood") :]
    assert "`message=`" in hood and "[memory]` line" in hood and '"your message"' in hood


def test_exercise_2s_hint_points_at_section_5_and_does_not_state_the_rule() -> None:
    hint = exercise("02", "Exercise 2").hint
    assert "section 5" in hint and "drops a declaration" in hint
    for rule in ("changes nothing", "not even", "admitted", "Billing"):
        assert rule not in hint
    said = " ".join(check("Exercise 2", "Reporting", "Billing", hint).split())
    assert said.count("section 5") + said.count("Section 5") == 1  # pointed at once, not twice
