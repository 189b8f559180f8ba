"""The capstone reads a wrong value it has never seen, in the shapes a model writes (issue 34).

The battery is ``tests/support/capstone_battery.py``: answers in prose, Markdown bold, lists, tables, headings,
numbered steps, parentheses and mixed case, each with the verdict it deserves and a one-line reason; most state a
value the store never held. ``MISREADS`` are the answers the rules still read wrong: each is held to the verdict the
answer check gives today, so a change to the answer check that fixes or breaks one shows here (and in lesson 07's
table).
"""

import json
import time
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.capstone_battery import (
    ASK,
    BATTERY,
    MISREADS,
    PASSES,
    PLAN,
    STORE,
    SUPERSEDED,
    VIOLATIONS,
    Case,
    lesson_store,
    read,
)

from course_lib.assertions import ALLOWED_KEYS
from course_lib.capstone import RULE_MISREADS, SAMPLE_DECLARATIONS, check_answer, prose_values, sample_store
from course_lib.memory import FactCandidate, WorkingMemory


def _id(case: Case) -> str:
    return case.reason


@pytest.mark.parametrize("case", VIOLATIONS + PASSES, ids=_id)
def test_each_answer_gets_the_verdict_it_deserves(case):
    assert read(case) == case.verdict, case.reason


@pytest.mark.parametrize(("case", "reads"), MISREADS, ids=lambda x: x.reason if isinstance(x, Case) else "")
def test_each_known_misread_still_reads_as_measured(case, reads):
    assert case.verdict != reads
    assert read(case) == reads, f"the reader now gives {read(case)!r}: move the case out of MISREADS"


def _states_a_value_never_held(case: Case) -> bool:
    """Whether the verdict it deserves names a value (not "pass", not a missing constraint) the store never held."""
    held = {said.partition("=")[2].casefold() for said in STORE}
    stated = [part.partition(": ")[2] for part in case.verdict.split("; ") if ": " in part]
    return bool(stated) and all(value.casefold() not in held for value in stated)


def test_the_battery_is_large_half_never_held_values_and_says_why():
    assert len(BATTERY) >= 60 and len(PASSES) >= 25
    assert sum(map(_states_a_value_never_held, BATTERY)) >= len(BATTERY) / 2
    assert all(map(_states_a_value_never_held, VIOLATIONS))
    assert all(case.reason for case in BATTERY) and len({c.answer for c in BATTERY}) == len(BATTERY)


def test_a_violation_names_the_key_what_the_answer_said_and_what_the_store_holds():
    memory = lesson_store()
    [violation] = check_answer(memory.facts, "Billing module, Oracle database.", "", SUPERSEDED)
    assert (violation.fact.key, violation.stated, violation.fact.value) == ("database", "Oracle", "SQL Server 2022")
    assert violation.problem == "your answer names Oracle as the current database."


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("The module is Billing and the database is Oracle", [("module", "Billing"), ("database", "Oracle")]),
        ("Billing module, SQL Server 2019 database", [("module", "Billing"), ("database", "SQL Server 2019")]),
        ("Use Oracle for the database", [("database", "Oracle")]),
        ("the database is SQL Server for Linux", [("database", "SQL Server")]),
        ("The Production database is down", []),
        ("Ask your Database Administrator", []),
        ("the database is still MariaDB 10.6 in staging", [("database", "MariaDB 10.6")]),
        ("The module is Zeta Q R S T U V W", [("module", "Zeta Q R S T U")]),
    ],
)
def test_a_prose_value_is_a_run_of_name_words_next_to_its_key(clause, expected):
    assert prose_values(clause) == expected


def _time_to_read(text: str, facts, task: str) -> float:
    start = time.process_time()
    check_answer(facts, text, task, SUPERSEDED)
    return time.process_time() - start


