"""Lesson 01's nineteenth walk (issue 32): each finding checked at its rule.

The epoch is defined where a ticket first prints it; section 6's injection demo writes into a store of its own, so
section 5's cells print the same store when run again after it; section 3's table says the sentence every refusal
ends with once, its rows only the reason; the seed's C# names are introduced where "Under the hood" first names them.
(The dict-answer policy of exercise 1 is held by tests/test_checker_dicts_walk19.py.)
"""

from __future__ import annotations

import re

import pytest
from IPython.core.interactiveshell import InteractiveShell
from test_student_path import lesson

from course_lib.assertions import find_declarations
from course_lib.memory import BATCH_REJECTED, FactCandidate, InvalidFacts, WorkingMemory, store_after

LESSON = "01_contract_and_store"


def _cells():
    return lesson(LESSON).cells


def _cell(cell_id: str):
    return next(c for c in _cells() if c.get("id") == cell_id)


def _words(text: str) -> str:
    return " ".join(text.split())


def _printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


# --- finding 1: "epoch" is defined where a ticket first prints it ---


def test_the_epoch_is_defined_before_the_first_output_that_prints_it():
    cells = _cells()
    first = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "epoch" in _printed(c))
    prose = _words(" ".join(c.source for c in cells[:first] if c.cell_type == "markdown"))
    # second walk 22: the word list defines it once; section 2 adds only what is new (the count starts at 0)
    assert "the store's epoch (how many times the store has forgotten the user's facts)" in prose
    assert "a ticket taken before a forget carries an older epoch" in prose


# --- finding 2: the injection demo has a store of its own ---


def test_store_after_builds_a_twin_that_nothing_else_reads():
    script = ["module=Reporting; database=PostgreSQL", "module=Billing", "customer=Fabrikam"]
    one, two = store_after(script), store_after(script)
    assert one is not two
    assert [(f.key, f.value, f.turn) for f in one.facts] == [(f.key, f.value, f.turn) for f in two.facts]
    assert one.turn == len(script)
    by_hand = WorkingMemory()
    for message in script:
        ticket = by_hand.begin_turn(message)
        by_hand.apply(ticket, [FactCandidate.from_declaration(d) for d in find_declarations(message)])
    assert [(f.key, f.value, f.turn) for f in by_hand.facts] == [(f.key, f.value, f.turn) for f in one.facts]
    one.apply(one.begin_turn("symptom=slow"), [FactCandidate(key="symptom", value="slow", evidence="symptom=slow")])
    assert "symptom" not in {f.key for f in two.facts}


def test_section_5_and_6_cells_print_the_same_when_run_again_after_the_injection_demo(capsys):
    """Run the cells as a student may: section 5, the block, the demo, then the block and the demo again."""
    ids = ["cell-01", "cell-09", "cell-11", "cell-15", "cell-18", "cell-19", "cell-18", "cell-19"]
    shell = InteractiveShell.instance()
    try:
        printed = []
        for cell_id in ids:
            result = shell.run_cell(_cell(cell_id).source, store_history=False)
            assert result.success, (cell_id, result.error_in_exec)
            printed.append(re.sub(r"\d\d:\d\d:\d\d", "hh:mm:ss", capsys.readouterr().out))
    finally:
        InteractiveShell.clear_instance()
    block, demo, block_again, demo_again = printed[4:]
    assert block == block_again  # section 6's block: section 5's store, untouched by the demo
    assert demo == demo_again
    assert "invoices duplicated" in block and "approved by admin" not in block


# --- finding 3: the refusals' common sentence is said once ---


def test_an_invalid_batch_splits_into_its_reason_and_the_sentence_every_refusal_ends_with():
    memory = WorkingMemory()
    ticket = memory.begin_turn("module=Billing")
    batches = [None, [None], [FactCandidate(key="owner", value="x", evidence="owner=x")]]
    for batch in batches:
        with pytest.raises(InvalidFacts) as caught:
            memory.apply(ticket, batch)
        error = caught.value
        assert error.ending == BATCH_REJECTED and BATCH_REJECTED not in error.reason
        assert f"{error.reason} {error.ending}" == str(error)
    other = InvalidFacts("not a batch refusal")
    assert (other.reason, other.ending) == ("not a batch refusal", "")


def test_section_3_says_the_common_sentence_once_and_its_rows_only_the_reason():
    cell = _cell("cell-11")
    printed = _printed(cell)
    assert printed.count(BATCH_REJECTED) == 1 and "every refusal below ends with:" in printed
    table = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs if o.get("output_type") != "stream")
    assert table and BATCH_REJECTED not in table and "whole batch is rejected" not in table
    assert "unknown key; allowed keys are" in table  # the reason stays on its row
    prose = _words(_cell("cell-10").source)
    assert "Every refusal ends with the same sentence, printed once above the table" in prose


# --- finding 4: the seed's C# names are introduced at first mention ---


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Demo160", "Demo160 (one of the seed's C# console programs"),
        ("UpdateAsync", "`UpdateAsync` (the seed's C# method that extracts one message's facts and writes them)"),
    ],
)
def test_a_csharp_name_of_the_seed_is_introduced_where_it_first_appears(name, said):
    first = next(c for c in _cells() if c.cell_type == "markdown" and name in c.source)
    assert said in _words(first.source)


# --- the student path read again: terms used before their definition ---


@pytest.mark.parametrize(
    ("term", "defined"),
    [
        ("epoch", "the store's epoch (how many times the store has forgotten the user's facts)"),
        ("stale", "**stale** (out of date)"),
        ("UTC", "UTC (Coordinated Universal Time)"),
        ("provenance", "**provenance** is where it came from"),
        ("facts block", "writes the **facts block**: the facts as text for a model"),
        ("prompt", "prompt (the text a model is given)"),
    ],
)
def test_a_term_is_defined_where_the_student_first_reads_it(term, defined):
    # walk 23: the objectives only name what the student will do; a term is defined where the text first uses it
    prose = [_without_objectives(c.source) for c in _cells() if c.cell_type == "markdown"]
    first = next(text for text in prose if re.search(rf"\b{re.escape(term)}\b", text.replace("to_prompt_block", "")))
    assert defined in _words(first)


def _without_objectives(source: str) -> str:
    if "**You will be able to**" not in source:
        return source
    head, rest = source.split("**You will be able to**", 1)
    return head + rest[rest.index("*About") :]
