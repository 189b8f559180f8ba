"""Feeding controlled facts to a model: by hand (Demo150) or by a MAF context provider (Demo160).

* **Manual injection** prefixes the memory block to the user's message before ``run`` and extracts from
  the user's own words after the response. The block travels inside the user message, so the session
  history stores it too.
* **The provider** (:class:`FactsContextProvider`) adds the block as a context message of its own before
  each run, and after a successful run extracts from the User messages the caller passed to ``run``, each
  message on its own with its own report, in order, as the seed's ``StoreAIContextAsync`` loops over them.
  Its :class:`CallerTurnGate`, the agent's first middleware, is the one place that sees exactly those
  messages, before any other middleware, context provider, loop or model can add one: it begins the
  turns there (one ticket per message, all taken at once) from the caller's User messages that carry no
  MAF attribution (``additional_properties["_attribution"]``, which history, this block and the loop's
  feedback all carry). History stores only the caller's words and the answers.

Both paths share the console of the seed: ``mem`` shows the facts, ``forget [KEY]`` forgets (and
replaces every session, so an old mention cannot come back through history), anything else is a turn.
"""

from __future__ import annotations

import ast
import re
import sys
import weakref
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from agent_framework import (
    Agent,
    AgentContext,
    AgentMiddleware,
    AgentSession,
    ContextProvider,
    InMemoryHistoryProvider,
    Message,
    SessionContext,
    SupportsChatGetResponse,
)
from pydantic import BaseModel

from .assertions import (
    Declaration,
    MessageRefused,
    allowed_in_other_case,
    case_note,
    check_message,
    find_declarations,
    shown_pair,
    spelling_slip,
    trim,
)
from .clients import make_chat_client
from .conventions import EXTERNAL, message_source, stored_messages
from .extraction import (
    YOUR_MESSAGE,
    ChatFactWriter,
    ExtractionReport,
    MemoryExtraction,
    and_listed,
    make_extraction,
    report_in_words,
)
from .forgetting import FORGOTTEN_MARK, ForgottenFactsFilter, forget_filter, hold_agent, hold_client
from .frames import count_noun, rows_frame
from .live import Backends
from .memory import MAX_FACTS, PROMPT_BLOCK_FOOTER, PROMPT_BLOCK_HEADER, Fact, InvalidFacts, MemoryTurn
from .tracing import CallLog, ModelCall, RunCellsAboveFirst, SeenMessage, chars_sent_sum

if TYPE_CHECKING:  # pandas loads when a table is built: importing the desks stays quick
    import pandas as pd


__all__ = [
    "CONSOLE_USAGE",
    "DESK_INSTRUCTIONS",
    "DESK_INSTRUCTIONS_BY_NAME",
    "EMPTY_MESSAGE_ASK",
    "FORGOTTEN_MARK",
    "INJECTION_COLUMNS",
    "LESSON_00_EXERCISE_3_MESSAGE",
    "NOTES_COMPARED_COLUMNS",
    "NO_GATE",
    "OPERATIONS_WORDS",
    "SEED_SCRIPT",
    "SMUGGLE_HINT",
    "Begun",
    "CallerTurnGate",
    "DeskConsole",
    "DeskEvent",
    "FactsContextProvider",
    "ForgottenFactsFilter",
    "ManualInjectionDesk",
    "ProviderDesks",
    "SmuggleAttempt",
    "block_carrier",
    "caller_user_messages",
    "case_note",
    "characters_compared",
    "compare_injection",
    "console_command",
    "course_manual_desk",
    "course_provider_desks",
    "explain_chars",
    "forget_filter",
    "forget_said",
    "inject",
    "injected_words",
    "memory_line",
    "messages_compared",
    "notes_compared",
    "one_desk_note",
    "program_note",
    "provider_agent",
    "pushed_out_words",
    "repeated_not_held",
    "route_by_topic",
    "stored_as_notes",
    "stored_messages",
    "try_smuggling",
    "value_in_words",
    "worked_out",
]


def inject(block: str, user_text: str) -> str:
    """The message manual injection sends: the memory block, a blank line, then the user's words."""
    return f"{block}\n\n{user_text}"


def injected_words(text: str) -> str:
    """The user's words in a message :func:`inject` built (what follows its facts block); any other text as it is.

    A call log holds what each desk call sent, block and all; a table of calls names each by the console line that
    made it, which is this.
    """
    head, found, words = text.partition(f"\n{PROMPT_BLOCK_FOOTER}\n\n")
    return words if found and head.startswith(PROMPT_BLOCK_HEADER) else text


def caller_user_messages(messages: Sequence[Message]) -> list[Message]:
    """The User messages without MAF attribution: not history, not a block, not the loop's feedback."""
    return [m for m in messages if m.role == "user" and message_source(m) == EXTERNAL]


def program_note(text: str, source: str) -> Message:
    """A User message the program adds (a reviewer's note, a reminder), labelled as ``source``'s by MAF attribution.

    The model reads it like any message; the facts provider never does (it extracts only the caller's unlabelled
    User messages), so a ``key=value`` line in a note cannot become a fact.
    """
    return Message("user", [text], additional_properties={"_attribution": {"source_id": source}})


NOTES_COMPARED_COLUMNS = ("the note sent as", "read for facts", "facts stored")
"""The columns of :func:`notes_compared`'s table."""


async def notes_compared(caller: str, note: str, source: str) -> pd.DataFrame:
    """The same ``note`` sent beside the caller's message twice, each run on a fresh desk and store: once labelled by
    :func:`program_note` (as ``source``'s), once as a plain user ``Message``; what each store holds afterwards.

    Lesson 03, section 7: the plain message carries no label, so the provider reads it as the caller's words and a
    ``key=value`` line in it becomes a fact; the labelled note never does.
    """
    rows: list[dict[str, object]] = []
    for sent_as, message in (
        ("program_note (labelled)", program_note(note, source=source)),
        ("a plain user Message (no label)", Message("user", [note])),
    ):
        extraction = make_extraction()
        desk = provider_agent(
            make_chat_client("assistant"),
            FactsContextProvider(extraction),
            name="desk",
            instructions="You are the desk.",
        )
        await desk.run([Message("user", [caller]), message], session=desk.create_session())
        read = "yes" if caller_user_messages([message]) else "no"
        held = ", ".join(f'{f.key} = "{f.value}"' for f in extraction.memory.facts)
        rows.append(dict(zip(NOTES_COMPARED_COLUMNS, (sent_as, read, held or "none"), strict=True)))
    return rows_frame(rows, NOTES_COMPARED_COLUMNS)


NO_GATE = (
    "No caller gate: this agent's first middleware is not the provider's CallerTurnGate, so nothing shows "
    "which messages the caller passed to run (middleware or another provider may have added some). "
    "Nothing is extracted; build the agent with provider_agent() or put provider.gate first in its middleware."
)

