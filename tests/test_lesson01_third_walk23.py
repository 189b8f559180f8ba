"""Lesson 01's third walk of round 23 (issue 32): each finding checked at its rule, not at the one input.

Exercise 1's None is graded as the value it is (a key that should not be there, as for ''); a value right once its
ends are trimmed is told to check the spaces at its ends; the path says to run the imports first after a restart;
the ticket variables are named as tickets; the ticket's seal is mentioned where the ticket is printed; the word list
defines the writer; section 6 counts what a reader gets back; the order of the checks sits under the hood; section
1's table shows a comma that does not end a value; the first printout names no unit; the last cell that repeated
section 4 is gone.
"""

from __future__ import annotations

import ast

import pytest
from support.checker import said
from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words
from test_student_path import hood_index, lesson

from course_lib.assertions import left_out, parse_assertions
from course_lib.memory import limits_summary

LESSON = "01_contract_and_store"
MESSAGE_1 = "database = SQL Server 2022 ; version=; log=a=b\nHello! database=Oracle; Database=MySQL"
EXPECTED = parse_assertions(MESSAGE_1)


def _student_cells() -> list:
    cells = lesson(LESSON).cells
    return cells[: hood_index(cells)]


def _hood_cells() -> list:
    cells = lesson(LESSON).cells
    return cells[hood_index(cells) :]


# 1. None is a value like any other: graded, never a form to fix


@pytest.mark.parametrize("empty", [None, ""])
def test_a_key_with_no_value_is_one_that_should_not_be_there(empty):
    text = said("01", "Exercise 1", {"database": "SQL Server 2022", "version": empty, "log": "a=b"}, EXPECTED)
    assert text.startswith("Exercise 1: not quite. Hint: Compared key by key with the right dict: ")
    assert "1 key in yours that should not be there" in text and "0 keys with a wrong value" in text
    assert "each value is text in quotes" not in text and "not checked yet" not in text
    assert "Section 1" in text  # a pointer to section 1's rule
    assert "'log': 'a=b'" not in text and "SQL Server 2022" not in text  # never the answer


def test_none_and_empty_quotes_for_a_key_that_should_not_be_there_are_told_alike():
    none = said("01", "Exercise 1", {"database": "SQL Server 2022", "version": None, "log": "a=b"}, EXPECTED)
    empty = said("01", "Exercise 1", {"database": "SQL Server 2022", "version": "", "log": "a=b"}, EXPECTED)
    assert none == empty


def test_none_under_a_key_that_should_be_there_is_a_wrong_value():
    text = said("01", "Exercise 1", {"database": None, "log": "a=b"}, EXPECTED)
    assert "not quite" in text and "The value of 'database' is not the right one." in text


@pytest.mark.parametrize("value", [["SQL Server 2022"], 2022, ("SQL Server 2022",)])
def test_a_value_of_another_kind_than_text_or_none_is_still_a_form(value):
    text = said("01", "Exercise 1", {"database": value, "log": "a=b"}, EXPECTED)
    assert text.startswith("Exercise 1: not checked yet. The value of 'database' is ")


# 2. a value right once trimmed: check the spaces at its ends


@pytest.mark.parametrize("value", [" SQL Server 2022 ", "SQL Server 2022 ", "\tSQL Server 2022", "  SQL Server 2022"])
def test_a_value_right_once_trimmed_is_told_to_check_the_spaces_at_its_ends(value):
    text = said("01", "Exercise 1", {"database": value, "log": "a=b"}, EXPECTED)
    assert "The value of 'database' is not the right one: check the spaces at its ends (section 1)." in text
    assert "SQL Server 2022" not in text.replace(repr(value), "")


@pytest.mark.parametrize("value", ["Oracle", " Oracle ", "SQL Server", "sql server 2022"])
def test_a_value_wrong_even_once_trimmed_gets_no_note_on_spaces(value):
    text = said("01", "Exercise 1", {"database": value, "log": "a=b"}, EXPECTED)
    assert "The value of 'database' is not the right one." in text and "spaces" not in text


def test_two_wrong_values_name_the_spaces_only_for_the_one_right_once_trimmed():
    text = said("01", "Exercise 1", {"database": "Oracle", "log": " a=b "}, EXPECTED)
    assert "The values of 'database' and 'log' are not the right ones; for 'log', check the spaces at its ends" in text


# 3. after a restart, the imports first


def test_the_opening_says_to_run_the_imports_first_after_a_restart():
    opening = words(cell_source("01", "cell-00"))
    assert "After a restart, run the imports cell (the first code cell after the Colab set-up) before any other" in (
        opening
    )  # the whole line, the same in every lesson: tests/test_restart_line_walk23.py


# 4. the ticket variables are called tickets on the student's path


