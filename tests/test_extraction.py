"""Host-side admission: the writer proposes, the declarations and the store decide."""

import asyncio
import json

import pytest
from pydantic import ValidationError

from course_lib.assertions import ALLOWED_KEYS
from course_lib.clients import make_chat_client
from course_lib.extraction import (
    EMPTY_REPLY,
    EXAMPLE_SOURCE,
    FACTS_SCHEMA,
    MISMATCH,
    NO_FALLBACK,
    NO_FALLBACK_AFTER_STORE,
    WRITER_EXAMPLES,
    ChatFactWriter,
    FactBatch,
    MemoryExtraction,
    careful_batch,
    counted,
    counted_batch,
    declared_count,
    matches_declarations,
    reply_problem,
    writer_examples,
)
from course_lib.memory import MAX_CANDIDATES, MAX_EVIDENCE_CHARS, MAX_VALUE_CHARS, FactCandidate, WorkingMemory
from course_lib.memory_models import OfflineWriterClient
from course_lib.qualify import BATTERY
from course_lib.recordings import declared_pairs
from course_lib.tracing import CallLog


def extraction(misbehaviour=None, memory=None, log=None):
    memory = memory or WorkingMemory()
    return MemoryExtraction(memory, ChatFactWriter(OfflineWriterClient(misbehaviour, log=log)))


async def seeded(misbehaviour=None):
    ex = extraction(misbehaviour)
    ex.writer = ChatFactWriter(OfflineWriterClient())
    await ex.update("module=Reporting; database=PostgreSQL")
    ex.writer = ChatFactWriter(OfflineWriterClient(misbehaviour))
    return ex


async def test_careful_writer_is_admitted_with_citations():
    ex = extraction()
    report = await ex.update("module=Billing; database=SQL Server 2022")
    assert report.status == "accepted"
    assert [(f.key, f.value, f.evidence) for f in report.facts] == [
        ("database", "SQL Server 2022", "database=SQL Server 2022"),
        ("module", "Billing", "module=Billing"),
    ]


async def test_the_writer_sees_only_the_current_user_message():
    log = CallLog()
    ex = extraction(log=log)
    await ex.update("module=Reporting")
    await ex.update("database=PostgreSQL")
    last = log.calls[-1]
    callers = [(m.role, m.text) for m in last.messages if m.source is None]
    assert callers == [("user", "database=PostgreSQL")]
    assert last.messages[-1].text == "database=PostgreSQL"  # last: the offline writer and a model read it there
    examples = [m for m in last.messages if m.source is not None]
    assert {m.source for m in examples} == {EXAMPLE_SOURCE}
    assert [m.text for m in examples if m.role == "user"] == list(WRITER_EXAMPLES)
    assert "key=value" in last.instructions


def test_the_examples_keep_the_contract_and_share_no_value_with_the_battery():
    """Each example's reply is the careful batch; none of its values is one the battery or a lesson declares, so
    a writer that copies an example writes a visibly wrong fact (which the host refuses)."""
    turns = writer_examples()
    replies = [FactBatch.model_validate_json(m.text) for m in turns[1::2]]
    assert replies == [careful_batch(text) for text in WRITER_EXAMPLES]
    assert [len(r.facts) for r in replies] == [
        1,
        2,
        1,
        1,
        0,
        0,
    ]  # one, two, twice declared, unknown key, question, prose
    example_values = {f.value for r in replies for f in r.facts}
    battery_values = {value for case in BATTERY for _, value in declared_pairs(case)}
    assert example_values and not example_values & battery_values


def test_the_schema_bounds_the_request_but_parsing_stays_the_hosts():
    """The schema sent names the contract's keys, the batch limit and the store's lengths; a batch breaking them still
    parses, so the store refuses it with its own rule (an unknown key, a sixth candidate), as before."""
    items = FACTS_SCHEMA["items"]["properties"]
    assert items["key"]["enum"] == list(ALLOWED_KEYS)
    assert (FACTS_SCHEMA["maxItems"], items["value"]["maxLength"], items["evidence"]["maxLength"]) == (
        MAX_CANDIDATES,
        MAX_VALUE_CHARS,
        MAX_EVIDENCE_CHARS,
    )
    assert FactBatch.model_json_schema()["properties"]["facts"] == FACTS_SCHEMA | {"title": "Facts"}
    loose = [{"key": "owner", "value": "x" * 300, "evidence": "e"}] * (MAX_CANDIDATES + 1)
    assert len(FactBatch.model_validate({"facts": loose}).facts) == MAX_CANDIDATES + 1


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("module=Billing; database=SQL Server 2022", 2),
        ("priority=P3; priority=P2", 1),  # a key declared twice is one fact (the last)
        ("owner=dana; version=7", 1),  # an unknown key is no fact
        ("Which module are we on?", 0),
        ("; ".join(f"{key}=x" for key in ALLOWED_KEYS), MAX_CANDIDATES),  # never past the batch limit
    ],
)
def test_the_request_asks_for_as_many_candidates_as_the_message_declares(text, count):
    facts = counted(text).model_json_schema()["properties"]["facts"]
    assert (facts["minItems"], facts["maxItems"]) == (count, count)
    assert facts["items"] == FACTS_SCHEMA["items"]  # the keys and lengths stay the contract's
    assert counted(text).__name__ == "FactBatch" and counted(text) is counted_batch(count)