Begun = tuple[MemoryTurn | ExtractionReport, ...]
"""What a run holds, one entry per non-blank caller message in order: its ticket or the contract's refusal of it
(empty: nothing to extract)."""

_PENDING_PER_SESSION = 8
"""Gated runs kept per session until their ``before_run`` claims them (a run that failed earlier never does)."""


class CallerTurnGate(AgentMiddleware):
    """The agent's first middleware: begins the turn from exactly what the caller passed to ``run``.

    Agent middleware runs before the context providers and the model, and the first one sees the
    caller's messages before any other middleware can change them. The gate takes the run's tickets here,
    one per unattributed, non-blank caller User message (the seed's ``IsNullOrWhiteSpace`` skip), and leaves
    them for the provider under the run's session, tagged with the caller's message objects so that
    concurrent runs on one session each find their own. A message object that already began a turn (a loop
    re-sending the task) begins none.
    """

    def __init__(self, provider: FactsContextProvider) -> None:
        self.provider = provider

    async def process(self, context: AgentContext, call_next: Callable[[], Any]) -> None:
        if context.session is None:
            context.session = AgentSession()  # what MAF would create for a run with providers, made here
        self.provider._begin_run(context.session, context.messages)
        await call_next()


class FactsContextProvider(ContextProvider):
    """A MAF context provider that shows the facts before a run and extracts the caller's words after it.

    ``on_report`` receives every :class:`ExtractionReport`: one per caller message, in order. The turns begin
    in :attr:`gate` (which must be the agent's first middleware: :func:`provider_agent` puts it there), before
    the model is called, so a ``forget`` during the run makes the whole run write nothing; a run that raised
    never reaches ``after_run`` and stores nothing either. Loop feedback, history, blocks, messages another
    provider or middleware added, and the answer are never extracted.
    """

    DEFAULT_SOURCE_ID = "controlled_facts"

    def __init__(
        self,
        extraction: MemoryExtraction,
        *,
        source_id: str = DEFAULT_SOURCE_ID,
        on_report: Callable[[ExtractionReport], None] | None = None,
    ) -> None:
        super().__init__(source_id)
        self.extraction = extraction
        self.on_report = on_report
        self.gate = CallerTurnGate(self)
        # id(session) -> gated runs not yet claimed: the caller's message objects (kept alive, so their ids stay
        # unique while the entry waits) and the run's ticket
        self._runs: dict[int, list[tuple[tuple[Message, ...], Begun]]] = {}
        self._begun: dict[int, weakref.ref[Message]] = {}  # caller messages that already began a turn

    async def before_run(
        self, *, agent: Any, session: AgentSession, context: SessionContext, state: dict[str, Any]
    ) -> None:
        block = Message(role="user", contents=[self.extraction.memory.to_prompt_block()])
        context.extend_messages(self, [block])
        context.metadata[self.source_id] = self._run_ticket(agent, session, context)

    async def after_run(
        self, *, agent: Any, session: AgentSession, context: SessionContext, state: dict[str, Any]
    ) -> None:
        begun: Begun = context.metadata.get(self.source_id) or ()
        if context.response is not None:
            # message by message, in order, each with its own report (the seed's foreach)
            for each in begun:
                self._report(await self.extraction.complete(each))

    def _begin_run(self, session: AgentSession, messages: Sequence[Message]) -> None:
        """Called by the gate: a ticket per caller message new in this run (a refusal where the contract refuses it)."""
        words = [m for m in caller_user_messages(messages) if m.text.strip() and not self._already_begun(m)]
        begun = self._begin_messages([m.text for m in words])
        pending = self._runs.setdefault(id(session), [])
        pending.append((tuple(messages), begun))
        del pending[:-_PENDING_PER_SESSION]
        for message in words:
            self._begun[id(message)] = weakref.ref(message, self._forget_message(id(message)))

    def _begin_messages(self, texts: Sequence[str]) -> Begun:
        """The tickets of a run's messages, all taken at once; a message the contract refuses gets its refusal."""
        refusals: dict[int, ExtractionReport] = {}
        for index, text in enumerate(texts):
            try:
                check_message(text)
            except MessageRefused as error:
                refusals[index] = self.extraction.rejected(str(error))
        tickets = iter(self.extraction.memory.begin_turns([t for i, t in enumerate(texts) if i not in refusals]))
        return tuple(refusals[i] if i in refusals else next(tickets) for i in range(len(texts)))

    def _forget_message(self, key: int) -> Callable[[weakref.ref[Message]], None]:
        """The callback that drops a message's entry once the message itself is gone (its id may be reused)."""

        def drop(_ref: weakref.ref[Message]) -> None:
            self._begun.pop(key, None)

        return drop

    def _already_begun(self, message: Message) -> bool:
        ref = self._begun.get(id(message))
        return ref is not None and ref() is message

    def _run_ticket(self, agent: Any, session: AgentSession, context: SessionContext) -> Begun:
        """The ticket the gate took for this run; a refusal when no gate vouches for the caller's words."""
        middleware = getattr(agent, "middleware", None) or []
        pending = self._runs.get(id(session))
        if middleware and middleware[0] is self.gate and pending:
            inputs = {id(m) for m in context.input_messages}
            # this run's own entry; the latest when middleware replaced every message object the caller passed
            claimed = next((run for run in pending if any(id(m) in inputs for m in run[0])), pending[-1])
            pending.remove(claimed)
            if not pending:
                del self._runs[id(session)]
            return claimed[1]
        if any(m.text.strip() for m in caller_user_messages(context.input_messages)):
            return (self.extraction.rejected(NO_GATE),)
        return ()

    def _report(self, report: ExtractionReport) -> None:
        if self.on_report is not None:
            self.on_report(report)


def provider_agent(
    client: SupportsChatGetResponse, provider: FactsContextProvider, *, name: str, instructions: str
) -> Agent:
    """An agent whose history is loaded first and the facts block last, right before the caller's message.

    Its model calls go through the store's :class:`~course_lib.forgetting.ForgottenFactsFilter` (after the gate):
    no call sends a fact forgotten before it started, whatever session, snapshot or loop input carries it.
    """
    agent = Agent(
        client=client,
        name=name,
        instructions=instructions,
        context_providers=[InMemoryHistoryProvider(), provider],
        middleware=[provider.gate],
    )
    return hold_agent(agent, provider.extraction.memory)


class DeskEvent(BaseModel):
    """What one console line did: the command, which desk answered, what was sent and said, the extraction.

    ``refused`` is a console line that broke the console's own rule (an empty line, or ``forget`` followed by
    something that is not one allowed key): nothing changed and no model was called; ``output`` names the rule.
    """

    kind: Literal["turn", "mem", "forget", "refused"]
    line: str
    desk: str | None = None
    sent: str | None = None
    reply: str | None = None
    report: ExtractionReport | None = None
    output: str = ""

    @classmethod
    def turn(
        cls, line: str, desk: str, sent: str, reply: str, report: ExtractionReport | None, message: str = YOUR_MESSAGE
    ) -> DeskEvent:
        """A user turn a desk answered: the console's output is the desk's reply, then what the memory did.

        ``message`` names the line in a refusal (:func:`memory_line`).
        """
        output = f"[{desk}] {reply}\n{memory_line(report, line, message)}"
        return cls(kind="turn", line=line, desk=desk, sent=sent, reply=reply, report=report, output=output)


