"""Lesson 01's fourth walk 24 (issue 32): what a new student found after the third round.

1. Under the hood, each subsection's cell follows its own text: the line-break table right under the words that
   announce it, before the next heading.
2. The words after section 6's ``evidence_openings`` table are true to its rows.
3. ``write_and_read_back`` says what the symptom line reads back as in a sentence that follows the counts.
4. The cell before the ``forget("module")`` demo starts with what the cell shows; the disk sentence is in section 2.
8. "evict" is in the word list.
"""

from __future__ import annotations

import itertools

import pytest
from support.lesson_cells import words
from test_lesson01_walk24 import SCRIPT, SNEAKY  # the lesson's six turns and section 6's attack
from test_student_path import hood_index, lesson

from course_lib.assertions import parse_assertions
from course_lib.memory import (
    evidence_openings,
    read_back_sentence,
    store_after,
    write_and_read_back,
)

LESSON = "01_contract_and_store"


def _cells() -> list:
    return lesson(LESSON).cells


def _hood() -> list:
    cells = _cells()
    return cells[hood_index(cells) :]


def _path() -> list:
    cells = _cells()
    return cells[: hood_index(cells)]


# 1. under the hood, each subsection's cell follows its own text


def test_every_hood_text_that_points_below_is_followed_by_its_cell_not_by_a_heading():
    hood = _hood()
    for here, after in itertools.pairwise(hood):
        if here.cell_type == "markdown" and "below" in here.source:
            assert after.cell_type == "code", f"text pointing below is followed by: {after.source[:80]!r}"


def test_the_line_break_table_sits_right_under_its_own_text_before_the_next_heading():
    hood = _hood()
    [text] = [i for i, c in enumerate(hood) if "### Line breaks" in c.source]
    assert hood[text + 1].cell_type == "code" and "LINE_BREAKS" in hood[text + 1].source
    [edges] = [i for i, c in enumerate(hood) if "### Invisible characters" in c.source]
    assert edges > text + 1
    assert "edge_trim_sentence(" in hood[edges + 1].source


# 2. the words after the evidence_openings table follow its rows


def test_the_words_after_the_openings_table_are_true_to_its_rows():
    seen = write_and_read_back(store_after(SCRIPT), SNEAKY)
    line = next(x for x in seen.block.splitlines() if x.startswith("- symptom ="))
    rows = evidence_openings(line)
    assert [r["is it the citation?"] == "yes" for r in rows] == [False, True, False]
    assert "value" in rows[0]["where it stands"] and "citation" in rows[2]["where it stands"]
    said = words(" ".join(c.source for c in _path() if c.cell_type == "markdown"))
    # second walk 25: the table shows no row numbers, so the rows are named by where they stand
    assert "Only the **middle** row (*outside every quote*) is the real citation" in said
    assert (
        "The first and last rows sit inside quoted text: the first inside the value, the last inside the citation"
        in said
    )
    assert "row 2" not in said and "Rows 1 and 3" not in said
    assert "The first is inside the value, the second inside the citation" not in said


# 3. the read-back sentence follows the counts


def test_write_and_read_back_says_the_symptom_line_reads_back_as_exactly_one_fact():
    seen = write_and_read_back(store_after(SCRIPT), SNEAKY)
    expected = "The symptom line reads back as exactly 1 fact, and the block holds no fact the store does not hold."
    assert expected in words(seen.read_back)
    assert max(len(line) for line in seen.read_back.splitlines()) <= 90
    assert "From the symptom line" not in seen.read_back


@pytest.mark.parametrize(
    ("count", "forged", "expected"),
    [
        (1, [], "The symptom line reads back as exactly 1 fact, and the block holds no fact the store does not hold."),
        (2, [], "The symptom line reads back as 2 facts, and the block holds no fact the store does not hold."),
        (0, [], "The symptom line reads back as no fact, and the block holds no fact the store does not hold."),
        (
            2,
            ["priority"],
            "The symptom line reads back as 2 facts, and the block holds a fact the store does not hold: priority.",
        ),
        (
            3,
            ["priority", "owner"],
            "The symptom line reads back as 3 facts, and the block holds 2 facts the store does not hold: "
            "priority, owner.",
        ),
    ],
)
def test_the_read_back_sentence_follows_the_counts(count, forged, expected):
    assert read_back_sentence("symptom", count, forged) == expected


