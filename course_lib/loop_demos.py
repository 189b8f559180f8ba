"""The loop lessons' scenarios: the seed's demo, its fake model and evaluator, an offline judge, MAF's loop beside it.

Scenario code, kept apart from :mod:`course_lib.loop` (the library, which ships only what MAF .NET
ships): the seed's numbering fake LLM and its iteration-counting evaluator (MAF does not ship that
one), the seed's console trace, and the offline worker and judge of lesson 06. Tests run them too, so
the lessons' set-ups are not cells only a notebook holds.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from agent_framework import Agent, AgentLoopMiddleware, AgentResponse, AgentResponseUpdate, AgentSession, Message
from pydantic import ValidationError

from .environment import course_file
from .exercises import readable_lines
from .frames import rows_frame, shorten_at_word
from .loop import (
    CRITERIA_HEADING,
    RESPONSE_HEADING,
    AIJudgeVerdict,
    LoopAgent,
    LoopAgentOptions,
    LoopContext,
    LoopEvaluation,
    LoopEvaluator,
    LoopExitReason,
)
from .offline import OfflineChatClient
from .tracing import CallLog

if TYPE_CHECKING:  # pandas loads when a table is built: importing the loop scenarios stays quick
    import pandas as pd

__all__ = [
    "EXIT_REASON_WORDS",
    "EXPLAINED_COLUMNS",
    "EXPLICIT_MESSAGES",
    "HANGING",
    "INDENT",
    "MENTION_GAP",
    "MESSAGE_COLUMNS",
    "NO_BREAK",
    "NO_FEEDBACK_YET",
    "NO_REASON_RECORDED",
    "OPTIONS_COLUMNS",
    "OPTION_NOTES",
    "OTHER_OPTIONS",
    "RULE_EVALUATOR",
    "RULE_LLM",
    "SAW_CHARS",
    "SAW_LAST",
    "SEED_INPUT",
    "SEED_OPTION_COUNT",
    "SEED_OUTPUT",
    "SIGNAL_REQUEST",
    "STREAM_COLUMNS",
    "TRACE_COLUMNS",
    "WAITING_FOR_APPROVAL",
    "IterationCountEvaluator",
    "LoopTrace",
    "MessageNumberer",
    "NumberingChatClient",
    "OfflineDraftClient",
    "OfflineJudgeClient",
    "Section",
    "TraceStep",
    "call_input_frame",
    "call_labels",
    "calls_sentence",
    "compare_with_seed",
    "counted_messages",
    "evaluators_said_stop",
    "exit_reason",
    "feedback_log_words",
    "flow_summary",
    "fold",
    "judge_criteria",
    "kept_with_numbers",
    "marker_sentence",
    "messages_frame",
    "numbered_messages",
    "numbering_reminder",
    "option_value",
    "options_frame",
    "options_hood_rows",
    "options_rows",
    "profile_options",
    "recent_texts",
    "reminder_if_wrong",
    "render_messages",
    "returned_words",
    "run_middleware_demo",
    "run_seed_demo",
    "same_run_sentence",
    "seed_loop",
    "seed_match_sentence",
    "sender",
    "spaced",
    "stop_sentence",
    "stream_seed_demo",
    "streamed_frame",
    "updates_sentence",
    "verdict_sentence",
]


SIGNAL_REQUEST = "emit 'TASK_COMPLETE:"
"""What :class:`~course_lib.loop.SignalProtocolLoopEvaluator`'s feedback asks; the offline worker obeys it."""

# region The seed's trace, fake LLM and evaluator

RULE_LLM = "-" * 30 + "LLM" + "-" * 30
RULE_EVALUATOR = "-" * 30 + "Evaluator" + "-" * 30
INDENT = "    "


Section = tuple[str, tuple[str, ...]]
"""What a step saw under one title (``("Last response", (...))``): the stepper lists its items one by one."""

TRACE_COLUMNS = ("step", "actor", "call", "saw", "did")
"""The columns of :meth:`LoopTrace.to_frame`, named once: the fields of :class:`TraceStep` it shows."""

SAW_CHARS = 400
"""The longest "saw" a trace table shows in full; longer, it keeps the last messages and counts the rest."""
SAW_LAST = 3
"""How many of the latest messages a folded "saw" keeps (each shortened to its share of :data:`SAW_CHARS`)."""


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One step of a traced loop, an LLM call or an evaluation: a row of the table, a block of the text, a page of
    the stepper."""

    step: int
    """The step's number in the run, from 1."""
    actor: Literal["LLM", "Evaluator"]
    """Who acted: the model (one call) or an evaluator (one evaluation)."""
    call: int
    """The LLM call this step is or follows (for an evaluation, its iteration)."""
    saw: str
    """What it saw, in a few short lines at most (:func:`recent_texts` folds a long history)."""
    did: str
    """What it returned or decided: the reply, ``stop``, or ``continue: ...``."""
    sections: tuple[Section, ...]
    """What it saw in full, as titled lists in the seed's order (a list item is never split)."""
    feedback: str | None = None
    """The feedback an evaluation sent; None when it said stop, and for an LLM call."""
    unchanged: tuple[str, ...] = ()
    """The titles of sections that are the same at every evaluation (the seed's initial messages): the stepper lists
    them at the first evaluation and names them at the later ones."""
    roles: tuple[str, ...] = ()
    """For an LLM call: the role of each message it received, in order (``user``, ``assistant``...); empty when the
    call's maker recorded none."""
    session: int = 0
    """For an LLM call: how many sessions the loop had created when it was made (the latest is the one it ran on);
    0 when the loop created none (the caller's session, or a trace that does not count them)."""

    @property
    def continues(self) -> bool:
        """Whether this step is an evaluation that asked for another iteration."""
        return self.did.startswith("continue")

    def lines(self, last: int | None = None) -> list[str]:
        """The step in the seed's console layout; with ``last``, an LLM call lists only its last messages."""
        if self.actor == "LLM":
            incoming = [text for _, items in self.sections for text in items]
            shown = _indented(incoming)
            if last is not None and len(incoming) > last:
                shown = [INDENT + _earlier(len(incoming) - last), *shown[-last:]]
            return [RULE_LLM, "Incoming messages:", *shown, "Outgoing response:", INDENT + self.did]
        lines = [RULE_EVALUATOR, f"Iteration: {self.call}"]
        for title, items in self.sections:
            lines += [f"{title}:", *_indented(items)]
        return lines if self.feedback is None else [*lines, f"Feedback:{self.feedback}", ""]


