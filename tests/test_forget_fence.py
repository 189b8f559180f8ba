"""Issue 33, first half: forget is final and the block stays a fence, on every client a desk or its loop calls.

Each test is an attack of the red-team pass: a forgotten value that is one of the block's own words (``facts``,
``user``, ``database``, ``data``, ``instructions``), a forgotten value written another way (case, width,
compatibility forms, NFD, spaces, invisible characters, a hyphen or underscore compound), a value forgotten under
one key and still held under another, and the judge a loop calls beside its desk.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable

import pytest
from agent_framework import AgentSession, Message

from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.forgetting import Forgetting, carries_forgotten
from course_lib.loop import AIJudgeLoopEvaluator, LoopAgent, LoopAgentOptions
from course_lib.memory import PROMPT_BLOCK_FOOTER, PROMPT_BLOCK_HEADER, FactCandidate, WorkingMemory, parse_prompt_block
from course_lib.memory_models import OfflineAssistantClient, OfflineWriterClient
from course_lib.offline import OfflineChatClient
from course_lib.providers import DESK_INSTRUCTIONS, DeskConsole, ManualInjectionDesk, ProviderDesks, forget_filter


class SeenDesk(OfflineAssistantClient):
    """The desk model, keeping the texts of every call it was sent."""

    def __init__(self) -> None:
        super().__init__("latest", name="desk")
        self.calls: list[list[str]] = []

    def answer(self, messages, options):
        self.calls.append([m.text for m in messages])
        return super().answer(messages, options)


class SeenWriter(OfflineWriterClient):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def answer(self, messages, options):
        self.calls.append([m.text for m in messages])
        return super().answer(messages, options)


def manual(desk: SeenDesk) -> ManualInjectionDesk:
    """A manual desk built by hand, with no filter of its own: the console holds it to the store's forgets."""
    from agent_framework import Agent

    extraction = MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient()))
    return ManualInjectionDesk(Agent(client=desk, name="desk", instructions=DESK_INSTRUCTIONS), extraction)


def provider(desk: SeenDesk) -> ProviderDesks:
    from course_lib.extraction import make_extraction

    return ProviderDesks.build(make_extraction(), {"desk": desk}, {"desk": DESK_INSTRUCTIONS})


async def held_history(declared: str, earlier: str, forget: Callable[[DeskConsole], object], *, stream: bool = False):
    """A provider desk that held ``declared``, a session (no forget replaces it) that said ``earlier``, ``forget``
    run, then one more call on that session: return the texts that call was sent."""
    desk = SeenDesk()
    console = provider(desk)
    await console.handle(declared)
    session = AgentSession()
    await console.agents["desk"].run(earlier, session=session)
    forget(console)
    if stream:
        async for _ in console.agents["desk"].run("And now?", session=session, stream=True):
            pass
    else:
        await console.agents["desk"].run("And now?", session=session)
    return desk.calls[-1]


PATHS = {"manual": manual, "provider": provider}


async def forget_then_ask(path: str, declared: str, key: str, question: str) -> tuple[DeskConsole, str]:
    desk = SeenDesk()
    console = PATHS[path](desk)
    await console.handle(declared)
    console.forget(key)
    await console.handle(question)
    return console, "\n".join(desk.calls[-1])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("word", ["facts", "user", "controlled", "data", "instructions", "end", "unverified"])
async def test_forgetting_a_word_of_the_frame_keeps_the_block_whole(path, word):
    _, sent = await forget_then_ask(path, f"customer={word}; database=PostgreSQL", "customer", "Which one?")
    assert PROMPT_BLOCK_HEADER in sent.splitlines() and PROMPT_BLOCK_FOOTER in sent.splitlines()
    assert parse_prompt_block(sent) == [("database", "PostgreSQL")]


@pytest.mark.parametrize("path", PATHS)
async def test_forgetting_a_value_that_is_a_key_keeps_the_held_fact_line(path):
    _, sent = await forget_then_ask(path, "symptom=database; database=PostgreSQL", "symptom", "Which one?")
    assert parse_prompt_block(sent) == [("database", "PostgreSQL")]
    assert '- database = "PostgreSQL"' in sent


@pytest.mark.parametrize("path", PATHS)
async def test_the_users_later_question_is_sent_as_typed(path):
    _, sent = await forget_then_ask(path, "symptom=database; database=PostgreSQL", "symptom", "Which database am I on?")
    assert "Which database am I on?" in sent


async def test_the_manual_desk_reads_the_block_as_facts_not_as_the_users_words():
    console, _ = await forget_then_ask("manual", "customer=facts; database=PostgreSQL", "customer", "mem?")
    event = await console.handle("Which database am I on?")
    assert "PostgreSQL" in event.reply


