"""Lesson 07's panel, second walk (issue 32): a malformed declaration in the Message box is told the rule it broke,
Forget key says what went and what the store holds now; a takeaway and the judge cell say what section 1 shows."""

import json
from pathlib import Path

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.assertions import ALLOWED_KEYS, missing_marks
from course_lib.capstone import check_answer
from course_lib.capstone_panel import CapstonePanel, forget_note
from course_lib.exercises import check, exercise
from course_lib.extraction import make_extraction
from tests.support.panels import said, submit


def panel() -> CapstonePanel:
    return CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)


@pytest.mark.parametrize(
    ("typed", "rule"),
    [
        ("=Payroll", "'=Payroll' has no key: write an allowed key before '='"),
        ("module=", "'module=' has no value: write the value after '='."),
        ("module Payroll", "'module Payroll' has no '=': a declaration is written with '=', as module=Payroll."),
        ("foo=bar", "'foo' is not an allowed key (allowed keys:"),
    ],
)
async def test_a_malformed_declaration_is_told_the_rule_it_broke_and_changes_nothing(typed: str, rule: str) -> None:
    p = panel()
    before = p.extraction.memory.facts
    await submit(p, typed)
    assert "Nothing stored" in said(p) and rule in said(p)
    assert p.extraction.memory.facts == before


def test_missing_marks_reads_slips_not_prose() -> None:
    assert missing_marks("=Payroll")[0].endswith(f"(allowed keys: {', '.join(ALLOWED_KEYS)}).")
    assert missing_marks("Module Payroll") == [
        "'Module Payroll' has no '=': a declaration is written with '=', as module=Payroll."
    ]
    assert missing_marks("database SQL Server 2022") == [
        "'database SQL Server 2022' has no '=': a declaration is written with '=', as database=SQL Server 2022."
    ]
    for prose in ("module is broken", "Which module are we on?", "Where can I find logs?", "module=Billing", "="):
        assert missing_marks(prose) == [], prose


async def test_forget_key_says_what_went_and_what_the_store_holds_now() -> None:
    p = panel()
    value = next(f.value for f in p.extraction.memory.facts if f.key == "module")
    p.key.value = "module"
    p.forget_key_button.click()
    await p.idle()
    left = [f.key for f in p.extraction.memory.facts]
    assert "module" not in left
    assert said(p).startswith(f'Forgot module, which held "{value}". The store holds {len(left)} facts now: ')
    assert all(key in said(p) for key in left)


def test_the_forget_note_on_a_store_left_empty_or_with_one_fact() -> None:
    assert forget_note("module", "Payroll.", ()) == 'Forgot module, which held "Payroll.". The store is empty now.'
    one = lesson_store().facts[:1]
    assert forget_note("module", "Billing", one) == (
        f'Forgot module, which held "Billing". The store holds 1 fact now: {one[0].key}.'
    )


LESSON_07 = Path(__file__).resolve().parents[1] / "notebooks" / "07_loop_held_to_the_facts.ipynb"


def lesson_cells() -> dict[str, str]:
    cells = json.loads(LESSON_07.read_text(encoding="utf-8"))["cells"]
    return {cell["id"]: "".join(cell["source"]) for cell in cells}


def test_a_takeaway_says_an_omission_contradicts_nothing_as_section_1_computes() -> None:
    store = lesson_store()
    assert check_answer(store.facts, "I don't know the module.", "Which module?") == []  # section 1's third row
    assert "I don't know the module." in lesson_cells()["61c6898f"]
    takeaways = " ".join(lesson_cells()["student-takeaways"].split())
    assert "leaves a fact out contradicts nothing, so it is not flagged" in takeaways
    assert "stored constraint left out of a plan" in takeaways  # the one omission the rules do flag


def test_the_judge_cell_measures_answers_taken_from_the_table_it_names() -> None:
    cells = lesson_cells()
    judge = cells["3f34b4e3"]
    assert "table above" not in judge  # the table right above it is the misreads', not the sample's
    assert "sample[1][1], sample[8][1]" in judge and "section 1's sample table" in judge
    assert "held to the final question's store" not in cells["7ec4c2c1"]


def test_section_1_s_cells_are_short_their_long_data_in_course_lib() -> None:
    """The sample and the misreads were 37 and 39 lines of literals; the student's cells now load them."""
    cells = lesson_cells()
    for cell in ("7ee6c80a", "d30777ae"):
        assert len(cells[cell].splitlines()) <= 10, cell
    assert "PROSE_SAMPLE" in cells["7ee6c80a"] and "RULE_MISREADS" in cells["d30777ae"]


def test_section_8_says_the_line_under_the_box_names_a_forget_too() -> None:
    """The twelfth walk cut section 8's list of status words ("*Forgot* and what the store holds now" among them) to
    one sentence for every action: the panel's own line says what a forget did, and the text says the line does."""
    panel_heading = "## 9. Your turn"  # section 8 before walk 23
    [intro] = [" ".join(t.split()) for t in lesson_cells().values() if panel_heading in t]
    assert "press **Forget key**, or press **Forget all**. The lines under the box say what happened." in intro
    p = panel()
    p.key.value = "module"
    p.forget_key_button.click()
    assert said(p).startswith('Forgot module, which held "Billing". The store holds 2 facts now:')


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ("right first time or repaired", "lists several choices: pick one."),
        ("repaired or not repaired", "lists several choices: pick one."),
        ("partly repaired, not repaired", "lists several choices: pick one."),
        ("right first time: the evaluator found nothing to correct", "among other words: write only the name"),
        ("repaired: module and database fixed", "among other words: write only the name"),
        ("right first tme", "reads as 'right first time', one of the names to choose from"),
        ("repaird", "reads as 'repaired', one of the names to choose from"),
    ],
)
def test_exercise_1_says_a_listed_choice_or_a_copied_detail_alike_whichever_verdict_is_right(answer, words):
    """Lesson 07's walk: "pick one (naming the right one among them would give it away)" and "Right words, with
    more after them" were said only when the right verdict was among the words, which gave it away."""
    told = {
        " ".join(check("Exercise 1", answer, verdict, exercise("07", "Exercise 1").hint, namespace={}).split())
        for verdict in ("right first time", "repaired", "not repaired")
    }
    assert len(told) == 1 and words in told.pop()


async def test_the_punctuation_note_quotes_the_value_just_stored_not_a_fixed_example():
    """Lesson 07's walk: after ``database=MariaDB 11.`` the note said an answer saying "Payroll or Payroll." matches:
    a value the student never typed."""
    p = panel()
    await submit(p, "module=Billing; database=MariaDB 11.")
    text = said(p)
    assert "Payroll" not in text
    assert "an answer saying MariaDB 11 or MariaDB 11. matches either" in text