@pytest.mark.parametrize(
    "unit",
    [
        "Module Billing, database MySQL. ",
        "Billing module Oracle database ",
        "| Database | Oracle |\n",
        "module " * 3,
        "A " * 8,
        "from Reporting to ",
        "PostgreSQL was replaced by ",
        "- **Database**: ",
    ],
)
def test_a_64_kib_answer_in_any_shape_is_read_in_linear_time(unit):
    """Eight times the text costs about eight times the time, and 64 KiB is read well under a second.

    The best of three timings of each size is kept; the ratio bound (48, linear being 8) and the floor of 10 ms for
    the small text leave room for a loaded machine, and the time is this process's CPU time, as in
    ``test_capstone_prose``'s test of the same kind (measured on a machine at load 12: 60 to 80 ms of CPU).
    """
    memory = lesson_store()
    small = (unit * (8192 // len(unit) + 1))[:8192]
    large = (unit * (65536 // len(unit) + 1))[:65536]
    t_small = min(_time_to_read(small, memory.facts, "Plan the fix.") for _ in range(3))
    t_large = min(_time_to_read(large, memory.facts, "Plan the fix.") for _ in range(3))
    assert t_large < 0.75, f"{t_large:.3f} s for 64 KiB of {unit!r}"
    assert t_large < 48 * max(t_small, 1e-2), f"8 KiB: {t_small:.4f} s, 64 KiB: {t_large:.4f} s"


def test_every_key_word_reads_alike():
    for key in ALLOWED_KEYS:
        assert prose_values(f"The {key} is Zeta 9") == [(key, "Zeta 9")]


def test_lesson_07_shows_the_battery_s_misreads_and_its_measured_counts():
    """The "where rules fail" cells show exactly the battery's misreads, and say its counts as measured here."""
    lesson = json.loads((Path(__file__).parent.parent / "notebooks" / "07_loop_held_to_the_facts.ipynb").read_text())
    text = {cell.get("id"): "".join(cell["source"]) for cell in lesson["cells"]}
    # the answers live in course_lib (the cell stays short); the cell shows exactly those, and they are the battery's
    assert "RULE_MISREADS" in text["d30777ae"]
    cases = {case.answer: case for case, _ in MISREADS}
    assert sorted(answer for _, answer, _ in RULE_MISREADS) == sorted(cases)
    for name, answer, deserved in RULE_MISREADS:  # the same task, and the verdict it deserves, with a word on why
        assert {"ask": ASK, "plan": PLAN}[name] == cases[answer].task and deserved.startswith(cases[answer].verdict)
    right = len(BATTERY) - len(MISREADS)
    # walk 24: the counts are printed from the battery (course_lib.capstone.battery_score), above the table
    cell = next(c for c in lesson["cells"] if c.get("id") == "d30777ae")
    said = " ".join("".join(output.get("text", "")) for output in cell["outputs"]).split()
    said = " ".join(said)
    assert f"The answer battery: {len(BATTERY)} answers." in said and f"gives {right} the verdict" in said
    assert f"it misreads {len(MISREADS)}." in said
    assert "battery_score()" in text["d30777ae"]  # computed, not typed


FROM_HISTORY = "You moved from Reporting to Billing."
FROM_MISREAD = "Billing reads its data from PostgreSQL."


def test_the_history_word_from_reads_a_history_and_lets_a_stale_source_pass_as_lesson_07_says():
    """Lesson 07 says what was measured, not "no rule can fix one": the phrase "from", learned so that a history
    passes, also lets a stale claim pass; its "Under the hood" prints both verdicts, pinned here."""
    memory = lesson_store()
    assert check_answer(memory.facts, FROM_HISTORY, "", SUPERSEDED) == []  # right: a history is no claim
    assert check_answer(memory.facts, FROM_MISREAD, "", SUPERSEDED) == []  # wrong: the data is still on PostgreSQL
    lesson = json.loads((Path(__file__).parent.parent / "notebooks" / "07_loop_held_to_the_facts.ipynb").read_text())
    text = {cell.get("id"): "".join(cell["source"]) for cell in lesson["cells"]}
    assert FROM_HISTORY in text["hood-from"] and FROM_MISREAD in text["hood-from"]
    assert "no rule can" not in text["06effe55"].casefold()


# region Property: any other value, in any of the shapes, is read as a claim; the stored value in them passes

SHAPES = (
    "The {k} is {v}.",
    "{K} {v}, and that is all.",
    "We keep the {v} {k}.",
    "Use {v} for the {k}.",
    "For the {k}, use {v}.",
    "- **{K}:** {v}",
    "| {K} | {v} |",
    "The {k} stays {v} and nothing else changes.",
    "{K} \u2014 {v}",
    "| Ticket | {K} |\n|---|---|\n| 42 | {v} |",
)
NAME_WORD = st.from_regex(r"[A-Z][a-z]{2,7}[0-9]?", fullmatch=True).filter(
    lambda w: prose_values(f"The module is {w}") == [("module", w)]
)
NAME = st.lists(NAME_WORD, min_size=1, max_size=3, unique=True).map(" ".join)
PROSE_KEYS = [key for key in ALLOWED_KEYS if key != "constraint"]


def _one_fact(key: str, value: str) -> WorkingMemory:
    memory = WorkingMemory()
    memory.apply(memory.begin_turn(f"{key}={value}"), [FactCandidate(key=key, value=value, evidence=f"{key}={value}")])
    return memory


@settings(max_examples=200, deadline=None)
@given(key=st.sampled_from(PROSE_KEYS), current=NAME, other=NAME, shape=st.sampled_from(SHAPES))
def test_any_value_never_held_is_read_as_a_claim_in_every_shape(key, current, other, shape):
    said, held = other.casefold().split(), current.casefold().split()
    assume(said[: len(held)] != held and held[: len(said)] != said)  # neither is the start of the other
    facts = _one_fact(key, current).facts
    answer = shape.format(k=key, K=key.capitalize(), v=other)
    assert [(v.fact.key, v.stated) for v in check_answer(facts, answer)] == [(key, other)], answer
    assert check_answer(facts, shape.format(k=key, K=key.capitalize(), v=current)) == []


def test_section_1_s_store_is_the_battery_s_and_its_replaced_values_are_computed():
    store, superseded = sample_store()
    assert tuple(STORE) == SAMPLE_DECLARATIONS and superseded == SUPERSEDED
    assert {f.key: f.value for f in store.facts} == {f.key: f.value for f in lesson_store().facts}
