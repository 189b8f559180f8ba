"""The context-provider path (Demo160): source filtering, two desks sharing one store, forget and races."""

import asyncio

import pytest
from agent_framework import AgentSession, InMemoryHistoryProvider, Message, SessionContext

from course_lib.conventions import message_source
from course_lib.exercises import check
from course_lib.extraction import ChatFactWriter, GatedWriter, MemoryExtraction
from course_lib.memory import PROMPT_BLOCK_HEADER, WorkingMemory
from course_lib.memory_models import OfflineAssistantClient, OfflineWriterClient
from course_lib.offline import OfflineChatClient
from course_lib.providers import (
    SEED_SCRIPT,
    FactsContextProvider,
    caller_user_messages,
    compare_injection,
    course_manual_desk,
    course_provider_desks,
    provider_agent,
    route_by_topic,
    stored_messages,
)
from course_lib.tracing import CallLog


def facts(console):
    return [(f.key, f.value, f.evidence) for f in console.memory.facts]


async def test_seed_script_on_two_desks_sharing_one_store():
    log = CallLog()
    desks = course_provider_desks(log, ("triage", "operations"))
    events = [await desks.handle(line) for line in SEED_SCRIPT[:5]]
    assert [e.desk for e in events if e.kind == "turn"] == ["triage", "triage", "operations"]
    assert facts(desks) == [
        ("database", "SQL Server 2022", "database=SQL Server 2022"),
        ("module", "Billing", "module=Billing"),
    ]
    # the operations desk never saw the triage conversation, but it saw the same facts
    ops_call = next(c for c in log.calls if c.client == "operations")
    assert [m.text for m in ops_call.messages if m.source is None] == ["Where can I find logs?"]
    assert "module=Billing" in events[-1].reply and "database=SQL Server 2022" in events[-1].reply
    assert (
        len(stored_messages(desks.sessions["triage"])) == 4 and len(stored_messages(desks.sessions["operations"])) == 2
    )

    old_sessions = dict(desks.sessions)
    await desks.handle("forget module")
    assert [f.key for f in desks.memory.facts] == ["database"]
    assert all(desks.sessions[name] is not old_sessions[name] for name in old_sessions)
    assert all(stored_messages(s) == [] for s in desks.sessions.values())
    await desks.handle("forget")
    event = await desks.handle("Which module and database am I on?")
    assert desks.memory.facts == () and "I see no facts" in event.reply and event.report.status == "nothing_to_extract"


async def test_the_block_is_a_context_message_never_stored_in_history():
    log = CallLog()
    desks = course_provider_desks(log)
    await desks.handle("module=Billing")
    await desks.handle("Which module?")
    second = [c for c in log.calls if c.client == "desk"][1]
    sources = [m.source for m in second.messages]
    assert sources == ["InMemoryHistoryProvider", "InMemoryHistoryProvider", "FactsContextProvider", None]
    assert not any(PROMPT_BLOCK_HEADER in m.text for m in stored_messages(desks.sessions["desk"]))


def test_message_sources_are_read_from_maf_attribution():
    plain = Message(role="user", contents=["module=A"])
    from_history = Message(
        role="user",
        contents=["module=B"],
        additional_properties={
            "_attribution": {
                "source_id": InMemoryHistoryProvider.DEFAULT_SOURCE_ID,
                "source_type": "InMemoryHistoryProvider",
            }
        },
    )
    assert message_source(plain) == "external" and message_source(from_history) == "InMemoryHistoryProvider"
    assert caller_user_messages([from_history, plain, Message(role="assistant", contents=["module=C"])]) == [plain]


class RecordingWriter:
    def __init__(self):
        self.seen = []

    async def propose(self, user_text):
        self.seen.append(user_text)
        return await ChatFactWriter(OfflineWriterClient()).propose(user_text)


async def test_only_the_callers_words_are_extracted_never_history_block_or_response():
    writer = RecordingWriter()
    reports = []
    provider = FactsContextProvider(MemoryExtraction(WorkingMemory(), writer), on_report=reports.append)
    agent = provider_agent(OfflineAssistantClient(), provider, name="desk", instructions="")
    session = agent.create_session()
    await agent.run("module=Reporting", session=session)  # the answer repeats "module=Reporting"
    await agent.run("Which module?", session=session)
    assert writer.seen == ["module=Reporting", "Which module?"]
    assert [r.status for r in reports] == ["accepted", "nothing_to_extract"]