async def test_the_count_never_lets_a_wrong_fact_in():
    """A writer that fills the asked-for count with a guess is refused like any other: the count says how many, the
    host still decides which."""

    class Guessing:
        async def propose(self, user_text: str) -> FactBatch:
            return FactBatch(
                facts=[FactCandidate(key="module", value="Billing", evidence=user_text)] * declared_count(user_text)
            )

    memory = WorkingMemory()
    report = await MemoryExtraction(memory, Guessing()).update("module=Billing; database=SQL Server 2022")
    assert report.status == "rejected" and memory.facts == ()


async def test_a_question_is_nothing_to_extract_and_keeps_facts():
    ex = await seeded()
    report = await ex.update("Where can I find logs?")
    assert report.status == "nothing_to_extract"
    assert {f.key for f in report.facts} == {"module", "database"}


@pytest.mark.parametrize(
    ("misbehaviour", "status", "diagnostic"),
    [
        ("infer", "rejected", MISMATCH),
        ("drop", "rejected", MISMATCH),
        ("paraphrase", "rejected", "evidence is not an exact quote"),
        ("broken_json", "writer_failed", "The writer's reply stopped in the middle of its JSON"),
    ],
)
async def test_each_misbehaviour_is_refused_and_keeps_the_previous_facts(misbehaviour, status, diagnostic):
    ex = await seeded(misbehaviour)
    before = ex.memory.facts
    report = await ex.update("module=Billing\ndatabase=SQL Server 2022\nOur priority is high.")
    assert report.status == status
    if misbehaviour == "paraphrase":  # the store's refusal already says the store is unchanged: said once
        assert diagnostic in report.diagnostic and report.diagnostic.endswith(NO_FALLBACK_AFTER_STORE)
    else:
        assert diagnostic in report.diagnostic and NO_FALLBACK in report.diagnostic
    assert report.facts == before == ex.memory.facts


async def test_the_stores_refusal_says_once_that_nothing_changed_and_names_the_first_invalid_fact():
    """Lesson 02's walk: "...the store is unchanged. The previous facts are kept; ..." said the same thing twice."""
    ex = await seeded("paraphrase")
    report = await ex.update("module=Payments\ndatabase=Oracle")
    said = report.diagnostic
    assert said.count("unchanged") + said.count("kept") == 1, said
    assert said.startswith("Invalid fact #1 (module=Payments)") and "#2" not in said  # the first only
    assert said.endswith(f"the store is unchanged. {NO_FALLBACK_AFTER_STORE}")
    assert "module" in report.reason and "database" in report.reason  # the student's words name both keys


async def test_inference_alone_is_refused_even_when_the_words_are_quoted():
    ex = extraction("infer")
    report = await ex.update("Our database is Oracle now.")
    assert report.proposed == (FactCandidate(key="database", value="Oracle now", evidence="database is Oracle now"),)
    assert report.status == "rejected" and report.facts == ()


class ExplodingWriter:
    async def propose(self, user_text):
        raise ConnectionError("endpoint unreachable")


async def test_a_writer_exception_is_reported_without_fallback():
    ex = await seeded()
    ex.writer = ExplodingWriter()
    report = await ex.update("module=Billing")
    assert report.status == "writer_failed"
    assert "(ConnectionError): endpoint unreachable" in report.diagnostic and NO_FALLBACK in report.diagnostic
    assert {f.value for f in report.facts} == {"Reporting", "PostgreSQL"}


async def test_an_overlong_message_is_refused_before_any_writer_call():
    log = CallLog()
    ex = extraction(log=log)
    report = await ex.update("module=A;" + "x" * 5000)
    assert report.status == "rejected" and "limit is 4096" in report.diagnostic
    assert len(log) == 0 and ex.memory.turn == 0


class SlowWriter:
    def __init__(self, gate):
        self.gate = gate

    async def propose(self, user_text):
        await self.gate.wait()
        return FactBatch(facts=[FactCandidate(key="module", value="Billing", evidence="module=Billing")])


