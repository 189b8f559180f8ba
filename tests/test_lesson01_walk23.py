"""Lesson 01's walk 23 (issue 32): density, not errors. Each finding checked at its rule.

Sections 2 and 3 bring few new words, in short paragraphs; section 7 copies a ticket with a plainly named library
call (no pydantic ``model_copy``); a refused candidate is written by one rule (never in quotes, what the screen
hides shown by the lesson's marks); "ordinal" is said in one wording in the lesson and the glossary; the objectives
hold instructions only, each definition in the text where its term first appears.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words
from test_student_path import hood_index, lesson

from course_lib.memory import FactCandidate, InvalidFacts, UnknownTicket, WorkingMemory, copy_ticket

LESSON = "01_contract_and_store"
GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


def _student_cells() -> list:
    cells = lesson(LESSON).cells
    return cells[: hood_index(cells)]


def _section(number: int) -> list[str]:
    """The markdown of section ``number`` of the student's path, from its heading to the next one."""
    out, inside = [], False
    for cell in _student_cells():
        if cell.cell_type != "markdown":
            continue
        for block in re.split(r"(?m)^(?=## )", cell.source):
            if block.startswith("## "):
                inside = block.startswith(f"## {number}.")
            if inside and block.strip():
                out.append(block)
    return out


def _sentences(paragraph: str) -> list[str]:
    text = re.sub(r"`[^`]*`", "X", words(paragraph))
    return [s for s in re.split(r"(?<=[.!?:])\s+(?=[A-Z*`])", text) if s.strip()]


# 1. sections 2 and 3: short paragraphs, few new words each


@pytest.mark.parametrize("number", [2, 3])
def test_sections_2_and_3_have_paragraphs_of_four_sentences_at_most(number):
    for block in _section(number):
        for paragraph in re.split(r"\n\s*\n|\n- ", block):
            if paragraph.startswith("#"):
                continue
            assert len(_sentences(paragraph)) <= 4, paragraph


def test_section_2_defines_no_word_the_word_list_already_defines():
    text = words(" ".join(_section(2)))
    assert "begin_turn" in text and "apply(ticket, candidates)" in text  # the two steps
    assert "are in the list" not in text  # no roll-call of words defined above
    assert text.count("**") <= 4  # two new bold terms at most: Extraction, and the seal (walk 24: defined here)
    assert re.findall(r"\*\*([^*]+)\*\*", text) == ["Extraction", "seal"]


def test_section_3_names_the_columns_in_one_short_list():
    intro = words(_section(3)[0].split("\n", 1)[1])  # below the heading
    assert intro.count("- *") <= 4
    assert len(_sentences(intro.split("- *")[0])) <= 3


# 2. section 7 copies a ticket with a named library call


def test_copy_ticket_keeps_the_seal_and_the_store_refuses_the_copy():
    memory = WorkingMemory()
    real = memory.begin_turn("Where are the logs?")
    copy = copy_ticket(real, user_text="priority=P0")
    assert (copy.epoch, copy.number, copy.user_text) == (real.epoch, real.number, "priority=P0")
    with pytest.raises(UnknownTicket):
        memory.apply(copy, [FactCandidate(key="priority", value="P0", evidence="priority=P0")])


def test_section_7_reads_as_the_story_without_pydantic():
    source = cell_source("01", "ec7bc321")
    assert "model_copy" not in source
    assert 'copy_ticket(real_ticket, user_text="priority=P0")' in source


# 3. one rule for a refused candidate, at the rule


def _refused(value: str) -> str:
    memory = WorkingMemory()
    batch = [FactCandidate(key="database", value=value, evidence="database=SQL Server 2022")]
    with pytest.raises(InvalidFacts) as caught:
        memory.apply(memory.begin_turn("database=SQL Server 2022"), batch)
    return str(caught.value)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("SQL Server 2019", "database=SQL Server 2019"),
        (" ", "database=\u2423"),
        ("", "database="),
        (" SQL ", "database=\u2423SQL\u2423"),
        ("a=b", "database=a=b"),
        ("slow\npriority=P0", "database=slow\u23cepriority=P0"),
        ("\u200bSQL", "database=[U+200B]SQL"),
    ],
)
def test_a_refused_candidate_is_never_quoted_and_its_hidden_ends_are_marked(value, shown):
    assert _refused(value).startswith(f"Invalid fact #1 ({shown}): ")


def test_section_3s_outcome_column_quotes_no_value():
    html = cell_outputs("01", "cell-11")
    named = re.findall(r"Invalid fact #\d+ \((.*?)\): ", html)
    assert len(named) >= 10  # the plain text and the HTML table each name ten
    assert not [n for n in named if "&#34;" in n or '"' in n or "&#39;" in n]
    assert "database=\u2423" in named
    assert "\u2423 is a space at a value's end" in words(cell_source("01", "cell-10")).replace("`", "")


# 4. one wording for "ordinal"


def test_ordinal_is_said_in_one_wording_in_the_lesson_and_the_glossary():
    said = "compared character by character, as Python's `==` and `<` compare strings"
    [row] = [line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("| **ordinal**")]
    assert said in row
    assert "its number in Unicode" in row  # the precise word, said in plain words too
    assert said in cell_source("01", "8deb2299")
    student = " ".join(c.source for c in _student_cells())
    assert "code point" not in student


# 5. the objectives are instructions; a definition goes where its term first appears


def _objectives() -> list[str]:
    opening = cell_source("01", "cell-00")
    block = opening.split("**You will be able to**")[1].split("*About")[0]
    return [words(b) for b in re.split(r"\n- ", block) if b.strip()]


def test_no_objective_holds_a_definition():
    for bullet in _objectives():
        assert " is the " not in bullet and " is a " not in bullet, bullet
        assert bullet.count(".") <= 1, bullet  # one instruction, not a definition after it


def test_the_ticket_and_stale_are_defined_where_they_first_appear_in_the_text():
    section_2 = words(" ".join(_section(2)))
    assert "A ticket is the pass a write needs" in words(cell_source("01", "8deb2299")) or ("ticket" in section_2)
    section_7 = words(" ".join(_section(7)))
    assert "**stale** (out of date)" in section_7


def test_the_notebook_is_stored_with_outputs():
    assert any(c.get("outputs") for c in stored_lesson("01")["cells"] if c["cell_type"] == "code")


# the density pass: sections 4 and 5 in short paragraphs, "evicted" glossed once


@pytest.mark.parametrize("number", [4, 5])
def test_sections_4_and_5_have_paragraphs_of_four_sentences_at_most(number):
    for block in _section(number):
        for paragraph in re.split(r"\n\s*\n|\n- ", block.split("\n", 1)[1]):
            assert len(_sentences(paragraph)) <= 4, paragraph


def test_evicts_is_glossed_once_on_the_students_path():
    student = words(" ".join(c.source for c in _student_cells() if c.cell_type == "markdown"))
    # the fourth walk 24: glossed once, in the word list (the objectives say "evicts" before section 3)
    assert student.count("to make room") == 1
    words_cell = next(c for c in _student_cells() if "### Words used" in c.source)
    assert "to make room" in words_cell.source


def test_the_refusals_space_mark_is_the_tables_visible_space():
    # two constants, one mark: presentation (loaded by the loop half) may not import the memory half's assertions
    from course_lib.assertions import SPACE_MARK
    from course_lib.presentation import VISIBLE_SPACE

    assert SPACE_MARK == VISIBLE_SPACE == "\u2423"