def test_every_ticket_on_the_students_path_is_named_a_ticket():
    names = []
    for cell in _student_cells():
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Assign) and "begin_turn(" in ast.unparse(node.value):
                names += [ast.unparse(target) for target in node.targets]
    assert names and all("ticket" in name for name in names), names


# 5. the ticket holds a seal too


def test_section_2_says_the_ticket_also_holds_a_seal():
    text = words(cell_source("01", "cell-08"))
    assert "The first line shows what the ticket holds." not in text
    # walk 24: the seal is defined where it is first named, not only pointed at section 7; the second walk 24:
    # "it" read as the printed line, which shows no seal (tests/test_lesson01_story_walk24.py)
    assert (
        "The ticket also holds a **seal**, not printed: a signature made with a secret only this store knows "
        "(section 7 uses it)" in text
    )


# 6. the word list defines the writer


def test_the_word_list_defines_the_writer_before_the_candidate_uses_it():
    text = cell_source("01", "8deb2299")
    assert "- **writer**:" in text
    assert text.index("- **writer**:") < text.index("- **candidate**:")


def test_the_glossarys_writer_row_names_lesson_01():
    from pathlib import Path

    glossary = (Path(__file__).resolve().parents[1] / "docs" / "glossary.md").read_text(encoding="utf-8")
    row = next(line for line in glossary.splitlines() if line.startswith("| **writer** |"))
    assert "lessons 01, 02" in row and "your own code" in row


# 7. section 6 counts what a reader gets back


def test_section_6_counts_the_facts_read_back_and_the_symptom_lines_facts():
    source = cell_source("01", "cell-19")
    # the second walk 24: the reading back is one course_lib call (write_and_read_back), tested on its own
    assert "[-1]" not in source and "write_and_read_back(demo, sneaky)" in source
    printed = words(cell_outputs("01", "cell-19"))
    assert "what a reader of the block gets back: 5 facts (the store holds 5)." in printed
    line = "The symptom line reads back as exactly 1 fact, and the block holds no fact the store does not hold."
    assert line in printed


# 8. the order of the checks is under the hood


def test_the_order_of_the_checks_is_under_the_hood_with_one_sentence_on_the_path_pointing_there():
    path = words(" ".join(c.source for c in _student_cells()))
    assert "The order of the checks." not in path and "size comes first" not in path
    assert "The order of the checks is under the hood." in path  # its own sentence since the second walk 25
    assert not any(c.get("id") == "rule-order" for c in _student_cells())
    hood = [c for c in _hood_cells() if c.get("id") in ("hood-rule-order", "rule-order")]
    assert [c.get("id") for c in hood] == ["hood-rule-order", "rule-order"]


# 9. a comma does not end a value


def test_left_out_says_a_comma_does_not_end_a_declaration():
    message = "module = Billing, database = X"
    assert parse_assertions(message) == {"module": "Billing, database = X"}
    # one rule with the panels' (declared_inside_reason, lesson 02's walk 23): a space, 'and' or a period alike
    assert left_out(message) == [
        "the declaration of database is part of module's value, since a comma does not separate declarations; "
        "use ';' or a new line to declare database too"
    ]


@pytest.mark.parametrize(
    "message", ["symptom=slow, then fast", "Is priority=P1 right for this, or should it be higher?", "log=a, b=c"]
)
def test_a_comma_before_words_that_declare_no_allowed_key_gets_no_note(message):
    assert not any("comma" in note for note in left_out(message))


def test_section_1s_table_shows_the_comma_row():
    source = cell_source("01", "cell-03")
    assert '"module = Billing, database = X",' in source
    printed = cell_outputs("01", "cell-03")
    assert "since a comma does not separate declarations" in " ".join(printed.split())


# 10. the first printout names no unit


def test_the_first_printout_says_no_unit_before_the_student_knows_a_value():
    # walk 24: the emoji is named in plain words (a length in characters must stay true of it), the unit is not
    assert "UTF-16" not in limits_summary() and "code unit" not in limits_summary()
    assert "UTF-16" not in cell_outputs("01", "cell-01")
    assert "emoji" not in limits_summary()  # second walk 25: said once on the path, in section 3
    hood = words(" ".join(c.source for c in _hood_cells()))
    assert "an emoji, is two units" in hood


# 11. the last cell no longer repeats section 4


def test_the_lesson_no_longer_ends_with_why_sections_4_and_6_have_stores_of_their_own():
    cells = stored_lesson("01")["cells"]
    assert not any(c.get("id") == "hood-own-stores" for c in cells)
    assert not any("stores of their own" in "".join(c["source"]) for c in cells)


@pytest.mark.parametrize("cell_id", ["cell-09", "cell-13", "cell-19", "cell-21", "ec7bc321", "forget-one-key"])
def test_the_cells_this_walk_rewrote_keep_their_lines_short(cell_id):
    assert all(len(line) <= 90 for line in cell_source("01", cell_id).splitlines())