VARIANTS = [
    ("module=Reporting", "You use the Reporting-based module."),
    ("module=Reporting", "Try Reporting_v2 next."),
    ("module=Reporting", "You use REPORTING."),
    ("module=Reporting", "Rep\u200borting is yours."),
    ("module=Reporting", "\uff52\uff45\uff50\uff4f\uff52\uff54\uff49\uff4e\uff47 (full width)."),
    ("database=SQL Server 2022", "You run SQL  Server 2022."),
    ("database=SQL Server 2022", "You run SQL\xa0Server\xa02022."),
    ("database=SQL Server 2022", "You run SQL\nServer 2022."),
    ("customer=Straße", "Customer STRASSE called."),
    ("customer=Café", "Customer " + unicodedata.normalize("NFD", "Café") + " called."),
]


@pytest.mark.parametrize(("declared", "mention"), VARIANTS, ids=[v[1] for v in VARIANTS])
async def test_a_forgotten_value_written_another_way_reaches_no_later_call(declared, mention):
    key, _, value = declared.partition("=")
    sent = await held_history(declared, f"Earlier: {mention}", lambda console: console.forget(key))
    assert carries_forgotten(f"Earlier: {mention}", [(key, value)])
    assert not any(carries_forgotten(t, [(key, value)]) for t in sent)
    assert "Earlier:" in "\n".join(sent)  # the rest of the message still goes


async def test_a_value_held_under_another_key_goes_but_not_the_forgotten_association():
    earlier = "Earlier you said module=Billing."
    sent = "\n".join(await held_history("module=Billing; customer=Billing", earlier, lambda c: c.forget("module")))
    assert "module=Billing" not in sent and "Earlier you said module=" in sent
    assert ("customer", "Billing") in parse_prompt_block(sent)


class SeenJudge(OfflineChatClient):
    """A judge that keeps what it was sent and always asks for more."""

    def __init__(self) -> None:
        super().__init__(name="judge")
        self.calls: list[list[str]] = []

    def answer(self, messages, options):
        self.calls.append([m.text for m in messages])
        return '{"answered": false, "gapAnalysis": "say more"}'


async def test_the_judge_a_loop_calls_around_a_desk_is_held_to_the_forget():
    desk = SeenDesk()
    console = provider(desk)
    await console.handle("module=Reporting; database=PostgreSQL")
    answer = desk.answer

    def forget_while_answering(messages, options):  # the answer is made from the block, then the forget runs
        reply = answer(messages, options)
        console.forget("module")
        return reply

    desk.answer = forget_while_answering  # type: ignore[method-assign]
    judge = SeenJudge()
    loop = LoopAgent(console.agents["desk"], AIJudgeLoopEvaluator(judge), LoopAgentOptions(max_iterations=2))
    response = await loop.run("Which module and database am I on?", session=console.sessions["desk"])
    assert "Reporting" in response.messages[0].text  # the desk's first answer was made before the forget
    assert judge.calls, "the judge was never called"
    assert not any(carries_forgotten(t, [("module", "Reporting")]) for t in judge.calls[0])
    assert any("PostgreSQL" in t for t in judge.calls[0])  # what was not forgotten is still quoted


async def test_a_writer_call_that_starts_after_the_forget_is_not_sent_the_forgotten_turn():
    writer = SeenWriter()
    memory = WorkingMemory()
    held = forget_filter(memory)
    extraction = MemoryExtraction(memory, ChatFactWriter(writer, middleware=[held]))
    assert (await extraction.update("module=Reporting")).status == "accepted"
    begun = extraction.begin("module=Reporting; database=PostgreSQL")
    extraction.memory.check_ticket(begun)  # valid now; the forget comes between the check and the call

    async def propose_after_forget(text: str):
        held.forget()
        return await ChatFactWriter.propose(extraction.writer, text)

    extraction.writer.propose = propose_after_forget  # type: ignore[method-assign]
    report = await extraction.complete(begun)
    assert report.status in {"forgotten", "rejected"}
    assert not any(carries_forgotten(t, [("module", "Reporting")]) for t in writer.calls[-1])
    assert memory.facts == ()


@pytest.mark.parametrize("stream", [False, True], ids=["run", "streamed"])
@pytest.mark.parametrize("how", ["console", "store"], ids=["console forget", "store forget (a panel's)"])
async def test_a_forget_by_any_path_holds_the_next_call_streamed_or_not(how, stream):
    def forget(console: DeskConsole) -> None:
        (console.forget if how == "console" else console.memory.forget)("module")

    sent = await held_history("module=Reporting", "I use Reporting.", forget, stream=stream)
    assert not any(carries_forgotten(t, [("module", "Reporting")]) for t in sent)
    assert any("I use [forgotten]." in t for t in sent)