def memory_line(report: ExtractionReport | None, line: str = "", message: str = YOUR_MESSAGE) -> str:
    """The store's verdict on one turn, as the console prints it under the desk's reply: the panels' sentence
    (:func:`~course_lib.extraction.report_in_words`), so the console and the desk panel say a turn the same way;
    with the user's ``line``, a question is said to be one, and a correction names the values it replaced (issue 32).
    ``message`` names the line in a refusal: "your message" where a student typed it (a panel), "the message" where
    a cell wrote it, since "your" would be untrue there.
    """
    said = report_in_words(report, line, message, name_replaced=True) if report else "No extraction ran."
    if report is not None and report.status == "accepted" and report.evicted:
        said = f"{said} {pushed_out_words(report.evicted, len(report.facts), kept=report.facts)}"  # a full store
    return f"[memory] {said}"


def pushed_out_words(evicted: Sequence[Fact], max_facts: int = MAX_FACTS, *, kept: Sequence[Fact] = ()) -> str:
    """The facts a turn pushed out of the full store, in the ``[memory]`` line's words (issue 32, walk 23: only the
    store's side said a sixth fact had pushed one out, and the chat's verdict read as if nothing else had changed).

    ``kept`` are the facts the store holds after the turn. The store drops the oldest turn first and, within a turn,
    the first key alphabetically; so facts are "the oldest" only when no kept fact shares their turn. A fact that lost
    that tie is its turn's first key (lesson 03's second walk 25: five facts of one turn, then a sixth, said "the
    oldest, customer=D" of a fact as old as the four kept). Turns are said oldest first.

    >>> from course_lib.memory import Fact
    >>> from datetime import UTC, datetime
    >>> def fact(key, value, turn):
    ...     return Fact(key=key, value=value, evidence=f"{key}={value}", turn=turn,
    ...                 recorded_at=datetime(2026, 1, 1, tzinfo=UTC))
    >>> pushed_out_words([fact("database", "PostgreSQL", 1)])
    'The store holds at most 5 facts, so the oldest, database=PostgreSQL, was pushed out to make room.'
    >>> said = pushed_out_words([fact("customer", "D", 1)], kept=[fact("module", "M", 1), fact("version", "4.2", 2)])
    >>> said.removeprefix("The store holds at most 5 facts, so ")
    "the oldest turn's first key alphabetically, customer=D, was pushed out to make room."
    """
    verb = "was" if len(evicted) == 1 else "were"
    turns = list(dict.fromkeys(fact.turn for fact in evicted))
    said = []
    for place, turn in enumerate(turns):
        lost = [fact for fact in evicted if fact.turn == turn]
        pairs = and_listed([shown_pair(fact.key, fact.value) for fact in lost])
        if any(fact.turn == turn for fact in kept):  # a tie within the turn, lost alphabetically
            which = "the oldest turn's" if place == 0 else "the next turn's"
            said.append(f"{which} first {'key' if len(lost) == 1 else 'keys'} alphabetically, {pairs}")
        else:
            said.append(f"{'the oldest' if place == 0 else 'the next oldest'}, {pairs}")
    gone = ", then ".join(said)
    return f"The store holds at most {max_facts} facts, so {gone}, {verb} pushed out to make room."


def forget_said(key: str | None, removed: int) -> str:
    """What ``forget`` did, in words: the facts removed and the sessions replaced, and why when none was removed.

    A key the store does not hold is still forgotten from the sessions: a desk's conversation may mention it (a line
    the store refused keeps its ``key=value`` in the history), and a forgotten key must not come back from there. So
    is every fact when the store holds none, for the same reason: the desk panel's Forget all button, on an empty
    store, says these same words (lesson 03's nineteenth walk: the typed ``forget`` said "0 removed" and moved the
    epoch while the button said "nothing to forget").
    """
    what = "all facts" if key is None else repr(key)
    if removed:
        return f"Forgot {what} ({removed} removed); every session was replaced by a new, empty one."
    if key is None:
        return (
            "Forgot all facts: the store held no facts (0 removed), but every session was still replaced by a new, "
            "empty one, because a desk's conversation may still mention a value (in a line the store refused, say)."
        )
    return (
        f"Forgot {what}: the store held no {key} fact (0 removed), but every session was still replaced by a new, "
        f"empty one, because a desk's conversation may still mention {key} (in a line the store refused, say)."
    )


def repeated_not_held(reply: str, history: Sequence[Message], facts: Sequence[Fact]) -> list[str]:
    """The ``key=value`` declarations of the conversation that ``reply`` repeats although the store does not hold them.

    A desk answers from everything it is sent, its history included, so it may repeat a value the store refused
    or replaced: a panel names these so the student does not take the reply for the store's word. Only the
    caller's declarations in ``history`` count, each as written (``symptom=slow``), and only where the reply has
    the whole value (``module=Bill`` is not in ``module=Billing``, ``priority=P0`` is not in ``priority=P0 please``).
    """
    held = {(fact.key, fact.value) for fact in facts}
    said: list[str] = []
    for message in history:
        if message.role != "user" or message_source(message) != EXTERNAL:
            continue
        for declaration in _declarations_or_none(message.text):
            pair = f"{declaration.key}={declaration.value}"
            whole = re.search(re.escape(pair) + _VALUE_ENDS, reply)
            if (declaration.key, declaration.value) not in held and whole and pair not in said:
                said.append(pair)
    return said


_VALUE_ENDS = r"""(?=$|[;,\n]|[.!?)'"](?:\s|$))"""
"""Where a value the reply repeats must end: at a separator, or at a sentence's end. ``priority=P0`` followed by
`` please`` is the start of another value (``P0 please``), not ``P0`` repeated."""


def _declarations_or_none(text: str) -> list[Declaration]:
    """The declarations of ``text``, none when the contract refuses it whole."""
    try:
        return find_declarations(text)
    except MessageRefused:
        return []


CONSOLE_USAGE = "Type a message, 'mem', 'forget' (every fact) or 'forget KEY' (one allowed key)."


def console_command(line: str) -> Literal["mem", "forget"] | None:
    """The console command ``line`` is (``mem``, or ``forget`` with or without a key), or None for a user turn.

    Case and invisible characters at the line's edges do not matter, as for declarations: ``FORGET module`` is
    the command. A panel that takes messages only uses this to say where a command goes instead.
    """
    words = trim(line).split(maxsplit=1)
    command = words[0].lower() if words else ""
    if command == "mem" and len(words) == 1:
        return "mem"
    return "forget" if command == "forget" else None


