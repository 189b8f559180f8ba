"""Walk 9's findings on lessons 01 and 07 and the glossary (walk 17 of the tests).

The glossary's verdicts are checked against the code that computes them (``capstone._graded``): a verdict depends
on the grading of lesson 04 and on how many calls the loop made, not on whether the first answer held to the store.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib import capstone
from course_lib.capstone import Verdict, check_answer
from course_lib.memory import (
    MAX_EVIDENCE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_VALUE_CHARS,
    FactCandidate,
    InvalidFacts,
    WorkingMemory,
    limits_summary,
)
from course_lib.policies import load_timeline
from course_lib.tracing import ModelCall

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"
TIMELINE = load_timeline()
TASK = TIMELINE.turns[-1].user
RULE = "never restart the production database during business hours"
RIGHT = f"module=Billing; database=SQL Server 2022; constraint={RULE}"
STALE = f"module=Reporting; database=PostgreSQL; constraint={RULE}"
RIGHT_BUT_ONE_KEY = f"{RIGHT}; symptom=a crash at start-up"  # graded correct; the store says otherwise
OMITS = "module=Billing; database=SQL Server 2022"  # graded wrong (no constraint); breaks no rule: none stored


def _glossary_row(word: str) -> str:
    return next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith(f"| **{word}**"))


def _store(*, constraint: bool) -> WorkingMemory:
    memory = WorkingMemory(max_facts=8)
    said = ["module=Billing", "database=SQL Server 2022", "symptom=invoices are duplicated after a retry"]
    said += [f"constraint={RULE}"] if constraint else []
    for text in said:
        key, _, value = text.partition("=")
        memory.apply(memory.begin_turn(text), [FactCandidate(key=key, value=value, evidence=text)])
    return memory


def _run(answers: list[str], *, constraint: bool = True, cap: int = 5) -> capstone.CapstoneRun:
    """A run graded as lesson 07 grades it: each answer checked by the evaluator, as the loop would (the last one
    is not checked when the loop reaches its cap)."""
    facts = _store(constraint=constraint).facts
    checks = []
    for number, answer in enumerate(answers, start=1):
        if number == cap:
            break  # the cap ends the loop: its last run is not evaluated
        found = tuple(check_answer(facts, answer, TASK))
        feedback = "sent back" if found else None
        checks.append(
            capstone.FactCheck(iteration=number, facts=facts, answer=answer, violations=found, feedback=feedback)
        )
        if not found:
            break
    calls = [ModelCall(client="reader", instructions=None, messages=(), reply=a) for a in answers]
    return capstone._graded(
        TIMELINE, policy="p", rule="earliest", max_facts=8, checks=checks, reader_calls=calls, answer=answers[-1],
        evicted={}, cap=cap,
    )  # fmt: skip


def test_the_runs_behind_the_glossary_definitions_get_the_verdicts_it_says():
    """Each case is one the glossary's old rows got wrong or left open."""
    first_correct_sent_back = _run([RIGHT_BUT_ONE_KEY, RIGHT])
    assert first_correct_sent_back.first_correct and first_correct_sent_back.verdict == "repaired"
    held_but_wrong = _run([OMITS], constraint=False)  # one iteration, no rule broken: lesson 07's facts run
    assert not held_but_wrong.checks[0].violations and held_but_wrong.verdict == "not repaired"
    assert _run([RIGHT]).verdict == "right first time"
    assert _run([STALE, STALE.replace("Reporting", "Billing")]).verdict == "partly repaired"  # accepted, still wrong
    assert _run([STALE] * 5, cap=5).verdict == "stopped at the cap"


def test_lesson_07s_facts_run_stops_after_one_iteration_with_no_violation_and_is_not_repaired():
    said = cell_outputs("07", "02f68a0d")
    row = next(line for line in said.splitlines() if re.match(r"\s*\d+\s+facts\s", line))
    assert row.split()[2] == "1" and "not repaired: constraint still missing" in said


def test_the_glossary_defines_right_first_time_by_lesson_04s_grading_not_by_the_store():
    row = _glossary_row("right first time")
    assert "the first answer is correct (graded as in lesson 04)" in row
    assert "stopped after one iteration" in row
    assert "held to the store" not in row


