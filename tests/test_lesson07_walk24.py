"""Walk 24 of lesson 07 after the density round (issue 32): 4/5, and what "would make it a 5".

1. Section 1's prose table has an *ask* row that gets ``constraint missing``; the cell under it names every such row
   and says why (its own words plan an action), and the intro says the constraint is due when an answer plans one.
2. Section 3 says which store the evaluator checks each policy's answer against.
3. Section 3's verdict notes say that compaction's 3 user turns count the final question.
4. Section 4's walk says who pushed ``product`` out and when that key had come back, as the eviction table computes it.
5. Section 7 says which turns the writer read: all of them, the final question included.
6. A count typed with a decimal point is told to drop the point, never given a whole number (which may be the answer).
"""

from __future__ import annotations

import asyncio
import re

import pytest
from support.checker import said
from support.lesson_cells import cell_outputs, cell_source, plain_words

from course_lib.capstone import (
    PROSE_SAMPLE,
    compare_repairs,
    run_desk_in_loop,
    sample_store,
    verdicts,
)
from course_lib.exercises import EXERCISES, check
from course_lib.policies import load_timeline

PROSE_INTRO = "7ec4c2c1"
PROSE_WHY = "prose-why-pass"
SECTION_3 = "10ead7db"
VERDICT_NOTES = "00ed1b35"
SECTION_4_WALK = "5e87e929"
SECTION_7_CODE = "4beacbb4"

TIMELINE = load_timeline()
ASK = "Which module and database are we on?"


def _ask_rows_missing_the_constraint() -> list[str]:
    """The sample's *ask* answers that get ``constraint missing``, computed by the evaluator."""
    store, superseded = sample_store()
    tasks = {"ask": ASK, "plan": TIMELINE.turns[-1].user}
    asked = [(tasks[name], answer) for name, answer in PROSE_SAMPLE if name == "ask"]
    return [v.answer for v in verdicts(store.facts, asked, superseded) if "constraint missing" in v.verdict]


# --- finding 1 ---


def test_the_cell_under_the_prose_table_names_every_ask_row_that_gets_constraint_missing():
    rows = _ask_rows_missing_the_constraint()
    assert rows, "the sample shows the case the cell explains"
    said_here = plain_words(cell_source("07", PROSE_WHY))
    count = {1: "One", 2: "Two", 3: "Three"}[len(rows)]
    # walk 25 (fourth round): "also" when each such row states a wrong value too, as its verdict shows
    store, superseded = sample_store()
    shown = verdicts(store.facts, [(ASK, answer) for answer in rows], superseded)
    also = " also" if all(v.verdict != "constraint missing" for v in shown) else ""
    plural = len(rows) > 1
    assert f"{count} ask row{'s' if plural else ''}{also} get{'' if plural else 's'} `constraint missing`" in said_here
    for answer in rows:
        assert answer in said_here
    # why the row gets it: its own action word (walk 25, second round); that an answer's action makes the
    # constraint due is the prose intro's (test_the_prose_intro_says_an_answer_can_make_the_constraint_due)
    assert "Its word fix, even used as a noun, counts as an action word" in said_here


def test_the_row_that_gets_constraint_missing_plans_through_its_own_word_fix():
    """The cell says *fix* plans the action: without that word the same row asks for nothing."""
    store, superseded = sample_store()
    (answer,) = _ask_rows_missing_the_constraint()
    assert re.search(r"\bfix\b", answer)
    plain = answer.replace("The fix belongs in", "It is")
    (verdict,) = verdicts(store.facts, [(ASK, plain)], superseded)
    assert "constraint missing" not in verdict.verdict
    assert "Its word fix, even used as a noun, counts as an action word" in plain_words(cell_source("07", PROSE_WHY))


def test_the_prose_intro_says_an_answer_can_make_the_constraint_due():
    intro = plain_words(cell_source("07", PROSE_INTRO))
    assert "so the constraint is due." in intro  # rule 2 says when an answer plans an action itself


# --- finding 2 ---


