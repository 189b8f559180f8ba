"""Lesson 01's second walk 24 (issue 32): the core story said plainly, its edge cases under the hood.

1. Section 1's words on ``find_declarations`` say what it returns and why; the invisible-edge example is under the hood.
2. "citation" is defined where the path first says it.
3. Section 6 says the first *fact* line (after the header) is the oldest fact.
4. Section 2 says the ticket, not the printed line, holds the seal.
5. The first objective says what separates declarations; the model is said to arrive in lesson 02.
6. The word list sends tickets to sections 2 and 7.
7. Section 5 names the constraint by its turn and value, both the store's.
8. Section 6's attack demo is one course_lib call.
9. The batch limit of 5 candidates is explained once, under section 3's table.
10. Exercise 2 tells the new fact's key that the new fact is never the one pushed out.
"""

from __future__ import annotations

from support.lesson_cells import words
from test_lesson01_walk24 import SCRIPT, SNEAKY  # the lesson's six turns and section 6's attack
from test_student_path import hood_index, lesson

from course_lib.assertions import find_declarations
from course_lib.exercises import check, exercise
from course_lib.memory import (
    MAX_CANDIDATES,
    FactCandidate,
    InvalidFacts,
    WorkingMemory,
    edge_trim_sentence,
    limits_summary,
    parse_prompt_block,
    store_after,
    write_and_read_back,
)

LESSON = "01_contract_and_store"


def _cells() -> list:
    return lesson(LESSON).cells


def _path() -> list:
    cells = _cells()
    return cells[: hood_index(cells)]


def _hood() -> list:
    cells = _cells()
    return cells[hood_index(cells) :]


def _path_words() -> str:
    return words(" ".join(c.source for c in _path() if c.cell_type == "markdown"))


def _printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


def _all_printed(cells) -> str:
    parts = []
    for cell in cells:
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


# 1. find_declarations said plainly; the byte-order mark under the hood


def test_section_1_says_what_find_declarations_returns_and_why():
    said = _path_words()
    assert (
        "`find_declarations` returns each declaration with its exact words (spaces at the ends trimmed), because "
        "the store will require those words as the evidence. It lists a repeated key every time; "
        "`parse_assertions` keeps only the last one." in said
    )
    assert "invisible characters a paste can leave included" not in said
    assert "a batch holding both" not in said


def test_what_section_1_says_is_true_of_the_code():
    message = "  priority =  P1  ; module=Reporting; module=Billing"
    found = find_declarations(message)
    assert [(d.key, d.value, d.evidence) for d in found] == [
        ("priority", "P1", "priority =  P1"),
        ("module", "Reporting", "module=Reporting"),
        ("module", "Billing", "module=Billing"),
    ]
    from course_lib.assertions import parse_assertions

    assert parse_assertions(message) == {"priority": "P1", "module": "Billing"}


def test_the_invisible_edge_example_is_under_the_hood_not_on_the_path():
    assert not any("edge_trim_sentence" in c.source for c in _path() if c.cell_type == "code")
    assert "U+FEFF" not in _all_printed(_path())
    [cell] = [c for c in _hood() if c.cell_type == "code" and "edge_trim_sentence(" in c.source]
    assert edge_trim_sentence("\ufeffmodule=Billing\u200b") in _printed(cell)


# 2. citation defined at its first use


def test_citation_is_defined_where_the_path_first_says_it():
    said = _path_words()
    first = said.lower().index("citation")
    assert said[first:].startswith("citation (the evidence: the user's exact words)"), said[first - 80 : first + 80]


# 3. the first fact line, after the header


def test_section_6_says_the_first_fact_line_after_the_header_is_the_oldest():
    said = _path_words()
    assert "The first fact line (after the header) is the oldest fact, the next to be evicted." in said
    assert "The first line is the oldest fact" not in said
    store = store_after(SCRIPT)
    header, first_fact = store.to_prompt_block().splitlines()[:2]
    assert not header.startswith("- ") and first_fact.startswith(f"- {store.facts[0].key} =")


# 4. the ticket holds the seal


def test_section_2_says_the_ticket_holds_the_seal_not_the_printed_line():
    said = _path_words()
    assert "The ticket also holds a **seal**, not printed:" in said
    assert "it also holds a **seal**" not in said
    [cell] = [c for c in _path() if c.cell_type == "code" and "ticket_1 = memory.begin_turn(" in c.source]
    assert "seal" not in _printed(cell)


# 5. the objectives and the model


def test_the_first_objective_says_what_separates_declarations():
    said = _path_words()
    assert "(declarations separated by `;` or a line break)" in said
    assert "line breaks included" not in said


