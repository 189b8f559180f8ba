"""Lesson 01's second walk 21 (issue 32, polish): each finding checked at its rule.

1. Section 2 brings in its words as a short list, one term a bullet, each defined; the sentence on the facts
   table's order stands next to the table it describes, and is true of what that table prints.
2. Section 3 leads with the order of the checks in one sentence, true of the table's rows and of the store; the
   examples after the table each say what the printed rule-order table shows, the size rule included.
3. The objectives call a batch's content the candidates proposed for one message, never facts.
4. "Under the hood" says what the offline models are where it names them.
"""

from __future__ import annotations

import re
from html import unescape

from test_lesson01_walk19 import _cells, _words

from course_lib.memory import CANDIDATE_RULES, MAX_CANDIDATES, FactCandidate, InvalidFacts, WorkingMemory


def _cell(cell_id: str):
    return next(c for c in _cells() if c.get("id") == cell_id)


def _index(cell_id: str) -> int:
    return next(i for i, c in enumerate(_cells()) if c.get("id") == cell_id)


def _rows(cell) -> list[list[str]]:
    """The rows of the table a cell displays, each cell's text as a student reads it."""
    html = "".join(o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {}))
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S) for row in rows]
    return [[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row] for row in cells if row]


def _bullets(text: str) -> list[str]:
    return [_words(b) for b in re.findall(r"^- (.*(?:\n  .*)*)", text, flags=re.M)]


# --- finding 1: section 2's words, one a bullet; the order sentence beside its table ---


def test_section_2_brings_in_its_words_one_bullet_each():
    source = _cell("cell-08").source
    # second walk 22: ticket, epoch, candidate and batch are in the word list, which section 2 points back to;
    # walk 23: three short paragraphs (two steps, why a ticket, the cell) in place of a list of four bullets
    terms = re.findall(r"\*\*([^*]+)\*\*", source)
    # walk 24: the seal is defined here, where the lesson first names it
    assert terms == ["Extraction", "seal"], terms
    assert "*Words used in these lessons* above" in _words(source)
    assert re.search(r"\*\*Extraction\*\* is ", source)  # said what it is
    paragraphs = [p for p in source.split("\n\n") if not p.lstrip().startswith("#")]
    # walk 25: a paragraph re-wrapped at 90 characters takes four source lines where it took three long ones;
    # what stays short is what a student reads: at most four sentences a paragraph, the density rule
    assert len(paragraphs) == 3 and all(len(p.splitlines()) <= 4 for p in paragraphs), paragraphs
    assert all(len(re.split(r"(?<=[.?!])\s+(?=[A-Z*`])", " ".join(p.split()))) <= 4 for p in paragraphs), paragraphs
    assert "oldest turn first" not in source


def test_the_facts_tables_order_is_said_beside_the_table_and_is_true_of_it():
    table = _index("cell-09")
    after = _cells()[table + 1]
    assert after.cell_type == "markdown"
    words = _words(after.source)
    assert "oldest turn first, and the facts of one turn by key in ordinal order" in words
    rows = _rows(_cells()[table])
    keys, turns = [r[0] for r in rows], [int(r[3]) for r in rows]
    assert list(zip(turns, keys, strict=True)) == sorted(zip(turns, keys, strict=True))
    assert set(turns) == {1} and "Both facts here are from turn 1, so `database` comes before `module`" in words
    assert keys == ["database", "module"]


# --- finding 2: section 3 leads with the order of the checks, then examples true of the printed table ---

RULE = (  # third walk 23: under the hood, under a heading of its own
    "The store checks the batch's size first (the last row of section 3's first table). Then it takes"
    " candidate #1 through the other rules in the order of that table's rows, then #2, and so on. The refusal names"
    " the first rule broken"
)


def test_section_3_says_the_order_of_the_checks_under_its_first_table():
    # walk 22: the order was said before the table it names; it now sits under it, beside the examples of it
    assert "order of the checks" not in _cell("cell-10").source
    assert RULE in _words(_cell("hood-rule-order").source)
    rows = _rows(_cell("cell-11"))
    cases = [r[0] for r in rows]
    assert cases[-1] == "too many candidates"  # the size rule is the last row
    assert cases[:-1] == list(CANDIDATE_RULES)  # and the other rows are the order the candidates are checked in
    assert "The store checks a batch's size first" not in _words(_cell("0f7eb014").source)


def test_the_size_is_checked_before_any_candidate():
    text = "module=Billing; owner=alice"
    stranger = FactCandidate(key="owner", value="alice", evidence="owner=alice")
    billing = FactCandidate(key="module", value="Billing", evidence="module=Billing")
    store = WorkingMemory()
    try:
        store.apply(store.begin_turn(text), [stranger] + [billing] * MAX_CANDIDATES)
    except InvalidFacts as error:
        assert (error.candidate, error.rule) == (0, "too many candidates")
    else:
        raise AssertionError("a batch of six was admitted")


def test_each_example_says_what_the_rule_order_table_prints():
    table = _rows(_cell("rule-order"))
    examples = _bullets(_cell("hood-rule-order").source)
    assert len(examples) == len(table) == 4
    for example, (_batch, refused_under) in zip(examples, table, strict=True):
        where, _, rule = refused_under.partition(": ")
        assert f"refused under *{rule}*" in example, (example, refused_under)
        assert where == ("the batch" if rule == "too many candidates" else "#1"), refused_under
    assert table[0] == ["6 candidates, #1: unknown key", "the batch: too many candidates"]
    assert table[-1] == ["#1: value not in evidence, #2: unknown key", "#1: value not in evidence"]


# --- finding 3: the objectives call a batch's content candidates ---


def test_the_objectives_call_a_batchs_content_candidates():
    top = _words(_cell("cell-00").source)
    # walk 23: an objective defines nothing; the word list says what a batch is, in candidates
    assert "list every rule a batch can break" in top
    assert "the facts proposed for one message" not in top
    assert "**batch**: the candidates proposed for one user message" in _words(_cell("8deb2299").source)


# --- finding 4: the offline models said where the hood names them ---


def test_the_hood_says_what_the_offline_models_are():
    words = _words(" ".join(c.source for c in _cells()[_index("under-the-hood") :] if c.cell_type == "markdown"))
    assert "every text the [offline models](../docs/glossary.md#offline) read (the course's scripted models," in words
    assert "lesson 00)" in words