@dataclass
class LoopTrace:
    """The seed's console trace of a loop: each LLM call and each evaluation, in order.

    Each is one :class:`TraceStep`, written only through :meth:`llm` and :meth:`evaluation`: ``text()``
    renders the steps in the seed's layout (what the LLM received and returned; what the evaluator saw and
    decided), ``to_frame()`` as a table, the stepper one page each, so the three cannot disagree.
    """

    rows: list[TraceStep] = field(default_factory=list)
    calls: list[list[str]] = field(default_factory=list)
    roles: list[list[str]] = field(default_factory=list)
    """Per call, as :attr:`calls`: the role of each message it received; an empty list when none was recorded."""
    sessions: int = 0
    """How many sessions the loop has created so far (:meth:`session_created`)."""
    model: str = "LLM"
    """How the table's actor column names the model's calls: the seed's "LLM" by default; a lesson whose model is
    not a live LLM names it truthfully (lesson 07: "reader (offline model)"). The text keeps the seed's layout."""

    def first_feedback(self) -> str:
        """The first feedback an evaluation sent back, with the call it followed, or why there is none.

        Offline the drift-prone reader always earns feedback; a live reader may be right first time, and then the
        loop stopped after one call with nothing to show (lesson 07's live run failed on exactly that).
        """
        sent = next((step for step in self.rows if step.feedback), None)
        if sent is None:
            return "No evaluation sent the answer back: the first answer stood, so there is no feedback to show."
        return (
            f"The feedback the evaluator sent after call {sent.call}, the last message of call {sent.call + 1}:\n"
            f"{sent.feedback}"
        )

    def session_created(self, session: AgentSession) -> None:
        """The loop created a session (its ``session_created_callback``): the next calls run on it."""
        self.sessions += 1

    def llm(self, incoming: Sequence[str], outgoing: str, roles: Sequence[str] = ()) -> None:
        """One model call: the messages it received (their texts, and their roles when given) and the reply it
        returned, and the session count at the call."""
        if roles and len(roles) != len(incoming):
            raise ValueError(f"one role per message: {len(roles)} roles for {len(incoming)} messages")
        self.calls.append(list(incoming))
        self.roles.append(list(roles))
        sections = (("Incoming messages", tuple(incoming)),)
        saw = kept_with_numbers(recent_texts(incoming))
        self.rows.append(
            TraceStep(
                len(self.rows) + 1,
                "LLM",
                len(self.calls),
                saw,
                outgoing,
                sections,
                roles=tuple(roles),
                session=self.sessions,
            )
        )

    def evaluator(self, context: LoopContext, feedback: str | None) -> None:
        """The seed's evaluation: the initial messages, the last response and the previous feedback it saw.

        The table's "saw" names the initial messages by their count: they are the same at every evaluation
        (the first call's input), and listing them on every row would bury the two parts that change. Its four parts
        stand on lines of their own (a table shows them with ``lines=["saw"]``): a message ends in a full stop, and
        a ``;`` after it read as ``.;``; `` | `` keeps separating one message from the next, as in the model's rows.
        Its "saw" and "did" keep each number on the line of the word before it (:func:`kept_with_numbers`): a narrow
        column wrapped "continue: Feedback for iteration" and left the "1" alone on the next line.
        """
        initial = tuple(m.text for m in context.initial_messages)
        last = tuple(m.text for m in context.last_response.messages)
        previous = tuple(f or "" for f in context.feedback)
        self.evaluation(
            context.iteration,
            (("Initial messages", initial), ("Last response", last), ("Previous feedback", previous)),
            saw=kept_with_numbers(
                f"iteration {context.iteration}\nthe {len(initial)} initial messages\nlast response: "
                f"{' | '.join(last)}\nprevious feedback: {' | '.join(previous) or 'none'}"
            ),
            did="stop" if feedback is None else kept_with_numbers(f"continue: {feedback}"),
            feedback=feedback,
            unchanged=("Initial messages",),
        )

    def evaluation(
        self,
        iteration: int,
        sections: Sequence[Section],
        *,
        saw: str,
        did: str,
        feedback: str | None,
        unchanged: Sequence[str] = (),
    ) -> None:
        """Any evaluator's step: the sections it saw, its decision and its feedback.

        ``unchanged`` names the sections that are the same at every evaluation (the seed's initial messages):
        the text lists them every time, the stepper at the first evaluation only.
        """
        step = TraceStep(
            len(self.rows) + 1, "Evaluator", iteration, saw, did, tuple(sections), feedback, tuple(unchanged)
        )
        self.rows.append(step)

    @property
    def evaluations(self) -> int:
        """How many times the loop asked its evaluator: a budget or the cap that ends the run is checked first, so
        the call that spent it is followed by no evaluation (lesson 06's budgets table)."""
        return sum(step.actor == "Evaluator" for step in self.rows)

    @property
    def lines(self) -> list[str]:
        """The whole trace in the seed's console layout, line by line."""
        return [line for step in self.rows for line in step.lines()]

    def text(self, *, last: int | None = None) -> str:
        """The trace in the seed's layout; ``last`` lists only each call's last messages, after a count of the rest."""
        return "\n".join(line for step in self.rows for line in step.lines(last))

    def to_frame(self) -> pd.DataFrame:
        """The steps as a table, one row each, in the :data:`TRACE_COLUMNS`; the model's numbers :func:`spaced`, its
        calls named by :attr:`model`."""
        rows = [{c: spaced(v) if isinstance(v := getattr(s, c), str) else v for c in TRACE_COLUMNS} for s in self.rows]
        for row in rows:
            row["actor"] = self.model if row["actor"] == "LLM" else row["actor"]
        return rows_frame(rows, TRACE_COLUMNS)