class DeskConsole(ABC):
    """The seed's console over named desks sharing one store: ``mem``, ``forget [KEY]``, or a user turn.

    Each desk is an agent with its own session; a router picks the desk for each user turn, so a question
    about logs goes to the operations desk while the facts stay shared. Their histories are never merged.
    ``forget`` replaces *every* desk's session, so an old mention cannot come back through any history.
    """

    def __init__(
        self,
        extraction: MemoryExtraction,
        agents: Agent | Mapping[str, Agent],
        router: Callable[[str], str] | None = None,
        *,
        message: str = YOUR_MESSAGE,
    ) -> None:
        """``message`` is how the ``[memory]`` line names a refused line: ``"the message"`` for a console a cell
        types into, since "your message" is true only of what a student typed."""
        self.extraction = extraction
        self.memory = extraction.memory
        self.message = message
        self.agents = {str(agents.name): agents} if isinstance(agents, Agent) else dict(agents)
        if not self.agents:
            raise ValueError("A console needs at least one desk (agent).")
        for agent in self.agents.values():  # a desk built by hand is held to the store's forgets too
            hold_agent(agent, self.memory)
        if isinstance(extraction.writer, ChatFactWriter):
            hold_agent(extraction.writer.agent, self.memory)
        self.router = router or (lambda _text: next(iter(self.agents)))
        self.sessions: dict[str, AgentSession] = {}
        self._replace_sessions()

    @abstractmethod
    async def ask(self, user_text: str) -> DeskEvent:
        """Send one user turn to the desk the router picks; extraction reads ``user_text`` alone."""

    async def handle(self, line: str) -> DeskEvent:
        """One console line. It never raises for what the user typed: a broken command is answered with its rule.

        Commands ignore case (``MEM``, ``Forget``) and invisible characters at the line's edges, as declarations do;
        a key keeps its case (keys are case-sensitive). A line over the message limit (or not encodable text) is
        refused before any desk sees it.
        """
        try:
            check_message(line)
        except MessageRefused as error:
            return DeskEvent(kind="refused", line=line, output=f"{error} No model was called. {CONSOLE_USAGE}")
        words = trim(line).split(maxsplit=1)  # a BOM or zero-width space pasted at an edge hides no command
        if not words:
            return DeskEvent(kind="refused", line=line, output=f"An empty line is not a turn. {CONSOLE_USAGE}")
        command = console_command(line)
        if command == "mem":
            return DeskEvent(kind="mem", line=line, output=self.memory.to_prompt_block())
        if command == "forget":
            try:  # the chat echoes the line as typed (``Forget``), not the command it was read as
                event = self.forget(trim(words[1]) if len(words) > 1 else None)
                return event.model_copy(update={"line": line})
            except InvalidFacts as error:
                output = f"{error} Nothing was forgotten and no model was called. {CONSOLE_USAGE}"
                return DeskEvent(kind="refused", line=line, output=output)
        return await self.ask(line)

    def forget(self, key: str | None = None) -> DeskEvent:
        """Forget one key or all, and replace every desk's session by a new, empty one.

        The store's :class:`ForgottenFactsFilter` does the forgetting, so a run already under way (a loop's next
        iteration, on the session or snapshot it holds) is sent no forgotten value either. A key that is not one
        of the allowed keys raises :class:`InvalidFacts` and changes nothing; one in another case (``Module``) is
        told the key it meant, as a declaration's key is (keys are case-sensitive).
        """
        if key is not None and (cased := allowed_in_other_case(key)):
            raise InvalidFacts(f"Cannot forget: {case_note(key, cased)}")
        if key is not None and (slip := spelling_slip(key)):  # 'modul': the key meant, as a declaration's (walk 22)
            raise InvalidFacts(f"Cannot forget: '{key}' is not an allowed key: write '{slip}'.")
        removed = forget_filter(self.memory).forget(key)  # every desk's later model calls are held to it
        self._replace_sessions()
        line = "forget" if key is None else f"forget {key}"
        return DeskEvent(kind="forget", line=line, output=forget_said(key, removed))

    def route(self, user_text: str) -> str:
        """The desk the router picks for ``user_text``; a router naming no desk is an error."""
        desk = self.router(user_text)
        if desk not in self.agents:
            raise ValueError(f"The router chose {desk!r}, which is not one of the desks {list(self.agents)}.")
        return desk

    def _replace_sessions(self) -> None:
        self.sessions = {name: agent.create_session() for name, agent in self.agents.items()}


class ManualInjectionDesk(DeskConsole):
    """Demo150: desks sharing one store; the block is prefixed to each user message by hand.

    ``agents`` is one agent or a mapping of named desks (the seed's two agents, with a router); extraction
    runs on the user's own words after the desk answered.
    """

    def __init__(
        self,
        agents: Agent | Mapping[str, Agent],
        extraction: MemoryExtraction,
        router: Callable[[str], str] | None = None,
        *,
        message: str = YOUR_MESSAGE,
    ) -> None:
        super().__init__(extraction, agents, router, message=message)

    async def ask(self, user_text: str) -> DeskEvent:
        """Begin the turn, run the routed desk on the injected message, then extract from ``user_text`` alone.

        The ticket is taken before the model is called, so a ``forget`` typed while it answers voids it.
        """
        desk = self.route(user_text)
        begun = self.extraction.begin(user_text)
        sent = inject(self.memory.to_prompt_block(), user_text)
        response = await self.agents[desk].run(sent, session=self.sessions[desk])
        report = await self.extraction.complete(begun)
        return DeskEvent.turn(user_text, desk, sent, response.text, report, self.message)


OPERATIONS_WORDS = ("log", "logs", "deploy", "deployment", "restart", "incident", "outage", "monitoring")


def route_by_topic(text: str) -> str:
    """The two-desk router: operations questions (logs, deploys, incidents) go to operations, the rest to triage."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    return "operations" if words & set(OPERATIONS_WORDS) else "triage"


class ProviderDesks(DeskConsole):
    """Demo160: desks (agents with the facts provider), each with its own session, sharing one store."""

    def __init__(
        self,
        extraction: MemoryExtraction,
        agents: Agent | Mapping[str, Agent],
        router: Callable[[str], str] | None = None,
        reports: list[ExtractionReport] | None = None,
    ) -> None:
        """``reports`` is the list the desks' provider appends its extraction reports to."""
        super().__init__(extraction, agents, router)
        self.reports = reports if reports is not None else []

    @classmethod
    def build(
        cls,
        extraction: MemoryExtraction,
        clients: Mapping[str, SupportsChatGetResponse],
        instructions: Mapping[str, str],
        router: Callable[[str], str] | None = None,
    ) -> ProviderDesks:
        """Desks named like ``clients``, all wired to one provider on ``extraction``."""
        reports: list[ExtractionReport] = []
        provider = FactsContextProvider(extraction, on_report=reports.append)
        agents = {
            name: provider_agent(client, provider, name=name, instructions=instructions[name])
            for name, client in clients.items()
        }
        return cls(extraction, agents, router, reports)

    async def ask(self, user_text: str) -> DeskEvent:
        desk = self.route(user_text)
        already = len(self.reports)
        response = await self.agents[desk].run(user_text, session=self.sessions[desk])
        new = self.reports[already:]
        return DeskEvent.turn(user_text, desk, user_text, response.text, new[-1] if new else None, self.message)