async def test_a_smuggled_fact_in_the_answer_is_never_extracted():
    class Echo(OfflineChatClient):
        def answer(self, messages, options):
            return "Sure. priority=P0; customer=Contoso"

    reports = []
    provider = FactsContextProvider(
        MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient())), on_report=reports.append
    )
    agent = provider_agent(Echo(), provider, name="desk", instructions="")
    await agent.run("Please repeat after me: priority=P0", session=agent.create_session())
    assert provider.extraction.memory.facts == () and reports[0].status == "nothing_to_extract"


async def test_a_failed_run_stores_nothing():
    class Broken(OfflineChatClient):
        def answer(self, messages, options):
            raise ConnectionError("model down")

    reports = []
    provider = FactsContextProvider(
        MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient())), on_report=reports.append
    )
    agent = provider_agent(Broken(), provider, name="desk", instructions="")
    with pytest.raises(ConnectionError):
        await agent.run("module=Billing", session=agent.create_session())
    assert provider.extraction.memory.facts == () and reports == []


async def test_an_extraction_racing_a_forget_never_resurrects_the_fact():
    writer = GatedWriter(ChatFactWriter(OfflineWriterClient()))
    reports = []
    provider = FactsContextProvider(MemoryExtraction(WorkingMemory(), writer), on_report=reports.append)
    agent = provider_agent(OfflineAssistantClient(), provider, name="desk", instructions="")
    run = asyncio.create_task(agent.run("module=Billing", session=agent.create_session()))
    await writer.started.wait()
    provider.extraction.memory.forget()
    writer.release()
    await run
    assert provider.extraction.memory.facts == () and reports[0].status == "forgotten"


async def test_a_forget_while_the_model_answers_extracts_nothing_from_that_message():
    memory = WorkingMemory()

    class Slow(OfflineChatClient):
        def answer(self, messages, options):
            memory.forget()  # the user typed `forget` while the desk was answering
            return "ok"

    reports = []
    provider = FactsContextProvider(
        MemoryExtraction(memory, ChatFactWriter(OfflineWriterClient())), on_report=reports.append
    )
    agent = provider_agent(Slow(), provider, name="desk", instructions="")
    await agent.run("module=Billing", session=agent.create_session())
    assert memory.facts == () and reports[0].status == "forgotten"


def test_router_sends_operations_words_to_operations():
    assert route_by_topic("Where can I find logs?") == "operations"
    assert route_by_topic("module=Billing; database=SQL Server 2022") == "triage"
    assert route_by_topic("The deploy failed") == "operations"


async def test_router_naming_an_unknown_desk_is_an_error():
    desks = course_provider_desks(CallLog())
    desks.router = lambda text: "nowhere"
    with pytest.raises(ValueError, match="not one of the desks"):
        await desks.handle("hello")


async def test_comparison_measures_where_the_block_travels_and_what_history_keeps():
    table = await compare_injection()
    manual = table[table["path"] == "manual injection"]
    provider = table[table["path"] == "context provider"]
    assert set(manual["block travels"]) == {"inside the user message"}
    assert set(provider["block travels"]) == {"own message (source: FactsContextProvider)"}
    assert manual["blocks stored in history"].tolist() == [1, 2, 3, 1]
    assert provider["blocks stored in history"].tolist() == [0, 0, 0, 0]
    assert manual["characters sent"].iloc[2] > provider["characters sent"].iloc[2]


CONSOLES = pytest.mark.parametrize("build", [course_manual_desk, course_provider_desks], ids=["manual", "provider"])


@CONSOLES
@pytest.mark.parametrize(
    "line",
    ["forget about the old module, module=Payments", "forget Module", "forget module database", "", "   "],
)
async def test_a_broken_console_line_is_answered_with_the_rule_and_changes_nothing(build, line):
    log = CallLog()
    console = build(log, ("triage", "operations"))
    await console.handle("module=Billing; database=SQL Server 2022")
    facts_before, sessions_before, calls_before = console.memory.facts, dict(console.sessions), len(log)
    epoch_before = console.memory.epoch
    event = await console.handle(line)
    assert event.kind == "refused" and "'forget KEY'" in event.output
    assert console.memory.facts == facts_before and console.memory.epoch == epoch_before
    assert console.sessions == sessions_before and len(log) == calls_before
    if line.strip():
        rule = {  # a key in another case is told the key it meant, as a declaration's key is (walk 5)
            "forget module database": "forget takes one key at a time",
            "forget Module": "(keys are case-sensitive): write 'module'",
        }.get(line, "not one of the allowed keys")
        assert rule in event.output and "Nothing was forgotten" in event.output