def call_input_frame(texts: Sequence[str], roles: Sequence[str] | None = None) -> pd.DataFrame:
    """What one model call received (a trace's ``calls[i]``), one message per row, numbered from 1; with ``roles``
    (the trace's ``roles[i]``), each message's role beside it."""
    if roles is None:
        rows = ({"message": number, "text": spaced(text)} for number, text in enumerate(texts, start=1))
        return rows_frame(rows, ("message", "text"))  # a column, not a named index: one header row
    if len(roles) != len(texts):
        raise ValueError(f"one role per message: {len(roles)} roles for {len(texts)} messages")
    rows = (
        {"message": number, "role": role, "text": spaced(text)}
        for number, (role, text) in enumerate(zip(roles, texts, strict=True), start=1)
    )
    return rows_frame(rows, ("message", "role", "text"))


_NUMBER = re.compile(r"(?<![\w\]])(\[\d+\])(?=[A-Z])")

NO_BREAK = "\u00a0"
"""The no-break space: a browser never ends a line there, so the words on either side stay on one line."""

_WORD_THEN_NUMBER = re.compile(r"(?<=[^\W\d_]) (?=\d)")


def kept_with_numbers(text: str) -> str:
    """``text`` for a table cell: each number stays on the line of the word before it.

    The space between a word and the number after it becomes a :data:`NO_BREAK` space (``iteration 1``,
    ``the 3 initial messages``): a narrow column wrapped "continue: Feedback for iteration" and put the "1" alone on
    the next line. The text reads the same; only where a line may end changes. A message's own text, as the trace
    and the loop's response carry it, keeps its plain spaces (it is compared with the seed's output).
    """
    return _WORD_THEN_NUMBER.sub(NO_BREAK, text)


def spaced(text: str) -> str:
    """``text`` for a table: a space after each message number of the fake model (``[4] Response ...``).

    The seed's numbering model writes ``[4]Response message from LLM.``; lesson 05 keeps that exact text (it is
    compared with the seed's output), but in a table cell the glued ``[4]Response`` reads as one odd word.
    """
    return _NUMBER.sub(r"\1 ", text)


def sender(message: Message | AgentResponseUpdate, model: str = "the model") -> str:
    """Who wrote a message of a loop's response, in words: the model, the loop's feedback, or its author's name.

    ``model`` names the model's messages where two models take part (a judge's loop says "the worker").

    A loop's response never echoes the caller's input, so a User message in it was added by the loop (its feedback)
    or by an evaluator (explicit messages); MAF's default author name for an unnamed agent is not shown.
    """
    if message.role == "assistant":
        return model
    return f"{message.author_name} (added by the loop)" if message.author_name else "the loop (feedback)"


MESSAGE_COLUMNS = ("message", "from", "text")
"""The columns of :func:`messages_frame`."""


def messages_frame(messages: Sequence[Message], model: str = "the model") -> pd.DataFrame:
    """A loop's returned messages as a table: number, who wrote it (:func:`sender`), its text (:func:`spaced`)."""
    rows = (
        {"message": number, "from": sender(m, model), "text": spaced(m.text)}
        for number, m in enumerate(messages, start=1)
    )
    return rows_frame(rows, MESSAGE_COLUMNS)


STREAM_COLUMNS = ("message", "from", "pieces", "the pieces, as they arrived", "joined")
"""The columns of :func:`streamed_frame`."""


def streamed_frame(updates: Sequence[AgentResponseUpdate]) -> pd.DataFrame:
    """A streamed run's updates joined back per message: how many pieces each message came in, and its text.

    A streaming run yields small pieces (here one per word); one row per piece is a column of single words with an
    empty author. Consecutive updates of one message (the same ``message_id``) are one row here.
    """
    rows = (
        {
            "message": number,
            "from": sender(group[0]),
            "pieces": len(group),
            "the pieces, as they arrived": " | ".join(spaced(u.text.strip()) for u in group),
            "joined": spaced("".join(u.text for u in group)),
        }
        for number, group in enumerate(_message_groups(updates), start=1)
    )
    return rows_frame(rows, STREAM_COLUMNS)


def _message_groups(updates: Sequence[AgentResponseUpdate]) -> list[list[AgentResponseUpdate]]:
    """Consecutive updates of one message (the same ``message_id`` and role) grouped: one group per message."""
    groups: list[list[AgentResponseUpdate]] = []
    for update in updates:
        if groups and groups[-1][-1].message_id == update.message_id and groups[-1][-1].role == update.role:
            groups[-1].append(update)
        else:
            groups.append([update])
    return groups