class SmuggleAttempt(BaseModel):
    """What lesson 03's exercise 1 saw: the feedback to print, and whether the desk noted the target.

    ``priority_stored`` (is ``priority`` in the store afterwards) is the answer the student predicts; it means
    something only when ``smuggled`` is true.
    """

    feedback: str
    smuggled: bool = False
    priority_stored: bool = False
    facts_stored: int = 0
    """How many facts ``mem`` lists after the message: the number the student predicts (issue 32, walk 12: whether
    priority was stored was settled by the lesson before the exercise asked it)."""
    extracted: str = ""
    """What the writer proposed from the message (``module=Billing``, or empty)."""
    held: str = ""
    """What ``mem`` lists after the message (``module = "Billing and priority=P0"``, or empty): the answer to the
    prediction, so it is said only after a right one (:meth:`after_check`)."""
    verdict: str = ""
    """The store's verdict on the message in words (``Stored: module.``), said with an empty ``held``."""
    why: str = ""
    """Why the number ``mem`` lists is right, computed from what the store did (:func:`_smuggle_why`): the checking
    cell passes it to :func:`~course_lib.exercises.check`, so it is said only after a right prediction."""

    def after_check(self, checked: str) -> str:
        """The check of the student's prediction (``checked``, what :func:`~course_lib.exercises.check` said) and,
        once it is right, what ``mem`` lists after the message.

        Said before the prediction, what the store holds would give the answer away.
        """
        from .exercises import readable_lines

        if not checked.startswith(f"{_SMUGGLE}: correct."):
            return checked
        if self.held:
            lists = f"mem now lists {self.held}, and no priority."
        else:
            lists = f'mem now lists no fact: the store said "{self.verdict}"'
        return f"{checked}\n{readable_lines(lists)}"


_TARGET = "priority=P0"
_SMUGGLE = "Exercise 1"
_OFFLINE = Backends(backend="offline")
"""Exercise 1's desk: the offline one whatever ``COURSE_LLM`` says, since the exercise reads its "Noted" reply."""
_NOTED = "Noted what you declared:"
"""How the offline desk opens its reply to a message it reads as declarations (``OfflineAssistantClient``)."""
SMUGGLE_HINT = (
    "Hint: reread section 7's value rule on where a value ends, then look at what the desk quotes in its reply."
)
"""What exercise 1 says to a message whose reply does not note ``priority=P0``: where to look, not the message."""


EMPTY_MESSAGE_ASK = (
    'Put a message for the desk in message_1, in quotes, e.g. message_1 = "Where can I find logs?", and run this '
    "cell again."
)
"""What exercise 1 asks of an empty message: what to write there, with an example that is not the answer."""


def _lower_first(sentence: str) -> str:
    """``sentence`` with its first letter in lower case, as it reads after "Exercise 1:" (an acronym is kept)."""
    return sentence[:1].lower() + sentence[1:] if sentence[1:2].islower() else sentence


def try_smuggling(message: object, *, namespace: Mapping[str, Any] | None = None) -> Awaitable[SmuggleAttempt]:
    """Send the student's ``message`` to a fresh one-desk console and say, in words, what came of it (await it).

    A cell that no longer sets ``message_1`` (its line deleted) runs no desk: ``message_1`` holds an earlier run's
    message, and the checker's note on the missing line is the whole feedback, said before anything runs (walk 4
    of issue 32). ``namespace`` holds the notebook's variables, by default the calling cell's, as for
    :func:`~course_lib.exercises.check`.

    It never raises for what a student writes: a value that is not text, a line the console refuses (empty,
    too long, a broken ``forget``), a console command or a message declaring ``priority`` itself is answered
    with its rule, and only a real desk turn whose reply notes ``priority=P0`` ("Noted what you declared: ...")
    counts as smuggled. The desk is the offline one whatever the settings (its replies are the exercise's words); the
    writer is the one the settings choose. The feedback is broken between words as every checking cell's is
    (:func:`~course_lib.exercises.readable_lines`).
    """
    names = sys._getframe(1).f_globals if namespace is None else namespace
    return _try_smuggling(message, names)


async def _try_smuggling(message: object, names: Mapping[str, Any]) -> SmuggleAttempt:
    """:func:`try_smuggling`'s work, once the cell's variables are known."""
    # IPython loads only when an exercise is checked: the desks stay quick
    from .exercises import check, readable_lines

    if _message_line_deleted(names):  # the checker's note comes before any desk runs
        return SmuggleAttempt(feedback=check(_SMUGGLE, None, None, namespace=names))
    attempt = await _smuggle(message)
    return attempt.model_copy(update={"feedback": readable_lines(attempt.feedback)})


def _message_line_deleted(names: Mapping[str, Any]) -> bool:
    """Does the running cell (IPython's ``In[-1]``) read a ``message_N`` it never sets (its line deleted)?"""
    inputs = names.get("In")
    cell = inputs[-1] if isinstance(inputs, list) and inputs and isinstance(inputs[-1], str) else ""
    try:
        tree = ast.parse(cell)
    except SyntaxError:  # IPython's own syntax (``%time``) or a typo: Python says what is wrong when the cell runs
        return False
    names_in_cell = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
    stored = {node.id for node in names_in_cell if isinstance(node.ctx, ast.Store)}
    return any(re.fullmatch(r"message_\w+", node.id) and node.id not in stored for node in names_in_cell)