def test_messages_of_the_caller_objects_are_not_changed():
    memory = WorkingMemory()
    held = forget_filter(memory)
    memory.apply(memory.begin_turn("module=Reporting"), [])
    ticket = memory.begin_turn("module=Reporting")
    memory.apply(ticket, [FactCandidate(key="module", value="Reporting", evidence="module=Reporting")])
    original = Message(role="assistant", contents=["You use Reporting."])
    held.forget("module")
    sent = held.redacted([original])
    assert original.text == "You use Reporting." and "Reporting" not in sent[0].text
    assert asyncio.iscoroutinefunction(held.process)


async def test_the_course_writer_is_held_to_its_stores_forgets():
    from course_lib.extraction import make_extraction
    from course_lib.tracing import CallLog

    log, memory = CallLog(), WorkingMemory()
    extraction = make_extraction(memory, log=log)
    assert (await extraction.update("module=Reporting")).status == "accepted"
    begun = extraction.begin("module=Reporting; database=PostgreSQL")
    propose = extraction.writer.propose

    async def propose_after_forget(text: str):
        memory.forget("module")
        return await propose(text)

    extraction.writer.propose = propose_after_forget  # type: ignore[method-assign]
    assert (await extraction.complete(begun)).status == "forgotten"
    sent = [m.text for m in log.calls[-1].messages]
    assert not any(carries_forgotten(t, [("module", "Reporting")]) for t in sent), sent


async def test_words_said_after_the_forget_go_as_typed_even_with_a_line_break_at_their_edge():
    desk = SeenDesk()
    console = manual(desk)
    await console.handle("symptom=database; database=PostgreSQL")
    console.forget("symptom")
    await console.handle("Which database am I on?\n")
    assert "Which database am I on?\n" in "\n".join(desk.calls[-1])


async def test_a_held_client_records_what_was_sent_after_redaction_as_a_live_client_does():
    from course_lib.forgetting import hold_client
    from course_lib.tracing import CallLog, RecordingMiddleware

    log, memory = CallLog(), WorkingMemory()
    client = OfflineAssistantClient()
    client.chat_middleware.append(RecordingMiddleware(log, "desk"))  # a live client records in its own middleware
    hold_client(client, memory)
    ticket = memory.begin_turn("module=Reporting")
    memory.apply(ticket, [FactCandidate(key="module", value="Reporting", evidence="module=Reporting")])
    memory.forget("module")
    await client.get_response([Message(role="user", contents=["I use Reporting."])])
    assert [m.text for m in log.calls[-1].messages] == ["I use [forgotten]."]


def admit(memory: WorkingMemory, key: str, value: str) -> None:
    ticket = memory.begin_turn(f"{key}={value}")
    memory.apply(ticket, [FactCandidate(key=key, value=value, evidence=f"{key}={value}")])


def test_redacting_twice_keeps_the_words_said_after_a_forget():
    memory = WorkingMemory()
    held = forget_filter(memory)
    admit(memory, "database", "Reporting")
    memory.forget("database")
    words = "database=Reporting; module=Billing"
    memory.begin_turn(words)  # said after the first forget: database=Reporting is the user's again
    admit(memory, "priority", "Billing")
    memory.forget("priority")  # Billing is forgotten after the words were said
    once = held.redact_text(words)
    assert once == "database=Reporting; module=[forgotten]"
    assert held.redact_text(once) == once


@pytest.mark.parametrize("path", PATHS)
async def test_a_held_fact_whose_key_value_reads_as_a_forgotten_pair_reversed_keeps_its_line(path):
    """Found by the redaction property: with ``module=database`` forgotten and ``database=module`` held, the held
    line's evidence ``database=module`` also reads as the forgotten pair written value first. A held fact's own
    ``key=value`` is the held fact's, so its line is sent whole."""
    _, sent = await forget_then_ask(path, "module=database; database=module", "module", "Which one?")
    assert parse_prompt_block(sent) == [("database", "module")]
    assert '(evidence: "database=module"' in sent


def test_a_text_holding_the_mark_is_exempt_only_as_an_exact_redacted_copy_of_later_words():
    """Found by the redaction property: ``[forgotten]Billing`` read as a redacted copy of ``Now: Billing`` (said after
    Billing was forgotten) kept that turn's exemption, so the forgotten value passed. A copy counts only if redacting
    the later words gives exactly the text."""
    memory = WorkingMemory()
    memory.apply(
        memory.begin_turn("database=Billing"),
        [FactCandidate(key="database", value="Billing", evidence="database=Billing")],
    )
    memory.forget("database")
    memory.begin_turn("Now: Billing")
    rules = Forgetting.of(memory)
    assert rules.text("Now: Billing") == "Now: Billing"  # the user's own later words
    assert rules.text("[forgotten]Billing") == "[forgotten][forgotten]"
