"""Lesson 01's second walk 22 (issue 32): one form for a refused pair, the wrong key named, short passages.

The table of section 3 writes a refused candidate as a declaration and the prose under it says how the raw refusal
writes the same pair; exercise 1's feedback names the key whose value is wrong; the objectives hold one goal a bullet;
section 2 defines only its new words; the eviction picture is readable at the lab's width and marks each eviction;
claim F60's paragraph is three short sentences first; a ``\\r\\n`` is said to count as one break.
"""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import pytest
from support.checker import said
from test_checker_dicts_walk19 import EXPECTED
from test_lesson01_walk19 import _words
from test_lesson01_walk22 import _cell, _cells, sentences

from course_lib.assertions import find_declarations, left_out, parse_assertions
from course_lib.memory import FactCandidate, InvalidFacts, WorkingMemory
from course_lib.presentation import plot_presence, presence_frame

LAB_WIDTH = 868  # the pixels a lab gives a picture: a wider one is scaled down to it


def _markdown(heading: str) -> str:
    return next(c.source for c in _cells() if c.cell_type == "markdown" and heading in c.source)


# 1. one form for a refused pair: the contract's own message writes it as a declaration


def _refused(batch: list, text: str = "module=Billing; owner=alice") -> str:
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts) as caught:
        memory.apply(memory.begin_turn(text), batch)
    return str(caught.value)


def test_the_raw_refusal_writes_the_candidate_as_a_declaration():
    batch = [
        FactCandidate(key="module", value="Billing", evidence="module=Billing"),
        FactCandidate(key="owner", value="alice", evidence="owner=alice"),
    ]
    said_ = _refused(batch)
    assert said_.startswith("Invalid fact #2 (owner=alice): unknown key; allowed keys are"), said_
    assert "'" not in said_.split(":")[0]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        # walk 23: one rule, no quotes; an end the eye would miss is marked ␣, as the lesson's tables mark spaces
        (" ", "database=␣"),
        (" SQL", "database=␣SQL"),
        ("a=b", "database=a=b"),  # the key ends at the first '=', as the contract reads log=level=debug
        ("slow\npriority=P0", "database=slow⏎priority=P0"),
        ("x" * 300, "database=" + "x" * 40 + "…"),
    ],
)
def test_a_refused_value_is_written_so_its_ends_can_be_seen(value, shown):
    batch = [FactCandidate(key="database", value=value, evidence="database=SQL Server 2022")]
    assert _refused(batch, "database=SQL Server 2022").startswith(f"Invalid fact #1 ({shown}): ")


def test_no_lesson_output_shows_the_quoted_pair_and_the_helper_is_gone():
    from pathlib import Path

    import course_lib.memory as memory

    assert not hasattr(memory, "refusal_words")
    for path in sorted(Path(__file__).parents[1].joinpath("notebooks").glob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"Invalid fact #\d+ \((&#39;|')", text), path.name


# 2. exercise 1: the key whose value is wrong is named, its right value is not


@pytest.mark.parametrize("value", ["Oracle", "SQL server 2022"])  # ' SQL Server 2022 ': third walk 23
def test_a_half_right_dict_names_the_key_whose_value_is_wrong(value):
    text = " ".join(said("01", "Exercise 1", {"database": value, "log": "a=b"}, EXPECTED).split())
    assert "0 keys missing from yours, 0 keys in yours that should not be there, 1 key with a wrong value" in text
    assert "The value of 'database' is not the right one." in text
    assert "SQL Server 2022'" not in text.replace(repr(value), "")  # the right value is never shown


def test_two_wrong_values_are_named_together_and_a_right_one_is_not():
    text = " ".join(said("01", "Exercise 1", {"database": "x", "log": "y"}, EXPECTED).split())
    assert "The values of 'database' and 'log' are not the right ones." in text
    right = " ".join(said("01", "Exercise 1", {"database": "SQL Server 2022"}, EXPECTED).split())
    assert "store keeps" not in right  # a key missing is counted, no value is wrong


# 3. one goal a bullet


