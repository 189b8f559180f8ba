"""What a panel says about one message, in a student's words: :func:`course_lib.extraction.report_in_words`.

The panels of lessons 02, 03 and 07 show this sentence, not the report's status and diagnostic (which name the batch,
a candidate's number and "no fallback extraction"). Every outcome a message can have is said, and each refusal names
the key and the rule in words, from the rule that refused it (never one input's wording).
"""

import asyncio

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.capstone import record_superseded
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import (
    ChatFactWriter,
    ExtractionReport,
    GatedWriter,
    MemoryExtraction,
    make_extraction,
    make_fact_writer,
    mismatch_words,
    report_in_words,
)
from course_lib.memory import Fact, FactCandidate, InvalidFacts, WorkingMemory, validate_batch
from course_lib.memory_models import OfflineWriterClient

JARGON = ("#1", "batch", "fallback", "Admitted", "fact(s)", "accepted", "rejected", "'module'=")


async def said(text: str, writer: str | None = None, memory: WorkingMemory | None = None) -> str:
    store = memory if memory is not None else WorkingMemory()
    extraction = (
        make_extraction(store)
        if writer is None
        else MemoryExtraction(store, ChatFactWriter(OfflineWriterClient(writer)))
    )
    sentence = report_in_words(await extraction.update(text))
    assert not any(word in sentence for word in JARGON), sentence
    return sentence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("module=Payroll", "Stored: module."),
        ("module=Payroll; database=MariaDB 11", "Stored: module and database."),
        ("product=A; module=B; database=C", "Stored: product, module and database."),
        ("Which module are we on?", "Nothing stored: the message holds no declaration the contract accepts."),
        (
            "module=" + "A" * 300,
            "Not stored: the value given for module has 300 characters; a value may have at most 256. "
            "The store is unchanged.",
        ),
        (
            "; ".join(f"{k}=v" for k in ("product", "module", "priority", "database", "constraint", "customer")),
            "Not stored: one message may declare at most 5 facts, and this one declares 6. The store is unchanged.",
        ),
        ("x" * 5000, "Not stored: your message has 5000 characters; a message may have at most 4096."),
    ],
)
async def test_each_outcome_of_a_message_is_one_plain_sentence(text, expected):
    assert (await said(text)).startswith(expected)


@pytest.mark.parametrize(
    ("writer", "expected"),
    [
        ("paraphrase", "Not stored: the words quoted for module are not in your message."),
        ("broken_json", "Not stored: the writer's reply stopped in the middle of its JSON"),
    ],
)
async def test_a_writer_that_misbehaves_is_said_in_words(writer, expected):
    assert (await said("module=Billing", writer)).startswith(expected)


@pytest.mark.parametrize(
    ("writer", "expected"),
    [
        ("infer", "Not stored: the writer proposed priority, which your message does not declare, and no guess"),
        ("drop", "Not stored: the writer left out database, which your message declares. The store is unchanged."),
    ],
)
async def test_a_batch_the_host_check_refuses_names_the_key_that_broke_it(writer, expected):
    # issue 32: the infer and drop rows of lesson 02's table said the same words and named no key
    assert (await said("module=Payments\ndatabase=Oracle\nOur priority is high.", writer)).startswith(expected)


def test_no_guess_is_said_only_when_the_writer_guessed():
    """A writer that only left a declaration out guessed nothing: "and no guess is stored" would mislead."""
    declared = {"module": "Payments", "database": "Oracle"}
    left_out = (FactCandidate(key="module", value="Payments", evidence="module=Payments"),)
    twice = left_out * 2 + (FactCandidate(key="database", value="Oracle", evidence="database=Oracle"),)
    added = (*left_out, FactCandidate(key="priority", value="high", evidence="priority is high"))
    assert "guess" not in mismatch_words(left_out, declared)
    assert "guess" not in mismatch_words(twice, declared)
    assert mismatch_words(added, {"module": "Payments"}).endswith(", and no guess is stored")


def test_a_changed_value_is_named_with_the_value_the_writer_proposed():
    proposed = (FactCandidate(key="module", value="Payroll", evidence="module=Payments"),)
    assert mismatch_words(proposed, {"module": "Payments"}) == (
        "the writer proposed module=Payroll, not the value your message declares, and no guess is stored"
    )


def test_every_rule_of_the_store_names_the_key_in_words():
    """Each candidate rule's plain words name the key, not the candidate's place in the batch."""
    cases = {
        "the value given for module is blank": [FactCandidate(key="module", value=" ", evidence="module= ")],
        "module is declared twice": [FactCandidate(key="module", value="A", evidence="module=A")] * 2,
        "none of your words were quoted for module": [FactCandidate(key="module", value="A", evidence=" ")],
        "the value given for module is not in the words it quotes": [
            FactCandidate(key="module", value="B", evidence="module=A")
        ],
        "'owner' is not one of the allowed keys": [FactCandidate(key="owner", value="A", evidence="owner=A")],
    }
    for words, batch in cases.items():
        with pytest.raises(InvalidFacts) as refused:
            validate_batch("module=A; module= ; owner=A", batch)
        assert words in refused.value.plain and "#1" not in refused.value.plain


@pytest.mark.parametrize(
    ("database", "expected"),
    [
        (
            FactCandidate(key="database", value="Oracle", evidence="The database is Oracle."),
            "the words quoted for module are not in your message; the same goes for database",
        ),
        (
            FactCandidate(key="database", value=" ", evidence="database=Oracle"),
            "the words quoted for module are not in your message; the value given for database is blank",
        ),
    ],
)
def test_every_candidate_that_breaks_a_rule_is_named_not_only_the_first(database, expected):
    """A paraphrasing writer misquotes every key: naming module alone let a student think database was fine."""
    module = FactCandidate(key="module", value="Payments", evidence="The module is Payments.")
    with pytest.raises(InvalidFacts) as refused:
        validate_batch("module=Payments; database=Oracle", [module, database])
    assert refused.value.plain == expected
    assert "Invalid fact #1" in str(refused.value) and "#2" not in str(refused.value)  # the seed's words: the first


