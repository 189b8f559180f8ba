"""Lesson 01's walk (issue 32): each item checked at its rule.

U+FEFF has one name in the comment and the printout; forget(key) is shown starting a new epoch; the batch size
check is said plainly as the first; the exercise points to nothing the lesson does not show.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_student_path import lesson

from course_lib.assertions import MAX_MESSAGE_CHARS, MessageTooLong, find_declarations, parse_assertions
from course_lib.exercises import exercise
from course_lib.memory import (
    FactCandidate,
    InvalidFacts,
    WorkingMemory,
    edge_trim_sentence,
    forget_sentence,
    update_sentence,
)
from course_lib.presentation import BLOCK_WIDTH

LESSON = "01_contract_and_store"


def _words() -> str:
    return " ".join(" ".join(c.source for c in lesson(LESSON).cells if c.cell_type == "markdown").split())


def test_the_byte_order_mark_has_one_name_in_the_comment_and_the_printout():
    sentence = edge_trim_sentence("\ufeffmodule=Billing\u200b")
    assert "a byte-order mark (U+FEFF, also called zero width no-break space)" in sentence
    cell = next(c for c in lesson(LESSON).cells if "edge_trim_sentence(" in c.source and c.cell_type == "code")
    assert "byte-order mark (U+FEFF)" in cell.source
    assert any(sentence in o.get("text", "") for o in cell.outputs)


def test_forget_of_one_key_is_shown_starting_a_new_epoch():
    memory = WorkingMemory()
    ticket = memory.begin_turn("module=Billing; database=SQL Server 2022")
    memory.apply(
        ticket,
        [
            FactCandidate(key="module", value="Billing", evidence="module=Billing"),
            FactCandidate(key="database", value="SQL Server 2022", evidence="database=SQL Server 2022"),
        ],
    )
    epoch_before, facts_before = memory.epoch, memory.facts
    removed = memory.forget("module")
    sentence = forget_sentence(memory, "module", removed, facts_before, epoch_before)
    assert memory.epoch == 1 and [f.key for f in memory.facts] == ["database"]
    assert sentence == (
        'forget("module") removed 1 fact (module=Billing); the epoch went from 0 to 1; '
        "the store still holds database=SQL Server 2022."
    )
    printed = [o.get("text", "") for c in lesson(LESSON).cells for o in c.get("outputs", [])]
    assert any(sentence in text for text in printed)


def test_the_exercise_and_the_rule_order_say_only_what_the_lesson_shows():
    words = _words()
    assert "as in section 1" not in words
    # walk 22: the order of the checks is said under section 3's first table, in short sentences
    assert "The store checks the batch's size first (the last row of section 3's first table). Then it takes" in words
    assert "its size first (the last row), then each candidate" not in words


def test_a_repeated_key_is_kept_last_by_the_contract_and_refused_in_one_batch_by_the_store():
    """The lesson said "the store keeps only the last" of a repeated key: the store refuses such a batch whole."""
    message = "module=Reporting; module=Billing"
    assert parse_assertions(message) == {"module": "Billing"}
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts, match="duplicate key"):
        memory.apply(
            memory.begin_turn(message), [FactCandidate.from_declaration(d) for d in find_declarations(message)]
        )
    assert memory.facts == ()
    words = _words()
    assert "the store keeps only the last" not in words
    # the second walk 24: "a batch holding both" did not say both of what; the refusal is section 3's table row
    assert "It lists a repeated key every time; `parse_assertions` keeps only the last one." in words


def test_why_two_batches_break_more_than_their_rule_is_said_under_the_table_not_before_it():
    cells = lesson(LESSON).cells
    table = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "rules_broken(text, batch)" in c.source)
    said = [i for i, c in enumerate(cells) if "nine batches break their rule alone" in c.source]
    assert said == [table + 1]


def test_the_takeaways_answer_the_last_objective_a_ticket_made_by_hand():
    cells = lesson(LESSON).cells
    takeaways = next(c.source for c in cells if c.source.startswith("## Key takeaways"))
    assert "a ticket made by hand" in cells[0].source
    assert "a ticket made by hand, or altered, writes nothing" in takeaways


def test_exercise_1_hint_is_two_short_sentences_that_do_not_bury_the_note_on_the_miss():
    """The hint follows every note on a specific miss: at ~60 words it buried the note (lesson 01's walk)."""
    hint = exercise("01", "Exercise 1").hint
    assert hint.count(". ") + 1 <= 2 and hint.endswith(("?", "."))
    assert len(hint.split()) <= 45
    assert not any(answer in hint for answer in ("SQL Server", "a=b", "Oracle", "MySQL"))


def test_a_batch_is_a_list_or_a_tuple_as_the_store_and_its_refusal_say():
    """The lesson and the refusal said "a list", yet a tuple was admitted (the extraction hands one over)."""
    memory = WorkingMemory()
    billing = FactCandidate(key="module", value="Billing", evidence="module=Billing")
    memory.apply(memory.begin_turn("module=Billing"), (billing,))
    assert [f.key for f in memory.facts] == ["module"]
    with pytest.raises(InvalidFacts) as refused:
        memory.apply(memory.begin_turn("module=Billing"), (c for c in [billing]))  # type: ignore[arg-type]
    assert "got a generator, not a list or a tuple of candidates" in str(refused.value)
    assert "(rule: a batch is a list or a tuple of at most 5 candidates; " in str(refused.value)
    words = _words()
    assert "(it is a list or a tuple, and each element is a `FactCandidate`)" in words
    assert "anything that is not a list or a tuple of candidates" in words


def test_the_correction_says_what_it_replaced_beside_the_new_table():
    """Section 4 showed only the store after the correction: the student scrolled back to section 2 to see it."""
    memory = WorkingMemory()
    memory.apply(
        memory.begin_turn("module=Reporting; database=PostgreSQL"),
        [
            FactCandidate(key="module", value="Reporting", evidence="module=Reporting"),
            FactCandidate(key="database", value="PostgreSQL", evidence="database=PostgreSQL"),
        ],
    )
    correction = "module=Billing; database=SQL Server 2022"
    before = memory.facts
    memory.apply(
        memory.begin_turn(correction), [FactCandidate.from_declaration(d) for d in find_declarations(correction)]
    )
    sentence = update_sentence(before, memory.facts)
    assert sentence == (
        "The batch replaced database (it was 'PostgreSQL', from turn 1) and replaced module (it was 'Reporting', "
        "from turn 1)."
    )
    cell = next(c for c in lesson(LESSON).cells if c.cell_type == "code" and "correction = " in c.source)
    assert [o.get("text", "") for o in cell.outputs if o.get("name") == "stdout"] == [sentence + "\n"]


def test_forget_is_defined_where_it_first_appears():
    """Lesson 01's fifth walk: ``forget`` was used in the objectives and section 7 before section 7 showed it; the
    first mention now says what ``forget(key)`` does to the store and why it matters."""
    words = _words()
    first = words.index("`forget`")
    # walk 9 left forget to section 7, where it was defined on the spot; walk 25: section 2 names it first, so it
    # says there in plain words what a forget is and points to section 7, which still defines it
    assert words[first - len("after the user asks the store to forget (") : first + len("`forget`, section 7)")] == (
        "after the user asks the store to forget (`forget`, section 7)"
    )
    assert words.index("`forget` runs: given a key it removes the fact stored under that key") > first
    assert "no write begun earlier may restore them" in words


def test_section_6_reads_a_time_its_own_block_printed():
    """Lesson 01's fifth walk: section 6 explained the block's time on ``2026-01-01T12:00:00+00:00``, a time only
    "Under the hood" printed; the cell under the block now reads the time of a fact of the lesson's store."""
    cells = lesson(LESSON).cells
    hood = next(i for i, c in enumerate(cells) if c.source.startswith("## Under the hood"))
    path = " ".join(c.source for c in cells[:hood])
    assert "2026-01-01T12:00:00" not in path
    assert "print(recorded_words(store.facts[0]))" in path


def test_the_hidden_characters_block_is_printed_unbroken_dates_and_counted_on_its_own_lines():
    """Lesson 01's sixth walk: "Under the hood" printed the block whole, and JupyterLab cut its date mid-token,
    while section 6 promises a date is never cut; it now prints through ``wrapped_block``, lines counted raw."""
    cell = next(
        c for c in lesson(LESSON).cells if c.cell_type == "code" and "fenced = prompt_block(hidden)" in c.source
    )
    assert "print(wrapped_block(fenced))" in cell.source and "count = len(fenced.splitlines())" in cell.source
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert all(len(line) <= BLOCK_WIDTH for line in printed.splitlines())
    assert printed.count("recorded 2026-01-01T12:00:00+00:00)") == 2
    assert "lines: 4 (the header, 2 facts, the footer) | read back exactly: yes" in printed


def test_the_glossary_says_a_long_message_takes_no_turn_and_a_rejected_batch_used_its_own():
    """The glossary's ticket row read as if a rejected batch took no turn; section 4 says each one still opened a
    turn. Both halves of the reworded row are checked against the store, with the limit's own value."""
    memory = WorkingMemory()
    with pytest.raises(MessageTooLong):
        memory.begin_turn("x" * (MAX_MESSAGE_CHARS + 1))
    assert memory.turn == 0
    ticket = memory.begin_turn("module=Billing")
    with pytest.raises(InvalidFacts):
        memory.apply(ticket, [FactCandidate(key="module", value="Billing", evidence="not said")])
    assert memory.begin_turn("module=Billing").number == 2
    glossary = (Path(__file__).parents[1] / "docs" / "glossary.md").read_text(encoding="utf-8")
    row = next(line for line in glossary.splitlines() if line.startswith("| **ticket, epoch, turn**"))
    assert f"a message over the {MAX_MESSAGE_CHARS}-character limit is refused before its turn begins" in row
    assert "a rejected batch still used its turn" in row
    assert "refused whole" not in row


def test_section_2_gives_the_true_reason_for_the_order_and_section_7_points_to_runs():
    """Section 5 explains eviction's tie-break, not why the tables are sorted: section 2 now names the shared order.
    Section 7 called any earlier ticket stale; "Under the hood" now gives the run rule it leaves out (walk 12 moved
    the pointer out of section 7's opening)."""
    words = _words()
    assert "(section 5 shows why)" not in words
    assert "by key in ordinal order (the same order eviction uses for ties, section 5)" in words
    assert "This is the rule for the turns of one run that section 7 leaves out" in words