def test_section_3_says_which_store_checks_which_policy():
    said_here = plain_words(cell_source("07", SECTION_3))
    # the walker's sentence, in two (a sentence is at most 30 words) and with the host defined where it first appears
    assert "for every policy but facts, the evaluator checks answers against one shared store" in said_here
    assert (  # walk 25 (third round): the walker's two sentences
        "filled from turns 1-9 by the host (the course's code that decides what is stored). The facts policy has its "
        "own store, and its answers are checked against that one"
    ) in said_here
    assert "fills one store; the facts policy keeps its own" not in said_here


def test_every_policy_but_facts_is_checked_against_the_same_store():
    runs = asyncio.run(compare_repairs(TIMELINE, rules=["earliest"]))
    host = {tuple((f.key, f.value, f.turn) for f in r.checks[0].facts) for r in runs if r.policy != "facts"}
    assert len(host) == 1


# --- finding 3 ---


def test_compaction_counts_the_final_question_among_its_3_turns():
    said_here = plain_words(cell_source("07", VERDICT_NOTES))
    assert "it keeps at most 3 user turns in the request (the final question is the third)" in said_here


# --- finding 4 ---


def test_section_4s_walk_says_who_pushed_product_out_as_the_table_computes_it():
    runs = asyncio.run(compare_repairs(TIMELINE, rules=["earliest"]))
    facts_run = next(r for r in runs if r.policy == "facts")
    first = facts_run.eviction_rows()[0]
    key, turn = first["key"], first["evicted at turn"]
    pusher = str(first["pushed out by"]).split(" (")[0]
    back = next(e for e in facts_run.evictions if e.key == pusher and e.turn < turn)
    expected = (
        f"`{pusher}` had been pushed out at turn {back.turn}, so it came back as a new key and needed room. "
        f"The oldest fact left was `{key}` (turn 1), so `{key}` went."  # walk 25's wording
    )
    walk = plain_words(cell_source("07", SECTION_4_WALK))
    assert expected in walk
    assert "back in the store after turn 4" not in walk


# --- finding 5 ---


def test_section_7_says_which_turns_the_writer_read():
    run = asyncio.run(run_desk_in_loop(TIMELINE, "earliest"))
    n = len(TIMELINE.turns)
    assert run.writer_read == f"{n} (turns 1 to {n}, the final question included)"
    assert f"texts the writer read: {run.writer_read};" in cell_outputs("07", SECTION_7_CODE)


def test_a_writer_that_read_something_else_is_not_said_to_have_read_the_turns():
    run = asyncio.run(run_desk_in_loop(TIMELINE, "earliest"))
    other = run.model_copy(update={"writer_texts": [*run.writer_texts, "[facts check] ..."]})
    assert "turns 1 to" not in other.writer_read
    fewer = run.model_copy(update={"writer_texts": run.writer_texts[:-1]})
    assert fewer.writer_read == f"{len(TIMELINE.turns) - 1} (turns 1 to {len(TIMELINE.turns) - 1})"


# --- finding 6 ---

COUNTS = [e for e in EXERCISES if e.answer_type is int]


@pytest.mark.parametrize("item", COUNTS, ids=lambda e: f"{e.lesson}-{e.label}")
@pytest.mark.parametrize("expected", [1, 2, 9])
def test_a_count_with_a_point_is_never_told_the_whole_number_it_may_be(item, expected):
    value = float(expected)
    typed = {"In": ["", f"answer_1 = {value}\nprint(check({item.label!r}, answer_1, expected, hint))"]}
    told = " ".join(check(item.label, value, expected, item.hint, namespace=typed).split())
    assert f"{value} has a decimal point, but the answer is a count: write it as a whole number, without the " in told
    assert not re.search(rf"(?<![\d.]){expected}(?![\d.])", told.replace(item.label, "")), told


def test_lesson_07_exercise_2s_one_point_zero():
    told = said("07", "Exercise 2", 1.0, 1, "answer_1 = 1.0")
    point = "1.0 has a decimal point, but the answer is a count: write it as a whole number, without the decimal point."
    assert point in told
    assert "number, 1." not in told
