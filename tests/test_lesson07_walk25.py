"""Walk 25 on lesson 07 (issue 32): the passages a new student read twice, and names that leaked onto the path.

1. Section 3's note under its first table says itself why each policy is shown once: both drifting rules give the
   same rows, because each old and new value is said once, so *most frequent* has a tie and keeps the first value,
   which is what *earliest* keeps (checked against the conversation and the reader's rules, not only pinned).
2. Section 1's prose sample is held to "a small store like the conversation's": ``sample_store()`` is under the hood.
3. What a **task** is has its own short sentence, right before the first table that shows the column.
5. Section 9 says that every message submitted in the panel uses a turn, stored or not (why turns skip).
6. Section 9's first thing to try says why *a stale one* states ``Billing`` after ``module=Payroll``.
7. Section 10 no longer says the local writer "stores both keys of the correction" without its reason.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from support.lesson_cells import cell_outputs, cell_source, paragraphs, sentences, stored_lesson, student_path, words
from support.panels import said, submit

from course_lib.assertions import parse_assertions
from course_lib.capstone import DRIFT_RULES
from course_lib.capstone_panel import CORRECTION_EXAMPLE, CapstonePanel, example_answers
from course_lib.memory import Fact
from course_lib.memory_models import resolve
from course_lib.policies import load_timeline

FIRST_TABLE = "02f68a0d"
UNDER_IT = "read-repairs-table"
NOON = datetime(2026, 1, 1, 12, tzinfo=UTC)


def _cells() -> list[dict]:
    return stored_lesson("07")["cells"]


def _path() -> str:
    return words(" ".join(student_path("07")))


# region 1. Why each policy is shown once


def test_the_note_under_section_3_s_table_gives_its_reason_in_its_own_words() -> None:
    ids = [c.get("id") for c in _cells()]
    assert ids.index(UNDER_IT) == ids.index(FIRST_TABLE) + 1
    note = words(cell_source("07", UNDER_IT).partition("\n\n")[0])
    assert not note.startswith("That"), "the note leans on a line printed above the table"
    assert note.startswith("Both drifting rules give the same rows.")
    assert "*most frequent* has a tie and keeps the first value, which is also what *earliest* keeps" in note
    assert note.endswith("So each policy is shown once.")
    # the rows the note says agree are the rows the cell found to agree
    assert "every policy gets the same row" in cell_outputs("07", FIRST_TABLE)


def test_the_reason_is_true_of_the_conversation_and_the_readers_rules() -> None:
    """Each value of a corrected key is said once by the user, so the two drifting rules resolve every key alike."""
    said_values: dict[str, list[str]] = {}
    for turn in load_timeline().turns:
        for key, value in parse_assertions(turn.user).items():
            said_values.setdefault(key, []).append(value)
    corrected = {key: values for key, values in said_values.items() if len(set(values)) > 1}
    note = words(cell_source("07", UNDER_IT).partition("\n\n")[0])
    assert sorted(corrected) == ["database", "module"]
    assert all(f"`{key}`" in note for key in corrected)
    for values in corrected.values():
        assert len(values) == len(set(values)), values  # each old and new value said once
    mentions = [(key, value) for key, values in said_values.items() for value in values]
    assert set(DRIFT_RULES) == {"earliest", "most_frequent"}
    assert resolve(mentions, "most_frequent") == resolve(mentions, "earliest")
    # said twice, a value wins under most frequent: the note's reason is what makes the rules agree
    assert resolve([("module", "A"), ("module", "B"), ("module", "B")], "most_frequent") == {"module": "B"}


# region 2. and 3. Section 1's words


def test_the_prose_sample_is_held_to_a_small_store_and_sample_store_is_under_the_hood() -> None:
    assert "held to a small store like the conversation's" in _path()
    assert "sample_store" not in _path()
    hood = " ".join(
        "".join(c["source"])
        for c in _cells()[[c.get("id") for c in _cells()].index("under-the-hood") :]
        if c["cell_type"] == "markdown"
    )
    assert "`sample_store()` builds their store" in words(hood)


def test_a_task_is_defined_in_its_own_short_sentence_right_before_the_first_table() -> None:
    cells = _cells()
    table = next(i for i, c in enumerate(cells) if c["cell_type"] == "code" and "examples = [" in "".join(c["source"]))
    before = "".join(cells[table - 1]["source"])
    assert cells[table - 1]["cell_type"] == "markdown"
    last = paragraphs(before)[-1]
    definition = sentences(last)[0]
    assert definition == "A **task** is the user's message that an answer replies to.", definition
    assert len(definition.split()) <= 12
    assert "*Which module?* only asks" in last and "*Plan the fix.* asks for an action" in last


# region 5. and 6. Section 9


async def test_section_9_says_each_submitted_message_uses_a_turn_as_the_panel_does() -> None:
    intro = words(cell_source("07", "capstone-panel-intro"))
    assert "Every message you submit uses up a turn, even a question or a refused one." in intro
    p = await CapstonePanel.from_timeline(load_timeline())
    first = p.memory.turn
    for typed in ("What is the module?", "role=admin"):  # a question, then a key the contract refuses
        await submit(p, typed)
        assert said(p).startswith("Nothing stored: ")
        assert f"still counts as a turn: this one was turn {p.memory.turn})" in said(p)
    await submit(p, CORRECTION_EXAMPLE)
    assert p.memory.turn == first + 3  # the correction's turn skips the two that stored nothing
    assert next(f.turn for f in p.memory.facts if f.key == "module") == first + 3


def test_the_first_thing_to_try_says_why_the_stale_answer_now_states_billing() -> None:
    intro = words(cell_source("07", "capstone-panel-intro"))
    assert "*a stale one* again: it now states `Billing`, the value your correction replaced" in intro
    # true of the panel's rule: the stale answer states the latest value a correction replaced
    now = {"module": "Payroll", "database": "SQL Server 2022"}
    facts = [Fact(key=k, value=v, evidence=f"{k}={v}", turn=10, recorded_at=NOON) for k, v in now.items()]
    superseded = {"module": ["Reporting", "Billing"], "database": ["PostgreSQL"]}
    assert example_answers(facts, superseded)["a stale one"].startswith("The module is Billing")


# region 7. Section 10


def test_section_10_makes_no_claim_about_the_local_writer_without_its_reason() -> None:
    live = words(cell_source("07", "live-mode"))
    assert "both keys of the correction" not in live or "how many facts each message declares" in live
    hood = words(cell_source("07", "hood-store-room"))
    assert "Told how many facts each message declares" in hood and "both keys of the correction" in hood
    assert re.search(r"does not follow the feedback", live)