def test_the_glossary_defines_the_other_verdicts_as_the_code_computes_them():
    repaired = _glossary_row("repaired")
    assert "the first answer was wrong" not in repaired  # a correct first answer can be sent back, then repaired
    assert "sent the answer back" in repaired and "the final answer is correct" in repaired
    assert "still wrong in part" not in repaired  # partly repaired: the returned answer may be wrong in every key
    assert "found no violation" in repaired  # not repaired: what stopped the loop after one answer
    assert "the store held nothing it contradicted" not in repaired
    for verdict in get_args(Verdict):
        assert f"**{verdict}**" in GLOSSARY.read_text(encoding="utf-8"), verdict


def test_lesson_07s_right_first_time_says_the_loop_stopped_at_the_first_answer():
    said = " ".join(cell_source("07", "10ead7db").split())
    assert "* **right first time**: the first answer is correct and the evaluator stopped the loop there" in said


def test_the_glossarys_batch_is_made_of_candidates():
    row = _glossary_row("batch")
    assert "the candidates proposed for one message" in row and "the facts proposed" not in row


def test_lesson_01s_first_printout_says_its_lengths_and_leaves_the_unit_under_the_hood():
    said = limits_summary()
    assert f"{MAX_VALUE_CHARS} characters in a value, {MAX_EVIDENCE_CHARS} in its evidence" in said
    assert f"{MAX_MESSAGE_CHARS} in a message" in said
    # third walk 23: the unit's name came before the student knew what a value is; it stays under the hood.
    # walk 24: "256 characters" alone is untrue of an emoji, so the line says in plain words that one may count two
    assert "UTF-16" not in said and "code unit" not in said
    # second walk 25: the emoji is said once on the path, in section 3 (lengths in characters), not here
    assert said.endswith(f"{MAX_MESSAGE_CHARS} in a message") and "emoji" not in said
    printed = cell_outputs("01", "cell-01")
    assert said in printed and "UTF-16" not in printed
    assert "limits_summary()" in cell_source("01", "cell-01")


@pytest.mark.parametrize("count, admitted", [(MAX_VALUE_CHARS // 2, True), (MAX_VALUE_CHARS // 2 + 1, False)])
def test_an_emoji_counts_two_against_the_value_bound_as_the_printout_says(count, admitted):
    memory = WorkingMemory()
    value = "\U0001f525" * count
    ticket = memory.begin_turn(f"symptom={value}")
    try:
        memory.apply(ticket, [FactCandidate(key="symptom", value=value, evidence=f"symptom={value}")])
    except InvalidFacts:
        assert not admitted
    else:
        assert admitted


def test_lesson_01s_word_list_keeps_tickets_to_one_line_and_leaves_forget_to_section_7():
    words = cell_source("01", "8deb2299")
    entry = next(line for line in words.splitlines() if line.startswith("- **ticket, epoch**"))  # walk 22: turn once
    assert "forget" not in entry and ".turn" not in entry and "(sections 2 and 7)" in entry
    assert len(entry.split()) <= 45


def _markdown_07() -> dict[str, str]:
    return {c["id"]: "".join(c["source"]) for c in stored_lesson("07")["cells"] if c["cell_type"] == "markdown"}


def test_lesson_07s_things_to_try_is_a_list_and_the_hidden_panel_is_said_beside_its_cell():
    cells = stored_lesson("07")["cells"]
    ids = [c["id"] for c in cells]
    markdown = _markdown_07()
    intro = markdown["capstone-panel-intro"]
    tries = [line for line in intro.splitlines() if re.match(r"\d\. ", line)]
    assert intro.count("Things to try") == 1 and len(tries) == 3
    assert "second panel" not in intro
    before_demo = cells[ids.index("capstone-panel-demo") - 1]
    assert before_demo["cell_type"] == "markdown" and "builds a second panel (not shown)" in "".join(
        before_demo["source"]
    )
    assert ids.index("capstone-panel") < ids.index(before_demo["id"])


def test_lesson_07s_eviction_paragraph_is_a_list():
    said = _markdown_07()["5e87e929"]
    assert sum(line.startswith("* ") for line in said.splitlines()) >= 4


def test_lesson_07s_time_estimate_is_that_of_the_lessons_of_its_length():
    top = _markdown_07()["6ae511d1"]
    assert "*About 60 minutes.*" in top
