"""Lesson 02's sixth walk (issue 32): the eviction note names every fact a turn pushed out, says the rule once and
the store's own bound, and quotes a value that holds '=', ',' or ';'; "citation" is defined where it first appears."""

import json
import re
from pathlib import Path

from course_lib.assertions import shown_pair
from course_lib.extraction import ChatFactWriter, MemoryExtraction, mismatch_words
from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.memory_models import OfflineWriterClient
from course_lib.widgets import MemoryPanel
from tests.support.panels import memory_panel, said, submit

LESSON_02 = Path(__file__).resolve().parents[1] / "notebooks" / "02_correct_then_forget.ipynb"


async def test_a_turn_that_pushes_out_two_facts_names_both_and_says_the_rule_once() -> None:
    panel = memory_panel()
    await submit(panel, "product=Contoso; customer=Fabrikam")
    await submit(panel, "module=Billing; database=SQL Server 2022; version=2.1")
    await submit(panel, "symptom=timeout; priority=P1")
    text = said(panel)
    assert text.count("at most 5 facts") == 1
    assert (
        "The store holds at most 5 facts, so the oldest facts go: customer=Fabrikam and product=Contoso (turn 1, the "
        "oldest) were pushed out to make room." in text
    )


async def test_facts_pushed_out_of_two_turns_are_each_named_with_their_turn() -> None:
    panel = memory_panel()
    await submit(panel, "product=Contoso")
    await submit(panel, "customer=Fabrikam; module=Billing")
    await submit(panel, "database=SQL Server 2022; version=2.1")
    await submit(panel, "symptom=timeout; priority=P1; log=a.log")
    text = said(panel)
    assert text.count("at most 5 facts") == 1
    assert (
        "The store holds at most 5 facts, so the oldest facts go: product=Contoso (turn 1, the oldest), then "
        "customer=Fabrikam and module=Billing (turn 2, the oldest left) were pushed out to make room." in text
    )
    assert [f.key for f in panel.memory.facts] == ["database", "version", "log", "priority", "symptom"]


async def test_the_note_says_the_bound_of_the_store_it_is_about() -> None:
    panel = MemoryPanel(MemoryExtraction(WorkingMemory(2), ChatFactWriter(OfflineWriterClient())))
    await submit(panel, "product=Contoso; customer=Fabrikam")
    await submit(panel, "symptom=timeout")
    assert "The store holds at most 2 facts" in said(panel)


async def test_a_value_holding_an_equals_sign_or_a_comma_is_quoted_where_the_note_lists_it() -> None:
    panel = memory_panel()
    await submit(panel, "product=Contoso, Inc; customer=a=b")
    await submit(panel, "module=Billing; database=SQL Server 2022; version=2.1")
    await submit(panel, "symptom=timeout; priority=P1")
    assert 'customer="a=b" and product="Contoso, Inc" (turn 1, the oldest)' in said(panel)


def test_a_pair_is_quoted_only_when_its_value_could_be_misread() -> None:
    assert shown_pair("module", "Billing") == "module=Billing"
    assert shown_pair("database", "SQL Server 2022") == "database=SQL Server 2022"
    assert shown_pair("customer", "a=b") == 'customer="a=b"'
    assert shown_pair("product", "Contoso, Inc") == 'product="Contoso, Inc"'
    assert shown_pair("symptom", "slow; then down") == 'symptom="slow; then down"'


def test_a_value_the_writer_changed_is_quoted_when_it_holds_a_comma() -> None:
    """The host check's refusal lists key=value pairs too: 'customer=Contoso, Inc and module=Billing' is ambiguous."""
    proposed = (FactCandidate(key="customer", value="Contoso, Inc", evidence="customer=Contoso"),)
    assert 'the writer proposed customer="Contoso, Inc", not the value' in mismatch_words(
        proposed, {"customer": "Contoso"}
    )


def test_citation_is_defined_in_the_sentence_where_lesson_02_first_says_it() -> None:
    cells = json.loads(LESSON_02.read_text(encoding="utf-8"))["cells"]
    prose = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    first = re.search(r"citation", prose, re.IGNORECASE)
    assert first is not None
    sentence_start = max(prose.rfind(mark, 0, first.start()) for mark in (". ", "\n\n", "\n- ", "\n* "))
    ends = (prose.find(mark, first.end()) for mark in (". ", "\n\n", "\n- ", "\n* "))
    sentence_end = min(i for i in ends if i != -1)
    sentence = prose[sentence_start:sentence_end]
    assert "evidence" in sentence, sentence
