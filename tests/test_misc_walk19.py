"""Lessons 01, 02 and 06, nineteenth walk (issue 32): each finding checked at its rule.

What a lesson says ``wrapped_block`` promises is true of what it prints (a value holding a space may go on over
the next line; no word and no date is cut); section 4 of lesson 01 corrects a store of its own, so its cell prints
the same when run again; each "Under the hood" spells MAF out where it first uses the name.
"""

from __future__ import annotations

import re

import pytest
from IPython.core.interactiveshell import InteractiveShell
from test_student_path import lesson

from course_lib.presentation import BLOCK_INDENT, wrapped_block

ISO_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d")


def _words(text: str) -> str:
    return " ".join(text.split())


def _printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def _cell(name: str, cell_id: str):
    return next(c for c in lesson(name).cells if c.get("id") == cell_id)


# --- finding 1: the promise of wrapped_block, said as it is kept ---


def test_wrapped_block_cuts_no_word_but_may_carry_a_spaced_value_over_the_next_line():
    line = "- reply: From what I can see: database=SQL Server 2022; module=Billing; recorded 2026-12-03T14:19:36+00:00"
    for width in range(20, len(line)):
        shown = wrapped_block(line, width)
        rows = shown.split("\n")
        assert " ".join(row.removeprefix(BLOCK_INDENT) for row in rows) == line  # the text is unchanged
        words = {w for row in rows for w in row.split()}
        assert words == set(line.split())  # every word whole, on one row
    carried = wrapped_block(line, 45).split("\n")
    assert not any("database=SQL Server 2022" in row for row in carried)  # the value goes on over the break


def _wrapped_prose(name: str) -> list[str]:
    """Every sentence of a lesson's markdown that says what wrapped_block does to a printed line."""
    said = []
    for cell in lesson(name).cells:
        if cell.cell_type == "markdown" and "wrapped_block" in cell.source:
            said += [s for s in re.split(r"(?<=[.;:])\s", _words(cell.source)) if "cut" in s]
    return said


@pytest.mark.parametrize("name", ["01_contract_and_store", "02_correct_then_forget"])
def test_what_a_lesson_says_wrapped_block_keeps_whole_is_whole_in_every_printout(name: str):
    said = " ".join(_wrapped_prose(name))
    assert said, name
    printed = "\n".join(_printed(c) for c in lesson(name).cells if c.cell_type == "code")
    assert "`key=value` is never cut" not in said  # a value holding a space does go on over a line break
    if "date" in said:  # no date of the printouts is broken over two lines
        joined = re.sub(rf"\n{BLOCK_INDENT}", " ", printed)
        assert len(ISO_DATE.findall(joined)) == len(ISO_DATE.findall(printed)) > 0


def test_lesson_02_says_a_spaced_value_may_go_on_and_its_printout_shows_one():
    said = _words(_cell("02_correct_then_forget", "display-note").source)  # walk 23: after the first printout
    assert "so no word or date is cut" in said
    assert "a value holding a space, such as `sql server 2022`, may go on over the next line" in said.lower()
    printed = "\n".join(_printed(c) for c in lesson("02_correct_then_forget").cells if c.cell_type == "code")
    assert f"database=SQL\n{BLOCK_INDENT}Server 2022" in printed  # the case the sentence names, printed


# --- finding 2: section 4 of lesson 01 corrects a store of its own ---


def test_section_4_prints_the_same_when_its_correction_cell_runs_again(capsys):
    """Run the cells as a student may: sections 2 and 3, then section 4's correction twice, then 3 and 4 again."""
    ids = ["cell-01", "cell-09", "cell-11", "cell-13", "cell-13", "cell-11", "cell-13"]
    shell = InteractiveShell.instance()
    try:
        printed = []
        for cell_id in ids:
            result = shell.run_cell(_cell("01_contract_and_store", cell_id).source, store_history=False)
            assert result.success, (cell_id, result.error_in_exec)
            shown = result.result if result.result is not None else ""
            out = capsys.readouterr().out + str(shown)
            printed.append(re.sub(r"\d\d:\d\d:\d\d", "hh:mm:ss", out))
    finally:
        InteractiveShell.clear_instance()
    first, again, after_section_3 = printed[3], printed[4], printed[6]
    assert first == again == after_section_3
    assert "replaced database (it was 'PostgreSQL', from turn 1)" in first


def test_section_4_says_which_store_it_corrects_and_the_turn_its_table_shows():
    cells = lesson("01_contract_and_store").cells
    prose = _words(_cell("01_contract_and_store", "cell-12").source)
    assert "That turn is not 2" not in prose
    code = _cell("01_contract_and_store", "cell-13")
    assert "store_after" in code.source and "memory." not in code.source
    table = code.outputs[-1]["data"]["text/plain"]
    turns = {int(t) for t in re.findall(r"Billing\s+(\d+)\s", table)}
    assert turns == {2}, table
    assert "so the correction is its turn 2" in prose
    assert cells.index(code) == cells.index(_cell("01_contract_and_store", "cell-12")) + 1


# --- finding 3: each hood spells MAF out where it first uses the name ---


@pytest.mark.parametrize("name", ["01_contract_and_store", "02_correct_then_forget", "06_loop_options_compared"])
def test_the_hood_spells_maf_out_at_its_first_use(name: str):
    cells = lesson(name).cells
    heads = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## Under the hood")]
    start = heads[0]
    hood = "\n".join(c.source for c in cells[start:] if c.cell_type == "markdown")
    if "MAF" not in hood:
        return
    first = hood.index("MAF")
    spelled = "MAF (the Microsoft Agent Framework, the Python library the course's agents run on)"
    if name == "06_loop_options_compared":  # its hood speaks of MAF's C# edition: both editions named (walk 21)
        spelled = "MAF (the Microsoft Agent Framework, which exists for C# and for Python)"
    assert hood[first:].startswith(spelled), hood[max(0, first - 60) : first + 90]