@CONSOLES
async def test_forget_accepts_any_whitespace_before_the_key(build):
    console = build(CallLog(), ("triage", "operations"))
    await console.handle("module=Billing; database=SQL Server 2022")
    event = await console.handle("forget\t module ")
    assert event.kind == "forget" and [f.key for f in console.memory.facts] == ["database"]


@CONSOLES
async def test_console_commands_ignore_case_and_an_over_long_line_reaches_no_model(build):
    log = CallLog()
    console = build(log, ("triage", "operations"))
    await console.handle("module=Billing")
    calls = len(log)
    assert (await console.handle("MEM")).kind == "mem"
    event = await console.handle("module=" + "x" * 5000)
    assert event.kind == "refused" and "limit is 4096" in event.output and len(log) == calls
    assert [f.value for f in console.memory.facts] == ["Billing"] and console.memory.turn == 1
    assert (await console.handle(" Forget  ")).kind == "forget" and console.memory.facts == ()


@CONSOLES
@pytest.mark.parametrize("edge", ["\ufeff", "\u200b", "\u2060"])
async def test_a_command_with_an_invisible_character_at_its_edge_is_still_the_command(build, edge):
    """A BOM or zero-width space pasted before ``mem`` or ``forget`` must not turn the command into a user turn."""
    log = CallLog()
    console = build(log, ("triage", "operations"))
    await console.handle("module=Billing; database=SQL Server 2022")
    calls, turn = len(log), console.memory.turn
    assert (await console.handle(f"{edge}mem")).kind == "mem"
    assert (await console.handle(f"mem{edge}")).kind == "mem"
    event = await console.handle(f"{edge}forget module{edge}")
    assert event.kind == "forget" and [f.key for f in console.memory.facts] == ["database"]
    assert len(log) == calls and console.memory.turn == turn


def provider_on(memory=None, writer=None, client=None):
    """A provider agent on the offline desk and writer, with the reports it gives."""
    reports = []
    extraction = MemoryExtraction(memory or WorkingMemory(), writer or ChatFactWriter(OfflineWriterClient()))
    provider = FactsContextProvider(extraction, on_report=reports.append)
    agent = provider_agent(client or OfflineAssistantClient(), provider, name="desk", instructions="")
    return agent, provider, reports


THREE_AND_THREE = [
    "module=Billing; database=SQL Server 2022; product=Contoso",
    "priority=P1; customer=Fabrikam; version=4.2",
]


async def test_each_caller_message_is_its_own_extraction_with_its_own_report_in_order():
    # the seed's StoreAIContextAsync: foreach External User message, UpdateAsync(message.Text), report(...) each time
    writer = RecordingWriter()
    agent, provider, reports = provider_on(writer=writer)
    await agent.run([Message(role="user", contents=[text]) for text in THREE_AND_THREE], session=agent.create_session())
    assert writer.seen == THREE_AND_THREE  # one writer call per message, never the two joined
    assert [(r.status, r.turn) for r in reports] == [("accepted", 1), ("accepted", 2)]
    assert [len(r.proposed) for r in reports] == [3, 3]
    # six facts were admitted in two batches of three; the store's bound of five evicted the oldest turn's first key
    assert [(f.key, f.turn) for f in provider.extraction.memory.facts] == [
        ("module", 1),
        ("product", 1),
        ("customer", 2),
        ("priority", 2),
        ("version", 2),
    ]


async def test_blank_caller_messages_are_skipped_and_a_bad_one_refuses_only_itself():
    writer = RecordingWriter()
    agent, provider, reports = provider_on(writer=writer)
    messages = ["module=Billing", "   ", "priority=P1\n\t", "x" * 5000, "database=SQL Server 2022"]
    await agent.run([Message(role="user", contents=[text]) for text in messages], session=agent.create_session())
    assert writer.seen == ["module=Billing", "priority=P1\n\t", "database=SQL Server 2022"]  # blank: no extraction
    assert [r.status for r in reports] == ["accepted", "accepted", "rejected", "accepted"]
    assert "limit is 4096" in reports[2].diagnostic
    assert [f.key for f in provider.extraction.memory.facts] == ["module", "priority", "database"]


