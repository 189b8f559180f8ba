"""Lesson 01's nineteenth walk, second round (issue 32): each finding checked at its rule.

The first printout lists the batch's bound beside the store's; sections 4 and 6 say in one clause why they use a
store of their own (the reason is under the hood); the ticket's objective is two short bullets; section 3 says the
store takes candidate #1 through every rule before #2, and a refusal names the candidate's place; a hedged answer
typed without quotes is echoed exactly as typed, spaces before its '?' included; the claim map's anchors land a
little above their rows, as the glossary's do.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.checker import run_in_shell
from test_lesson01_walk19 import _cell, _cells, _printed, _words  # lesson 01's stored cells, read by id

import course_lib.memory as memory_module
from course_lib.exercises import hedged_answer_lines
from course_lib.memory import (
    CANDIDATE_RULES,
    MAX_CANDIDATES,
    MAX_FACTS,
    FactCandidate,
    InvalidFacts,
    WorkingMemory,
    limits_summary,
)

ROOT = Path(__file__).resolve().parent.parent
OFFSET = '<span style="position: relative; top: -3em">'


def _student_path() -> str:
    cells = _cells()
    end = next(i for i, c in enumerate(cells) if c.get("id") == "under-the-hood")
    return _words(" ".join(c.source for c in cells[:end] if c.cell_type == "markdown"))


# --- finding 1: the first printout names the batch's bound too ---


def test_the_limits_say_the_batch_bound_on_a_line_of_its_own_beside_the_stores():
    said = limits_summary().splitlines()
    assert said[0] == f"at most {MAX_FACTS} facts in the store"
    # the second walk 24: why it is a separate rule is said once, under section 3's table
    assert said[1] == f"at most {MAX_CANDIDATES} candidates in one batch"


def test_the_batch_line_is_computed_from_the_constants(monkeypatch):
    monkeypatch.setattr(memory_module, "MAX_CANDIDATES", 7)
    monkeypatch.setattr(memory_module, "MAX_FACTS", 9)
    assert "at most 9 facts in the store\nat most 7 candidates in one batch\n" in limits_summary()


def test_lesson_01s_first_cell_prints_the_batch_bound():
    assert "candidates in one batch\n" in _printed(_cell("cell-01"))
    assert limits_summary() in _printed(_cell("cell-01"))


# --- finding 2: why a store of its own, in one clause on the student's path ---


def test_sections_4_and_6_give_their_own_store_one_short_clause():
    path = _student_path()
    for gone in ("would not do", "how often section 3 ran", "however often they are run", "however often it is run"):
        assert gone not in path
    # second walk 25: the why read as a maintainer's note on the path; it is a comment in each cell now
    assert "store of its own" not in path and "re-run" not in path
    assert "# a store of its own: its turn numbers stay the same when you re-run this cell" in _cell("cell-13").source
    assert "# demo, not store: store stays the same when you re-run this cell" in _cell("cell-19").source


def test_a_refused_batch_still_uses_up_the_turn_its_ticket_opened():
    # third walk 23: the hood's cell that said so repeated section 4 and is gone; the rule still holds
    store = WorkingMemory()
    ticket = store.begin_turn("owner=alice")
    with pytest.raises(InvalidFacts):
        store.apply(ticket, [FactCandidate(key="owner", value="alice", evidence="owner=alice")])
    assert store.begin_turn("module=Billing").number == 2


# --- finding 3: the ticket's objective, without nested asides ---


def test_the_ticket_objective_nests_no_aside_and_the_word_list_defines_the_epoch():
    opening = _cell("cell-00").source
    objectives = opening.split("**You will be able to**")[1].split("*About")[0]
    bullets = [_words(b) for b in re.split(r"\n- ", objectives) if b.strip()]
    assert 3 <= len(bullets) <= 5
    [ticket] = [b for b in bullets if "ticket" in b]
    asides = re.findall(r"\(([^()]*)\)", ticket)
    assert len(asides) == ticket.count("("), ticket  # no aside inside another
    assert not any(":" in aside for aside in asides), ticket  # and none holding a definition of its own
    # walk 23: an objective is an instruction; the ticket is defined in the word list, stale in section 7
    assert (
        "explain how a ticket stops a stale write, and why a ticket made by hand writes nothing (section 7)." in ticket
    )
    assert "epoch" not in opening  # defined in the word list, where the student first reads it
    words = _words(_cell("8deb2299").source)
    assert "the store's epoch (how many times the store has forgotten the user's facts)" in words


# --- finding 4: one candidate through every rule, then the next ---


def test_the_store_takes_candidate_1_through_every_rule_before_candidate_2():
    text = "module=Billing; database=SQL Server 2022; owner=alice"
    misquoted = FactCandidate(key="database", value="SQL Server 2019", evidence="database=SQL Server 2022")
    stranger = FactCandidate(key="owner", value="alice", evidence="owner=alice")
    assert CANDIDATE_RULES.index("unknown key") < CANDIDATE_RULES.index("value not in evidence")
    store = WorkingMemory()
    with pytest.raises(InvalidFacts) as caught:
        store.apply(store.begin_turn(text), [misquoted, stranger])
    assert (caught.value.candidate, caught.value.rule) == (1, "value not in evidence")
    assert str(caught.value).startswith("Invalid fact #1 ")
    with pytest.raises(InvalidFacts) as caught:
        store.apply(store.begin_turn(text), [stranger, misquoted])
    assert (caught.value.candidate, caught.value.rule) == (1, "unknown key")


def test_a_refusal_that_names_no_candidate_has_none():
    store = WorkingMemory()
    with pytest.raises(InvalidFacts) as caught:
        store.apply(store.begin_turn("module=Billing"), None)
    assert caught.value.candidate == 0


def test_section_3_says_one_candidate_through_every_rule_and_its_cell_shows_it():
    prose = _words(_cell("cell-10").source + " " + _cell("hood-rule-order").source)
    assert "in the order of the rows, from the top of the table down" not in prose
    # walk 22: said once, under section 3's first table, then shown by the rule-order table
    assert (
        "Then it takes candidate #1 through the other rules in the order of that table's rows, then #2, and so on"
        in prose
    )
    assert "because #1 goes through every rule before #2" in prose
    table = str(_cell("rule-order").outputs[-1]["data"]["text/plain"])
    row = next(line for line in table.splitlines() if "#2: unknown key" in line)
    assert row.rstrip().endswith("#1: value not in evidence"), row


# --- finding 5: a hedge typed without quotes is echoed exactly as typed ---

DICT = "{'database': 'SQL Server 2022', 'log': 'a=b'}"


@pytest.mark.parametrize("typed", [f"{DICT} ?", f"{DICT} ??", f"{DICT}?"])
def test_a_hedged_dict_is_echoed_with_the_spaces_it_was_typed_with(capsys, typed):
    cell = f"answer_1 = {typed}\nprint(check('Exercise 1', answer_1, {DICT}, exercise('01', 'Exercise 1').hint))"
    out = run_in_shell(capsys, cell)
    assert f"Your answer {typed} (as typed, without quotes) hedges" in out, out


@pytest.mark.parametrize("expected", [2, "product", True])
@pytest.mark.parametrize("value", ["2 ?", "product ?", "False ?", "maybe 2 ?"])
def test_every_hedge_typed_bare_is_echoed_as_typed_right_or_wrong(capsys, value, expected):
    cell = f"answer_1 = {value}\nprint(check('Exercise 1', answer_1, {expected!r}))"
    out = run_in_shell(capsys, cell)
    assert f"Your answer {value} (as typed, without quotes) hedges" in out, out


def test_the_transformer_keeps_the_text_between_the_value_and_its_marks():
    assert hedged_answer_lines(["answer_2 = product ?  # a comment\n"]) == ["answer_2 = 'product ?'  # a comment\n"]
    typed = f"{DICT}  \t??"  # spaces and a tab before the marks: the answer is the text typed, whatever its spacing
    [line] = hedged_answer_lines([f"answer_1 = {typed}\n"])
    names: dict = {}
    exec(line, names)
    assert names["answer_1"] == typed


# --- finding 6: the claim map's anchors land a little above their rows ---


def test_every_claim_row_anchor_is_offset_as_the_glossarys_are():
    rows = [line for line in (ROOT / "docs" / "seed-claims.md").read_text(encoding="utf-8").splitlines()]
    rows = [line for line in rows if re.match(r"^\| [FL]\d{2} \|", line)]
    assert len(rows) >= 60
    bare = [
        row[:40]
        for row in rows
        if not re.match(rf'^\| ([FL]\d\d) \| {re.escape(OFFSET)}<a id="[fl]\d\d"></a></span>', row)
    ]
    assert not bare
    ids = [re.match(r"^\| ([FL]\d\d) \|", row)[1] for row in rows]
    assert all(f'<a id="{claim.lower()}"></a>' in row for claim, row in zip(ids, rows, strict=True))