def test_each_objective_is_one_bullet():
    intro = _cell("cell-00").source
    bullets = [" ".join(b.split()) for b in re.findall(r"^- (.*?)(?=^- |^\s*$)", intro, flags=re.M | re.S)]
    # one goal: the provenance read in the facts block (a sixth bullet would break the 3-to-5 rule, test_reading)
    assert 3 <= len(bullets) <= 5 and not any(". Read" in b for b in bullets), bullets
    # walk 23: provenance and the facts block are defined in section 6, not in the objective
    assert any(b.startswith("read a fact's provenance in the facts block") for b in bullets)


# 4. section 2 defines only what is new


def test_section_2_points_back_to_the_word_list_for_the_words_it_defined():
    section = _markdown("## 2. The store")
    for word in ("ticket", "epoch", "candidate", "batch"):
        assert f"**{word}**" not in section.lower() and f"**{word.capitalize()}**" not in section
    assert "Words used in these lessons" in section
    for new in ("`MemoryTurn`", "`apply(ticket, candidates)`", "**Extraction**"):
        assert new in section


# 5. the eviction picture


def _lesson_presence():
    store = WorkingMemory()
    script = [
        "product=Contoso; module=Reporting; database=PostgreSQL",
        "module=Billing; database=SQL Server 2022",
        "constraint=no production restarts",
        "customer=Fabrikam; version=4.2",
        "symptom=invoices duplicated",
        "environment=staging",
    ]
    snapshots = []
    for message in script:
        ticket = store.begin_turn(message)
        store.apply(ticket, [FactCandidate.from_declaration(d) for d in find_declarations(message)])
        snapshots.append((f"turn {ticket.number}", store.facts))
    return presence_frame(snapshots)


def test_the_eviction_picture_is_readable_at_the_labs_width_and_marks_each_eviction():
    frame = _lesson_presence()
    fig = plot_presence(frame, "t")
    try:
        width = fig.get_size_inches()[0] * fig.dpi
        scale = min(1.0, LAB_WIDTH / width)
        (ax,) = fig.axes
        labels = [t for t in ax.texts if t.get_text() != "evicted"]
        assert min(t.get_fontsize() * fig.dpi / 72 * scale for t in labels) >= 12  # pixels on screen
        marks = {
            (round(t.get_position()[0] - 0.47), round(t.get_position()[1] - 0.45))
            for t in ax.texts
            if t.get_text() == "evicted"
        }
        keys, turns = list(frame.index), list(frame.columns)
        expected = {
            (col, keys.index(key))
            for col in range(1, len(turns))
            for key in keys
            if frame.loc[key, turns[col - 1]] and not frame.loc[key, turns[col]]
        }
        assert marks == expected == {(3, keys.index("product")), (4, keys.index("database")), (5, keys.index("module"))}
    finally:
        plt.close(fig)


# 6. claim F60: the seed's rule, the course's rule, what the cell shows


def test_claim_f60_opens_with_three_short_sentences():
    source = _markdown("**Which tickets may write")
    first = next(p for p in source.split("\n\n") if p.startswith("**Which tickets may write"))
    said_ = sentences(first.split(".** ", 1)[1])  # after the bold heading
    assert len(said_) == 3, said_
    assert said_[0].startswith("The seed's rule:") and said_[1].startswith("The course's rule:")
    assert said_[2].startswith("The cell below shows")
    assert all(len(s.split()) <= 35 for s in said_), said_


# 7. \r\n is one break


def test_a_crlf_is_one_break_and_the_prose_says_so():
    message = "module=Billing\r\npriority=P1"
    assert parse_assertions(message) == {"module": "Billing", "priority": "P1"} and left_out(message) == []
    prose = _words(_markdown("### Line breaks"))
    assert "`\\r\\n` counts as one break" in prose


@pytest.mark.parametrize(
    ("value", "rule"),
    [("alice", "unknown key"), ("slow\npriority=P0", "unknown key"), ("a=b", "unknown key"), (" ", "unknown key")],
)
def test_the_qualification_totals_read_the_new_form_as_the_old(value, rule):
    from course_lib.qualify import rule_label

    said_ = _refused([FactCandidate(key="owner", value=value, evidence="owner=alice")], "owner=alice")
    assert rule_label(said_) == rule
    assert rule_label("Invalid fact #2 ('owner'='alice'): unknown key; allowed keys are") == "unknown key"  # recorded