async def test_a_forget_during_a_two_message_run_makes_the_whole_run_write_nothing():
    memory = WorkingMemory()

    class Slow(OfflineChatClient):
        def answer(self, messages, options):
            memory.forget()  # typed while the desk answers: both messages' tickets were taken before
            return "ok"

    agent, _provider, reports = provider_on(memory, client=Slow())
    await agent.run([Message(role="user", contents=[text]) for text in THREE_AND_THREE], session=agent.create_session())
    assert memory.facts == () and [r.status for r in reports] == ["forgotten", "forgotten"]


async def test_a_forget_between_the_two_extractions_stops_the_second_one_too():
    memory = WorkingMemory()
    writer = GatedWriter(ChatFactWriter(OfflineWriterClient()))
    agent, _provider, reports = provider_on(memory, writer=writer)
    run = asyncio.create_task(
        agent.run([Message(role="user", contents=[t]) for t in THREE_AND_THREE], session=agent.create_session())
    )
    await writer.started.wait()
    memory.forget()
    writer.release()
    await run
    assert memory.facts == () and [r.status for r in reports] == ["forgotten", "forgotten"]


def test_tickets_of_one_run_write_in_order_and_a_newer_turn_stops_them_all():
    from course_lib.memory import FactCandidate, NewerTurnBegan

    memory = WorkingMemory()
    first, second = memory.begin_turns(["module=A", "database=B"])
    memory.apply(second, [FactCandidate(key="database", value="B", evidence="database=B")])
    with pytest.raises(NewerTurnBegan):  # the later message wrote: the earlier one may no longer write
        memory.apply(first, [FactCandidate(key="module", value="A", evidence="module=A")])
    third, fourth = memory.begin_turns(["module=C", "priority=D"])
    memory.begin_turn("other desk")
    for ticket in (third, fourth):
        with pytest.raises(NewerTurnBegan):
            memory.check_ticket(ticket)
    assert [(f.key, f.turn) for f in memory.facts] == [("database", 2)]


# --- lesson 03's exercise 1 and the console's words (issue 32) ---


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("", "an empty message gives the desk nothing to answer"),
        ("   ", "an empty message gives the desk nothing to answer"),
        ("x" * 4097, "message refused"),
        ("forget KEY", "not one of the allowed keys"),
        ("mem", "a console command"),
        ("forget", "a console command"),
        (42, "message_1 must be text in quotes"),
        (None, "message_1 must be text in quotes"),
    ],
)
async def test_the_smuggling_exercise_answers_every_odd_message_in_words(message, said):
    from course_lib.providers import try_smuggling

    attempt = await try_smuggling(message)
    words = attempt.feedback.replace("\n", " ")
    assert said in words and not attempt.smuggled
    assert "None" not in words.replace("None is not text", "")


@pytest.mark.parametrize("message", ["x" * 4097, "hello", "priority=P0"])
async def test_the_smuggling_exercise_breaks_its_lines_between_words_like_every_checking_cell(message):
    from course_lib.exercises import FEEDBACK_WIDTH, readable_lines
    from course_lib.providers import try_smuggling

    feedback = (await try_smuggling(message)).feedback
    assert readable_lines(feedback) == feedback  # the notebook's style is not needed to wrap it
    assert any(len(line) > FEEDBACK_WIDTH for line in feedback.replace("\n", " ").split("\n"))


async def test_the_smuggling_exercise_runs_a_real_desk_and_reports_what_it_stored():
    from course_lib.providers import try_smuggling

    declared = await try_smuggling("priority=P0")
    assert "declares priority itself" in declared.feedback and not declared.smuggled
    missed = await try_smuggling("hello")
    assert "does not contain priority=P0" in missed.feedback and not missed.smuggled
    smuggled = await try_smuggling("module=Billing and priority=P0")  # the desk notes priority=P0 inside module's value
    assert smuggled.smuggled and not smuggled.priority_stored
    # what the store holds is the answer to the prediction: it comes after the check, never before (issue 32)
    assert "mem" not in smuggled.feedback and "the desk replied" in smuggled.feedback
    for answer in (..., True):
        checked = check("Exercise 1", answer, smuggled.priority_stored, "hint")
        assert smuggled.after_check(checked) == checked  # no prediction yet, or a wrong one: nothing more is said
    right = smuggled.after_check(check("Exercise 1", False, smuggled.priority_stored, "hint"))
    assert right.startswith("Exercise 1: correct.")
    assert right.replace("\n", " ").endswith('mem now lists module = "Billing and priority=P0", and no priority.')
    unanswered = await try_smuggling(...)
    assert "not answered yet" in unanswered.feedback
    # the prediction may be written already: the feedback names what is missing, the message (issue 32)
    assert "message_1" in unanswered.feedback.replace("\n", " ")
    assert "prediction" not in unanswered.feedback