def test_the_model_is_said_to_arrive_in_lesson_02():
    said = _path_words()
    assert (
        "no **model** yet: the large language model (LLM) that writes replies arrives in lesson 02; offline, the "
        "course uses a small scripted stand-in." in said
    )
    assert "the course's small fake" not in said
    lesson_02 = words(" ".join(c.source for c in lesson("02_correct_then_forget").cells if c.cell_type == "markdown"))
    assert "This lesson is the first to run agents" in lesson_02


# 6. tickets in sections 2 and 7


def test_the_word_list_sends_tickets_to_sections_2_and_7():
    said = _path_words()
    assert "- **ticket, epoch**: the pass a write needs (sections 2 and 7)" in said
    section_2 = next(c.source for c in _path() if c.cell_type == "markdown" and c.source.startswith("## 2."))
    assert "ticket" in section_2


# 7. the constraint by its turn and value


def test_section_5_names_the_constraint_by_the_stores_turn_and_value():
    oldest = store_after(SCRIPT).facts[0]
    said = _path_words()
    assert f"Now `{oldest.key}` (turn {oldest.turn}, '{oldest.value}') is the oldest" in said
    assert "prohibition" not in said


# 8. the attack demo, one call


def test_write_and_read_back_says_the_forged_value_stays_one_fact():
    store = store_after(SCRIPT)
    seen = write_and_read_back(store, SNEAKY)
    assert seen.block == store.to_prompt_block()
    assert seen.admitted.startswith("declared value, as one text, between « and »")
    assert "The batch replaced symptom (it was 'invoices duplicated', from turn 5)." in seen.admitted
    assert "what a reader of the block gets back: 5 facts (the store holds 5)." in seen.read_back
    line = "The symptom line reads back as exactly 1 fact, and the block holds no fact the store does not hold."
    assert line in words(seen.read_back)
    [value] = [v for k, v in parse_prompt_block(seen.block) if k == "symptom"]
    assert f"«{value}»" in seen.read_back and "priority" not in dict(parse_prompt_block(seen.block))


def test_the_attack_demo_cell_is_one_call_and_prints_what_it_returns():
    [cell] = [c for c in _path() if c.cell_type == "code" and "demo = store_after(script)" in c.source]
    assert "write_and_read_back(demo, sneaky)" in cell.source
    for helper in ("count_noun", "value_in_marks", "yes_no", "parse_prompt_block"):
        assert helper not in cell.source
    assert len([line for line in cell.source.splitlines() if line.strip()]) <= 9
    printed = _printed(cell)
    assert "what a reader of the block gets back: 5 facts (the store holds 5)." in printed
    assert "The value of symptom, between « and »" in printed


# 9. the batch limit explained once


def test_the_batch_limit_is_explained_once_under_section_3s_table():
    assert "separate rule" not in limits_summary()
    assert f"at most {MAX_CANDIDATES} candidates in one batch" in limits_summary()
    memory = WorkingMemory()
    ticket = memory.begin_turn("module=Billing")
    batch = [FactCandidate(key="module", value="Billing", evidence="module=Billing")] * (MAX_CANDIDATES + 1)
    try:
        memory.apply(ticket, batch)
    except InvalidFacts as error:
        said = str(error)
    assert said.startswith(f"Too many candidates: this batch has 6, and one batch may carry at most {MAX_CANDIDATES}.")
    assert "Extraction must contain" not in said and "apart from" not in said
    printed = _all_printed(_path())
    assert "Extraction must contain" not in printed and "separate rule" not in printed
    said_on_path = _path_words()
    # walk 25: the seed's wording is provenance, so it is quoted under the hood only (the hood's refusal of a batch
    # that is not there prints it, claim F15); the path keeps the rule itself under section 3's table
    assert "Extraction must contain" not in said_on_path
    assert "The last row is a limit on **one batch**" in said_on_path


# 10. exercise 2's new fact


def test_exercise_2_tells_the_new_fact_it_is_never_the_one_pushed_out():
    from course_lib.exercises import LESSON_01_EVICTION_TURNS

    [cell] = [c for c in _path() if c.cell_type == "code" and 'check("Exercise 2"' in c.source]
    turns = ", ".join(f'"{turn}"' for turn in LESSON_01_EVICTION_TURNS)
    assert f"turns = [{turns}]" in cell.source  # the cell replays the turns the hint is computed from
    new_key = find_declarations(LESSON_01_EVICTION_TURNS[-1])[0].key
    ex = exercise("01", "Exercise 2")
    misses = dict(ex.misses)
    assert "the new fact is never the one pushed out" in misses[new_key].lower()
    assert "customer" not in misses[new_key]
    said = check("Exercise 2", new_key, "customer", ex.hint)
    assert "never the one pushed out" in said and "customer" not in said
    other = check("Exercise 2", "product", "customer", ex.hint)
    assert "never the one pushed out" not in other
