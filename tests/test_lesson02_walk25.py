"""Lesson 02's walk 25 (issue 32): a new student scored it 4/5; these make it a 5.

1. Why a model: the model is the thing under test, and plain code shows its every mistake.
2. The forget filter is defined in its own sentences: what it replaces, and why a corrected value escapes it.
3. The sentence under the where-is-each-value table names the column to read and why its two pairs of rows differ.
4. "The seed" leaves the student's path: the script, the `mem` checks; the provenance goes under the hood.
5. The memory panel's notes: Submit's note says only what turns it on; Forget all says what brings a fact back.
6. Section 6 keeps the table on the student's path; the JSON-shape aside and the character sums go under the hood.
7. Exercise 1 names what reports the status: ``MemoryExtraction.update``.
8. Section 1's step 1 says in a clause what the ticket is, with a link to lesson 01.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, student_path, words

from course_lib.extraction import make_extraction
from course_lib.widgets import NEW_PANEL_NOTE, SUBMIT_DISABLED_NOTE, TICKET_NOTE, MemoryPanel


def _cells() -> list[dict]:
    return stored_lesson("02")["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _hood() -> list[dict]:
    cells = _cells()
    at = next(i for i, c in enumerate(cells) if _source(c).startswith("## Under the hood"))
    return cells[at:]


def _hood_markdown() -> str:
    return plain_words(" ".join(_source(c) for c in _hood() if c["cell_type"] == "markdown"))


# region 1. the model is the thing under test


def test_why_a_model_says_the_model_is_under_test() -> None:
    said = words(cell_source("02", "cell-02"))
    assert said.endswith(
        "Here the model is the thing under test: plain code could read `key=value` alone, so every mistake the model "
        "makes shows."
    )
    assert "not what we need" not in said


# region 2. the forget filter, in its own sentences


def test_the_forget_filter_bullet_says_what_it_filters_and_what_escapes_it() -> None:
    said = words(cell_source("02", "replay-calls"))
    assert (
        "`replay.memory.forget()` empties only the store. Then the desk's model client replaces each **forgotten** "
        "value with `[forgotten]` in what it sends (the *forget filter*): the course's code, not MAF's. Reporting and "
        "PostgreSQL were never forgotten, only replaced by the correction, so the filter lets them through."
    ) in said


# region 3. which column to read, and why its rows differ


def test_the_sentence_under_the_table_names_the_column_and_both_pairs() -> None:
    first = words(cell_source("02", "cell-18").split("\n\n")[0])
    column = re.search(r"Look at the column \*([^*]+)\*:", first)
    assert column is not None, first
    assert column.group(1) in cell_outputs("02", "cell-17")  # a column the table shows
    hidden, reach = first.index("Billing and SQL Server 2022 are hidden"), first.index("Reporting and PostgreSQL")
    assert hidden < reach and "replaced by the correction, still reach the model from the session" in first
    assert "Only a new session removes them, which is why `forget` replaces it." in first
    shown = cell_outputs("02", "cell-17")
    for value in ("Billing", "SQL Server 2022"):
        assert re.search(rf"{value}\s.*the model is sent \[forgotten\] instead", shown)
    for value in ("Reporting", "PostgreSQL"):
        assert re.search(rf"{value}\s.*the session; the model is sent it", shown)


# region 4. no "the seed" on the student's path


def test_the_student_path_does_not_lean_on_the_seed_for_the_script_or_mem() -> None:
    intro = cell_source("02", "cell-00")
    assert "**The lesson's script:**" in intro and "*seed*" not in intro and "line by line" not in intro
    assert words(cell_source("02", "560e227d")).startswith("Check `mem` after a question:")
    assert "After a rejected correction, check `mem`" in words(cell_source("02", "cell-20"))
    path = " ".join(student_path("02"))
    assert "The seed says" not in path and "The seed's advice" not in path
    hood = _hood_markdown()
    assert "follows the script of the seed" in hood and "line by line" in hood


# region 5. the memory panel's notes


async def test_submit_note_says_only_what_turns_submit_on() -> None:
    assert SUBMIT_DISABLED_NOTE == "Submit stays off while the Message box is empty or only spaces."  # second walk 25
    panel = MemoryPanel(make_extraction())
    assert panel.submit_button.disabled
    panel.message.value = "Is the module still Reporting?"  # a question turns Submit on too
    assert not panel.submit_button.disabled


async def test_after_forget_all_a_fact_comes_back_only_when_submitted_again() -> None:
    assert NEW_PANEL_NOTE == "A forgotten fact comes back only if you submit it again."
    panel = MemoryPanel(make_extraction())
    panel.message.value = "module=Billing"
    panel.submit_button.click()
    await panel.idle()
    panel.forget_all_button.click()
    await panel.idle()
    assert not panel.memory.facts
    panel.message.value = "module=Billing"
    panel.submit_button.click()
    await panel.idle()
    assert [(f.key, f.value) for f in panel.memory.facts] == [("module", "Billing")]


# region 6. section 6's asides go under the hood


def test_section_6_keeps_only_the_table_on_the_students_path() -> None:
    assert "JSON shape" not in cell_source("02", "models-received")
    assert "JSON shape to reply in, not counted" in _hood_markdown()
    cell = cell_source("02", "cell-21")
    assert "explain_chars" not in cell and "call 2," not in cell_outputs("02", "cell-21")
    hood_code = [c for c in _hood() if c["cell_type"] == "code" and "explain_chars(log)" in _source(c)]
    assert len(hood_code) == 1
    printed = words(cell_outputs("02", hood_code[0]["id"]))
    assert "call 2, its writer:" in printed and "call 3, the triage desk's second:" in printed


# region 7. exercise 1 names what reports the status


def test_exercise_1_names_the_method_that_reports_the_status() -> None:
    said = words(cell_source("02", "cell-27"))
    assert "What status does `MemoryExtraction.update` report for" in said
    assert "the extraction report" not in said


# region 8. the ticket, said in a clause


def test_step_1_says_what_the_ticket_is_with_a_link_to_lesson_01() -> None:
    said = plain_words(cell_source("02", "cell-04"))
    said_words = words(cell_source("02", "cell-04"))
    step = said_words[said_words.index("1. take") : said_words.index("2. build")]
    assert "](01_contract_and_store.ipynb)" in step
    assert "ticket" in step and "refuses" in step  # second walk 25: what the ticket does, not what it counts
    assert len(plain_words(step).split()) <= 30
    assert "if a newer message or a forget arrives before this turn's facts are written, the store refuses them" in said


def test_the_panel_shows_one_ticket_line_and_a_short_note_on_what_it_does() -> None:
    panel = MemoryPanel(make_extraction())
    shown = [re.sub(r"<[^>]+>", "", w.value) for w in (panel.ticket, panel.ticket_note)]
    assert [line.startswith("Ticket:") for line in shown] == [True, False], shown
    assert TICKET_NOTE == "A turn's facts are refused by its ticket after a newer message or a Forget (lesson 01)."
    assert len(TICKET_NOTE.split()) <= 17