def test_the_notebook_prints_the_new_read_back_sentence():
    printed = "\n".join(
        "".join(o.get("text", "")) for c in _path() if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "The symptom line reads back as exactly 1 fact, and the block holds no fact" in words(printed)


# 4. the forget demo's text starts with what the cell shows; the disk sentence is in section 2


def test_the_forget_demo_text_starts_with_what_the_cell_shows():
    path = _path()
    [demo] = [i for i, c in enumerate(path) if c.cell_type == "code" and 'forget("module")' in c.source]
    text = path[demo - 1]
    assert text.cell_type == "markdown"
    assert text.source.startswith("`forget` given a key removes only that fact, but still starts a new epoch")
    assert "disk" not in text.source


def test_the_disk_sentence_is_in_section_2():
    path = _path()
    start = next(i for i, c in enumerate(path) if c.source.startswith("## 2."))
    end = next(i for i, c in enumerate(path) if c.source.startswith("## 3."))
    section_2 = " ".join(c.source for c in path[start:end] if c.cell_type == "markdown")
    assert "never written to disk" in words(section_2)
    elsewhere = " ".join(c.source for c in path[end:] if c.cell_type == "markdown")
    assert "disk" not in elsewhere


# 8. evict is in the word list


def test_evict_is_in_the_word_list():
    [word_list] = [c for c in _path() if c.cell_type == "markdown" and "### Words used" in c.source]
    entry = next(line for line in word_list.source.splitlines() if line.startswith("- **evict**"))
    assert "oldest fact" in entry and "make room" in entry


# 5. each hood import sits in the cell that uses it; the \r\n pair the text names is shown


def test_unencodable_message_is_imported_where_it_is_used():
    [cell] = [c for c in _hood() if c.cell_type == "code" and "import" in c.source and "UnencodableMessage" in c.source]
    assert "except UnencodableMessage" in cell.source


def test_the_line_break_table_shows_the_crlf_pair_as_one_break_and_two_facts():
    [cell] = [c for c in _hood() if c.cell_type == "code" and "LINE_BREAKS" in c.source]
    shown = "".join(o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))
    assert "carriage return + line feed (U+000D U+000A)" in shown
    assert parse_assertions("module=Billing\r\npriority=P1") == {"module": "Billing", "priority": "P1"}


# 6. no formatting helper in a section 7 cell; the copied ticket says what it changes


def test_section_7_cells_use_no_formatting_helper_and_say_what_the_copy_changes():
    code = [c.source for c in _path() if c.cell_type == "code"]
    assert not any("count_noun" in source for source in code)
    [copying] = [s for s in code if "copy_ticket(real_ticket" in s]
    line = next(x for x in copying.splitlines() if "copy_ticket(real_ticket" in x)
    before = copying.splitlines()[copying.splitlines().index(line) - 1]
    assert "user_text" in before and "only" in before


# 7. after a restart, the checker's note names the cell that makes a lesson-01 name


def _said_for(name: str, source: str) -> str:
    import linecache
    import traceback

    from course_lib.exercises import _cell_error_guidance

    filename = f"<cell-walk24-{name}>"
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    line = next(i for i, x in enumerate(lines, 1) if name in x and "answer" not in x)
    frame = traceback.FrameSummary(filename, line, "<module>", line=lines[line - 1].strip())
    error = NameError(f"name '{name}' is not defined", name=name)  # as Python raises it in that cell
    return _cell_error_guidance(error, frame, {})


def test_exercise_3s_note_names_the_cell_that_makes_c():
    [cell] = [c for c in _path() if c.cell_type == "code" and 'exercise("01", "Exercise 3")' in c.source]
    said = words(_said_for("C", cell.source))
    assert "C is not defined in this kernel yet: section 3's first code cell makes it (C = FactCandidate)." in said


def test_a_name_the_exercise_does_not_map_keeps_the_general_note():
    [cell] = [c for c in _path() if c.cell_type == "code" and 'exercise("01", "Exercise 3")' in c.source]
    said = words(_said_for("WorkingMemory", cell.source))
    assert "WorkingMemory is not defined in this kernel yet: a cell above imports or creates it." in said


def test_the_cell_that_makes_c_is_section_3s_first_code_cell():
    path = _path()
    start = next(i for i, c in enumerate(path) if c.source.startswith("## 3."))
    first_code = next(c for c in path[start:] if c.cell_type == "code")
    assert "C = FactCandidate" in first_code.source
