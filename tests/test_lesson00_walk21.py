"""Lesson 00, walk 21 of issue 32: fewer new words before anything runs, and the recording's rejections said whole.

* Section 2 listed seven terms (fact, agent, desk, turn, memory policy, loop, LLM judge) before its first table ran.
  Now it lists only the terms the table's *purpose* column needs, one line each; the purposes say the rest in plain
  words (``turns`` became the earlier messages, ``the agent the loop runs`` the worker), and each term the lesson
  still uses later is defined where it first appears (MAF in section 4, the store's facts in section 4, a turn in
  section 6).
* The recording's row *rejected by the host* (6 / 6 / 4) counted the over-long message, which the host refuses
  before the writer is called. Each cell now says how many of its rejections came before any call, and a line under
  the table names those cases and why, both computed from the recordings.
"""

import json
from pathlib import Path

from course_lib.qualify import BATTERY, reason_in_words
from course_lib.recordings import (
    compare_qualifications,
    qualification_steps,
    rejected_before_any_call,
    unsent_note,
)

ROOT = Path(__file__).resolve().parent.parent
LESSON = next((ROOT / "notebooks").glob("00_*.ipynb"))


def cells() -> list[dict]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def cell(cell_id: str) -> dict:
    return next(c for c in cells() if c.get("id") == cell_id)


def source(c: dict) -> str:
    return " ".join("".join(c["source"]).split())


def printed(c: dict) -> str:
    return "".join(
        "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")) for o in c.get("outputs", [])
    )


# --- finding 2: the host's rejections before any call are said where the row is shown ---


def test_each_rejected_cell_says_how_many_came_before_any_call_computed_from_the_run():
    steps = qualification_steps()
    row = compare_qualifications(steps).loc["rejected by the host"]
    for name, run in steps.items():
        rejected = sum(c.outcome == "rejected" for c in run.cases)
        unsent = sum(c.outcome == "rejected" and c.calls == 0 for c in run.cases)
        assert unsent == len(rejected_before_any_call(run)) >= 1
        assert row[name] == f"{rejected} ({unsent} before any call)"


def test_a_run_with_no_rejection_before_any_call_shows_the_bare_count():
    run = qualification_steps()["+ the declared count (now)"]
    sent = run.model_copy(update={"cases": [c for c in run.cases if c.calls]})
    table = compare_qualifications({"sent only": sent})
    assert table.loc["rejected by the host", "sent only"] == sum(c.outcome == "rejected" for c in sent.cases)
    assert unsent_note({"sent only": sent}) == ""


def test_the_note_under_the_table_names_the_case_refused_before_any_call_and_why():
    steps = qualification_steps()
    note = unsent_note(steps)
    over_long = next(c for c in BATTERY if c.kind == "over-long")
    recorded = next(c for c in steps["+ the declared count (now)"].cases if c.case == over_long.name)
    assert f"“{over_long.name}”" in note and "in every run" in note.lower()
    assert reason_in_words(recorded.reason) in note
    assert "the writer never saw it" in note


def test_the_note_names_each_run_when_the_runs_differ():
    steps = qualification_steps()
    first, *_ = steps
    changed = dict(steps)
    changed[first] = steps[first].model_copy(update={"cases": [c for c in steps[first].cases if c.calls]})
    note = unsent_note(changed)
    assert "in every run" not in note.lower()
    for name in steps:
        assert (name in note) == (name != first), name


def test_the_lesson_shows_the_counts_and_the_note_under_the_table():
    shown = printed(cell("b7d1e0a1"))
    assert "6 (1 before any call)" in shown and "4 (1 before any call)" in shown
    assert unsent_note(qualification_steps()) in shown
    assert "print(unsent_note(steps))" in "".join(cell("b7d1e0a1")["source"])
