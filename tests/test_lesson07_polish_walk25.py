"""Walk 25 (second round) on lesson 07 (issue 32): four sentences a new student read twice, or that left them unsure
what to look for.

1. Section 2 says what the drifting reader takes from feedback: the values a ``[facts check]`` message gives, sent
   by the loop as if the user wrote it (the marker spelled as the evaluator writes it).
2. The panel's note under its table says what the recorded time is (when the panel's cell ran) and where the order
   is (the turn column), and stays true when the times differ.
3. Section 9's second thing to try says what to look for: *a stale one* loses its constraint line.
4. Section 1's *fix* row says the rule reads words, not grammar.
5. Section 3's cap verdict is one clause, then its pointer in brackets.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from support.lesson_cells import cell_source, words
from support.panels import submit

from course_lib.capstone_panel import CapstonePanel, shared_second_note
from course_lib.memory import Fact
from course_lib.policies import load_timeline

NOON = datetime(2026, 1, 1, 12, tzinfo=UTC)
CELL_RAN = "Every row shows the time the panel's cell ran; the turn column gives the order the user said them."


def _said(cell_id: str) -> str:
    return words(cell_source("07", cell_id))


def _facts(*turns_at: tuple[int, int]) -> list[Fact]:
    """One fact per (turn, second after noon)."""
    return [
        Fact(key=f"k{turn}", value="v", evidence=f"k{turn}=v", turn=turn, recorded_at=NOON + timedelta(seconds=second))
        for turn, second in turns_at
    ]


# region 2. The panel's note on its time column


def test_rows_the_panel_replayed_in_one_second_are_said_to_show_when_its_cell_ran() -> None:
    facts = _facts((2, 0), (3, 0), (4, 0))
    assert shared_second_note(facts, replayed=(2, 3, 4)) == CELL_RAN


def test_the_note_stays_true_when_the_replay_crossed_a_second() -> None:
    facts = _facts((2, 0), (3, 0), (4, 1), (6, 1))
    assert shared_second_note(facts, replayed=(2, 3, 4, 6)) == CELL_RAN


def test_rows_the_student_added_later_are_not_said_to_show_when_the_cell_ran() -> None:
    facts = _facts((2, 0), (3, 0), (11, 40))
    note = shared_second_note(facts, replayed=(2, 3))
    assert note == (
        "The rows of turns 2 and 3 show the time the panel's cell ran; "
        "the turn column gives the order the user said them."
    )
    assert "Every row" not in note


def test_turns_stored_in_one_second_outside_a_replay_are_named_with_their_time() -> None:
    facts = _facts((1, 0), (2, 0), (3, 5))
    note = shared_second_note(facts)
    assert note == (
        "Turns 1 and 2 share one time, 12:00:00: they were stored in the same second; "
        "the turn column gives the order the user said them."
    )
    assert shared_second_note(_facts((1, 0), (2, 5))) == ""  # every turn its own time: nothing to explain


async def test_the_panel_on_the_conversation_says_every_row_shows_when_its_cell_ran() -> None:
    panel = await CapstonePanel.from_timeline(load_timeline())
    if len({f.recorded_at.replace(microsecond=0) for f in panel.extraction.memory.facts}) == 1:  # as a rule
        assert CELL_RAN.replace("'", "&#x27;") in panel.times.value
    await submit(panel, "module=Payroll")  # a row the student added: not one the cell's run stored
    assert "Every row" not in panel.times.value or len(panel.extraction.memory.facts) == 1