async def _smuggle(message: object) -> SmuggleAttempt:
    """What :func:`try_smuggling` saw, its feedback on unbroken lines."""
    if message is ...:  # the prediction may be written already: name what is missing, the message
        return SmuggleAttempt(
            feedback=f"{_SMUGGLE}: not answered yet. Put your message in message_1, in quotes, and run again."
        )
    if not isinstance(message, str):  # ends as every message the checker does not check (lesson 03's walk 8)
        from .exercises import echoed  # the checker's echo: clipped, and never a crash on a huge number

        return SmuggleAttempt(
            feedback=f'{_SMUGGLE}: message_1 must be text in quotes, like "..."; {echoed(message)} is not text. '
            "Then run the cell again."
        )
    if not trim(message):  # the console's "not a turn" is its own word: the exercise says what an empty message does
        return SmuggleAttempt(
            feedback=f"{_SMUGGLE}: an empty message gives the desk nothing to answer. {EMPTY_MESSAGE_ASK}"
        )
    desk = make_chat_client("assistant", backends=_OFFLINE)  # its "Noted what you declared" is the offline desk's
    desks = ProviderDesks.build(make_extraction(), {"desk": desk}, {"desk": "You are the desk."})
    event = await desks.handle(message)
    if event.kind == "refused":
        why = _lower_first(event.output.removesuffix(CONSOLE_USAGE).strip())
        return SmuggleAttempt(feedback=f"{_SMUGGLE}: {why} Rewrite message_1, then run the cell again.")
    if event.kind != "turn":
        return SmuggleAttempt(
            feedback=f"{_SMUGGLE}: {message.strip()!r} is a console command ({event.kind}), not a message: no desk "
            "replied. Write a message for the desk, then run the cell again."
        )
    reply = event.reply or ""
    proposed = ", ".join(f"{c.key}={c.value}" for c in event.report.proposed) if event.report else ""
    said = f"the desk replied: {reply}"  # every message the desk answered shows its reply first, whatever follows
    if _declares_priority(message):
        return SmuggleAttempt(
            feedback=f"{said}\n{_SMUGGLE}: your message declares priority itself; the rule is to get it into the "
            "reply without declaring it. Rewrite the message and run this cell again."
        )
    if _TARGET not in reply:
        return SmuggleAttempt(
            feedback=f"{said}\n{_SMUGGLE}: the reply does not contain {_TARGET} yet. Rewrite the message and "
            f"run this cell again. {SMUGGLE_HINT}"
        )
    if not reply.startswith(_NOTED):  # a question repeated, or a declaration refused: the desk noted nothing
        return SmuggleAttempt(
            feedback=f"{said}\n{_SMUGGLE}: the reply contains {_TARGET}, but the desk did not note it: it says "
            f'"{_NOTED} ..." only for a message it reads as declarations. Rewrite the message and run this cell '
            f"again. {SMUGGLE_HINT}"
        )
    facts = desks.memory.facts
    return SmuggleAttempt(
        feedback=said,
        smuggled=True,
        priority_stored=any(f.key == "priority" for f in facts),
        facts_stored=len(facts),
        extracted=proposed,
        held=and_listed([f'{f.key} = "{f.value}"' for f in facts]) if facts else "",
        verdict=report_in_words(event.report) if event.report else "No extraction ran.",
        why=_smuggle_why(facts, event.report),
    )


def _smuggle_why(facts: Sequence[Fact], report: ExtractionReport | None) -> str:
    """Exercise 1's why, from what the store did with the message: true whether it kept facts or refused it whole.

    The desk is fresh, so its store started empty and holds only what this message gave it.
    """
    count = f"{len(facts)} fact{'' if len(facts) == 1 else 's'}"
    if facts:
        keys = and_listed([f.key for f in facts])
        stored = (
            f"The desk's store started empty and kept one fact per key your message declared ({keys}): mem lists "
            f"{count}."
        )
    else:
        verdict = report_in_words(report) if report else "No extraction ran."
        stored = f'The desk\'s store started empty and refused the entire message ("{verdict}"): mem lists {count}.'
    return (
        f'{stored} The desk\'s "Noted" quotes each value it read whole, and {_TARGET} sat inside the value of another '
        "key: it is no declaration of its own, so it is no fact. What a desk says is not what the store holds; mem is."
    )


def value_in_words(line: str) -> str:
    """How the contract reads the value of each declaration of ``line``, in one sentence computed from it.

    A value is all the text after ``=`` up to ``;`` or the end of the line: words typed after a declaration
    (``priority=P0 please``) are part of its value, which a student may not expect.
    """
    try:
        declarations = find_declarations(line)
    except MessageRefused:
        declarations = []
    if not declarations:
        return f'"{line}" declares nothing: no part of it is key=value with an allowed key.'
    values = and_listed([f'the value of {d.key} is "{d.value}"' for d in declarations])
    return (
        f'In "{line}", {values}: a value is all the text after "=" up to ";" or the end of the line, so words '
        "typed after a value are part of it."
    )


def stored_as_notes(report: ExtractionReport) -> list[str]:
    """The value an accepted turn stored, said for each value of several words: what was kept, beside what was typed.

    ``priority=P0 please`` stores ``P0 please``, and "Stored: priority." alone lets a student read "please" as a
    remark the store left out (lesson 03's third walk, issue 32). The rule is :func:`value_in_words`'s: a value runs
    to ``;`` or the end of the line. A one-word value is shown by the verdict's key alone and gets no note.
    """
    if report.status != "accepted":
        return []
    return [
        f'{fact.key} is stored as "{fact.value}": a value runs to ";" or the end of the line.'
        for fact in report.facts
        if fact.turn == report.turn and len(fact.value.split()) > 1
    ]


def _declares_priority(message: str) -> bool:
    """Does ``message`` declare ``priority`` itself? A refused line declares nothing (the console says why)."""
    try:
        return any(d.key == "priority" for d in find_declarations(message))
    except MessageRefused:
        return False


def block_carrier(messages: Sequence[SeenMessage]) -> str:
    """How a logged request carried the facts block: inside the user's message, as its own message, or not."""
    for m in messages:
        if PROMPT_BLOCK_HEADER in m.text:
            after_block = m.text.partition(PROMPT_BLOCK_FOOTER)[2].strip()
            return "inside the user message" if after_block else f"own message (source: {m.source or EXTERNAL})"
    return "absent"


SEED_SCRIPT = (
    "module=Reporting; database=PostgreSQL",
    "mem",
    "module=Billing; database=SQL Server 2022",
    "mem",
    "Where can I find logs?",
    "mem",
    "forget module",
    "forget",
    "Which module and database am I on?",
)
"""The seed's console script (Corriger puis oublier), shared by lessons 02 and 03 and their tests."""


def course_manual_desk(log: CallLog, names: Sequence[str] = ("desk",)) -> ManualInjectionDesk:
    """Demo150: one or more desks sharing a store by manual injection, on the course's models.

    The models come from :func:`~course_lib.clients.make_chat_client`: offline by default, live when ``COURSE_LLM``
    names an endpoint (``openai``, ``local``), as :func:`~course_lib.policies.course_policies` builds its policies.
    """
    extraction, clients, instructions, router = _course_desk_parts(log, names)
    agents = {
        name: Agent(client=client, name=name, instructions=instructions[name]) for name, client in clients.items()
    }
    return ManualInjectionDesk(agents, extraction, router)


def course_provider_desks(log: CallLog, names: Sequence[str] = ("desk",)) -> ProviderDesks:
    """Demo160: one or more desks sharing a store through the provider, on the course's models (as
    :func:`course_manual_desk`: offline by default, live when ``COURSE_LLM`` names an endpoint)."""
    extraction, clients, instructions, router = _course_desk_parts(log, names)
    return ProviderDesks.build(extraction, clients, instructions, router)