async def test_an_extraction_started_before_forget_finishes_forgotten_and_writes_nothing():
    memory = WorkingMemory()
    gate = asyncio.Event()
    ex = MemoryExtraction(memory, SlowWriter(gate))
    task = asyncio.create_task(ex.update("module=Billing"))
    await asyncio.sleep(0)
    memory.forget()
    gate.set()
    report = await task
    assert report.status == "forgotten" and report.facts == () and memory.facts == ()
    assert "forget ran" in report.diagnostic


def test_host_check_needs_the_same_count_and_values():
    declared = {"module": "Billing"}
    assert matches_declarations((FactCandidate(key="module", value="Billing", evidence="module=Billing"),), declared)
    assert not matches_declarations((), declared)
    assert not matches_declarations((FactCandidate(key="module", value="billing", evidence="x"),), declared)


BROKEN_REPLIES = {
    '{"facts": [{"key": "module", "value": "Bill': "stopped in the middle of its JSON",
    '{"facts": [': "stopped in the middle of its JSON",
    'Sure! {"facts": []}': "does not start with JSON",
    '```json\n{"facts": []}\n```': "does not start with JSON",
    '{"facts": []} Done.': "more text after its JSON ended",
    "{'facts': []}": "without double quotes",
    '{"facts": [{"key" "module"}]}': "misses the ':'",
    '{"facts": [{"key": "module"} {"key": "log"}]}': "misses a comma",
    '{"facts": [{"key": "module", "value": "a\x01"}]}': "raw line break or tab",
    '{"facts": [{"key": "module", "value": "\\q"}]}': "backslash sequence",
    '{"facts": [tru]}': "bare word",
    '{"facts": -}': "number that JSON cannot read",
}
"""Broken replies a model really writes, and the words each must be said in (pydantic's parser and Python's)."""


@pytest.mark.parametrize("reply", BROKEN_REPLIES)
def test_every_kind_of_broken_json_is_said_in_words_without_the_parsers_jargon(reply):
    with pytest.raises(ValidationError) as pydantic_error:
        FactBatch.model_validate_json(reply)
    said = reply_problem(pydantic_error.value)
    assert said.startswith("The writer's reply ") and BROKEN_REPLIES[reply] in said, said
    for jargon in ("EOF", "line 1", "column", "Invalid JSON", "FactBatch", "validation error", "ident"):
        assert jargon not in said
    with pytest.raises(json.JSONDecodeError) as python_error:
        json.loads(reply)
    python_said = reply_problem(python_error.value)
    assert python_said.startswith("The writer's reply ") and "line 1" not in python_said
    if "middle" in BROKEN_REPLIES[reply] or "start" in BROKEN_REPLIES[reply]:
        assert python_said == said, "both parsers say a cut or a prose reply the same way"


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ('{"facts": {}}', 'The writer\'s reply has "facts" that is not a list.'),
        ('{"facts": [1]}', "The writer's reply has fact 1 that is not an object."),
        ("[]", 'The writer\'s reply is not a JSON object with a "facts" list.'),
        (
            '{"facts": [{"key": "module", "value": 3, "evidence": "x"}]}',
            'The writer\'s reply has "value" in fact 1 that is not a text.',
        ),
    ],
)
def test_json_of_the_wrong_shape_is_said_in_words(reply, said):
    with pytest.raises(ValidationError) as error:
        FactBatch.model_validate_json(reply)
    assert reply_problem(error.value) == said


class EmptyReplyClient(OfflineWriterClient):
    def answer(self, messages, options):
        return ""


async def test_an_empty_writer_reply_is_said_in_words_and_changes_nothing():
    ex = await seeded()
    before = ex.memory.facts
    ex.writer = ChatFactWriter(EmptyReplyClient())
    report = await ex.update("module=Billing")
    assert report.status == "writer_failed" and report.diagnostic == f"{EMPTY_REPLY} {NO_FALLBACK}"
    assert "NoneType" not in report.diagnostic and ex.memory.facts == before


async def test_a_writer_call_says_where_its_characters_went() -> None:
    """Lesson 00's usage table shows 1096 characters for a 14-character message: the sentence accounts for each."""
    log = CallLog()
    await MemoryExtraction(WorkingMemory(), ChatFactWriter(make_chat_client("writer", log=log))).update(
        "module=Billing"
    )
    call = log.calls[-1]
    instructions, examples = len(call.instructions or ""), sum(len(m.text) for m in call.messages[:-1])
    assert instructions and examples and instructions + examples + len("module=Billing") == call.chars_sent
    assert call.chars_words() == (
        f"The writer was sent {call.chars_sent} characters for its 14-character message 'module=Billing': "
        f"{instructions} of instructions and {examples} of earlier messages sent with it."
    )
