"""Host-side admission: the writer proposes, the declarations and the store decide."""

import asyncio

import pytest

from course_lib.extraction import (
    MISMATCH,
    NO_FALLBACK,
    ChatFactWriter,
    FactBatch,
    MemoryExtraction,
    matches_declarations,
)
from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.memory_models import OfflineWriterClient
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
    assert [(m.role, m.text) for m in last.messages] == [("user", "database=PostgreSQL")]
    assert "key=value" in last.instructions


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
        ("broken_json", "writer_failed", "the reply is not valid JSON"),
    ],
)
async def test_each_misbehaviour_is_refused_and_keeps_the_previous_facts(misbehaviour, status, diagnostic):
    ex = await seeded(misbehaviour)
    before = ex.memory.facts
    report = await ex.update("module=Billing\ndatabase=SQL Server 2022\nOur priority is high.")
    assert report.status == status
    assert diagnostic in report.diagnostic and NO_FALLBACK in report.diagnostic
    assert report.facts == before == ex.memory.facts


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
    assert "ConnectionError: endpoint unreachable" in report.diagnostic and NO_FALLBACK in report.diagnostic
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
