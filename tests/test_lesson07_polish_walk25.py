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

from course_lib.answer_reader import check_answer
from course_lib.capstone import (
    FEEDBACK_HEADER,
    DriftProneAssistantClient,
    declare,
    feedback_text,
    reader_answer,
    sample_store,
)
from course_lib.capstone_panel import CapstonePanel, shared_second_note
from course_lib.memory import Fact, WorkingMemory
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


# region 1. What the reader takes from feedback


def test_section_2_says_the_reader_takes_the_values_of_a_facts_check_message_sent_as_the_users() -> None:
    said = _said("27df2e29")
    assert (
        "Like a model that listens to feedback, it takes the values given in a `[facts check]` message. "
        "The loop adds it as a user-role message, marked as the loop's own (section 7)" in said
    )
    assert "facts-check format" not in said
    assert FEEDBACK_HEADER.startswith("[facts check] ")  # the marker, spelled as the prose spells it


def test_the_reader_takes_the_values_a_facts_check_gives() -> None:
    said = ["module=Reporting", "module=Billing", "Which module?"]
    reader = DriftProneAssistantClient("earliest")
    assert "module=Reporting" in reader_answer(reader, said)  # it drifts
    store = WorkingMemory()
    for text in said[:2]:
        declare(store, text, {})
    feedback = feedback_text(check_answer(store.facts, "module=Reporting."))
    assert feedback.startswith("[facts check]")
    assert "module=Billing" in reader_answer(reader, [*said, feedback])  # the value the message gives


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


# region 3. What to look for after forgetting the constraint


async def test_a_stale_one_loses_its_constraint_line_once_the_constraint_is_forgotten() -> None:
    intro = _said("capstone-panel-intro")
    assert (
        "Then *a stale one* no longer gets the constraint line: the loop cannot ask for a fact the store lost "
        "(section 3)." in intro
    )
    panel = await CapstonePanel.from_timeline(load_timeline())
    stale = dict(panel.examples.options)["a stale one"]

    async def keys() -> list[str]:
        panel.answer.value = stale
        panel.check_button.click()
        await panel.idle()
        assert panel.result is not None
        return [v.fact.key for v in panel.result.violations]

    assert "constraint" in await keys()
    panel.key.value = "constraint"
    panel.forget_key_button.click()
    await panel.idle()
    after = await keys()
    assert after and "constraint" not in after
    assert "constraint" not in panel.feedback.value.split("[facts check]", 1)[-1]


# region 4 and 5. Section 1's *fix* row, section 3's cap


def test_the_fix_row_says_the_rule_reads_words_not_grammar() -> None:
    said = _said("prose-why-pass")
    assert "Its word *fix*, even used as a noun, counts as an action word: the rule reads words, not grammar." in said
    assert "*fix* plans an action" not in said
    store, superseded = sample_store()
    answer = "The fix belongs in the Inventory module on SQL Server 2022."
    found = check_answer(store.facts, answer, "Which module and database are we on?", superseded)
    assert "constraint" in [v.fact.key for v in found]  # the noun counts as an action


def test_the_cap_verdict_is_one_clause_then_its_pointer() -> None:
    said = _said("10ead7db")
    assert "No offline run in this lesson reaches it; a live model may (section 10)." in said
    assert "it, a live model may:" not in said