async def test_a_turn_overtaken_by_a_forget_or_a_newer_message_says_so():
    store = WorkingMemory()
    gated = GatedWriter(make_fact_writer())
    extraction = MemoryExtraction(store, gated)
    pending = asyncio.ensure_future(extraction.update("module=Billing"))
    await gated.started.wait()
    store.forget()
    gated.release()
    assert report_in_words(await pending).startswith("Not stored: a Forget ran while this message was being read")
    begun = extraction.begin("module=Billing")
    extraction.begin("database=Oracle")
    assert report_in_words(await extraction.complete(begun)).startswith("Not stored: a newer message began")


def test_a_report_without_plain_words_falls_back_to_its_diagnostic_not_to_nothing():
    report = ExtractionReport(status="rejected", facts=(), diagnostic="Some rule broke.")
    assert report_in_words(report) == "Not stored: Some rule broke. The store is unchanged."


async def test_every_panel_says_the_same_words():
    """Lesson 07's panel and lesson 02's say one sentence for one outcome (the capstone panel is lesson 02's)."""
    panel = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    await panel.submit("module=" + "A" * 300)
    assert "Not stored: the value given for module has 300 characters" in panel.diagnostic.value
    await panel.submit("module=Payroll")
    assert "Stored: module." in panel.diagnostic.value and "Admitted" not in panel.diagnostic.value


async def test_each_store_action_on_the_capstone_panel_replaces_the_status_of_the_one_before():
    """A check changes nothing in the store, so it leaves the store's status as it was (lesson 07's fifteenth walk)."""
    panel = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    panel.task.index = 1  # a question that plans nothing: no constraint is due
    await panel.submit("module=Payroll")
    assert "Stored: module." in panel.diagnostic.value
    stored = panel.diagnostic.value
    panel.answer.value = "The module is Payroll."
    panel.check_button.click()
    await panel.idle()
    assert panel.diagnostic.value == stored and "No violation" in panel.verdict.value
    panel.key.value = "module"
    panel.forget_key_button.click()
    await panel.idle()
    assert "Forgot module" in panel.diagnostic.value and "No violation" not in panel.verdict.value


def test_record_superseded_returns_each_replaced_value_with_the_fact_that_replaced_it():
    store = WorkingMemory()
    store.apply(
        store.begin_turn("module=Billing"), [FactCandidate(key="module", value="Billing", evidence="module=Billing")]
    )
    now = store.facts
    superseded: dict[str, list[str]] = {"module": ["Reporting"]}
    replaced = record_superseded({"module": "Reporting"}, now, superseded)
    assert replaced == [("Reporting", now[0])] and superseded == {"module": ["Reporting"]}  # listed once
    assert record_superseded({"module": "Billing."}, now, superseded) == []  # the same value to the evaluator
    assert isinstance(replaced[0][1], Fact)


def test_record_superseded_drops_a_value_made_current_again_and_keeps_the_latest_replacement_last():
    store = WorkingMemory()
    for value in ("Paie", "Billing", "Paie"):
        said = f"module={value}"
        store.apply(store.begin_turn(said), [FactCandidate(key="module", value=value, evidence=said)])
    superseded: dict[str, list[str]] = {"module": ["Reporting", "Billing", "Paie"]}
    record_superseded({"module": "Billing"}, store.facts, superseded)  # Paie again: Billing replaced, Paie current
    assert superseded == {"module": ["Reporting", "Billing"]}
    said = "module=Reporting"
    store.apply(store.begin_turn(said), [FactCandidate(key="module", value="Reporting", evidence=said)])
    record_superseded({"module": "Paie"}, store.facts, superseded)
    assert superseded == {"module": ["Billing", "Paie"]}  # Reporting is current; Paie was replaced last


async def test_a_table_about_a_message_the_cell_wrote_says_the_message_not_yours():
    """Lesson 02's table of erring writers: the cell wrote the message, so "your message" would be untrue (issue 32);
    the panels, where the student typed it, keep "your"."""
    store = WorkingMemory()
    inferred = await MemoryExtraction(store, ChatFactWriter(OfflineWriterClient("infer"))).update(
        "module=A\nOur priority is high."
    )
    assert "which the message does not declare" in report_in_words(inferred, message="the message")
    assert "which your message does not declare" in report_in_words(inferred)
    quoted = await MemoryExtraction(store, ChatFactWriter(OfflineWriterClient("paraphrase"))).update("module=A")
    assert "the words quoted for module are not in the message" in report_in_words(quoted, message="the message")


async def test_the_console_names_what_a_correction_replaced():
    """Lesson 02's console said "Stored: module and database." for the first statement and for its correction, word
    for word; the line now names the values the correction replaced, from the store before the batch (issue 32)."""
    from course_lib.providers import memory_line

    extraction = make_extraction(WorkingMemory())
    first = await extraction.update("module=Reporting; database=PostgreSQL")
    assert memory_line(first) == "[memory] Stored: module and database."
    corrected = await extraction.update("module=Billing; database=SQL Server 2022")
    assert memory_line(corrected) == (
        "[memory] Stored: module and database (module replaced 'Reporting', database replaced 'PostgreSQL')."
    )
    assert report_in_words(corrected) == "Stored: module and database."  # the panels show the facts beside it
    again = await extraction.update("module=Billing; priority=high")  # the same value again replaces nothing
    assert memory_line(again) == "[memory] Stored: module and priority."