async def test_the_console_says_the_memory_status_in_words():
    desks = course_provider_desks(CallLog())
    event = await desks.handle("Where can I find logs?")
    assert "[memory] Nothing stored: the message holds no declaration the contract accepts (it is a question;" in (
        event.output
    )


async def test_the_characters_sentence_is_computed_from_the_comparison():
    from course_lib.providers import characters_compared

    comparison = await compare_injection()
    said = characters_compared(comparison)
    manual = comparison[comparison["path"] == "manual injection"]["characters sent"].tolist()
    provider = comparison[comparison["path"] == "context provider"]["characters sent"].tolist()
    assert f"Call 1: {manual[0]} characters by manual injection, {provider[0]} by the provider (about equal)." in said
    assert f"call 3, {manual[2]} against {provider[2]}" in said
    far = comparison.copy()
    far.loc[far["path"] == "manual injection", "characters sent"] = 1000
    assert "(about equal)" not in characters_compared(far)


# --- lesson 03: what the call log keeps after a forget, and why the provider sends one more message (issue 32) ---


async def test_the_call_log_keeps_a_forgotten_value_that_no_later_call_sends():
    from course_lib.tracing import log_after_forget

    log = CallLog()
    desks = course_provider_desks(log)
    await desks.handle("module=Billing; database=SQL Server 2022")
    await desks.handle("Which module am I on?")
    forgotten_at = len(log)
    await desks.handle("forget module")
    await desks.handle("Which module am I on?")
    said = log_after_forget(log, "Billing", forgotten_at)
    sent_it = sum(any("Billing" in m.text for m in call.messages) for call in log.calls[:forgotten_at])
    assert said.startswith(f"The call log still holds Billing: of the {forgotten_at} calls made before")
    assert f"), {sent_it} sent it" in said
    assert f"none of the {len(log) - forgotten_at} calls made since did" in said
    assert "(each of the 2 turns called its desk, then the writer)" in said  # why that many calls
    await desks.handle("Our module is Billing again")  # the user's own words bring the value back into a call
    assert "2 of the 4 calls made since did" in log_after_forget(log, "Billing", forgotten_at)  # desk and writer


async def test_the_provider_sends_one_more_message_per_call_computed_from_the_comparison():
    from course_lib.providers import compare_injection, messages_compared

    comparison = await compare_injection()
    said = messages_compared(comparison)
    assert said.startswith(
        "Messages sent: the provider sends 1 more on every one of the 4 calls (2 against 1 on call 1)"
    )
    assert "a message of its own" in said


class SeesResponse(FactsContextProvider):
    """The facts provider, noting the response each after_run call saw: what lesson 03's "Under the hood" says."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen = []

    async def after_run(self, *, agent, session, context, state):
        self.seen.append(context.response)
        await super().after_run(agent=agent, session=session, context=context, state=state)


async def test_maf_calls_after_run_only_with_a_response_and_never_after_a_raised_run():
    class Broken(OfflineChatClient):
        def answer(self, messages, options):
            raise ConnectionError("model down")

    def provider():
        return SeesResponse(MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient())))

    working = provider()
    agent = provider_agent(OfflineAssistantClient(), working, name="desk", instructions="")
    await agent.run("module=Billing", session=agent.create_session())
    assert len(working.seen) == 1 and working.seen[0] is not None  # run by MAF: a response is always there

    failing = provider()
    agent = provider_agent(Broken(), failing, name="desk", instructions="")
    with pytest.raises(ConnectionError):
        await agent.run("module=Billing", session=agent.create_session())
    assert failing.seen == []  # a raised run never reaches after_run


async def test_after_run_called_directly_without_a_response_stores_nothing():
    reports = []
    provider = FactsContextProvider(
        MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient())), on_report=reports.append
    )
    ticket = provider.extraction.memory.begin_turns(["module=Billing"])
    context = SessionContext(input_messages=[Message(role="user", contents=["module=Billing"])])
    context.metadata[provider.source_id] = tuple(ticket)
    session = AgentSession()
    await provider.after_run(agent=None, session=session, context=context, state={})
    assert context.response is None and provider.extraction.memory.facts == () and reports == []