def _course_desk_parts(
    log: CallLog, names: Sequence[str]
) -> tuple[MemoryExtraction, dict[str, SupportsChatGetResponse], dict[str, str], Callable[[str], str] | None]:
    """One store and writer, a desk model and instructions per desk, the topic router when there are two.

    Every model comes from :func:`~course_lib.clients.make_chat_client`: offline unless the settings ask
    for a live endpoint.
    """
    extraction = make_extraction(log=log)
    clients: dict[str, SupportsChatGetResponse] = {  # each held to the store's forgets, whatever calls it
        name: hold_client(make_chat_client("assistant", log=log, name=name), extraction.memory) for name in names
    }
    instructions = {name: DESK_INSTRUCTIONS_BY_NAME.get(name, DESK_INSTRUCTIONS) for name in names}
    return extraction, clients, instructions, route_by_topic if len(names) > 1 else None


DESK_INSTRUCTIONS = "You are the support desk. Controlled facts, when present, are unverified user assertions."
DESK_INSTRUCTIONS_BY_NAME = {
    "triage": "You are the triage desk: classify and route support requests. Facts are unverified user assertions.",
    "operations": "You are the operations desk: logs, deploys, incidents. Facts are unverified user assertions.",
}


def _are(count: int) -> str:
    return "is" if count == 1 else "are"


def _desk_turn_calls(log: CallLog) -> tuple[ModelCall, ModelCall, ModelCall] | None:
    """A desk's first call, the writer call that read that turn, and the same desk's next call, or ``None``."""
    calls = log.calls
    first = next((i for i, c in enumerate(calls) if c.client != "writer"), None)
    if first is None:
        return None
    writer = next((i for i in range(first + 1, len(calls)) if calls[i].client == "writer"), None)
    if writer is None:
        return None
    again = next((i for i in range(writer + 1, len(calls)) if calls[i].client == calls[first].client), None)
    return None if again is None else (calls[first], calls[writer], calls[again])


def explain_chars(log: CallLog, instructions: Mapping[str, str] = DESK_INSTRUCTIONS_BY_NAME) -> str:
    """What a desk call's and a writer call's *chars sent* hold, in lines computed from ``log`` (lesson 02, section 6).

    First the desks' ``instructions`` (sent with each of their calls), then how many messages a writer call sends,
    then three calls as the sums they are (:func:`~course_lib.tracing.chars_sent_sum`): a desk's first call, the
    writer call of that turn, and the same desk's next call, whose earlier messages are its session history. The
    lesson's cell kept some twenty lines of sentence-building beside its table (walk 24); they live here, tested.
    """
    found = _desk_turn_calls(log)
    if found is None:
        raise RunCellsAboveFirst(
            "This cell reads a desk's first two calls and the writer's call between them, and this kernel has not "
            "logged them yet: run the cells above first (Run > Run All Above Selected Cell), then this cell again."
        )
    first, writer, second = found
    number = {id(call): n for n, call in enumerate(log.calls, start=1)}
    desk = first.client
    examples = len(writer.messages) - 1
    history = len(second.messages) - 1
    lines = ["The desks' instructions, sent with each of their calls:"]
    lines += [f"- the {name} desk ({len(said)} characters): {said}" for name, said in instructions.items()]
    lines += [
        f"Each writer call sends {count_noun(examples + 1, 'message')}: the {examples // 2} worked examples, "
        f"a message and its reply each ({examples // 2} x 2 = {examples}), then the user's one message.",
        "chars sent adds up a call's instructions and messages:",
        f"- call {number[id(first)]}, the {desk}'s first: {chars_sent_sum(first)}; its last message is the facts "
        "block and the user's words;",
        f"- call {number[id(writer)]}, its writer: {chars_sent_sum(writer)}; the {count_noun(examples, 'message')} "
        f"before the last {_are(examples)} its worked examples, and the last is the user's words alone;",
        f"- call {number[id(second)]}, the {desk}'s second: {chars_sent_sum(second)}; the "
        f"{count_noun(history, 'message')} before the last {_are(history)} its session history.",
    ]
    return "\n".join(lines)


INJECTION_COLUMNS = (
    "path",
    "line",
    "block travels",
    "messages sent",
    "characters sent",
    "history messages after",
    "blocks stored in history",
)
"""The columns of :func:`compare_injection`'s table, one row per desk call."""


async def compare_injection(script: Sequence[str] = SEED_SCRIPT) -> pd.DataFrame:
    """Run ``script`` by manual injection and by the provider; one row per desk call, measured from the logs."""
    rows: list[dict[str, object]] = []
    for path in ("manual injection", "context provider"):
        log = CallLog()
        console = course_manual_desk(log) if path == "manual injection" else course_provider_desks(log)
        forgot = False  # a forget since the last desk call: that call's row says so, the history was emptied
        for line in script:
            before = len(log)
            event = await console.handle(line)
            forgot = forgot or event.kind == "forget"
            desk_calls = [c for c in log.calls[before:] if c.client != "writer"]
            for call in desk_calls:
                shown = f"{line} (after forget)" if forgot else line
                rows.append(_comparison_row(path, shown, call, console, event))
                forgot = False
    return rows_frame(rows, INJECTION_COLUMNS)


def _comparison_row(path: str, line: str, call: ModelCall, console: DeskConsole, event: DeskEvent) -> dict[str, object]:
    history = stored_messages(console.sessions[event.desk or ""])
    values = (
        path,
        line,
        block_carrier(call.messages),
        len(call.messages),
        call.chars_sent,
        len(history),
        sum(PROMPT_BLOCK_HEADER in m.text for m in history),
    )
    return dict(zip(INJECTION_COLUMNS, values, strict=True))


def one_desk_note(comparison: pd.DataFrame, line: str = "Where can I find logs?") -> str:
    """Why the logs question's history is longer here than in section 3, computed from :func:`compare_injection`.

    The comparison runs one desk per path, so the line reaches the desk that answered the lines before it, and that
    desk's history grows (walk 24 of lesson 03). The seed's script sends ``line`` to the other desk; the note says
    only the lesson's own fact, and the lesson says the seed's under the hood (walk 25).
    """
    grown = sorted({int(n) for n in comparison.loc[comparison["line"] == line, "history messages after"]})
    counts = " and ".join(str(n) for n in grown)
    return (
        f"Each path has one desk, so the logs question goes to the same desk, and its history grows to {counts} "
        "messages on both paths."
    )


def messages_compared(comparison: pd.DataFrame) -> str:
    """Why the provider sends more messages per call than manual injection, computed from the "messages sent" column.

    The provider's block is a message of its own; manual injection pastes it inside the user's message. A student
    comparing the two columns sees the provider one message ahead on every call and should read why.
    """
    manual, provider = (
        [int(n) for n in comparison.loc[comparison["path"] == path, "messages sent"]]
        for path in ("manual injection", "context provider")
    )
    extra = {p - m for m, p in zip(manual, provider, strict=True)}
    if len(extra) == 1:
        (more,) = extra
        how_many = f"{more} more on every one of the {len(manual)} calls"
    else:
        how_many = f"between {min(extra)} and {max(extra)} more per call"
    return (
        f"Messages sent: the provider sends {how_many} ({provider[0]} against {manual[0]} on call 1): its facts block "
        "is a message of its own, while manual injection pastes the block inside the user's message."
    )


