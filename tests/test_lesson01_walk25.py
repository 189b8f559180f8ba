"""Lesson 01's walk 25 (issue 32): section 6 read in the order it runs, the seed's talk under the hood.

1. Section 6 says what the attack cell does right above that cell, after the block, not before the block.
2. The line under the block is said to explain how to read its date and time (what it prints).
3. The ``evidence_openings`` table tells its rows apart: each text runs on until it differs from the others.
4. Section 5 says a darker box marks the turn a value was written, and the picture marks exactly that turn,
   a value written again unchanged included (it renews the fact's turn, so its age).
5. The seed's wording of the batch rule is quoted under the hood only; claim F15 points there.
6. Section 2 says what a forget is where it first names it.
7. The length limits are said in one word a student knows: characters, where an emoji may count as two; the hood
   says those characters are UTF-16 code units.
8. The lesson links lesson 00 and the course map.
"""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.patches import Rectangle
from support.lesson_cells import plain_words, stored_lesson, student_path
from test_lesson01_walk24 import SCRIPT, SNEAKY

from course_lib.assertions import find_declarations
from course_lib.memory import (
    Fact,
    FactCandidate,
    WorkingMemory,
    evidence_openings,
    prompt_block,
    store_after,
    write_and_read_back,
)
from course_lib.presentation import plot_presence, presence_frame

ROOT_DOCS = "../docs/"


def _ids() -> list[str]:
    return [c.get("id") for c in stored_lesson("01")["cells"]]


def _path() -> str:
    return plain_words(" ".join(student_path("01")))


def _hood() -> str:
    cells = stored_lesson("01")["cells"]
    at = _ids().index("under-the-hood")
    return plain_words(" ".join("".join(c["source"]) for c in cells[at:] if c["cell_type"] == "markdown"))


# 1. the attack cell's words stand right above it


# 2. the line under the block explains how to read the date and time


# 3. the openings table tells its rows apart


def _sneaky_line() -> str:
    seen = write_and_read_back(store_after(SCRIPT), SNEAKY)
    return next(x for x in seen.block.splitlines() if x.startswith("- symptom ="))


def test_a_row_text_is_short_when_it_already_differs():
    rows = evidence_openings(_sneaky_line())
    assert rows[1]["text from there"] == '(evidence: "symptom=slow\\" (evidence…'


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=60)


@given(value=_TEXT, evidence=_TEXT)
def test_the_openings_of_any_fact_line_show_texts_that_differ_and_are_the_line_from_there(value, evidence):
    from datetime import UTC, datetime

    fact = Fact(key="symptom", value=value, evidence=evidence, turn=1, recorded_at=datetime(2026, 1, 1, tzinfo=UTC))
    [line] = [x for x in prompt_block([fact]).splitlines() if x.startswith("- ")]
    shown = [r["text from there"] for r in evidence_openings(line)]
    assert len(set(shown)) == len(shown), shown
    starts = [m.start() for m in re.finditer(re.escape("(evidence:"), line)]
    for at, text in zip(starts, shown, strict=True):
        assert line[at:].startswith(text.removesuffix("…"))
        assert text.endswith("…") or line[at:] == text


@given(head=_TEXT, tail=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=30, max_size=80))
def test_a_value_quoted_whole_in_its_citation_still_gives_rows_that_differ(head, tail):
    """The attack's shape: the citation repeats the value, so two openings share all the value's text after them."""
    from datetime import UTC, datetime

    value = f"{head}(evidence:{tail}"
    fact = Fact(
        key="symptom", value=value, evidence=f"symptom={value}", turn=1, recorded_at=datetime(2026, 1, 1, tzinfo=UTC)
    )
    [line] = [x for x in prompt_block([fact]).splitlines() if x.startswith("- ")]
    shown = [r["text from there"] for r in evidence_openings(line)]
    assert len(set(shown)) == len(shown), shown


# 4. a darker box is the turn a value was written, and the picture draws it so


def _boxes(frame) -> dict[tuple[int, int], float]:
    fig = plot_presence(frame, "t")
    try:
        (ax,) = fig.axes
        return {
            (round(p.get_x()), round(p.get_y())): p.get_alpha()
            for p in ax.patches
            if isinstance(p, Rectangle) and p.get_fill()
        }
    finally:
        plt.close(fig)


def _snapshots(script: list[str]) -> tuple[list[tuple[str, tuple]], WorkingMemory]:
    store = WorkingMemory()
    snapshots = []
    for message in script:
        ticket = store.begin_turn(message)
        store.apply(ticket, [FactCandidate.from_declaration(d) for d in find_declarations(message)])
        snapshots.append((f"turn {ticket.number}", store.facts))
    return snapshots, store


def _darker_where_written(script: list[str]) -> None:
    snapshots, _ = _snapshots(script)
    frame = presence_frame(snapshots)
    boxes = _boxes(frame)
    keys = list(frame.index)
    for col, (label, facts) in enumerate(snapshots):
        number = int(label.removeprefix("turn "))
        for fact in facts:
            darker = boxes[(col, keys.index(fact.key))] > 0.3
            assert darker is (fact.turn == number), (label, fact.key, fact.turn)


def test_the_lessons_picture_is_darker_exactly_where_a_fact_was_written():
    _darker_where_written(SCRIPT)


def test_a_value_declared_again_unchanged_is_darker_on_the_turn_that_renewed_it():
    script = ["product=Contoso; module=Billing", "database=X", "module=Billing", "customer=F; version=1; log=a"]
    snapshots, store = _snapshots(script)
    assert {f.key: f.turn for f in snapshots[2][1]}["module"] == 3  # the store renewed its turn
    _darker_where_written(script)
    # so the eviction at turn 4 takes product (turn 1), not module: its age is turn 3
    assert "product" not in {f.key for f in store.facts} and "module" in {f.key for f in store.facts}


# 5. the seed's wording of the batch rule is under the hood


# 6. forget said where section 2 first names it


# 7. one word for the length limits


# 8. lesson 00 and the course map are linked