def _counted(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def updates_sentence(updates: Sequence[AgentResponseUpdate], model: str = "the model") -> str:
    """How many updates a streamed run gave, and of which kinds, in one sentence computed from the updates.

    An update from the model is a piece of one of its answers; any other update is the loop's feedback (the loop
    yields each feedback message as one User update; :func:`sender` reads a User message the same way). Joined per
    message as :func:`streamed_frame` joins them, the updates make the run's messages. Broken into lines as the
    exercises' messages are (:func:`~course_lib.exercises.readable_lines`).
    """
    if not updates:
        return "No updates came."
    groups = _message_groups(updates)
    answers = [group for group in groups if group[0].role == "assistant"]
    feedback = [group for group in groups if group[0].role != "assistant"]
    pieces = sum(len(group) for group in answers)
    answered = f"{_counted(pieces, 'piece')} of {model}'s {_counted(len(answers), 'answer')}"
    if len(answers) > 1:  # why that many pieces: per answer, computed (a single answer's count is its pieces)
        fewest, most = min(len(group) for group in answers), max(len(group) for group in answers)
        answered += f" ({_counted(fewest, 'piece')} each)" if fewest == most else f" ({fewest} to {most} pieces each)"
    if not feedback:
        fed = "no feedback"
    else:
        sent = sum(len(group) for group in feedback)
        if sent == len(feedback):  # said of the feedback alone: the answers came in pieces
            how = "each sent as one update" if len(feedback) > 1 else "sent as one update"
        else:
            how = f"in {_counted(sent, 'update')}"
        fed = f"{_counted(len(feedback), 'feedback message')} from the loop, {how}"
    joined = _counted(len(groups), "message")
    said = f"{_counted(len(updates), 'update')} came: {answered} and {fed}; joined, they make {joined}."
    return readable_lines(said)


def recent_texts(texts: Sequence[str], limit: int = SAW_CHARS, last: int = SAW_LAST) -> str:
    """``texts`` joined by `` | ``; past ``limit`` characters, the last few (shortened) after a count of the rest.

    A loop re-sends its whole history on every call: in a table cell, what the model saw in full is a wall
    of text, and the newest messages (the question, the answer, the feedback) are the ones that changed.
    """
    joined = " | ".join(texts)
    if len(joined) <= limit:
        return joined
    kept = [shorten_at_word(t, max(limit // last, 20)) for t in texts[-last:]]
    earlier = len(texts) - len(kept)
    return " | ".join(([_earlier(earlier)] if earlier else []) + kept)


def _earlier(count: int) -> str:
    """What stands for the messages a folded history leaves out."""
    return f"({count} earlier message{'s' * (count != 1)})"


HANGING = INDENT + "  "
"""Where a multi-line message's second and later lines start in a trace: deeper than its first line, so the reader
sees where one message ends and the next begins."""


def _indented(texts: Sequence[str]) -> list[str]:
    """Each message at the trace's indent, its continuation lines hanging deeper (see :data:`HANGING`)."""
    return [INDENT + t.replace("\n", "\n" + HANGING) for t in texts]


def render_messages(messages: Sequence[Message]) -> str:
    """The seed's final listing: ``--------------------Message1--------------------`` then the text."""
    rule = "-" * 20
    return "\n".join(f"{rule}Message{i}{rule}\n{m.text}" for i, m in enumerate(messages, start=1))


SEED_OUTPUT = course_file("data", "loopagent_seed_output.json")
"""The seed's console output of its demo (line breaks folded to spaces in the copy): the golden file."""


def fold(text: str) -> str:
    """White space folded to single spaces, as in the golden file."""
    return " ".join(text.split())


def compare_with_seed(trace: LoopTrace, response: AgentResponse) -> dict[str, bool]:
    """Whether a run's trace and final messages are the seed's, word for word (white space folded)."""
    seed = json.loads(SEED_OUTPUT.read_text(encoding="utf-8"))
    return {
        "trace": fold(trace.text()) == seed["trace"],
        "final_messages": fold(render_messages(response.messages)) == seed["final_messages"],
    }


def seed_match_sentence(trace: LoopTrace, response: AgentResponse) -> str:
    """:func:`compare_with_seed` in one sentence a student reads: both match, or which part differs."""
    same = compare_with_seed(trace, response)
    if all(same.values()):
        return "The trace and the final messages are the seed's, word for word."
    differs = " and ".join(
        what for what, key in (("the trace", "trace"), ("the final messages", "final_messages")) if not same[key]
    )
    return f"Not the seed's output: {differs} differ from the seed's, word for word."


_COUNTED = re.compile(r"\[(\d+)\]")
"""The counter's mark at the start of a numbered message, its number captured: ``[4]Response message from LLM.``"""


def numbering_reminder(trace: LoopTrace) -> str:
    """What a traced run numbered before the model answered, and where section 2 shows the rest.

    Lesson 05's exercise 3 turns on two facts of section 2's trace (the number of the model's first answer, and whether
    the feedback took a number). A student who reads the exercise far below section 2 has lost where they are, so the
    reminder gives the input's numbers, read from the trace so it cannot drift from the run, and points at the lines
    of section 2's printed trace that hold the two facts, by their headings there (the 'saw' and 'did' columns it
    named are section 3's table's, walk 9). It states the second plainly ("feedback messages get no number": walk 25
    read "and whether the feedback got one" as one more question) and never the first: with both said, the answer was
    one addition away (walk 8).
    It is printed just above the check's message, so it is broken into lines as that message is (``readable_lines``).
    The exercise passes its own run's trace (walk 22): :func:`seed_loop` numbers the seed's input as section 2 did, and
    the cell then grades and reminds after only the imports cell has run, without section 2's ``trace``.
    """
    inputs = [int(found.group(1)) for text in trace.calls[0] if (found := _COUNTED.match(text))]
    numbered = f"[{inputs[0]}] to [{inputs[-1]}]" if len(inputs) > 1 else f"[{inputs[0]}]"  # the seed's input: 3
    return readable_lines(
        f"From section 2: the input messages were numbered {numbered}. Its printed trace (the lines under "
        "'Incoming messages' and 'Outgoing response') shows the number of each answer the model gave; feedback "
        "messages get no number."
    )


def reminder_if_wrong(said: str, reminder: str) -> str:
    """A checking cell's message ``said``, and under it ``reminder`` only when the answer was wrong ("not quite").

    Lesson 05's exercise 3: the numbering reminder is half the reasoning, so printed on every run it answered the
    question before the student predicted. Shown as part of a wrong answer's help, it leaves the exercise's own hint
    and its foreseen misses (:func:`~course_lib.exercises.check`) as they are; every wrong answer gets it alike.
    """
    if ": not quite." in " ".join(said.split()[:6]):
        return f"{said}\n{reminder}"
    return said


def same_run_sentence(first: tuple[LoopTrace, AgentResponse], second: tuple[LoopTrace, AgentResponse]) -> str:
    """Whether two runs of one loop (a trace and a response each) match exactly, in a sentence: or what differs."""
    (trace_a, response_a), (trace_b, response_b) = first, second
    differs = [
        what
        for what, same in (
            ("the trace", trace_a.text() == trace_b.text()),
            ("the final messages", [m.text for m in response_a.messages] == [m.text for m in response_b.messages]),
        )
        if not same
    ]
    if not differs:
        return "Same trace and same final messages, character for character."
    return f"The runs differ: {' and '.join(differs)}."


OPTION_NOTES: dict[str, str] = {
    "max_iterations": "the most times the agent runs (set to None, it falls back to 10)",
    "fresh_context_per_iteration": (
        "run each iteration after the first on a fresh session (a new conversation history), with the task and one "
        "message listing all feedback"
    ),
    "on_behalf_of_author_name": (
        "the name shown as the sender of the messages the loop adds (its feedback); none leaves them unnamed"
    ),
    "exclude_on_behalf_of_messages": "leave the loop's own messages (its feedback) out of what the caller gets back",
    "non_streaming_returns_last_response_only": "return only the last response, not every response and feedback",
    "session_created_callback": "a function called with each new session the loop creates",
    "max_tokens": "a budget of tokens (pieces of words, as the model counts them); the loop stops once it is spent",
    "max_duration": "a budget of wall-clock time; the loop stops once it has passed",
}
"""What each field of :class:`~course_lib.loop.LoopAgentOptions` does, in a few words (lesson 05's table)."""


def options_rows(options: LoopAgentOptions) -> list[dict[str, str]]:
    """The options as table rows: each field, its value in words (:func:`option_value`) and what it does."""
    return [
        {"option": name, "value": option_value(getattr(options, name)), "what it does": OPTION_NOTES[name]}
        for name in options.__dataclass_fields__
    ]


SEED_OPTION_COUNT = 6
"""The seed's ``LoopAgentOptions`` has six options; the two budgets after them are newer upstream options."""


def options_hood_rows(options: LoopAgentOptions) -> list[dict[str, str]]:
    """Lesson 05's "Under the hood" table of the options: each Python name beside its .NET name, its value, and
    whether the seed has it, in the dataclass's order (the seed's six first), instead of the dataclass's repr.

    The .NET name is the Python one in PascalCase (``max_iterations`` is ``MaxIterations``), read from the field.
    """
    names = list(options.__dataclass_fields__)
    return [
        {
            "Python name": name,
            ".NET name": "".join(part.capitalize() for part in name.split("_")),
            "value": option_value(getattr(options, name)),
            "in the seed": "yes" if index < SEED_OPTION_COUNT else "no: a newer upstream budget",
        }
        for index, name in enumerate(names)
    ]


def option_value(value: object) -> str:
    """One option's value as a student reads it: ``yes``/``no`` for a switch, ``none`` for ``None``.

    Python's ``False`` and ``None`` in a table read as code to decode; a function shows by its name.
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    return getattr(value, "__name__", "a function") if callable(value) else str(value)


EXIT_REASON_WORDS: dict[str | None, str] = {
    None: "the evaluator said stop",
    "completed": "the agent said the task is complete",
    "need_input": "the agent asked the user for input",
    "iteration_cap_reached": "it reached max_iterations, the cap on iterations",
    "token_budget_exceeded": "the token budget, max_tokens, was spent",
    "time_budget_exceeded": "the time budget, max_duration, ran out",
    "cancelled": "the run was cancelled",
}
"""Each ``loop_exit_reason`` a loop stamps on its response, in words; under None, the usual stop that stamps none
(said of one evaluator; :func:`evaluators_said_stop` words it for several)."""

NO_REASON_RECORDED = "no loop_exit_reason is recorded for that"
"""What :func:`stop_sentence` adds when the response carries no reason: the reader is told none was recorded, so an
absent code is not mistaken for one the sentence forgot to show."""

WAITING_FOR_APPROVAL = "the agent is waiting for the user to approve a tool call"
"""Why a loop stopped whose last response asks for a tool approval: it stops at once and records no reason."""


def exit_reason(response: AgentResponse) -> str | None:
    """The ``loop_exit_reason`` a non-streaming loop stamped on its response, or None when it stamped none.

    The loop stamps one when its cap or a budget stops it, and copies the one an evaluator wrote (the signal
    protocol's ``completed`` or ``need_input``); a plain stop of the evaluators (a marker, a judge, a function) and a
    pending tool approval stamp none, as in MAF .NET's ``LoopAgent``.
    """
    reason = (response.additional_properties or {}).get(LoopExitReason.ADDITIONAL_PROPERTIES_KEY)
    return None if reason is None else str(reason)


def evaluators_said_stop(evaluators: int) -> str:
    """The plain stop in words for a loop of ``evaluators`` evaluators: "the evaluator" for one, "all 2" for two.

    "Every evaluator said stop" under a loop of one evaluator made a reader look for the others (issue 32).
    """
    return EXIT_REASON_WORDS[None] if evaluators == 1 else f"all {evaluators} evaluators said stop"


def stop_sentence(response: AgentResponse, evaluators: int = 1) -> str:
    """Why a non-streaming loop stopped, in a sentence, with its ``loop_exit_reason`` or the words that none was kept.

    No reason means the loop's ``evaluators`` (pass ``len(loop.evaluators)``) all said stop, unless the last answer
    waits for a tool approval (the loop stops at once then, asking no evaluator).
    """
    reason = exit_reason(response)
    if reason is None:
        words = WAITING_FOR_APPROVAL if response.user_input_requests else evaluators_said_stop(evaluators)
        return f"Stopped because {words} ({NO_REASON_RECORDED})."
    words = EXIT_REASON_WORDS.get(reason, f"of a reason this course does not know ({reason})")
    return f"Stopped because {words} (loop_exit_reason: {reason})."


def marker_sentence(messages: Sequence[Message], marker: str, model: str = "the worker") -> str:
    """Whether the model's answers ever held a completion ``marker``, and in which answer first, as a sentence.

    The lesson's prose cannot promise the marker: the offline worker writes it once asked, a live model may never
    write it (the cap then stops the loop). Counted from the returned answers, the sentence says which happened.
    Only the model's own answers count: the feedback that asks for the marker names it too.
    """
    answers = [m for m in messages if m.role == "assistant"]
    first = next((number for number, m in enumerate(answers, start=1) if marker in m.text), None)
    who = model[:1].upper() + model[1:]
    if first is None:
        return f"{who} never wrote {marker} in its {len(answers)} answer{'' if len(answers) == 1 else 's'}."
    return f"{who} wrote {marker} in answer {first} of {len(answers)}."


NO_FEEDBACK_YET = "(no feedback yet)"
EXPLICIT_MESSAGES = "(no feedback: explicit messages)"


def feedback_log_words(feedback: Sequence[str | None]) -> str:
    """An evaluator's feedback log as a table cell reads it: words for the empty log and for the ``None`` entries.

    The loop records ``None`` for a re-invocation driven by explicit messages (no feedback text was given); a
    student reading a bare ``None`` cannot tell it from a missing value, so it is named for what it stands for.
    """
    if not feedback:
        return NO_FEEDBACK_YET
    return ", ".join(EXPLICIT_MESSAGES if entry is None else entry for entry in feedback)


def verdict_sentence(reply: str) -> str:
    """A judge's reply in words: ``done.``, ``not done; missing: <what>.``, or what its text said.

    The offline judge lists its unmet criteria as ``a mention of rollback plan; a mention of owner`` (a criterion's
    own ``mention: owner`` is read too); the sentence keeps only what is missing (``rollback plan, owner``).
    """
    try:
        verdict = AIJudgeVerdict.model_validate_json(reply)
    except ValidationError:
        return f"no structured verdict; its text reads: {reply}"
    if verdict.answered:
        return "done."
    if not verdict.gap_analysis:
        return "not done (the judge said not what)."
    parts = [
        part.strip().removeprefix("mention:").removeprefix(MENTION_GAP).strip()
        for part in verdict.gap_analysis.rstrip(". ").split(";")
    ]
    return f"not done; missing: {', '.join(part for part in parts if part)}."


class MessageNumberer:
    """The seed's ``ChatMessageGenerator``: every message it creates gets the next number, ``[n]text``."""

    def __init__(self) -> None:
        self.count = 0

    def message(self, text: str, role: str = "user") -> Message:
        self.count += 1
        return Message(role=role, contents=[f"[{self.count}]{text}"])


class NumberingChatClient(OfflineChatClient):
    """The seed's ``FakeChatClient``: answers ``[n]Response message from LLM.`` and traces every call.

    Built directly, not by ``make_chat_client``, so it keeps MAF's default tool loop: it stands in for the seed's
    fake client, and lesson 06 and ``make bench`` run ``LoopAgent`` and MAF's ``AgentLoopMiddleware`` on the very
    same client, so neither side of that comparison gets a cheaper client than the other.
    """

    def __init__(self, numberer: MessageNumberer, trace: LoopTrace | None = None, *, log: CallLog | None = None):
        super().__init__(log=log, name="llm")
        self.numberer = numberer
        self.trace = trace

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        reply = self.numberer.message("Response message from LLM.", "assistant").text
        if self.trace is not None:
            self.trace.llm([m.text for m in messages], reply, [m.role for m in messages])
        return reply


class IterationCountEvaluator(LoopEvaluator):
    """The seed's ``InterationCountEvaluator``: allows ``allowed`` iterations, then says stop.

    Until then it asks for more with ``Feedback for iteration N``.

    It writes what it sees (iteration, initial messages, last response, previous feedback) and what it
    decides into ``trace`` when one is given, in the seed's console layout.
    """

    def __init__(self, allowed: int, trace: LoopTrace | None = None) -> None:
        self.allowed = allowed
        self.trace = trace

    async def evaluate(self, context: LoopContext) -> LoopEvaluation:
        stop = context.iteration >= self.allowed
        feedback = None if stop else f"Feedback for iteration {context.iteration}"
        if self.trace is not None:
            self.trace.evaluator(context, feedback)
        return LoopEvaluation.stop() if stop else LoopEvaluation.continue_with(feedback)


# region Lesson 06's offline worker and judge


class OfflineJudgeClient(OfflineChatClient):
    """An offline judge for :class:`~course_lib.loop.AIJudgeLoopEvaluator`: checks each criterion it can check.

    It reads the criteria from the judge's System message (the block ``AIJudgeLoopEvaluator`` renders)
    and the latest response from the end of its User message. A criterion written ``mention: TEXT`` is
    met when TEXT (a word or a phrase) appears in the response (case-insensitive); any other criterion cannot be checked
    offline and is reported as unmet, never assumed met. It answers the structured verdict as JSON.
    With no criterion at all it has nothing it can check, so it cannot say the request is addressed:
    it answers ``VERDICT: MORE`` in plain text, the way a model without structured output would.
    """

    def __init__(self, *, log: CallLog | None = None) -> None:
        super().__init__(log=log, name="judge")

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        instructions = next((m.text for m in messages if m.role == "system"), "")
        criteria = judge_criteria(instructions)
        if not criteria:
            return "VERDICT: MORE (no criterion I can check offline, so I cannot say the request is addressed)"
        request = next((m.text for m in reversed(messages) if m.role == "user"), "")
        response = request.rpartition(RESPONSE_HEADING)[2]
        missing = [_gap(c) for c in criteria if not _criterion_met(c, response)]
        return json.dumps({"answered": not missing, "gapAnalysis": "; ".join(missing) + "." if missing else None})


MENTION_GAP = "a mention of "
"""How the offline judge says an unmet ``mention: TEXT`` criterion in its gap analysis: ``a mention of TEXT``."""


def _gap(criterion: str) -> str:
    """An unmet criterion as the gap analysis says it: a ``mention: TEXT`` in words, any other as it was written.

    The gap analysis becomes the worker's feedback, which the student reads: ``a mention of owner`` says what is
    missing; ``mention: owner`` is notation to decode. A criterion the offline judge cannot check is already the
    author's own words (``state the priority``), so it is quoted as it stands.
    """
    word = _mention_word(criterion)
    return MENTION_GAP + word if word else criterion


def judge_criteria(instructions: str) -> list[str]:
    """The criteria listed under the judge instructions' criteria heading."""
    _, found, block = instructions.partition(CRITERIA_HEADING)
    return [line[2:].strip() for line in block.splitlines() if line.startswith("- ")] if found else []


def _mention_word(criterion: str) -> str:
    """The TEXT of a ``mention: TEXT`` criterion, or ``""`` for any other (``mention:`` with no text included).

    An empty word is in every answer: read as a mention, it would pass the first answer. It is a criterion the
    offline judge cannot check, so it stays unmet, as the class's rule says.
    """
    kind, sep, word = criterion.partition(":")
    return word.strip() if sep and kind.strip() == "mention" else ""


def _criterion_met(criterion: str, response: str) -> bool:
    word = _mention_word(criterion)
    return bool(word) and word.lower() in response.lower()


_ASKED_TO_MENTION = re.compile(r"(?:mention: |a mention of )([^;.\n]+)")
"""What a User message asks the offline worker to cover: a criterion (``mention: owner``) or a judge's gap analysis
in words (``a mention of owner``)."""

_ASKED_FOR_MARKER = re.compile(r"marker '([^'\s]+)'")
"""A request to end with a completion marker, as :class:`~course_lib.loop.CompletionMarkerLoopEvaluator`'s default
feedback writes it (``... end your response with the marker 'DONE' ...``): the marker is the quoted word."""


class OfflineDraftClient(OfflineChatClient):
    """An offline worker that revises a draft: it covers every item its User messages asked it to mention.

    It reads its whole conversation, collects every item a User message asked it to mention (a criterion, or a
    judge's gap analysis passed on as feedback) and answers with a draft that covers them, so a loop visibly
    converges. Once a User message has asked it to emit ``TASK_COMPLETE:`` (the signal protocol's feedback), it ends
    its draft with that signal; once one has asked it to end with a completion marker, it ends its draft with that
    marker. It obeys what it was told, never a marker it was not asked for.
    """

    def __init__(self, *, log: CallLog | None = None) -> None:
        super().__init__(log=log, name="worker")

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        asked = [item.strip() for m in _user_texts(messages) for item in _ASKED_TO_MENTION.findall(m)]
        drafts = sum(1 for m in messages if m.role == "assistant") + 1
        covered = ", ".join(dict.fromkeys(asked)) or "the basics"
        draft = f"Draft {drafts}: covers {covered}."
        if any(SIGNAL_REQUEST in text for text in _user_texts(messages)):
            return f"{draft} TASK_COMPLETE: draft {drafts} delivered."
        markers = [marker for text in _user_texts(messages) for marker in _ASKED_FOR_MARKER.findall(text)]
        return f"{draft} {markers[-1]}" if markers else draft


def _user_texts(messages: Sequence[Message]) -> list[str]:
    """The texts of the User messages: what the worker was asked (its own answers ask it nothing)."""
    return [m.text for m in messages if m.role == "user"]


# region The demos

SEED_INPUT = (
    ("Original message from user.", "user"),
    ("Original response from LLM.", "assistant"),
    ("Original message from user.", "user"),
)


def seed_loop(
    allowed: int = 3,
    options: LoopAgentOptions | None = None,
    trace: LoopTrace | None = None,
    inputs: Sequence[tuple[str, str]] = SEED_INPUT,
) -> tuple[LoopAgent, list[Message]]:
    """The seed's demo wired up: a loop over the numbered fake LLM, and the numbered input messages.

    ``inputs`` are (text, role) pairs, the seed's three by default; lesson 06's stepper passes the first one only, so
    its counts are not the ones an exercise asks to predict for the seed's three.
    """
    if not inputs:
        raise ValueError("The demo needs at least one input message: the model answers the caller's messages.")
    numberer = MessageNumberer()
    inner = Agent(client=NumberingChatClient(numberer, trace))
    if trace is not None:  # the trace counts the sessions the loop creates: the stepper says which one a call ran on
        options = _also_told(options or LoopAgentOptions(), trace.session_created)
    agent = LoopAgent(inner, IterationCountEvaluator(allowed, trace), options)
    return agent, [numberer.message(text, role) for text, role in inputs]


def _also_told(options: LoopAgentOptions, told: Callable[[AgentSession], None]) -> LoopAgentOptions:
    """``options`` whose session callback also tells ``told`` (after any callback the options already had)."""
    first = options.session_created_callback

    async def both(session: AgentSession) -> None:
        outcome = first(session) if first is not None else None
        if inspect.isawaitable(outcome):
            await outcome
        told(session)

    return replace(options, session_created_callback=both)


async def run_seed_demo(
    allowed: int = 3,
    options: LoopAgentOptions | None = None,
    *,
    stream: bool = False,
    caller_session: bool = False,
    inputs: Sequence[tuple[str, str]] = SEED_INPUT,
) -> tuple[LoopTrace, AgentResponse]:
    """Run the seed's demo; return the trace (what the LLM and the evaluator saw and did) and the response.

    ``caller_session`` passes a session the caller created (instead of letting the loop create one); ``inputs`` are
    the caller's messages (:func:`seed_loop`), the seed's three by default.
    """
    if stream:
        if inputs != SEED_INPUT:
            raise ValueError("A streamed demo runs the seed's own three input messages: pass no inputs with stream.")
        trace, response, _ = await stream_seed_demo(allowed, options, caller_session=caller_session)
        return trace, response
    trace = LoopTrace()
    agent, messages = seed_loop(allowed, options, trace, inputs)
    session = agent.create_session() if caller_session else None
    return trace, await agent.run(messages, session=session)


def call_labels(trace: LoopTrace) -> list[str]:
    """A label for each model call of a traced run, for a chart: ``call 1`` and, below it, the iteration whose
    evaluation came after that call (``(iteration 1)``), read from the trace.

    Lesson 05's chart said "iteration 1/2/3" while the table beside it and the stepper counted "call 1/2/3": a
    student could not tell the two counts were the same. A call no evaluation followed (a budget or the cap ended the
    run) is labelled by its call alone.
    """
    labels = []
    for index, row in enumerate(trace.rows):
        if row.actor != "LLM":
            continue
        after = trace.rows[index + 1] if index + 1 < len(trace.rows) else None
        if after is not None and after.actor == "Evaluator":
            labels.append(f"call {row.call}\n(iteration {after.call})")
        else:
            labels.append(f"call {row.call}")
    return labels


def calls_sentence(trace: LoopTrace) -> str:
    """A traced run's model calls in one line: how many, the sessions the loop created, and the messages per call.

    Lesson 06's stepper replays a run; this line gives its counts from the trace, so the prose above it states none.
    """
    counts = ", ".join(str(len(call)) for call in trace.calls)
    calls = len(trace.calls)
    return (
        f"This run: {calls} model {'call' if calls == 1 else 'calls'}, {trace.sessions} "
        f"{'session' if trace.sessions == 1 else 'sessions'} created by the loop; messages the model received at "
        f"each call, in order: {counts}."
    )


async def stream_seed_demo(
    allowed: int = 3, options: LoopAgentOptions | None = None, *, caller_session: bool = False
) -> tuple[LoopTrace, AgentResponse, list[AgentResponseUpdate]]:
    """Run the seed's demo streamed; return the trace, the final response and the updates, in the order they came."""
    trace = LoopTrace()
    agent, messages = seed_loop(allowed, options, trace)
    session = agent.create_session() if caller_session else None
    stream = agent.run(messages, stream=True, session=session)
    updates = [update async for update in stream]
    return trace, await stream.get_final_response(), updates


async def profile_options(
    options: LoopAgentOptions, allowed: int = 3, *, stream: bool = False, caller_session: bool = False
) -> dict[str, object]:
    """One row for lesson 06: what a loop with these options sent, returned, and created."""
    created: list[AgentSession] = []
    counted = replace(options, session_created_callback=created.append)
    trace, response = await run_seed_demo(allowed, counted, stream=stream, caller_session=caller_session)
    return {
        "model calls": len(trace.calls),
        "messages sent per call": ", ".join(str(len(c)) for c in trace.calls),
        "messages returned": len(response.messages),
        "returned to the caller": returned_words(response.messages),
        "sessions created": len(created),
    }


def returned_words(messages: Sequence[Message]) -> str:
    """What a loop returned, counted in words: ``5 messages: 3 answers + 2 feedback (author: loop)``."""
    count = f"{len(messages)} message{'s' * (len(messages) != 1)}"
    answers = sum(m.role == "assistant" for m in messages)
    added = [m for m in messages if m.role != "assistant"]
    if not added:  # a loop's response ends with its last answer: alone, it is that one
        return f"{count}: the last answer" if answers == 1 else f"{count}: {answers} answers, no feedback"
    authors = sorted({m.author_name for m in added if m.author_name})
    by = f" (author: {', '.join(authors)})" if authors else ""
    return f"{count}: {answers} answer{'s' * (answers != 1)} + {len(added)} feedback{by}"


OTHER_OPTIONS: dict[str, tuple[LoopAgentOptions, bool, str]] = {
    "max_iterations=None": (
        LoopAgentOptions(max_iterations=None),
        False,
        "no cap given: the default cap of 10 applies (the evaluator stops at 3 anyway)",
    ),
    "on_behalf_of_author_name='loop'": (
        LoopAgentOptions(on_behalf_of_author_name="loop"),
        False,
        "stamps the feedback messages the loop writes with an author name, to tell them from the user's",
    ),
    "exclude_on_behalf_of_messages=True": (
        LoopAgentOptions(exclude_on_behalf_of_messages=True),
        False,
        "leaves the loop's feedback out of what the caller gets back; the model still receives it",
    ),
    "non_streaming_returns_last_response_only=True": (
        LoopAgentOptions(non_streaming_returns_last_response_only=True),
        False,
        "gives the caller only the last answer, not every message of the run",
    ),
    "defaults + the caller's session": (
        LoopAgentOptions(),
        True,
        "the caller passes a session, so the loop creates none",
    ),
    "fresh_context_per_iteration=True + the caller's session": (
        LoopAgentOptions(fresh_context_per_iteration=True),
        True,
        "the first iteration uses the caller's session; each later iteration starts on a copy of the caller's "
        "session taken before the first iteration, so the copy does not hold the first exchange",
    ),
}
"""Lesson 06's second table: each other option (or a caller's session), whether the caller passes a session, and
what it does in words."""


OPTIONS_COLUMNS = ("model calls", "messages sent per call", "messages returned", "sessions created")
"""The measured columns of :func:`options_frame` for options alone, after the option: what the loop sent, returned
and created, each a number or a short list of numbers, so they fit a laptop's notebook width beside long option
names; the explained table says what the caller gets back in words (:data:`EXPLAINED_COLUMNS`)."""

EXPLAINED_COLUMNS = ("what it does", "returned to the caller", "sessions created")
"""The columns of :func:`options_frame` for explained variants (:data:`OTHER_OPTIONS`), after the option: each of
those runs makes 3 calls and sends 3, 5, 7 messages but one, which "what it does" tells."""


async def options_frame(
    variants: Mapping[str, LoopAgentOptions | tuple[LoopAgentOptions, bool, str]],
) -> pd.DataFrame:
    """One row per variant of the seed's demo (:func:`profile_options`): what it sent, returned and created.

    A variant is options alone, or ``(options, caller_session, what it does)`` (:data:`OTHER_OPTIONS`); with the
    words, the table has a "what it does" column after the option, so every option a student reads is explained,
    and says what the caller gets back instead of the call counts (:data:`EXPLAINED_COLUMNS`).
    """
    explained = any(isinstance(v, tuple) for v in variants.values())
    columns = ("option", *(EXPLAINED_COLUMNS if explained else OPTIONS_COLUMNS))
    rows = []
    for name, variant in variants.items():
        options, caller_session, words = variant if isinstance(variant, tuple) else (variant, False, "")
        row = {"option": name, "what it does": words, **await profile_options(options, caller_session=caller_session)}
        rows.append({column: row[column] for column in columns})
    return rows_frame(rows, columns)


async def run_middleware_demo(
    allowed: int = 3,
    *,
    with_session: bool = True,
) -> tuple[LoopTrace, AgentResponse]:
    """The seed's input through MAF Python's ``AgentLoopMiddleware``.

    Its ``should_continue`` is ``iteration < allowed``: the agent runs ``allowed`` times,
    then the loop stops.
    """
    numberer, trace = MessageNumberer(), LoopTrace()
    middleware = AgentLoopMiddleware(lambda *, iteration, **_: iteration < allowed)
    agent = Agent(client=NumberingChatClient(numberer, trace), middleware=[middleware])
    session = agent.create_session() if with_session else None
    messages = [numberer.message(text, role) for text, role in SEED_INPUT]
    response = await agent.run(messages, session=session)
    return trace, response


def numbered_messages(texts: Sequence[str]) -> str:
    """Messages for one table cell, told apart: each numbered ``1)``, ``2)``, one to a line.

    Joined by line breaks alone, a progress log and the nudge after it read as one message.
    """
    return "\n".join(f"{number}) {spaced(text)}" for number, text in enumerate(texts, start=1))


def counted_messages(texts: Sequence[str]) -> str:
    """:func:`numbered_messages` after their count in brackets, for a cell that has no count column beside it."""
    count = f"({len(texts)} message{'s' * (len(texts) != 1)})"
    return "\n".join([count, numbered_messages(texts)]) if texts else count


def flow_summary(name: str, trace: LoopTrace, response: AgentResponse) -> dict[str, object]:
    """How a loop fed the model: input sizes per call, what a re-invocation added, what came back."""
    first, second = trace.calls[0], trace.calls[1] if len(trace.calls) > 1 else []
    kept_history = second[: len(first)] == first
    added = second[len(first) + 1 :] if kept_history else second
    return {
        "loop": name,
        "messages sent per call": ", ".join(str(len(c)) for c in trace.calls),
        "history kept": "yes" if kept_history else "no",
        # the count is a column of its own, named in the lesson's list of columns (walk 25: a bracketed
        # "(2 messages)" inside the text column was never explained)
        "messages added before call 2": len(added),
        "what was added": numbered_messages(added),
        "messages returned": len(response.messages),
    }