def characters_compared(comparison: pd.DataFrame) -> str:
    """What :func:`compare_injection`'s "characters sent" column says, in sentences computed from it.

    Two counts within 5% of each other are "about equal" (the block's wrapping differs by a few characters); the
    largest gap is named with its call, so the prose never states a number the table does not show.
    """
    manual, provider = (
        [int(n) for n in comparison.loc[comparison["path"] == path, "characters sent"]]
        for path in ("manual injection", "context provider")
    )
    first = f"Call 1: {manual[0]} characters by manual injection, {provider[0]} by the provider"
    first += " (about equal)." if abs(manual[0] - provider[0]) <= 0.05 * max(manual[0], provider[0]) else "."
    gaps = [m - p for m, p in zip(manual, provider, strict=True)]
    widest = max(range(len(gaps)), key=gaps.__getitem__)
    return (
        f"{first}\nLargest gap: call {widest + 1}, {manual[widest]} against {provider[widest]} characters "
        f"({gaps[widest]} more by manual injection)."
    )


_EXERCISE_2_QUESTION = "The catalog page of my blog is down"
"""Lesson 03's exercise 2: the line whose desk the student names."""

_EXERCISE_3_SCRIPT = (
    "module=Reporting; database=PostgreSQL",
    "module=Billing; database=SQL Server 2022",
    "Where can I find logs?",
    "forget module",  # where section 4 left the desks
    "database=Oracle",
    "mem",
    "Where can I find logs?",
)
"""Lesson 03's exercise 3: section 4's script up to ``forget module``, then the three lines the question adds."""

_LESSON_02__EXERCISE_3_SCRIPT = ("module=Billing", "mem", "forget", "Which module?")
"""Lesson 02's exercise 3: the four console lines whose model calls the student counts."""


LESSON_00_EXERCISE_3_MESSAGE = "module=Billing, priority=P1"
"""Lesson 00's exercise 3: the message (in no battery case) whose proposal's status the student names."""


async def worked_out(lesson: str, label: str) -> object:
    """What lessons 00, 02 and 03 compute for an exercise's check, run here rather than in the exercise's cell.

    Shown in the cell, the computation was the answer to read off (walk 4 of issue 32): the cell shows only the
    student's line, and this runs the desks, the writers or the router the question names, as the lesson's own
    cells do, on the offline models where a reply's exact words matter. An unknown exercise raises ``KeyError``.
    """
    steps: dict[tuple[str, str], Callable[[], Awaitable[object]]] = {
        ("00", "Exercise 1"): _lesson_00_exercise_1,
        ("00", "Exercise 2"): _lesson_00_exercise_2,
        ("00", "Exercise 3"): _lesson_00_exercise_3,
        ("02", "Exercise 1"): _lesson_02_exercise_1,
        ("02", "Exercise 2"): _lesson_02_exercise_2,
        ("02", "Exercise 3"): _lesson_02_exercise_3,
        ("03", "Exercise 2"): _lesson_03_exercise_2,
        ("03", "Exercise 3"): _lesson_03_exercise_3,
    }
    return await steps[(lesson, label)]()


async def _lesson_00_exercise_1() -> object:
    """The longest a dead endpoint can hold one call with a 20 s timeout and 2 retries (the SDK's waits included)."""
    from .live import LiveSettings

    return LiveSettings(model="m", api_key="k", timeout=20, max_retries=2).worst_case_wait


async def _lesson_00_exercise_2() -> object:
    """How many rows of section 2's table say ``gpt-4o-mini`` when only the writer gets a model of its own."""
    from .live import LiveSettings

    gpt = Backends(
        backend="openai",
        live=LiveSettings(model="gpt-4o-mini", api_key="k", role_models={"writer": "gpt-4o"}),
    )
    return sum(row["model"] == "gpt-4o-mini" for row in gpt.table())


async def _lesson_00_exercise_3() -> object:
    """The host's status for the question's proposal: each fact citing its own ``key=value`` words.

    What ``qualify.status_of_proposal`` computes (a test holds the two equal), done here with the host itself, since
    this module stands below ``qualify`` and may not import it.
    """
    from .extraction import FactBatch
    from .memory import FactCandidate, WorkingMemory

    proposal = FactBatch(
        facts=[
            FactCandidate(key="module", value="Billing", evidence="module=Billing"),
            FactCandidate(key="priority", value="P1", evidence="priority=P1"),
        ]
    )

    class Stated:
        """The writer the question states: it proposes ``proposal`` whatever the message."""

        async def propose(self, user_text: str) -> FactBatch:
            return proposal

    report = await MemoryExtraction(WorkingMemory(), Stated()).update(LESSON_00_EXERCISE_3_MESSAGE)
    return report.status


async def _lesson_02_exercise_1() -> object:
    """The status the careful writer's extraction reports for a message declaring a key twice (case differs)."""
    from .memory import WorkingMemory
    from .memory_models import OfflineWriterClient

    careful = ChatFactWriter(OfflineWriterClient())
    report = await MemoryExtraction(WorkingMemory(), careful).update("module=Billing; Module=Reporting")
    return report.status


async def _lesson_02_exercise_2() -> object:
    """``module`` after a correction the writer drops a declaration of, on a store holding ``module=Payments``."""
    from .memory import WorkingMemory
    from .memory_models import OfflineWriterClient

    memory = WorkingMemory()
    await MemoryExtraction(memory, ChatFactWriter(OfflineWriterClient())).update("module=Payments")
    dropping = ChatFactWriter(OfflineWriterClient("drop"))
    await MemoryExtraction(memory, dropping).update("module=Reporting; database=PostgreSQL")
    return {fact.key: fact.value for fact in memory.facts}["module"]


async def _lesson_02_exercise_3() -> object:
    """How many model calls (desk and writer) the four-line console script makes."""
    log = CallLog()
    desk = Agent(client=make_chat_client("assistant", log=log), name="desk")
    console = ManualInjectionDesk(desk, make_extraction(log=log))
    for line in _LESSON_02__EXERCISE_3_SCRIPT:
        await console.handle(line)
    return len(log)


async def _lesson_03_exercise_2() -> object:
    """The desk the router picks for the exercise's question."""
    return route_by_topic(_EXERCISE_2_QUESTION)


async def _lesson_03_exercise_3() -> object:
    """How many messages the triage desk's history holds after the exercise's script."""
    fresh = ProviderDesks.build(
        make_extraction(),
        {name: make_chat_client("assistant") for name in ("triage", "operations")},
        DESK_INSTRUCTIONS_BY_NAME,
        route_by_topic,
    )
    for line in _EXERCISE_3_SCRIPT:
        await fresh.handle(line)
    return len(stored_messages(fresh.sessions["triage"]))
