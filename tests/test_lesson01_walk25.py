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

import html
import re

import matplotlib.pyplot as plt
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.patches import Rectangle
from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, student_path, words
from test_lesson01_walk24 import SCRIPT, SNEAKY

from course_lib.assertions import find_declarations
from course_lib.memory import (
    Fact,
    FactCandidate,
    WorkingMemory,
    evidence_openings,
    limits_summary,
    prompt_block,
    recorded_words,
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


def test_the_attack_cells_words_stand_between_the_block_and_the_attack():
    ids = _ids()
    block, attack = ids.index("cell-18"), ids.index("cell-19")
    assert attack == block + 2, "one markdown cell between the block and the attack"
    between = stored_lesson("01")["cells"][block + 1]
    assert between["cell_type"] == "markdown"
    said = words("".join(between["source"]))
    assert said.startswith("The next cell shows a value that tries to break out")
    assert "`demo`" in said and "`store_after`" in said
    before_block = words(cell_source("01", "cell-17"))
    assert "demo" not in before_block and "The cell after the block" not in before_block


# 2. the line under the block explains how to read the date and time


def test_the_line_under_the_block_is_said_to_explain_how_to_read_its_date_and_time():
    said = words(cell_source("01", "cell-17"))
    assert "The line under the block explains how to read its date and time." in said
    assert "reads its full date and time" not in said
    printed = cell_outputs("01", "cell-18").splitlines()
    [line] = [x for x in printed if x.startswith("The block's time for ")]
    assert "reads: the date (year-month-day), then T, then the time of day (hours:minutes:seconds)" in line
    store = store_after(SCRIPT)
    assert recorded_words(store.facts[0]).startswith(f"The block's time for {store.facts[0].key}, ")


# 3. the openings table tells its rows apart


def _sneaky_line() -> str:
    seen = write_and_read_back(store_after(SCRIPT), SNEAKY)
    return next(x for x in seen.block.splitlines() if x.startswith("- symptom ="))


def test_rows_1_and_3_of_the_openings_table_show_different_texts():
    rows = evidence_openings(_sneaky_line())
    shown = [r["text from there"] for r in rows]
    assert len(set(shown)) == 3, shown
    # each runs on past the point where the two copies of the value part: what follows the value's \"P0"
    assert '\\"P0" (evidence' in shown[0] and '\\"P0"; turn 7' in shown[2]
    table = html.unescape(cell_outputs("01", "evidence-openings"))
    for text in shown:
        assert text in table


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


def test_section_5_says_a_darker_box_is_the_turn_a_value_was_written():
    said = words(cell_source("01", "cell-14"))
    assert (
        "A darker box marks the turn in which a value was written or changed: a fact's turn is the column of its "
        "last darker box. The fact whose last darker box is furthest left is the oldest, and is evicted first." in said
    )
    assert "first appears" not in said
    assert "darker = value written that turn" in cell_source("01", "cell-16")


# 5. the seed's wording of the batch rule is under the hood


def test_the_seeds_wording_of_the_batch_rule_is_quoted_under_the_hood_only():
    assert "Extraction must contain" not in _path()
    assert "The last row is a limit on one batch" in _path()
    tagged = [c for c in stored_lesson("01")["cells"] if "claim-F15" in c.get("metadata", {}).get("tags", [])]
    assert [c.get("id") for c in tagged] == ["58114097"]
    assert _ids().index("58114097") > _ids().index("under-the-hood")
    assert "Extraction must contain at most 5 facts" in cell_outputs("01", "58114097")


# 6. forget said where section 2 first names it


def test_section_2_says_what_a_forget_is_where_it_names_it():
    said = words(cell_source("01", "cell-08"))
    assert "or after the user asks the store to forget (`forget`, section 7)" in said
    assert "or a forget (section 7)" not in said
    first = re.search(r"\bforget", _path())
    assert first and _path()[first.start() - 30 : first.start()].endswith("the user asks the store to ")


# 7. one word for the length limits


def test_the_length_limits_are_characters_where_an_emoji_may_count_as_two_everywhere():
    assert "emoji" not in limits_summary()  # second walk 25: said once on the path, in section 3
    section_3 = words(cell_source("01", "cell-10"))
    assert "lengths are in characters (an emoji may count as two)" in section_3
    assert "UTF-16" not in _path()
    assert "These code units are what the lesson calls characters in its limits" in _hood()


# 8. lesson 00 and the course map are linked


def test_the_opening_links_lesson_00_and_the_course_map():
    opening = cell_source("01", "cell-00")
    assert "[lesson 00](00_setup_and_backends.ipynb)" in opening
    assert f"[course map]({ROOT_DOCS}course_map.png)" in opening
    # the French title is provenance: it moved under the hood, the seed is still defined where first said
    assert "Faits contrôlés" not in opening and "Faits contrôlés et dérive du contexte" in _hood()
