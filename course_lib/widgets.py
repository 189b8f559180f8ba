"""The memory lessons' interactive panels (ipywidgets). The logic lives here and is tested without a browser.

Every panel goes through the same library calls as the lessons: the memory panel submits a message through
the writer and the host check (it cannot bypass the contract), the desk panel drives the two-desk console,
the policy explorer runs the Demo170 comparison (the loop lessons' stepper is in :mod:`course_lib.loop_panels`,
so a loop lesson loads nothing of the memory half). Output is written as HTML values (or image bytes) so
nothing leaks into the cell.

A button's click schedules the panel's coroutine on the running event loop (Jupyter's, or a test's);
``await panel.idle()`` waits for it. A failing action never disappears into a background task: its error
is shown in the panel, in words, and the action changes nothing. A button that cannot act is disabled.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
import traitlets

from .assertions import (
    ALLOWED_KEYS,
    NOT_ALONE_RULE,
    SENTENCE_END_MARKS,
    Declaration,
    MessageRefused,
    NearMiss,
    allowed_in_other_case,
    declared_inside_reason,
    find_declarations,
    left_out,
    missing_marks,
    nothing_declared_note,
    parts,
    repeated_keys,
    shown_pair,
    spelling_slip,
)
from .conventions import stored_messages
from .extraction import ExtractionReport, MemoryExtraction, and_listed, report_in_words
from .memory import MAX_FACTS, Fact, InvalidFacts, MemoryUpdateError, WorkingMemory, validate_batch
from .memory_models import near_misses_by_part
from .policies import (
    RULES,
    Comparison,
    PolicyFactory,
    Timeline,
    compare_policies,
    course_policies,
    rule_label,
)
from .presentation import (
    LONGEST_WHOLE_WORD,
    facts_html,
    figure_png,
    graded_view_frame,
    left_aligned_style,
    lesson_table_html,
    plot_prompt_sizes,
    prompt_sizes_note,
    rows_frame,
)
from .presentation import PanelText as _Panel
from .presentation import html_lines as _escape
from .providers import (
    DeskEvent,
    ProviderDesks,
    case_note,
    console_command,
    memory_line,
    repeated_not_held,
    stored_as_notes,
)

if TYPE_CHECKING:
    pass


__all__ = [
    "CHAT_GROWTH",
    "CHOSEN_STYLE",
    "CORRECT_IN_BOX_NOTE",
    "DECLARES_NOTHING",
    "DECLARES_NOTHING_IN_BOX_NOTE",
    "DECLARES_NOTHING_NOTE",
    "DESK_CHAT_CAPTION",
    "DESK_FORGET_NOTE",
    "DESK_MEMORY_CAPTION",
    "DESK_SUBMIT_DISABLED_NOTE",
    "ECHOED_CHARS",
    "EMPTY_LINE_NOTE",
    "EXAMPLE_DECLARATION",
    "EXPECTED_ERRORS",
    "FORGET_DISABLED_NOTE",
    "FORGET_KEY_NOTE",
    "KEY_LIST_WIDTH",
    "KEY_PLACEHOLDER",
    "LEADING_DIGITS",
    "MESSAGE_BOX_BASIS",
    "MESSAGE_BOX_NOTE",
    "NEW_PANEL_NOTE",
    "NOTE_STYLE",
    "NOT_READ_IN_BOX_NOTE",
    "NOT_READ_LABEL",
    "NOT_STORED_IN_BOX",
    "NO_KEY",
    "PICK_SEVERAL_HINT",
    "REFUSAL_IN_CHAT",
    "REFUSED_LABEL",
    "SEND_DISABLED_NOTE",
    "SHOWN_INPUT_CHARS",
    "SINGLE_SPACED",
    "STILL_IN_BOX",
    "SUBMIT_DISABLED_NOTE",
    "TICKET_NOTE",
    "TRANSCRIPT_FADE",
    "TRANSCRIPT_LINES",
    "TRANSCRIPT_LINES_STYLE",
    "TRANSCRIPT_RULE",
    "TRANSCRIPT_STYLE",
    "TRANSCRIPT_TOP_FADE",
    "TURNS_SKIPPED",
    "UNREAD_NOTE",
    "VERDICT_LABEL",
    "WHOLE_MESSAGE",
    "WHY_LABEL",
    "WRAPPING_TEXT",
    "ConsoleRefusal",
    "DeskPanel",
    "MemoryPanel",
    "PolicyExplorer",
    "ProgressBar",
    "SingleSpacedHTML",
    "as_pasted",
    "box_note",
    "case_hint",
    "chat_times_whole",
    "comma_notes",
    "command_guidance",
    "correction_notes",
    "declaration_notes",
    "declared_inside_notes",
    "declares_nothing",
    "declares_nothing_step",
    "describe_error",
    "double_equals_notes",
    "echoed_line",
    "eviction_notes",
    "expectations_html",
    "forget_case_note",
    "glued_table_rows",
    "kept_punctuation",
    "left_aligned_style",
    "lesson_table_html",
    "nothing_stored_why",
    "number_box_note",
    "on_click_once",
    "panel_table_html",
    "punctuation_notes",
    "question_alone_notes",
    "refused_lines",
    "refused_parts",
    "repeated_key_notes",
    "shorten_long_input",
    "shown_reply",
    "slider_at_limit",
    "slider_limits",
    "slider_reads",
    "slider_takes",
    "slider_typing_hint",
    "ticket_line",
    "trim_line",
    "whole_message_notes",
    "why_notes",
    "you_line",
]


class ConsoleRefusal(ValueError):
    """The console refused a line (its ``refused`` event): shown in the panel like any broken rule."""


EXPECTED_ERRORS = (MemoryUpdateError, ValueError)
"""Errors a student's input can cause (a rule broken): shown in words. Anything else is also a bug to report."""


class _Async:
    """Runs a panel's coroutines from button clicks, shows their errors, and lets callers wait for them.

    Actions run in the order they were clicked (panels that share ``clicks`` share one order). Order is
    what keeps forget final on a panel: a message sent before a forget begins its turn before the forget
    runs (a forget clicked while a turn is still waiting or running waits for it), so what was said
    before a forget can never land after it.
    """

    def __init__(self, show_error: Callable[[str], None]) -> None:
        self._tasks: list[asyncio.Task[None]] = []
        self._show_error = show_error
        self._unexpected: list[BaseException] = []
        self.clicks: list[asyncio.Task[None]] = []

    def schedule(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        guarded = self._guard(coroutine)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a plain script): run the action to completion now
            asyncio.run(guarded)
            return
        task = loop.create_task(self._after(self._pending(), guarded))
        self._tasks.append(task)
        self.clicks.append(task)

    def now_or_after(self, action: Callable[[], Any]) -> None:
        """Run a quick action now when nothing is pending, otherwise after the actions clicked before it."""
        if self._pending() is None:
            action()
            return

        async def later() -> None:
            action()

        self.schedule(later())

    def _pending(self) -> asyncio.Task[None] | None:
        self.clicks[:] = [task for task in self.clicks if not task.done()]
        return self.clicks[-1] if self.clicks else None

    @staticmethod
    async def _after(previous: asyncio.Task[None] | None, guarded: Coroutine[Any, Any, Any]) -> None:
        if previous is not None:
            await asyncio.wait({previous})  # its outcome is the previous action's to report
        await guarded

    async def _guard(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        try:
            await coroutine
        except Exception as error:  # shown in the panel; an unexpected one is also re-raised by idle()
            self._show_error(describe_error(error))
            if not isinstance(error, EXPECTED_ERRORS):
                self._unexpected.append(error)

    async def idle(self) -> None:
        """Wait until every scheduled action has finished; re-raise the first unexpected error."""
        while self._tasks:
            await self._tasks.pop(0)
        if self._unexpected:
            error, self._unexpected = self._unexpected[0], []
            raise error


def describe_error(error: BaseException) -> str:
    """An error in a student's words: the rule it broke (with a case hint for a key, unless it says one), or what
    went wrong.

    Long input repeated in the error is shortened (:func:`shorten_long_input`), so the rule stays readable.
    """
    if not isinstance(error, EXPECTED_ERRORS):
        return shorten_long_input(f"Something went wrong ({type(error).__name__}): {error}. Nothing was changed.")
    text = str(error)
    # a key in another case gets the case hint once: not when the rule already says which key to write (the
    # console's "'Module' is not a key (keys are case-sensitive): write 'module'."), nor twice for one key
    hints = {
        hint: None
        for word in _quoted_words(text)
        if (hint := case_hint(word)) and f"write '{allowed_in_other_case(word)}'" not in text
    }
    return shorten_long_input(" ".join([text, *hints]))


SHOWN_INPUT_CHARS = 40
"""How much of a long piece of input a panel's message repeats: enough to recognise it, never the whole line."""

_LONG = SHOWN_INPUT_CHARS + 20
_SEPARATORS = ";,.:!?)]}"
"""Punctuation that ends an unbroken run without belonging to it: ``symptom=xxx…; database=…`` keeps its ``;``."""
# a quotation opens at the start, after a space or an opening bracket, and closes before no word character
# ("'Module': ... write 'module'" holds two); a quote after a shortened quotation's '…' closes it, never opens one;
# an unbroken run ends before the separators that follow it, and a value's run starts after its '=', so the count
# is the value's own ("symptom=xxxx… (3000 characters)", as the rule says "has 3000 characters")
_LONG_RUN = re.compile(
    rf"(?<![^\s(\[{{])'[^'\n]{{{_LONG},}}'(?!\w)|(?<![^\s(\[{{])\"[^\"\n]{{{_LONG},}}\"(?!\w)"
    rf"|[^\s'\"=]{{{_LONG - 1},}}[^\s'\"={re.escape(_SEPARATORS)}]"
)


def shorten_long_input(text: str, keep: int = SHOWN_INPUT_CHARS) -> str:
    """``text`` with every long quotation or unbroken run cut to its first ``keep`` characters and its length.

    An error that repeats a 300-character value in full is one unbroken string that runs off the panel's
    edge and hides the rule after it; ``'xxxx…' (300 characters)`` keeps the value recognisable and the rule
    whole. Short quotations (keys, ordinary values) are left as they are.
    """

    def cut(match: re.Match[str]) -> str:
        run = match.group(0)
        quote = run[0] if run[0] in "'\"" and run[-1] == run[0] else ""
        inner = run[1:-1] if quote else run
        return f"{quote}{inner[:keep]}\u2026{quote} ({len(inner)} characters)"

    return _LONG_RUN.sub(cut, text)


def case_hint(key: str) -> str:
    """``Keys are case-sensitive: write 'module'.`` when ``key`` differs from an allowed key only by case."""
    allowed = allowed_in_other_case(key)
    return f"Keys are case-sensitive: write '{allowed}'." if allowed else ""


def forget_case_note(key: str) -> str:
    """``'Module' is not a key (keys are case-sensitive): write 'module'.`` (:func:`case_note`), said of a key to
    forget as of a declaration's key (:func:`declaration_notes`), whatever the store holds; else ``""``."""
    allowed = allowed_in_other_case(key)
    return case_note(trim_line(key), allowed) if allowed else ""


def _quoted_words(text: str) -> list[str]:
    return text.split("'")[1::2]


def declaration_notes(text: str) -> list[str]:
    """Why parts of a message that look like ``key=value`` are not declarations (they are ignored).

    An empty value, a key that is not allowed (the allowed keys are listed), a key in the wrong case, a key dressed
    in formatting, a table row, a declaration with words before it in its part, a part with no key or no '=', a key
    declared twice (its note stands where its first declaration is: that one is not read).
    A message with valid declarations next to these still gets its valid ones admitted: the notes say
    what was left out, so nothing is dropped without a word. Every note comes in the order its part appears in the
    message (walk 19: ``color=red; database=`` listed the ``database=`` note first; walk 21: ``module=A; color=red;
    module=B`` and ``=Payroll; color=red`` listed the repeated key and the missing key last).
    """
    notes: list[str] = []
    unknown: list[str] = []
    slot = 0
    repeated = dict(zip(repeated_keys(text), repeated_key_notes(text), strict=True))
    for part, misses in near_misses_by_part(text):  # the desk's reply reads a message in this one order too
        for miss in misses:
            if note := _near_miss_note(miss):
                notes.append(note)
            elif miss.key not in unknown:
                if not unknown:  # the one note on keys not allowed stands where the first of them is in the message
                    slot = len(notes)
                unknown.append(miss.key)
        notes += missing_marks(part)  # '=Payroll' (no key), 'module Payroll' (no '=')
        for declaration in _declarations(part):
            if note := repeated.pop(declaration.key, ""):
                notes.append(note)
    if unknown:
        names = and_listed([f"'{k}'" for k in unknown])
        verb = "is not an allowed key" if len(unknown) == 1 else "are not allowed keys"
        notes.insert(slot, f"{names} {verb} (allowed keys: {', '.join(ALLOWED_KEYS)}).")
    return [shorten_long_input(note) for note in notes]


def _near_miss_note(miss: NearMiss) -> str:
    """A near miss's note on a panel; ``""`` for a key that is not allowed (one note names every such key)."""
    if miss.problem == "no value":
        return f"'{miss.key}=' has no value: write the value after '='."
    if miss.problem == "wrong case":
        return case_note(miss.key, miss.allowed or "")
    if miss.problem == "colon":
        return f"'{miss.key}:' uses a colon: a declaration is written with '=', as {miss.allowed}=value."
    if miss.problem == "markup" and miss.value is not None:
        return f"'{miss.key}' is dressed in formatting: write it bare, as {miss.allowed}={miss.value}."
    if miss.problem == "markup":
        return f"'{miss.key}' is dressed in formatting: write the bare key, as {miss.allowed}=value."
    if miss.problem == "table":
        return f"a table row is not a declaration: write {miss.allowed}={miss.value}."
    if miss.problem == "not alone":
        return f"'{miss.typed_shown}' has the words '{miss.words_before}' before '{miss.written}': {NOT_ALONE_RULE}."
    if slip := spelling_slip(miss.key):  # 'moduel' is told the key it meant, as 'Module' is (lesson 02's walk 22)
        return f"'{miss.key}' is not an allowed key: write '{slip}'."
    return ""


_TIMES = {2: "twice", 3: "three times"}


WHY_LABEL = "Why:"
"""The label of each reason a part of a message gave no fact: one word in the chat and on the store's side."""


def why_notes(report: ExtractionReport | None, text: str) -> list[str]:
    """Every reason a turn's verdict gives, after :data:`WHY_LABEL`: the same lines in the chat and in the store.

    The parts of ``text`` that look like declarations and are not (:func:`declaration_notes`); and a message that
    stored nothing with no such part still gets its reason (:func:`nothing_stored_why`): no refusal is a bare
    "Nothing stored".
    """
    notes = declaration_notes(text)
    if report is not None and report.status == "nothing_to_extract" and not notes:
        notes = [nothing_stored_why(text)]
    return notes


def nothing_stored_why(text: str) -> str:
    """Why ``text`` declares nothing, when no near miss says it: a question (with or without an ``=``), a
    sentence, or a part the contract cannot read as ``key=value`` (``=`` alone has an empty key)."""
    if prose := nothing_declared_note(text):
        return prose
    if text.strip().endswith("?"):
        return "it is a question; only key=value declarations are stored."
    if reasons := left_out(text):
        return shorten_long_input("; ".join(reasons) + ".")
    return "no part of it is a key=value declaration standing on its own."


def repeated_key_notes(text: str) -> list[str]:
    """One note per key ``text`` declares with several values: only the last is read (the contract's rule).

    ``module=Billing; module=Payroll`` stores ``Payroll`` and the desk notes only it: without this note the
    student's ``Billing`` vanished without a word. It says "message", not "line": the two declarations may sit on
    two lines of one message.
    """
    notes = []
    for key, values in repeated_keys(text).items():
        times = _TIMES.get(len(values), f"{len(values)} times")
        notes.append(
            f"{key} is declared {times} in this message ({', then '.join(values)}): "
            f"only the last, {key}={values[-1]}, is read."
        )
    return notes


def kept_punctuation(report: ExtractionReport) -> list[Fact]:
    """The facts an accepted turn stored whose value ends in sentence punctuation (``module=Payroll.``)."""
    if report.status != "accepted":
        return []
    return [f for f in report.facts if f.turn == report.turn and f.value[-1:] in SENTENCE_END_MARKS]


def punctuation_notes(report: ExtractionReport) -> list[str]:
    """A note for each value stored with its final punctuation: a student who ended a line with a period may not
    expect it in the table (the contract keeps everything after ``=``)."""
    return [
        f"{f.key} is stored as \"{f.value}\" with its final '{f.value[-1]}': everything after '=' is the value, so "
        f"the '{f.value[-1]}' is part of the stored value."
        for f in kept_punctuation(report)
    ]


def declared_inside_notes(report: ExtractionReport) -> list[str]:
    """A note for each value an accepted turn stored with another declaration inside it.

    ``module=Billing, database=Oracle`` is one declaration, and so are ``module=Billing database=Oracle``,
    ``module=Billing and database=Oracle`` and ``module=Billing. database=Oracle``: the value runs to ';' or the end of
    the line, so module is stored with ``database=Oracle`` in its value and the panel's "Stored: module." alone does
    not say where database went. The rule and its words are :func:`course_lib.assertions.declared_inside_reason`'s,
    which lesson 01's "left out, and why" says too.
    """
    if report.status != "accepted":
        return []
    return [
        f'{fact.key} is stored as "{shorten_long_input(fact.value)}": {reason}.'
        for fact in report.facts
        if fact.turn == report.turn and (reason := declared_inside_reason(fact.key, fact.value))
    ]


comma_notes = declared_inside_notes
"""The name this rule had when only a comma was read (lesson 02's walk 5); the same function."""


def double_equals_notes(report: ExtractionReport) -> list[str]:
    """A note for each value an accepted turn stored that begins with '=' (``module==X`` stores ``=X``).

    The value is everything after the first '=', so a second '=' is part of it, and "Stored: module." alone does not
    say so: the note asks whether one '=' was meant, as :func:`declared_inside_notes` says where a declaration typed
    inside a value went.
    """
    if report.status != "accepted":
        return []
    return [
        f"{fact.key} is stored as \"{shorten_long_input(fact.value)}\": did you mean one '='? The value is everything "
        f"after the first '=', so a second '=' is part of the value."
        for fact in report.facts
        if fact.turn == report.turn and fact.value.startswith("=")
    ]


def eviction_notes(before: tuple[Fact, ...], report: ExtractionReport, max_facts: int = MAX_FACTS) -> list[str]:
    """Which facts a turn pushed out of the full store, in words: facts that went without being forgotten.

    A fact held ``before`` the turn that is not among the report's facts and was not re-declared by the turn
    was evicted: the store keeps at most ``max_facts`` and drops the oldest first. One note names every fact that
    went, so a turn that pushed out two says the rule once and leaves none of them out.
    """
    if report.status != "accepted":
        return []
    kept = {fact.key for fact in report.facts}
    evicted = [fact for fact in before if fact.key not in kept]
    if not evicted:
        return []
    turns = list(dict.fromkeys(fact.turn for fact in evicted))
    groups = [_evicted_on_turn([f for f in evicted if f.turn == t], report.facts, t == turns[0]) for t in turns]
    some = "a fact from the oldest turn goes" if len(evicted) == 1 else "the oldest facts go"
    verb = "was" if len(evicted) == 1 else "were"
    gone = ", then ".join(groups)  # turn by turn, oldest first
    return [f"The store holds at most {max_facts} facts, so {some}: {gone} {verb} pushed out to make room."]


def _evicted_on_turn(facts: list[Fact], kept: tuple[Fact, ...], oldest: bool) -> str:
    """The facts one turn lost, ``key=value`` each, then why the store chose them (:func:`_why_oldest`)."""
    pairs = and_listed([shown_pair(fact.key, shorten_long_input(fact.value)) for fact in facts])
    return f"{pairs} ({_why_oldest(facts, kept, oldest)})"


def correction_notes(before: Sequence[Fact], report: ExtractionReport | None) -> list[str]:
    """Which values an accepted turn replaced, in words: a correction keeps one value per key, the latest.

    A key held ``before`` the turn with another value than the one the turn stored was corrected. A value declared
    again unchanged replaced nothing, yet "Stored: module." alone would read as a change: its note says the value
    is the same and only its turn moved (lesson 07's walk, for every panel with a Message box).
    """
    if report is None or report.status != "accepted":
        return []
    old = {fact.key: fact for fact in before}
    stored = [fact for fact in report.facts if fact.turn == report.turn and fact.key in old]
    return [_correction_note(old[fact.key], fact) for fact in stored]


TURNS_SKIPPED = "Every message counts as a turn, refused ones too."
"""Said after "only its turn moved (from turn 2 to turn 4)" when the two turns are not consecutive: a student who
saw a message refused in between did not know why the turn jumped by two (lessons 02 and 03's walk 22)."""


def _correction_note(was: Fact, now: Fact) -> str:
    if was.value == now.value:
        skipped = f" {TURNS_SKIPPED}" if now.turn - was.turn > 1 else ""
        return (
            f'{now.key}: "{shorten_long_input(now.value)}" is the same value as before: nothing was replaced, only '
            f"its turn moved (from turn {was.turn} to turn {now.turn}).{skipped}"
        )
    return (
        f'{now.key}: "{shorten_long_input(now.value)}" replaced "{shorten_long_input(was.value)}" '
        f"(which the user said at turn {was.turn}). A correction keeps one value per key: the latest."
    )


WHOLE_MESSAGE = "a message is admitted whole or not at all"
"""Why the good declarations of a refused message were not stored either (:func:`whole_message_notes`)."""


def whole_message_notes(report: ExtractionReport, text: str) -> list[str]:
    """The declarations a refused message lost with the one the store refused, in words.

    The store admits a message's facts together or none of them: one value over the limit keeps ``module=Billing``
    next to it out too, and a student who reads only "the value given for symptom has 300 characters" would look
    for module in the table. Each proposed fact is checked on its own against the message ``text``: those that pass
    are named. A refusal no single fact caused (six facts, a writer that dropped one) names none: its reason is
    about the message already.
    """
    if report.status != "rejected" or len(report.proposed) < 2:
        return []
    good = []
    for candidate in report.proposed:
        try:
            validate_batch(text, [candidate])
        except InvalidFacts:
            continue
        good.append(candidate.key)
    if not good or len(good) == len(report.proposed):
        return []
    verb = "was" if len(good) == 1 else "were"
    return [f"{and_listed(good)} {verb} not stored either: {WHOLE_MESSAGE}."]


def _why_oldest(evicted: list[Fact], kept: tuple[Fact, ...], oldest: bool = True) -> str:
    """Why the store chose ``evicted`` (facts of one turn): their turn is the oldest, and a tie with a kept fact goes
    alphabetically.

    The store evicts the oldest turn first and, among facts of one turn, the first key in ordinal order, which for
    the ten lowercase keys is alphabetical (:attr:`~course_lib.memory.WorkingMemory.facts` is that order), so a
    kept fact of the same turn lost no tie. A second turn that lost facts is the oldest once the first one's are gone.
    """
    turn = evicted[0].turn
    when = f"turn {turn}, the oldest" if oldest else f"turn {turn}, the oldest left"
    peers = [fact.key for fact in kept if fact.turn == turn]
    if not peers:
        return when
    names = and_listed(peers)
    gone = and_listed([fact.key for fact in evicted])
    return (
        f"{when}; {names} {'is' if len(peers) == 1 else 'are'} from turn {turn} "
        f"too, and {gone} {'comes' if len(evicted) == 1 else 'come'} first alphabetically"
    )


def command_guidance(text: str, *, stored: Collection[str] = ()) -> str:
    """What to do when a console command (``forget module``, ``mem``) is typed where messages go; else ``""``.

    ``stored`` are the keys the store holds. With none the Forget buttons are greyed out, and a key it does not
    hold is not in the Key list: pointing at either would send the student to a button or a choice that is not
    there, so the guidance says there is nothing to forget instead.
    """
    command = console_command(text)
    if command == "forget":
        said = f"'{trim_line(text)}' is a command, not a message: nothing was submitted."
        key = " ".join(text.split()).split(maxsplit=1)[1:]  # read whole; quoted short (:func:`trim_line`)
        if key and (cased := allowed_in_other_case(key[0])):  # 'Module': the case hint a declaration gets too
            said = f"{said} {forget_case_note(key[0])}"
            key = [cased]
        if key and key[0] not in ALLOWED_KEYS:  # as the desk's console says it: 'color' is no key at all
            if all(word in ALLOWED_KEYS for word in key[0].split()):  # 'forget database module': several keys
                return f"{said} Forget takes one key at a time: choose each in the Key list below and click Forget key."
            if slip := spelling_slip(key[0]):  # 'forget modul': the key meant, as the desk's console says it
                return f"{said} '{trim_line(key[0])}' is not an allowed key: write '{slip}'."
            return f"{said} {trim_line(key[0])} is not one of the allowed keys ({', '.join(ALLOWED_KEYS)})."
        if not stored:
            return f"{said} The store holds no facts: there is nothing to forget."
        if key and key[0].lower() not in {k.lower() for k in stored}:
            return f"{said} {trim_line(key[0])} is not stored: there is nothing to forget."
        if key:  # one key named: the button that forgets one key comes first
            return f"{said} To forget {key[0]} here, choose it in the Key list below and click Forget key."
        # bare 'forget' means every fact, as in the console: the button that forgets them all comes first
        return (
            f"{said} To forget every fact here, click Forget all (or, for one fact, choose its key below and click "
            "Forget key)."
        )
    if command == "mem":
        return (  # quoted as typed ('MEM'): the student's words are never altered
            f"'{trim_line(text)}' is a command, not a message: nothing was submitted. The table above already shows "
            "the facts."
        )
    return ""


def trim_line(text: str) -> str:
    """``text`` on one line, shortened, as a panel quotes it: a long line of words is cut as the chat cuts it
    (:func:`echoed_line`), never repeated whole."""
    return echoed_line(" ".join(text.split()))


_CODE_SPAN = re.compile(r"`([^`<>\n]+)`")


def _code_spans(escaped: str) -> str:
    """Backticks in a rule's text (``forget KEY``) shown as code, as the lessons' Markdown shows them."""
    return _CODE_SPAN.sub(r"<code>\1</code>", escaped)


_SAYS_WHAT_REFUSED = re.compile(r"[A-Z][\w ]{0,40} refused:")
"""A rule's text that opens by saying what refused it (``Message refused: it has 5008 characters ...``)."""


def _error_html(text: str) -> str:
    """A broken rule in red, opened by a bold "Refused:", said once.

    A rule whose own text already opens with what refused it keeps that opening as its bold label: "Refused:
    Message refused: ..." would say it twice.
    """
    own = _SAYS_WHAT_REFUSED.match(text)
    label, rest = (own.group(0), text[own.end() :].lstrip()) if own else (REFUSED_LABEL, text)
    return f'<span style="color:crimson"><b>{_escape(label)}</b> {_code_spans(_escape(rest))}</span>'


_RULE_CELL = re.compile(r"\s*:?-+:?\s*")
"""A cell of a Markdown table's rule row (``---``, ``:--``, ``--:``)."""


def glued_table_rows(line: str) -> list[str] | None:
    """The rows of a Markdown table that a one-line box glued into ``line``; None when ``line`` is no such table.

    A browser's one-line box drops the line breaks of a pasted table (``| key | value ||---|---|| module |
    Billing |``; some browsers leave a space there). The rule row (``|---|---|``) says how many cells a row has,
    and one empty cell stands where each line break was: only a line whose cells fill whole rows that way is
    read back, so a table row's near miss (:func:`declaration_notes`) is found in it as in a pasted table.
    """
    text = line.strip()
    if "\n" in text or len(text) < 2 or not (text.startswith("|") and text.endswith("|")):
        return None
    cells = text[1:-1].split("|")
    width = next((len(run) for run in _rule_runs(cells)), 0)
    stride = width + 1
    if not width or (len(cells) + 1) % stride or len(cells) < stride:
        return None
    rows = [cells[start : start + width] for start in range(0, len(cells), stride)]
    breaks = cells[width::stride]
    if any(cell.strip() for cell in breaks) or not any(all(_RULE_CELL.fullmatch(c) for c in row) for row in rows):
        return None
    return ["|" + "|".join(row) + "|" for row in rows]


def _rule_runs(cells: list[str]) -> list[list[str]]:
    """The runs of consecutive rule cells among ``cells``, in order."""
    runs: list[list[str]] = [[]]
    for cell in cells:
        if _RULE_CELL.fullmatch(cell):
            runs[-1].append(cell)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def as_pasted(line: str) -> str:
    """``line`` as the student pasted it: a glued table's rows back on lines of their own (:func:`glued_table_rows`)."""
    rows = glued_table_rows(line)
    return "\n".join(rows) if rows else line


def _wrapping_row(*children: widgets.Widget) -> widgets.HBox:
    """A row that moves what does not fit onto the next line, never past the cell's right edge.

    A notebook cell is narrow beside JupyterLab's file browser (about 770 px in a 1200 px window): a row that cannot
    wrap there clips its last button to "Su…" and puts a scroll bar under the panel.
    """
    return widgets.HBox(list(children), layout=widgets.Layout(flex_flow="row wrap", align_items="center"))


def on_click_once(button: widgets.Button, start: Callable[[], Any]) -> None:
    """Start ``start`` on a click of ``button`` while it is on, turning the button off at the click.

    The action it starts is a coroutine that runs later: a double click's second half arrives before it has turned
    the button off, and would start the same run again (lesson 07's Check answer, lesson 04's Run). Off at the
    click, the button ignores it (:func:`_on_enabled_click`); the action turns it back on when it ends.
    """

    def clicked() -> None:
        button.disabled = True
        start()

    _on_enabled_click(button, clicked)


def _on_enabled_click(button: widgets.Button, action: Callable[[], Any]) -> None:
    """Run ``action`` on a click of ``button`` only while the button is on.

    A browser sends a click made before it has greyed the button out (a double click, or a second one queued while
    the first was running): ipywidgets delivers it even though the button is now off. Acting on it would answer a
    line the student did not send (an emptied box: "the message is empty") and replace the result of the click
    that did act. A greyed-out button's note already says why it is off, so such a click changes nothing.
    """
    button.on_click(lambda _: None if button.disabled else action())


def _fit_to_width(*boxes: widgets.Widget) -> None:
    """Inputs that shrink with their row: the label as wide as its word, the box taking what is left of the row."""
    for box in boxes:
        box.style.description_width = "initial"
        box.layout = widgets.Layout(flex="1 1 12em", width="auto", min_width="0", max_width="32em")


MESSAGE_BOX_BASIS = "32em"
"""The Message box's starting width, its label included: room for ``module=Billing; database=SQL Server 2022`` (the
lessons' correction, about 314 px of text) on one line. A smaller start let the greyed-out Submit's note share the
box's row and squeeze the box to 155 px in JupyterLab (lesson 02's walk 23); from this start, the note goes to the
next line instead, and the box keeps one width whether the note shows or not."""


def _message_box_width(box: widgets.Widget) -> None:
    """The Message box: :data:`MESSAGE_BOX_BASIS` wide in any row (the note beside Submit wraps below it rather than
    squeeze it); only a cell narrower than that shrinks it to the cell's width, Submit going below it."""
    box.style.description_width = "initial"
    box.layout = widgets.Layout(flex=f"0 1 {MESSAGE_BOX_BASIS}", width="auto", min_width="0")


KEY_LIST_WIDTH = "18em"
"""The Key list's width, whatever it holds: a list that grew into the room the greyed-out note leaves (about 350 px
on an empty store, 263 px on a filled one) moved the Forget buttons sideways between two clicks."""


def _fixed_width(box: widgets.Widget, width: str) -> None:
    """An input one width wide, neither growing nor shrinking with its row (still never wider than the cell)."""
    box.style.description_width = "initial"
    box.layout = widgets.Layout(flex="0 0 auto", width=width, min_width="0", max_width="100%")


TICKET_NOTE = "A turn's facts are refused by its ticket after a newer message or a Forget (lesson 01)."
"""What the ticket guards, in one short line under the ticket (lesson 01 and section 6 of lesson 03 show it at work):
the epoch counts forgets, the turn counts messages, and a write that does not hold the latest ticket is refused. It
does not start with "Ticket:" as the ticket's own line does: two "Ticket:" lines read as two tickets (lesson 02's walk
25), and "any write begun before" leaned on lesson 01's words."""
NOTE_STYLE = "color: dimgray; font-size: 85%; line-height: 1.3"
"""A note under a panel's line: grey, small, one compact paragraph."""


def ticket_line(memory: WorkingMemory) -> str:
    """The ticket in words: what the epoch and the turn count (a bare "epoch 0, turn 9" tells a student nothing).

    The turn counts the messages the store read: one refused whole before any reading (over the length limit) takes
    no turn, while one whose value is refused after it was read did take one (:data:`UNREAD_NOTE` says so).
    """
    return f"Ticket: epoch {memory.epoch} (forgets so far), turn {memory.turn} (messages read so far)"


UNREAD_NOTE = "This message took no turn: it was refused before the store read it, so the ticket's turn did not move."
"""Why a message refused whole leaves the ticket's turn where it was (:func:`ticket_line`)."""


SUBMIT_DISABLED_NOTE = "Submit stays off while the Message box is empty or only spaces."
"""Beside a greyed-out Submit on a panel whose Message box only feeds the store (lessons 02 and 07), in one short line:
what turns Submit on, and nothing more. A question turns Submit on too, so the note says no rule about what a line must
hold (lesson 02's walk 25 read "it stores key=value, not a question" as a rule Submit enforces); the line under the box
says what a question stored (nothing) once it is submitted. "Or only spaces": a box of blanks keeps Submit off too
(lesson 02's second walk 25 typed spaces and read "empty" as false)."""
DESK_SUBMIT_DISABLED_NOTE = "Submit stays off until the Message box holds a line; it sends as Send does."
"""The same note on the desk panel (lesson 03), whose Message box goes through the desks' console: a desk replies in
the chat and the line's declarations are stored, as for a line sent from the You box (the lesson says so above the
panel; a command typed there is answered by :func:`command_guidance`)."""
EXAMPLE_DECLARATION = "module=Billing"
"""The declaration a memory panel shows as an example (its Message box's placeholder, its next step for a message
that declares nothing); lesson 07's panel shows one its store does not hold yet."""
MESSAGE_BOX_NOTE = "The Message box is sent with Submit; pressing Enter in it starts a new line."
"""Under the Message box: it is a many-line box, so Enter adds a line there, while the desk's You box sends on Enter
(students pressed Enter in the Message box and waited)."""
SEND_DISABLED_NOTE = "Send stays off until the You box holds a line."
"""The desk panel's Send, greyed out like Submit and for the same reason: a pale button with no word looked broken."""
FORGET_DISABLED_NOTE = "The store is empty: nothing to forget."
FORGET_KEY_NOTE = "Pick a key in the Key list, then click Forget key."
"""Beside the greyed-out Forget key before any click: the step to take, worded as an instruction (a new student
read "waits for a key" as an error, lesson 02's walk 24)."""
KEY_PLACEHOLDER = "choose a key"
NO_KEY = ""
"""The Key list's value while it shows :data:`KEY_PLACEHOLDER`: no key is preselected, so Forget key never forgets
one by surprise (``None`` would be no entry at all: the list would look empty, with nothing to say what to do)."""


WRAPPING_TEXT = "white-space: normal; overflow-wrap: anywhere"
"""A panel's text wraps inside the panel, even a long unbroken word (the widget would hide what passes its edge)."""


def panel_table_html(frame: Any, css_class: str, *, escape: bool = True) -> str:
    """A panel's table (:func:`lesson_table_html`) whose cells wrap a long unbroken value rather than run past the
    panel's right edge and be cut (lesson 07's walk 19: ``module=`` and 700 Z's in the verdict's "why" cell).

    Only ``overflow-wrap: anywhere`` is added: the cells keep their line breaks (one message per line). A column of
    short words (:func:`_whole_columns`: a key, a turn) is kept on one line instead: ``anywhere`` lets a table size a
    column below its words' width, and walk 21 saw "databa / se" beside a long "why" in lesson 07's panel.
    """
    whole = "".join(f"table.{css_class} td:nth-child({n}) {{ white-space: nowrap; }}" for n in _whole_columns(frame))
    wrap = f"<style>table.{css_class} td {{ overflow-wrap: anywhere; }}{whole}</style>"
    return lesson_table_html(frame, css_class, escape=escape).replace("<table ", f"{wrap}<table ", 1)


def _whole_columns(frame: Any) -> list[int]:
    """The columns (1-based, as CSS counts them) whose every cell is one word of at most
    :data:`~course_lib.presentation.LONGEST_WHOLE_WORD` characters: short identifiers a panel never breaks."""
    return [
        number
        for number, column in enumerate(frame.columns, start=1)
        if all(re.fullmatch(rf"\S{{1,{LONGEST_WHOLE_WORD}}}", str(value)) for value in frame[column])
    ]


def _greyed_out(button: widgets.Button, reason: str) -> str:
    """Say why ``button`` is greyed out, beside it and as its tooltip; ``""`` (and no tooltip) when it is not."""
    button.tooltip = reason or None
    # a block, not a span: a span's own line height cannot undo the widget's 28 px lines once the note wraps
    return f'<div style="{NOTE_STYLE}">{_escape(reason)}</div>' if reason else ""


SINGLE_SPACED = "line-height: 1.4"
"""Text of several lines in a panel: a widget's HTML is set at the height of an input row (28 px), double-spaced."""


def _single_spaced(html: str) -> str:
    """``html`` in a block whose lines are single-spaced (:data:`SINGLE_SPACED`)."""
    return f"<div style='{SINGLE_SPACED}'>{html}</div>"


class SingleSpacedHTML(widgets.HTML):
    """An HTML widget whose every value is single-spaced, whoever sets it (the panel, a desk, a subclass).

    A panel's message of several lines (a status, then "Ignored: ...", an eviction note) was double-spaced
    while one-line messages were not: each setter had to remember :func:`_single_spaced`, and some did not. A
    value extended after it was set (``value += "<br>..."``) is folded back inside the one single-spaced block.
    """

    @traitlets.validate("value")
    def _single_spaced_value(self, proposal: dict[str, Any]) -> str:
        html = str(proposal["value"])
        if html.startswith(_SPACED_OPEN):
            html = html[len(_SPACED_OPEN) :].replace(_SPACED_CLOSE, "", 1)
        return f"{_SPACED_OPEN}{html}{_SPACED_CLOSE}" if html else ""


_SPACED_OPEN = f"<section style='{SINGLE_SPACED}'>"
_SPACED_CLOSE = "</section>"
"""A block no message holds itself (a message may hold divs), so the widget finds its own wrapper's end."""


REFUSED_LABEL = "Refused:"
"""The label of what the host really refuses: a line the console turns away, a rule a batch breaks. A part of a
stored message is never labelled so: the host stored the batch, and that part gave it nothing to refuse."""
NOT_READ_LABEL = "Not read:"
"""The label of a part of a stored message that gave no fact: one that declares nothing (:data:`DECLARES_NOTHING`
follows the part), or a declaration a later one of its key in the same message replaced (only the last one is read).

Walk 21: "Refused: 'Module=Reporting'" beside "Stored: module." made a student answer lesson 02's exercise 1
"rejected"; the contract reads no declaration in that part, so the host checks the batch without it and accepts it."""

DECLARES_NOTHING = "(declares nothing)"
"""What :func:`refused_lines` puts after a part that is no declaration (a key not allowed, no '=', no key, no value):
it is not read because there is nothing in it to read, not because a rule refused it."""

_ONLY_THE_LAST = "is read."
"""How every reason for a part a later declaration of its key replaces ends (the contract reads only a key's last
declaration in a message): the rule :func:`refused_lines` and :func:`box_note` both tell such a part by."""

DECLARES_NOTHING_IN_BOX_NOTE = (
    "A part that declares nothing is not kept there: to store it, type it again, corrected, and press Submit."
)
"""What :func:`box_note` adds when a stored message had a part that declares nothing: it went with the message, and
needs fixing to store anything."""
NOT_READ_IN_BOX_NOTE = (
    "A part declared again later in the message was skipped: when a message declares a key more than once, only "
    "the last declaration is read, so there is nothing to correct (to store an earlier value instead, submit it on "
    "its own)."
)
"""What :func:`box_note` adds when a stored message had a declaration a later one replaced: nothing is to correct.

The store's report names only what was admitted ("Admitted 1 fact: module."): the contract hands the store a key's
last declaration in a message, and the earlier ones never reach it."""


def refused_parts(text: str) -> list[tuple[str, str]]:
    """Each part of ``text`` that gave no fact though it looks like a declaration, with why, in order.

    None of them is refused by the host (the name is older than walk 21): each declares nothing, or a later
    declaration of its key is read instead, so a stored message's batch never holds it (:func:`refused_lines`).

    A part is what the contract reads between ``;`` or line breaks. A near miss (``colour=red``, ``Module=Billing``)
    gets the memory panel's own reasons (:func:`~course_lib.widgets.declaration_notes` of that part alone); a
    declaration that a later one of its key replaces (``module=Billing`` before ``module=Payroll``) gets the
    repeated-key note. Parts that are plain words (a greeting) declare nothing and get no line, as in lesson 02.
    """
    found: list[tuple[str, str]] = []
    every = parts(text)
    last: dict[str, int] = {}
    for i, part in enumerate(every):
        for declaration in _declarations(part):
            last[declaration.key] = i
    repeated = repeated_key_notes(text)
    for i, part in enumerate(every):
        if notes := declaration_notes(part):
            found += [(part, " ".join(notes))]
            continue
        keys = [d.key for d in _declarations(part)]
        if keys and last[keys[0]] != i:
            why = next((note for note in repeated if note.startswith(f"{keys[0]} is declared")), "")
            again = f"{keys[0]} is declared again later in this message: only the last one {_ONLY_THE_LAST}"
            found += [(part, why or again)]
    return found


def _declarations(part: str) -> list[Declaration]:
    try:
        return find_declarations(part)
    except MessageRefused:
        return []


def _not_read(why: str) -> bool:
    """Whether a part :func:`refused_parts` names was skipped (a later declaration of its key is read), rather than
    one that declares nothing."""
    return why.endswith(_ONLY_THE_LAST)


def refused_lines(refused: Sequence[tuple[str, str]]) -> list[str]:
    """One line per part that gave no fact (:func:`refused_parts`): "Not read:", the part as typed (a long one cut,
    marked "…"), :data:`DECLARES_NOTHING` unless a later declaration of its key was read instead, and why.

    One label for every such part, right or wrong as the student meant it: the contract read nothing in it, and the
    host refused no batch for it (walk 21), so "Refused" stays for what the host turns away.
    """
    lines = []
    for part, why in refused:
        kind = "" if _not_read(why) else f" {DECLARES_NOTHING}"
        lines.append(f"{NOT_READ_LABEL} '{trim_line(part)}'{kind}. {WHY_LABEL} {why}")
    return lines


def box_note(
    report: ExtractionReport | None,
    text: str,
    box: str,
    *,
    refused: Sequence[tuple[str, str]] = (),
    example: str = EXAMPLE_DECLARATION,
) -> str:
    """What the Message box holds after a Submit, in words, the same rule as lesson 02's panel: a message that stored
    facts leaves the box (Submit again would declare them again); one that stored nothing stays there to correct.

    ``box`` is the box's text now: if the student typed something else while the message was on its way, the box is
    theirs and nothing is said of it. ``refused``: the stored message's parts that gave no fact, with why
    (:func:`refused_parts`), which went with it: one that declares nothing is to type again, corrected; one a later
    declaration of its key replaced has nothing to correct, and the note says so rather than send it back. A message
    that declares nothing gets the next step instead (:func:`declares_nothing_step`, ``example`` its declaration).
    """
    if report is None:
        return ""
    if report.status == "accepted" and not box:
        kinds = {_not_read(why) for _, why in refused}
        notes = [
            *([DECLARES_NOTHING_IN_BOX_NOTE] if False in kinds else []),
            *([NOT_READ_IN_BOX_NOTE] if True in kinds else []),
        ]
        return " ".join(["The Message box is empty again: the message was stored.", *notes])
    if report.status != "accepted" and box == text:
        return declares_nothing_step(example, in_box=True) if declares_nothing(report, text) else CORRECT_IN_BOX_NOTE
    return ""


CORRECT_IN_BOX_NOTE = "Your message is still in the Message box: correct it there and press Submit again."
"""What :func:`box_note` says of a message kept in the box because a declaration in it was refused: it is to fix."""


def declares_nothing_step(example: str = EXAMPLE_DECLARATION, *, in_box: bool) -> str:
    """The one next step after a message that declares nothing (a greeting, a question, a sentence): no mistake to
    correct, only what to type to store a fact, with ``example`` (``in_box``: the message is still in the Message box).

    The reason is said once, on the "Nothing stored:" line (:func:`nothing_stored_why`): lesson 07's walk got three
    lines saying the same thing ("Nothing stored", a "Why:" line, "It declares nothing, so it stores nothing").
    """
    if in_box:
        return (
            f"Your message is still in the Message box: to store a fact, replace it with a declaration such as "
            f"{example} and press Submit."
        )
    return f"To store a fact, write it as a declaration such as {example}."


DECLARES_NOTHING_NOTE = declares_nothing_step(in_box=True)
"""What :func:`box_note` says of a message kept in lesson 02's box that declares nothing (a question, a greeting)."""


def declares_nothing(report: ExtractionReport | None, text: str) -> bool:
    """Whether ``text`` stored nothing because it declares nothing at all (``Is the module still Reporting?``,
    ``hello``): no part of it even looks like a declaration that went wrong (:func:`declaration_notes`)."""
    return report is not None and report.status == "nothing_to_extract" and not declaration_notes(text)


NEW_PANEL_NOTE = "A forgotten fact comes back only if you submit it again."
"""What Forget all adds on a panel of its own built on a new store (lesson 02's cell: a new panel on
``make_extraction()``): a forget cannot be undone. Running that cell again gives a new panel on a new, empty store, not
the facts that went; the lesson says so above the panel, so the note keeps one short line (lesson 02's walk 25). Lesson
07's panel says instead that its cell replays the conversation (``capstone_panel.start_over_note``)."""

NOT_STORED_IN_BOX = (
    "The message still in the Message box was not stored: press Submit to try it on the store as it is now."
)
"""Said under a forget that changed the store while a refused message is still in the box, in place of what Submit
said of it: that answered the store before the forget (walk 24 of lessons 02, 03 and 07; defined here once, lesson
07's panel imports it). A forget that changes nothing says Submit's lines again (:data:`STILL_IN_BOX`)."""

STILL_IN_BOX = "What Submit said of the message still in the Message box:"
"""The label over the last Submit's lines, said again under a forget's while that message is still in the box (the
same words as lesson 07's panel). Only lines that explain why a declaration was refused are said again: a command's
reply (``mem``) or the note on a message that declares nothing (:func:`declares_nothing`) is not."""


def _unwrapped(value: str) -> str:
    """A status line's HTML without the single-spaced block :class:`SingleSpacedHTML` wraps every value in, so it can
    be shown again inside another value (the widget wraps that one once)."""
    found = re.fullmatch(r"<section[^>]*>(.*)</section>", value, re.DOTALL)
    return found.group(1) if found else value


class MemoryPanel(_Panel, widgets.VBox):
    """The facts as a table, a message box submitted through the contract, forget buttons, the ticket."""

    title = "Memory panel"

    def __init__(
        self,
        extraction: MemoryExtraction,
        *,
        on_forget: Callable[[str | None], Any] | None = None,
        submit: Callable[[str], Awaitable[ExtractionReport | None]] | None = None,
        caption: str = "",
    ) -> None:
        self.extraction = extraction
        self.memory = extraction.memory
        self._submitting = False  # a message is on its way: Submit stays off until it is answered
        self._from_box = False  # the message shown came from the Message box (not from a cell's script)
        self.verdict_label = ""  # a label over the store's verdict (the desk panel's: two boxes send messages)
        self._last_submit: tuple[str, str] | None = None  # the last message submitted, and what Submit said of it
        new = not extraction.memory.facts and extraction.memory.turn == 0 and extraction.memory.epoch == 0
        self.start_over = NEW_PANEL_NOTE if new and on_forget is None and submit is None else ""
        """What Forget all says of getting the store back: on a panel of its own that began on a new store, that
        running its cell again gives an empty one (:data:`NEW_PANEL_NOTE`); "" where the panel cannot know what its
        cell builds (a store already in use, a desk's store, lesson 07's panel, which sets its own)."""
        self._on_forget = on_forget
        self._submit = submit or extraction.update
        self._async = _Async(lambda text: setattr(self.diagnostic, "value", _error_html(text)))
        self.caption = widgets.HTML(caption)
        self.table = widgets.HTML()
        self.ticket = widgets.HTML(tooltip=TICKET_NOTE)
        self.ticket_note = widgets.HTML(f'<div style="{NOTE_STYLE}">{TICKET_NOTE}</div>')
        self.diagnostic = SingleSpacedHTML()
        self.example_declaration = EXAMPLE_DECLARATION
        self.submit_disabled_note = SUBMIT_DISABLED_NOTE  # what Submit does with each kind of line, on this panel
        self.message = widgets.Textarea(placeholder=f"e.g. {EXAMPLE_DECLARATION}", description="Message")
        self.submit_button = widgets.Button(description="Submit", button_style="primary", disabled=True)
        self.key = widgets.Dropdown(description="Key", options=[(KEY_PLACEHOLDER, NO_KEY)], value=NO_KEY)
        self.forget_key_button = widgets.Button(description="Forget key")
        self.forget_all_button = widgets.Button(description="Forget all", button_style="warning")
        self.submit_note = widgets.HTML()  # why Submit is greyed out, when it is
        self.message_note = widgets.HTML(f'<div style="{NOTE_STYLE}">{MESSAGE_BOX_NOTE}</div>')  # Enter: a new line
        self.forget_note = widgets.HTML()  # why the Forget buttons are greyed out, when they are
        # a click acts on what it shows at the click (the box, the key), in click order
        # a click of a greyed-out button (a double click's second) does nothing (:func:`_on_enabled_click`)
        _on_enabled_click(self.submit_button, self._submit_clicked)
        _on_enabled_click(
            self.forget_key_button,
            lambda: self._async.now_or_after(functools.partial(self.forget_key, self.key.value)),
        )
        _on_enabled_click(
            self.forget_all_button, lambda: self._async.now_or_after(functools.partial(self.forget, None))
        )
        self.message.observe(lambda _: self._message_edited(), names="value")
        self.key.observe(lambda _: self._enable_forget(), names="value")
        for widget, name in ((self.table, "facts"), (self.message, "message"), (self.diagnostic, "diagnostic")):
            widget.add_class(f"memory-panel-{name}")
        _message_box_width(self.message)
        _fixed_width(self.key, KEY_LIST_WIDTH)
        super().__init__(
            [
                *([self.caption] if caption else []),
                self.table,
                self.ticket,
                self.ticket_note,
                _wrapping_row(self.message, self.submit_button, self.submit_note),
                self.message_note,
                self.diagnostic,
                _wrapping_row(self.key, self.forget_key_button, self.forget_all_button, self.forget_note),
            ],
            layout=widgets.Layout(min_width="0"),
        )
        self.refresh()
        self._enable_submit()

    async def idle(self) -> None:
        await self._async.idle()

    def _enable_submit(self) -> None:
        """Submit is on when the box holds a line and no message is on its way; when empty, the note says why."""
        empty = not self.message.value.strip()
        self.submit_button.disabled = empty or self._submitting
        self.submit_note.value = _greyed_out(self.submit_button, self.submit_disabled_note if empty else "")

    def _message_edited(self) -> None:
        """A box emptied by the student disables Submit and clears the previous result: it answered another line."""
        self._enable_submit()
        if not self.message.value.strip() and not self._submitting:
            self.diagnostic.value = ""

    def _submit_clicked(self) -> None:
        """A click of Submit: the box's line, sent once. Submit goes off at the click, not when the turn begins,
        so a second click of the same line (a double click) is not queued behind the first."""
        self._submitting = True
        self._enable_submit()
        self._async.schedule(self.submit(self.message.value))

    async def submit(self, text: str | None = None) -> ExtractionReport | None:
        """Submit ``text`` (by default the message box) as a user turn; show the outcome in place.

        An empty ``text`` is not a message: nothing is submitted and the last result stays on screen (Submit is off
        while the box is empty, and a click that arrives anyway must not replace what the last one stored).
        """
        text = self.message.value if text is None else text
        self._submitting = True
        self._enable_submit()
        try:
            return await self._submit_now(text)
        finally:
            self._submitting = False
            self._enable_submit()

    async def _submit_now(self, text: str) -> ExtractionReport | None:
        """Submit ``text`` and show what became of it; what was said is kept while the message stays in the box."""
        report = await self._submit_and_show(text)
        # said again after a forget only when it explains why a declaration was refused: a command's reply (mem,
        # forget) or the note on a message that declares nothing holds nothing to remember once the store changed
        refused = report is not None and not declares_nothing(report, text)
        self._last_submit = (text, _unwrapped(self.diagnostic.value) if refused else "")
        return report

    async def _submit_and_show(self, text: str) -> ExtractionReport | None:
        if not text.strip():
            return None
        if guidance := command_guidance(text, stored=[f.key for f in self.memory.facts]):
            self.diagnostic.value = f'<span style="color:#a35200">{_escape(guidance)}</span>'
            return None
        before = self.memory.facts
        self._from_box = self.message.value == text  # only then is what the box holds news to the student
        report = await self._submit(text)
        if report is not None and report.status == "accepted" and self.message.value == text:
            self.message.value = ""  # stored: Submit again would declare it again and count one more message
        self.show_report(report, text, before)
        self.refresh()
        return report

    def show_report(
        self, report: ExtractionReport | None, text: str = "", before: tuple[Fact, ...] | None = None
    ) -> None:
        """The extraction's status and diagnostic, then what in ``text`` was ignored and why, and what the Message
        box holds now.

        With the facts held ``before`` the turn, a fact the turn pushed out of the full store is named too.
        Green means facts were stored. A line that stores nothing says so first: in amber when it looked
        like a declaration (the notes say why it is not one), in grey when it declared nothing (a greeting, a
        question, a sentence), with its one reason on that line and one next step under it.
        A message that stored some parts and not others shows "Stored: ..." and its notes, then one line per
        part that gave no fact ("Not read: 'colour=red' (declares nothing). Why: ..."): a "Why:" under "Stored:" read
        as the stored fact's reason.
        """
        if report is None:
            self.diagnostic.value = "No extraction ran for this line."
            return
        refused = refused_parts(text) if report.status == "accepted" else []
        example = self.example_declaration
        box = box_note(report, text, self.message.value, refused=refused, example=example) if self._from_box else ""
        if refused:
            text = "\n".join(part for part in parts(text) if part not in {said for said, _ in refused})
        nothing = declares_nothing(report, text)  # one reason, on the status line, then one next step
        notes = [] if nothing else why_notes(report, text)
        box = box or (declares_nothing_step(example, in_box=False) if nothing else "")
        said = f"Nothing stored: {nothing_stored_why(text)}" if nothing else report_in_words(report)
        status = f"<b>{_escape(shorten_long_input(said))}</b>"
        if report.status == "nothing_to_extract":
            color = "#a35200" if notes else "dimgray"
        else:
            color = "green" if report.status == "accepted" else "crimson"
        lines = "".join(f"<br>{_escape(note)}" for note in whole_message_notes(report, text))
        if report.status == "rejected" and report.turn is None:
            lines += f"<br>{_escape(UNREAD_NOTE)}"
        lines += "".join(f"<br>{WHY_LABEL} {_escape(note)}" for note in notes)
        lines += "".join(f"<br>{_escape(note)}" for note in correction_notes(before or (), report))
        lines += "".join(f"<br>{_escape(note)}" for note in eviction_notes(before or (), report, self.memory.max_facts))
        lines += "".join(f"<br>{_escape(note)}" for note in punctuation_notes(report))
        lines += "".join(f"<br>{_escape(note)}" for note in declared_inside_notes(report))
        lines += "".join(f"<br>{_escape(note)}" for note in double_equals_notes(report))
        lines += "".join(f"<br>{_escape(line)}" for line in refused_lines(refused))
        lines += "".join(f"<br>{note}" for note in self._more_notes(report))
        if box:
            lines += f'<br><span style="{NOTE_STYLE}">{_escape(box)}</span>'
        label = f'<span style="{NOTE_STYLE}">{_escape(self.verdict_label)}</span><br>' if self.verdict_label else ""
        self.diagnostic.value = (
            f'<div style="{WRAPPING_TEXT}">{label}<span style="color:{color}">{status}</span>{lines}</div>'
        )

    def _more_notes(self, report: ExtractionReport) -> list[str]:
        """Notes a panel built on this one adds after the refused parts, as HTML (lesson 07's evaluator's)."""
        return []

    def forget_key(self, key: str | None) -> None:
        """The Forget key button: forget the chosen key; with none chosen, say so and forget nothing.

        ``forget(None)`` means *forget all*: a Key list still on its placeholder must not turn a click on *Forget
        key* into that.
        """
        if not key:  # NO_KEY (the placeholder), or None from a script
            reason = "choose one in the Key list first" if self.memory.facts else "the store holds no fact to forget"
            self._say_of_forget(_error_html(f"no key is chosen: {reason}."))
            return
        self.forget(key)

    def shown_keys(self) -> tuple[str, ...]:
        """The keys the Key list offers (the stored ones), without its placeholder."""
        return tuple(value for _, value in self.key.options if value != NO_KEY)

    def forget(self, key: str | None) -> None:
        """Forget one key or all (through ``on_forget`` when the panel belongs to a desk, so sessions go too)."""
        if key is not None and key not in {f.key for f in self.memory.facts}:
            self._say_of_forget(_error_html(f"there is no fact {key} in the store to forget."))
            return
        try:
            if self._on_forget is not None:
                self._on_forget(key)
            else:
                self.memory.forget(key)
        except EXPECTED_ERRORS as error:
            self._say_of_forget(_error_html(describe_error(error)))
            return
        done = "Forgot every fact: the store is empty." if key is None else f"Forgot {key}: it is gone from the store."
        if self._still_in_box():  # Submit's lines answered the store before the forget: one line says what is left
            done += f"\n{NOT_STORED_IN_BOX}"
        if key is None and self.start_over:
            done += f"\n{self.start_over}"
        self.diagnostic.value = _escape(done)
        self.refresh()

    def _say_of_forget(self, said: str) -> None:
        """What a forget did (or why it did nothing), then :meth:`_still_in_box`: the forget's line takes the place of
        the last Submit's, and the student must not lose why the message still in the box was not stored."""
        self.diagnostic.value = said + self._still_in_box()

    def _still_in_box(self) -> str:
        """The last Submit's lines again, labelled :data:`STILL_IN_BOX`, while the message they are about is still in
        the Message box as it was (lesson 07's panel says them the same way); "" once the box holds anything else."""
        if self._last_submit is None:
            return ""
        text, report = self._last_submit
        if not text.strip() or self.message.value != text or not report:
            return ""
        return f'<br><span style="{NOTE_STYLE}">{_escape(STILL_IN_BOX)}</span><br>{report}'

    def refresh(self) -> None:
        """Show the store: the table, the ticket, the keys one can forget (none chosen until the student picks one)."""
        facts = self.memory.facts
        self.table.value = facts_html(facts)
        self.ticket.value = ticket_line(self.memory)
        keys = [f.key for f in facts]
        chosen = self.key.value if self.key.value in keys else NO_KEY
        self.key.options = [(KEY_PLACEHOLDER, NO_KEY), *((key, key) for key in keys)]
        self.key.value = chosen
        self.key.disabled = not facts
        self._enable_forget()

    def _enable_forget(self) -> None:
        """Forget all needs a fact; Forget key needs a chosen key: each greyed-out button says why, beside it."""
        facts = self.memory.facts
        self.forget_all_button.disabled = not facts
        self.forget_all_button.button_style = "warning" if facts else ""  # greyed like Forget key when off
        self.forget_all_button.tooltip = None if facts else FORGET_DISABLED_NOTE
        self.forget_key_button.disabled = not self.key.value
        reason = FORGET_KEY_NOTE if facts and not self.key.value else ("" if facts else FORGET_DISABLED_NOTE)
        self.forget_note.value = _greyed_out(self.forget_key_button, reason)


EMPTY_LINE_NOTE = "The box is empty: type a message, mem or forget, then press Enter."
"""What Enter on the desk panel's empty box says (it sends nothing): the note under the box is about this Enter."""

DESK_CHAT_CAPTION = _single_spaced("<b>The chat</b>: each line goes to the desk the router picks.")
DESK_MEMORY_CAPTION = _single_spaced("<b>The shared store</b>: one row per fact both desks see.")
"""What each side of the desk panel is for, one short line each: the lesson's text above the panel says what each box
takes. Both boxes go through the same console (``DeskPanel._submit_turn``); only the memory panel turns ``mem`` and
``forget`` away (:func:`command_guidance`), and its Submit note says it sends as Send does."""

CHAT_GROWTH = 2
"""Side by side, the chat takes twice the store's share of the room past both bases: a reply (``mem``'s block) is long
prose, while the store never gets less than its 460 px basis."""

TRANSCRIPT_FADE = "1.4em"
"""The height of the faded band at the top of the desk transcript: one line (``SINGLE_SPACED``'s 1.4)."""

TRANSCRIPT_TOP_FADE = (
    f"padding-top: {TRANSCRIPT_FADE}; "
    f"-webkit-mask-image: linear-gradient(to bottom, transparent, #000 {TRANSCRIPT_FADE}); "
    f"mask-image: linear-gradient(to bottom, transparent, #000 {TRANSCRIPT_FADE})"
)
"""A top edge that fades the line under it, so a line the scrolling box cuts in half reads as "more above".

The box opens at its newest line, so its top line is wherever the older text happens to end: often cut through
the middle. The fade covers one line at the box's top edge; the padding of the same height means that when the
transcript is short (or scrolled to its start) the faded band holds only empty space, never the first line."""

TRANSCRIPT_LINES = 21
"""The desk transcript's height in lines (about 420 px at the notebook's 14 px font)."""

TRANSCRIPT_STYLE = (
    f"max-height: calc({TRANSCRIPT_LINES} * {TRANSCRIPT_FADE}); overflow-y: auto; "
    "display: flex; flex-direction: column-reverse; "
    f"min-width: 0; max-width: 100%; {WRAPPING_TEXT}; {TRANSCRIPT_TOP_FADE}; {SINGLE_SPACED}; "
    f"line-height: {TRANSCRIPT_FADE}"  # single-spaced, as a length every line inherits whatever its font
)
"""The desk transcript's box: bounded, scrolling, laid out from its newest line (see ``DeskPanel._render``), never
wider than its column: a line with no space to break at (``you: module=xxxx… (400 characters)``) wraps anywhere
rather than running past the column's right edge.

Its height is a whole number of lines, its padding one line and the rule between turns one line
(:data:`TRANSCRIPT_RULE`): the box opens at its newest line, so its top edge then falls between two lines, never through
one (walk 24 saw the top line half cut)."""

TRANSCRIPT_RULE = (
    f'<hr style="box-sizing: border-box; height: {TRANSCRIPT_FADE}; margin: 0; border: 0; '
    f'background: linear-gradient(transparent 50%, #ccc 50%, #ccc calc(50% + 1px), transparent calc(50% + 1px))">'
)
"""The line between two turns of the desk transcript: a thin rule in the middle of one line's height."""


DESK_FORGET_NOTE = "The store is empty; Forget all still gives every desk a new, empty session."
"""Beside the desk panel's Forget buttons while the store is empty: Forget all is the console's ``forget``, which
still replaces the sessions (a desk's conversation may mention a value the store refused), so it stays on."""


class _DeskMemoryPanel(MemoryPanel):
    """The desk panel's store side: its Forget buttons are the chat's ``forget``, with one rule and the same words.

    Lesson 03's nineteenth walk: ``forget`` typed on an empty store said "0 removed" and replaced the sessions while
    Forget all was greyed out with "nothing to forget". Both now go through the console's ``forget`` and say what it
    said (:func:`~course_lib.providers.forget_said`); Forget all is on whenever the typed command would act, always.
    """

    def __init__(
        self,
        extraction: MemoryExtraction,
        *,
        forget_desks: Callable[[str | None], DeskEvent],
        submit: Callable[[str], Awaitable[ExtractionReport | None]],
        caption: str,
    ) -> None:
        self._forget_desks = forget_desks
        super().__init__(extraction, on_forget=forget_desks, submit=submit, caption=caption)

    def forget(self, key: str | None) -> None:
        """Forget through the console (store and sessions) and say what it did, in the chat's words."""
        if key is not None and key not in {f.key for f in self.memory.facts}:
            super().forget(key)  # refused there: a key the Key list does not offer
            return
        try:
            self._forget_desks(key)  # the desk panel says what it did here, as for a typed forget
        except EXPECTED_ERRORS as error:
            self._say_of_forget(_error_html(describe_error(error)))
            return
        self.refresh()

    def _enable_forget(self) -> None:
        """As the memory panel's, but Forget all is always on: the typed ``forget`` always acts, and so does it."""
        super()._enable_forget()
        self.forget_all_button.disabled = False
        self.forget_all_button.button_style = "warning"
        self.forget_all_button.tooltip = None
        if not self.memory.facts:
            self.forget_note.value = _greyed_out(self.forget_key_button, DESK_FORGET_NOTE)

    def say_forgot(self, said: str, *, changed: bool) -> None:
        """What a forget (a button's, or ``forget`` typed in the chat) said, under the memory panel's rule: one that
        changed the store does not say the last Submit's lines again (they answered the store before it), only, while
        that message is still in the box, that it was not stored (:data:`NOT_STORED_IN_BOX`); one that changed no
        fact says them again, as :meth:`MemoryPanel.forget` does."""
        if not changed:
            self._say_of_forget(_escape(said))
            return
        left = f"\n{NOT_STORED_IN_BOX}" if self._still_in_box() else ""
        self.diagnostic.value = _escape(said + left)


class DeskPanel(_Panel, widgets.HBox):
    """The two-desk conversation (provider path) with ``mem`` / ``forget``, and the memory panel beside it."""

    title = "Desk panel"

    def __init__(self, desks: ProviderDesks) -> None:
        self.desks = desks
        self._async = _Async(self._show_error)
        self.transcript: list[str] = []
        self.events: list[DeskEvent] = []
        self.chat = widgets.HTML()
        self.chat.add_class("desk-panel-transcript")
        self.chat.layout = widgets.Layout(min_width="0", max_width="100%")  # as wide as its column, never wider
        self.error = widgets.HTML()
        self.line = widgets.Text(placeholder="e.g. Where can I find logs?", description="You")
        self.send_button = widgets.Button(description="Send", button_style="primary", disabled=True)
        self.send_note = SingleSpacedHTML()  # why Send is greyed out, when it is (a note of two lines in a narrow cell)
        self._sending = False  # a line is on its way: Send (and Enter) wait until it is answered
        _on_enabled_click(self.send_button, self._send_clicked)
        self.line.on_msg(self._on_line_message)
        self.line.observe(lambda _: self._line_edited(), names="value")
        self.memory_panel = _DeskMemoryPanel(
            desks.extraction, forget_desks=self._forget, submit=self._submit_turn, caption=DESK_MEMORY_CAPTION
        )
        self.memory_panel._async.clicks = self._async.clicks  # one click order for the chat and the memory panel
        self.memory_panel.verdict_label = VERDICT_LABEL  # two boxes send messages: say which one it answers
        self.memory_panel.submit_disabled_note = DESK_SUBMIT_DISABLED_NOTE  # a desk answers what Submit sends
        self.memory_panel._enable_submit()
        # side by side when the cell is wide (Voila, a full-width notebook), one above the other when it is not
        # (JupyterLab with its file browser open): the store's table needs its own width to stay whole
        self.memory_panel.layout = widgets.Layout(flex="1 1 460px", min_width="0")
        _fit_to_width(self.line)
        chat_column = widgets.VBox(
            [
                widgets.HTML(DESK_CHAT_CAPTION),
                self.chat,
                _wrapping_row(self.line, self.send_button, self.send_note),
                self.error,
            ],
            layout=widgets.Layout(flex=f"{CHAT_GROWTH} 1 320px", min_width="0"),
        )
        super().__init__([chat_column, self.memory_panel], layout=widgets.Layout(width="100%", flex_flow="row wrap"))
        self._render()
        self._enable_send()

    async def idle(self) -> None:
        await self._async.idle()
        await self.memory_panel.idle()

    def _on_line_message(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        if content.get("event") != "submit":
            return
        if self._sending:  # a second Enter while the line is on its way: the line is sent once
            return
        if not self.line.value.strip():  # Enter in an empty box (or a queued second Enter): the last result stays
            # in the chat and the store's verdict; the status under the box now says what this Enter did, alone (walk
            # 19: a refusal of the line deleted before it read as a refusal of the empty Enter)
            self.error.value = ""
            self.send_note.value = _greyed_out(self.send_button, EMPTY_LINE_NOTE)
            return
        self._send_clicked()  # Enter in the line

    def _send_clicked(self) -> None:
        """Send (or Enter): the box's line, sent once; Send goes off at once, so a double click sends it once."""
        self._sending = True
        self._enable_send()
        self._async.schedule(self.send(self.line.value))

    def _line_edited(self) -> None:
        """The box changed: Send follows it, and a box the student emptied takes away the refusal of the line it held
        (the chat keeps why), as the memory panel's emptied Message box takes away its result."""
        self._enable_send()
        if not self.line.value.strip() and not self._sending:
            self.error.value = ""

    def _enable_send(self) -> None:
        """Send is on when the box holds a line and none is on its way; when empty, the note beside it says why."""
        empty = not self.line.value.strip()
        self.send_button.disabled = empty or self._sending
        self.send_note.value = _greyed_out(self.send_button, SEND_DISABLED_NOTE if empty else "")

    def _show_error(self, text: str) -> None:
        self.error.value = _single_spaced(_error_html(text))

    async def _submit_turn(self, text: str) -> ExtractionReport | None:
        """The Message box's turn, through the chat; a turn the console took empties the box, as Send does."""
        report = (await self._handle(text)).report
        self.memory_panel.message.value = ""
        return report

    def _clear_status(self) -> None:
        """Each action starts with no status shown: what the panel says is about the latest action only."""
        self.error.value = self.memory_panel.diagnostic.value = ""

    def _forget(self, key: str | None) -> DeskEvent:
        """A Forget button's click: the console's ``forget``, shown in the chat as the typed command is."""
        self._clear_status()
        before = self.desks.extraction.memory.facts
        event = self.desks.forget(key)
        self._record(event, before)
        return event

    async def send(self, line: str | None = None) -> None:
        """Send ``line`` (by default the box) to the console; on an error the line stays in the box."""
        line = self.line.value if line is None else line
        if not line.strip():  # nothing to send: the last result stays
            return
        before = self.desks.extraction.memory.facts
        self._sending = True
        self._enable_send()
        try:
            event = await self._handle(line)
        finally:
            self._sending = False
            self._enable_send()
        if event.kind == "turn":
            self.memory_panel.show_report(event.report, as_pasted(line), before)
        self.line.value = ""

    async def _handle(self, line: str) -> DeskEvent:
        """One console line; a line the console refused is shown as an error and kept in the chat with its reason."""
        self._clear_status()
        before = self.desks.extraction.memory.facts
        event = await self.desks.handle(line)
        if event.kind == "refused":
            self._record_refusal(event)
            raise ConsoleRefusal(REFUSAL_IN_CHAT)
        self._record(event, before)
        return event

    def _record_refusal(self, event: DeskEvent) -> None:
        """A refused line in the chat, with the rule it broke: the red status under the box is gone after the next
        line, and a student scrolling back should still see why ``forget color`` did nothing. The rule is said here
        only: under the box, :data:`REFUSAL_IN_CHAT` points to it (the same six lines twice read as two errors).

        It is no event of the desks (``events`` keeps what the console did). It is labelled ``[refused]`` as the
        store's verdict is ``[memory]``, unless the rule's own text opens by saying what refused it.
        """
        typed, why = you_line(event.line), describe_error(ConsoleRefusal(event.output or ""))
        label = "" if _SAYS_WHAT_REFUSED.match(why) else "[refused] "
        self.transcript.append(
            f'<b>you:</b> {_escape(typed)}<br><span style="color:crimson">{label}{_code_spans(_escape(why))}</span>'
        )
        self._render()

    def _record(self, event: DeskEvent, before: tuple[Fact, ...]) -> None:
        """One event in the chat; a forget's words on the store's side too, where ``before`` (the facts held before
        it) tells whether it changed the store (:meth:`_DeskMemoryPanel.say_forgot`)."""
        self.events.append(event)
        who = f"[{event.desk}] " if event.desk else ""
        answer = event.reply if event.kind == "turn" else event.output
        # what the student typed is shortened where long, in the "you:" line and wherever the reply repeats it; the
        # course's own words (mem's block of at most five facts, a desk's list of the allowed keys) are shown whole
        typed, answer = you_line(event.line), shown_reply(answer or "", event.line)
        said = f"<b>you:</b> {_escape(typed)}<br><b>{_escape(who)}</b>{chat_times_whole(_escape(answer))}"
        if event.kind == "turn":  # the store's verdict under the reply: a desk may say "Noted" for a refused batch
            line = memory_line(event.report, event.line)
            # why a line that looked like facts stored none; a reason the [memory] line says already is not repeated
            notes = [n for n in why_notes(event.report, as_pasted(event.line)) if f"({n.rstrip('.')})" not in line]
            lost = whole_message_notes(event.report, event.sent or event.line) if event.report else []
            kept = [shorten_long_input(n) for n in stored_as_notes(event.report)] if event.report else []
            verdict = [
                line,
                *kept,  # the value as stored, when it runs past one word (priority=P0 please)
                *lost,
                *(f"{WHY_LABEL} {note}" for note in notes),
                *self._not_held(event),
            ]
            said += "".join(f'<br><span style="color:dimgray">{_escape(part)}</span>' for part in verdict)
        self.transcript.append(said)
        self._render()
        self.memory_panel.refresh()
        if event.kind == "forget":  # typed or clicked, the store's side says what the forget did, in the same words
            changed = before != self.desks.extraction.memory.facts
            self.memory_panel.say_forgot(event.output or "", changed=changed)

    def _not_held(self, event: DeskEvent) -> list[str]:
        """A note naming the values the desk's reply repeats from earlier lines that the store does not hold.

        The line just sent is left out: the store's verdict above the note already says what became of it.
        """
        history = stored_messages(self.desks.sessions[event.desk or ""])
        users = [i for i, message in enumerate(history) if message.role == "user"]
        earlier = history[: users[-1]] if users else []
        repeated = [
            shorten_long_input(pair) for pair in repeated_not_held(event.reply or "", earlier, self.desks.memory.facts)
        ]
        if not repeated:
            return []
        them = "them" if len(repeated) > 1 else "it"
        return [
            f"Not in the store: the desk repeated {and_listed(repeated)} from your earlier lines in its "
            f"conversation; the store does not hold {them} (mem shows what the store holds)."
        ]

    def _render(self) -> None:
        """The transcript, scrolled to its newest line.

        The scrolling box lays its content out from the bottom (``column-reverse``): a browser then opens it,
        and keeps it, at its end, so the reply to the latest line is always in view and older lines scroll up.
        Each render replaces the box, so no script has to remember to scroll it.
        """
        body = TRANSCRIPT_RULE.join(self.transcript) or (
            "<i>Type a message and press Enter, or <code>mem</code>, <code>forget KEY</code>, <code>forget</code>.</i>"
        )
        self.chat.value = (
            f'<div class="desk-transcript" style="{TRANSCRIPT_STYLE}">'
            f'<div style="{TRANSCRIPT_LINES_STYLE}">{body}</div></div>'
        )


TRANSCRIPT_LINES_STYLE = f"min-width: 0; max-width: 100%; {WRAPPING_TEXT}"
"""The transcript's lines inside its box: they wrap, at a space or anywhere in a long run, within the column."""

_CHAT_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[+-]\d{2}:\d{2}|Z)?")


def chat_times_whole(shown: str) -> str:
    """``shown`` (HTML) with each time it holds (``2026-12-04T19:35:52+00:00``) kept on one line in the chat.

    The transcript wraps anywhere in a long run, so a fact's recorded time after ``mem`` broke across two lines (walk
    24); a time is short enough to move to the next line whole.
    """
    return _CHAT_TIME.sub(lambda m: f'<span style="white-space: nowrap">{m.group(0)}</span>', shown)


VERDICT_LABEL = "Last verdict (chat or Message box):"
"""Over the store's verdict on the desk panel: a line sent from the chat is answered there too, under the Message box,
where the verdict read as a reply to that box."""

ECHOED_CHARS = 200
"""How much of a long line the desk chat repeats after "you:": enough to recognise it, never a screenful."""


def echoed_line(line: str, keep: int = ECHOED_CHARS) -> str:
    """``line`` as the chat repeats it: long runs and values shortened (:func:`shorten_long_input`), and a line still
    longer than ``keep`` characters cut there with its length (``module=XXXX… (5021 characters)``), as a long value is.

    A 5,021-character line echoed whole filled twenty lines of the chat and pushed the earlier replies out of view.
    """
    shown = shorten_long_input(line)
    if len(shown) <= keep:
        return shown
    return f"{shown[:keep].rstrip()}\u2026 ({len(line)} characters)"


def you_line(line: str) -> str:
    """``line`` as the chat repeats it after "you:": shortened as :func:`echoed_line` shortens it, with one length,
    the whole line's, the one a refusal names ("it has 5007 characters").

    Walk 9: ``module=`` and 5000 x's was echoed "(5000 characters)", the value's length, above "Message refused: it
    has 5007 characters": two lengths for one line. A line with a long run is cut just after the run's start.
    """
    echoed = echoed_line(line)
    if echoed == line:
        return line
    run = _LONG_RUN.search(line)
    quote = 1 if run and line[run.start()] in "'\"" else 0  # a quotation keeps its opening quote
    keep = min(ECHOED_CHARS, run.start() + quote + SHOWN_INPUT_CHARS) if run else ECHOED_CHARS
    return f"{line[:keep].rstrip()}\u2026 ({len(line)} characters)"


def shown_reply(reply: str, line: str) -> str:
    """``reply`` as the desk chat shows it: whole, but for what the student typed (``line``), shortened wherever the
    reply repeats it as the "you:" line is (:func:`echoed_line`).

    The course's own replies are bounded (``mem`` lists at most five facts, a refusal names the ten allowed keys): cut
    at :data:`ECHOED_CHARS`, ``mem`` lost its second fact and a refusal its list of keys. A desk that quotes a long
    line back ("You asked: '…'", "Noted what you declared: symptom=…") repeats the student's words, and those are
    what is cut: the whole line and each of its parts (a declaration ends at ';' or the end of its line).
    """
    shown = shorten_long_input(reply)  # long quotations and unbroken runs, as every panel message has them
    pieces = [line, *re.split(r"[;\n]", line)]
    for part in sorted({p.strip() for p in pieces}, key=len, reverse=True):
        echoed = echoed_line(part)
        if echoed == shorten_long_input(part):
            continue  # short enough to repeat whole
        for form in dict.fromkeys((part, shorten_long_input(part))):
            shown = shown.replace(form, echoed)
    return shown


REFUSAL_IN_CHAT = "the chat shows why, under your line."
"""What the desk panel says under a box whose line the console refused, after "Refused:": the rule is in the chat."""


PICK_SEVERAL_HINT = "Ctrl-click (Cmd-click on a Mac) to pick several policies, or to leave one out."
"""Under the explorer's list of policies: a plain click there picks one name and drops the others."""


def slider_reads(typed: str) -> int | None:
    """The whole number the explorer's box beside a slider reads from ``typed``, in the kernel: the leading run of
    ASCII digits 0-9 (:data:`LEADING_DIGITS`), blanks before it skipped, up to the first other character.

    "1e3" reads as 1 (not 1000), "2.5" as 2, "7 turns" as 7, and "0x5", "0xA", "0b1" and "0o7" as 0, "1_000" as 1;
    text that starts with no digit ("-5", "+3", ".5", "abc", a fullwidth 3) reads as nothing (``None``) and the slider
    keeps its value. The slider's own box read in the browser with JavaScript's ``parseInt``, which took "0x5" as 5 and
    "0xA" as 10 against the rule its note states (lesson 04's walk 24): it is hidden (``readout=False``). The panel's
    hint is written from this function, so what it says is the rule.
    """
    match = LEADING_DIGITS.match(typed)
    return int(match.group(1)) if match else None


LEADING_DIGITS = re.compile(r"\s*([0-9]+)")
"""What the explorer's number box reads: ASCII digits only (never a sign, a "0x" prefix, an underscore or another
script's digits, which Python's ``int`` would take), after any blanks, up to the first other character."""


def slider_takes(slider: widgets.IntSlider, typed: str) -> int:
    """The value ``slider`` holds once ``typed`` is entered in its box, as the explorer sets it: the number
    :func:`slider_reads` finds, moved inside the slider's limits ("0" and "0x5" give its lowest value, "999" its
    highest), or the slider's own value when the text reads as nothing ("-5", "abc").
    """
    read = slider_reads(typed)
    low, high, value = int(slider.min), int(slider.max), int(slider.value)
    return value if read is None else max(low, min(read, high))


def slider_typing_hint(sliders: Sequence[widgets.IntSlider]) -> str:
    """One line under the explorer's sliders: what a slider's number box does with what is typed in it, its ends
    and example read from the sliders (never a value one of them cannot take), the same whatever their values.

    The box beside each slider is read in the kernel (:func:`slider_reads`, then the slider's limits:
    :func:`slider_takes`) and then shows the value taken; the line under Run names only the value (and an end,
    :func:`slider_at_limit`). So this line says, before one types, what happens to every kind of input: the rule
    first (a whole number in digits, read up to the first other character: a decimal is cut, not rounded, and "1e3"
    is read as 1), a number past an end goes to that end,
    and text that starts with no whole number in digits ("-5", ".5", "abc") changes nothing: the box reads no sign.
    """
    lows = {int(slider.min) for slider in sliders}
    highs = {int(slider.max) for slider in sliders}
    # the lowest value every slider can take. 1e3 (1000 to anyone) read as 1 looked like a mistake when said alone
    # (lesson 04's walk 24): the rule comes first, in words, and 1.7 and 1e3 are what it reads
    example = max(lows) if max(lows) <= min(highs) else int(sliders[0].min)
    return (
        "A slider's number box reads a whole number in digits, up to the first other character (so "
        f"{example}.7 and {example}e3 are read as {example}); {_past_end(sliders, 'below', lows)}, "
        f"{_past_end(sliders, 'above', highs)}; text with no whole number first (-5, .5, abc) changes nothing."
    )


def _past_end(sliders: Sequence[widgets.IntSlider], side: str, ends: set[int]) -> str:
    """What :func:`slider_typing_hint` says of a number past the sliders' lowest (``side`` "below") or highest end."""
    if len(ends) == 1:
        end = next(iter(ends))
        return f"{side} {end} becomes {end}"
    which = "lowest" if side == "below" else "highest"
    each = ", ".join(f"{s.description} {int(s.min if side == 'below' else s.max)}" for s in sliders)
    return f"{side} a slider's {which} ({each}) becomes that {which}"


def slider_at_limit(slider: widgets.IntSlider) -> str:
    """What the status line adds after a slider's value when it sits at one of its limits, else nothing.

    A number typed out of range reaches the kernel already moved inside the limits (:func:`slider_takes`): the panel
    never sees what was typed, so it cannot say "99 was changed to 10". What it can say, and what is true whatever
    was typed, dragged or set in code, is that the value is the largest (or smallest) the slider allows.
    """
    low, high, value = int(slider.min), int(slider.max), int(slider.value)
    if low == high:
        return " (the only value it can be)"
    if value == high:
        return " (the largest it can be)"
    if value == low:
        return " (the smallest it can be)"
    return ""


def slider_limits(slider: widgets.IntSlider, unit: str) -> str:
    """The values ``slider`` accepts, read from its own min and max: "1 to 10 turns", or "3 facts only"."""
    low, high = slider.min, slider.max
    if low == high:
        return f"{low} {unit if low == 1 else unit + 's'} only"
    return f"{low} to {high} {unit}s"


def _show_limits(slider: widgets.IntSlider, limits: widgets.HTML, unit: str, _change: object = None) -> None:
    """``limits`` says the values ``slider`` accepts; ``_change`` is the traitlets change when its min or max moved."""
    limits.value = f"<i>{slider_limits(slider, unit)}</i>"


def number_box_note(slider: widgets.IntSlider, typed: str) -> str:
    """One line on what ``slider``'s number box did with ``typed`` when it read no number (:func:`slider_reads`), so
    the slider kept its value: ``'nine' is not a whole number: window kept at 3.``; "" when a number was read.

    Lesson 04's walk 25: an empty box, blanks or "nine" put the old value back without a word, and a student could
    not tell a refusal from a lost keystroke. A sign is named as such ("-5" is a whole number, but the box reads none).
    """
    if slider_reads(typed) is not None:
        return ""
    kept = f"{slider.description.lower()} kept at {int(slider.value)}."
    text = typed.strip()
    if not text:
        return f"Nothing typed: {kept}"
    if text[0] in "+-":
        return f"'{text}' has a sign, and the box reads none: {kept}"
    return f"'{text}' is not a whole number: {kept}"


def _number_box(slider: widgets.IntSlider, note: widgets.HTML) -> widgets.Text:
    """The box beside ``slider``, read in the kernel once Enter is pressed (or the box is left): what it reads
    (:func:`slider_takes`) moves the slider, and the box then shows the slider's value, so "0x5" reads as 0 and shows
    1 (the lowest), and text with no digit first shows the unchanged value again, ``note`` saying why in one line
    (:func:`number_box_note`); a number read, or a dragged slider, clears it. A dragged slider shows its value.
    """
    box = widgets.Text(
        value=str(slider.value),
        continuous_update=False,
        layout=widgets.Layout(width="5em", min_width="5em"),
    )

    def typed(change: Mapping[str, object]) -> None:
        text = str(change["new"])
        said = number_box_note(slider, text)
        slider.value = slider_takes(slider, text)
        box.value = str(slider.value)  # when it changes, this runs again on the digits and clears the note first
        note.value = f"<i>{_escape(said)}</i>" if said else ""

    def moved(change: Mapping[str, object]) -> None:
        box.value = str(change["new"])

    box.observe(typed, names="value")
    slider.observe(moved, names="value")
    return box


CHOSEN_STYLE = (
    "<style>.course-policy-list select option:checked "
    "{ background: #1976d2 linear-gradient(0deg, #1976d2 0%, #1976d2 100%); color: #fff; }</style>"
)
"""The explorer's chosen policies in white on blue, whether the list has the focus or not: a browser greys the chosen
names of a list that has lost it (and of a saved panel before Run All), and a student read grey as "disabled". The
gradient is what Chromium paints over its own grey; the class keeps the rule to the explorer's list."""


class PolicyExplorer(_Panel, widgets.VBox):
    """Choose policies, rule, window and fact bound, then Run: the correctness table and the prompt-size plot.

    What is on screen always belongs together: the policy labels follow the sliders ("last 6 turns" with
    Window at 6), a control that changes nothing for the chosen policies says so, and any change of a
    control takes the previous result off the screen (it answered other settings), so a table is only ever
    shown under its "Computed with..." caption. A new panel starts with no result.
    """

    title = "Policy explorer"

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self._async = _Async(lambda text: setattr(self.message, "value", _error_html(text)))
        defaults = self._factories()
        self._kinds = {label: factory.kind for label, factory in defaults.items()}  # labels shown -> identities
        self._sized_by = {"window": _kinds_changed_by(window=2), "max_facts": _kinds_changed_by(max_facts=2)}
        self._relabelling = False
        self._generation = 0  # counts changes of the controls: a run started before one is not shown
        names = list(defaults)
        self.policies = widgets.SelectMultiple(
            options=names,
            value=tuple(names),
            description="Policies",
            rows=6,
            layout=widgets.Layout(width="max-content", min_width="22em"),  # whole names, never cut
        )
        self.policies.add_class("course-policy-list")
        self.chosen_style = widgets.HTML(CHOSEN_STYLE, layout=widgets.Layout(display="none"))  # applies, takes no room
        # a list box picks one name per click unless a key is held: a newcomer would never find out which
        self.pick_hint = widgets.HTML(f"<i>{PICK_SEVERAL_HINT}</i>")
        self.rule = widgets.Dropdown(options=[(rule_label(r), r) for r in RULES], value="latest", description="Rule")
        # no box of the slider's own: it read typed text with JavaScript's parseInt ("0x5" as 5); each slider has a
        # box beside it read in the kernel, by the rule the typing hint states (slider_reads)
        self.window = widgets.IntSlider(value=3, min=1, max=len(timeline.turns), description="Window", readout=False)
        self.max_facts = widgets.IntSlider(value=5, min=1, max=10, description="Fact bound", readout=False)
        # one line under the boxes when typed text read as no number (the box then shows the kept value)
        self.number_note = widgets.HTML()
        self.window_box = _number_box(self.window, self.number_note)
        self.max_facts_box = _number_box(self.max_facts, self.number_note)
        # a slider changes a typed number without a word: its limits stand beside it, read from the slider
        self.window_limits, self.max_facts_limits = widgets.HTML(), widgets.HTML()
        for slider, limits, unit in (
            (self.window, self.window_limits, "turn"),
            (self.max_facts, self.max_facts_limits, "fact"),
        ):
            _show_limits(slider, limits, unit)
            slider.observe(functools.partial(_show_limits, slider, limits, unit), names=["min", "max"])
        # the box sends the kernel a changed value, never the text typed: one line true of every input
        self.typing_hint = widgets.HTML()
        self._show_typing_hint()
        for slider in (self.window, self.max_facts):
            slider.observe(self._show_typing_hint, names=["min", "max"])
        self.run_button = widgets.Button(description="Run", button_style="primary")
        self.notes = widgets.HTML()
        self.message = widgets.HTML()
        self.table = widgets.HTML()
        # the plot at its own size: stretched to the panel's width, its text would be half as large again
        self.plot = widgets.Image(format="png", layout=widgets.Layout(align_self="flex-start", max_width="100%"))
        # the plot's note (lines that meet) in the panel's own text size: drawn in the figure it was tiny
        self.plot_note = widgets.HTML()
        self.comparison: Comparison | None = None
        on_click_once(self.run_button, lambda: self._async.schedule(self.run()))  # a double click runs once
        for control in (self.policies, self.rule, self.window, self.max_facts):
            control.observe(lambda _: self._settings_changed(), names="value")
        controls = widgets.VBox(
            [
                self.policies,
                self.pick_hint,
                self.rule,
                widgets.HBox([self.window, self.window_box, self.window_limits]),
                widgets.HBox([self.max_facts, self.max_facts_box, self.max_facts_limits]),
                self.number_note,
                self.typing_hint,
                self.notes,
                self.run_button,
            ]
        )
        # the plot first: the table lists every graded answer and would push the picture out of sight
        super().__init__([controls, self.message, self.plot, self.plot_note, self.table, self.chosen_style])
        self._settings_changed()

    async def idle(self) -> None:
        await self._async.idle()

    def _show_typing_hint(self, _change: object = None) -> None:
        """The typing line, its range read from the sliders; ``_change`` is the traitlets change of a min or max."""
        self.typing_hint.value = f"<i>{_escape(slider_typing_hint([self.window, self.max_facts]))}</i>"

    def settings(self) -> str:
        """The settings a run would use, in the words of the caption; a slider at one of its limits says so."""
        window = f"window {self.window.value}{slider_at_limit(self.window)}"
        bound = f"fact bound {self.max_facts.value}{slider_at_limit(self.max_facts)}"
        return f"rule {rule_label(self.rule.value)}, {window}, {bound}"

    def _settings_changed(self) -> None:
        """Labels follow the sliders, idle controls say so, and the previous result leaves the screen."""
        if self._relabelling:
            return
        self._generation += 1
        self._relabel()
        self.notes.value = "<br>".join(f"<i>{_escape(note)}</i>" for note in self.idle_controls())
        self._clear_result()
        self._enable_run()
        self.message.value = (
            f"<i>Press Run to compute with {self.settings()}.</i>"
            if self.policies.value
            else "Choose at least one policy to run."
        )

    def _factories(self, window: int = 3, max_facts: int = MAX_FACTS) -> dict[str, PolicyFactory]:
        """The policies the panel lists and runs, each labelled with its size from the start: ``facts (5)`` as well as
        ``last 3 turns`` (lesson 04's seventh walk: the fact bound's number appeared only once its slider moved)."""
        return course_policies(window=window, max_facts=max_facts, name_the_bound=True)

    def _relabel(self) -> None:
        """The policies listed under the labels of the current window and bound; the same policies stay chosen."""
        factories = self._factories(self.window.value, self.max_facts.value)
        chosen = {self._kinds[label] for label in self.policies.value}
        labels = list(factories)
        if labels == list(self.policies.options):
            return
        self._kinds = {label: factory.kind for label, factory in factories.items()}
        self._relabelling = True  # the two assignments below are one change, not two
        try:
            self.policies.options = labels
            self.policies.value = tuple(label for label in labels if self._kinds[label] in chosen)
        finally:
            self._relabelling = False

    def idle_controls(self) -> list[str]:
        """One line per slider that changes nothing for the chosen policies, naming the policies it does size."""
        chosen = {self._kinds[label] for label in self.policies.value}
        notes = []
        for name, slider in (("window", self.window), ("max_facts", self.max_facts)):
            sized = self._sized_by[name]
            if chosen and not chosen & sized:
                which = ", ".join(label for label, kind in self._kinds.items() if kind in sized)
                notes.append(f"{slider.description} changes nothing for the chosen policies: it sizes {which}.")
        return notes

    def _enable_run(self) -> None:
        self.run_button.disabled = not self.policies.value

    async def run(self) -> None:
        """Run the chosen policies with the sliders' settings; the new table and plot replace the old ones."""
        if not self.policies.value:
            self.message.value = _error_html("Choose at least one policy to run: nothing was run.")
            return
        factories = self._factories(self.window.value, self.max_facts.value)
        kinds = {self._kinds[label] for label in self.policies.value}
        chosen = {label: factory for label, factory in factories.items() if factory.kind in kinds}
        settings, generation = self.settings(), self._generation
        self.run_button.disabled = True
        self.message.value = f"<i>Running with {settings}…</i>"
        # the previous result goes first: under a refusal it would read as the answer to the new settings
        self._clear_result()
        try:
            comparison = await compare_policies(self.timeline, chosen, rules=[self.rule.value])
        finally:
            self._enable_run()
        if generation != self._generation:  # a control moved while it ran: this result answers old settings
            return
        self.comparison = comparison
        stops = "".join(f"<br>{_escape(stop.in_words())}" for stop in comparison.stopped)  # why a "no" is a stop
        alone_notes = question_alone_notes(comparison, self._kinds, self.window.value)  # window 1: the question only
        alone = "".join(f"<br>{_escape(note)}" for note in alone_notes)
        computed = f"<i>Computed with {settings}.</i>{stops}{alone}"
        self.message.value = f"{computed}<br>{expectations_html(self.timeline)}"
        self.table.value = panel_table_html(
            graded_view_frame(comparison.answers, comparison.calls), "policy-correctness"
        )
        self.plot.value = figure_png(plot_prompt_sizes(comparison.calls, rule=self.rule.value))
        self.plot.layout.display = None
        self.plot_note.value = _escape(prompt_sizes_note(comparison.calls, rule=self.rule.value))

    def _clear_result(self) -> None:
        """No comparison, table or plot on screen; the empty picture is hidden (a browser draws it as a broken icon)."""
        self.comparison, self.table.value, self.plot.value, self.plot_note.value = None, "", b"", ""
        self.plot.layout.display = "none"


def question_alone_notes(comparison: Comparison, kinds: Mapping[str, str], window: int) -> list[str]:
    """One line per compaction policy (``kinds`` maps each label to its policy kind) whose reader could see no value
    at any graded turn, saying why.

    Compaction counts the question as one of its ``window`` turns (the seed's ``TurnsExceed`` over the whole
    request): with a window of 1 it sends the question alone, and the explorer's table shows "(nothing)" under the
    values the reader could see. Correct, but a student at Window 1 read it as a fault (lesson 04's walk 22). Read
    from the run's own calls, so the line appears only when the table shows that.
    """
    calls = comparison.calls
    if calls.empty:
        return []
    graded = calls[(calls["call"] == "reader") & (calls["visible"] != "")]
    notes = []
    for policy, rows in graded.groupby("policy", sort=False):
        if kinds.get(str(policy)) != "compaction" or set(rows["visible"]) != {"(nothing)"}:
            continue
        notes.append(
            f"{policy} counts the question as one of its turns: with a window of {window} it sends the question "
            "alone, so its reader could see no earlier value (“(nothing)” in the table)."
        )
    return notes


def _kinds_changed_by(*, window: int = 3, max_facts: int = 5) -> set[str]:
    """The policies a setting sizes: those whose label (built from their parameters) changes with it."""
    default = course_policies()
    changed = course_policies(window=window, max_facts=max_facts)
    return {factory.kind for label, factory in changed.items() if label not in default}


_EXPECTATION_COLUMNS = ["graded turn", "must contain", "must not contain"]


def expectations_html(timeline: Timeline) -> str:
    """What "yes" means in the correctness table: what a correct answer at each graded turn must name, and must not.

    These are the timeline's requirements, set before any policy runs, never results: the heading says so. They are
    a small table, one required text per line, so no phrase ("never restart ... during business hours") is broken
    across the end of a line of running text.
    """
    rows = [
        {
            "graded turn": number,
            "must contain": _one_per_line(turn.expect.must_contain),
            "must not contain": _one_per_line(turn.expect.must_not_contain) or "nothing",
        }
        for number, turn in enumerate(timeline.turns, start=1)
        if turn.expect is not None
    ]
    if not rows:
        return ""
    table = panel_table_html(rows_frame(rows, _EXPECTATION_COLUMNS), "policy-expectations", escape=False)
    heading = (
        "What a correct answer must contain, fixed by the timeline and the same for every run (the results table "
        "under it says <b>yes</b> where an answer does):"
    )
    return f"{heading}<br>{table}"


def _one_per_line(texts: Sequence[str]) -> str:
    """Texts escaped for HTML, one per line (a ``<br>`` between them)."""
    return "<br>".join(_escape(text) for text in texts)


class ProgressBar(widgets.HBox):
    """A bar for a long run: pass ``step`` as the run's ``progress`` callback; each call advances one step.

    ``compare_policies`` and ``measure_scaling`` call their ``progress`` once per policy run with a line
    saying what finished; the bar counts the calls and shows the latest line beside it.
    """

    def __init__(self, total: int, description: str = "Running") -> None:
        if total < 1:
            raise ValueError(f"A progress bar needs at least 1 step; got {total}.")
        self.bar = widgets.IntProgress(value=0, min=0, max=total, description=description)
        self.label = widgets.Label(value=f"0/{total}")
        super().__init__([self.bar, self.label])

    def __repr__(self) -> str:  # the saved output, taken before the run: what the bar is, not "0 done"
        return f"[{self.bar.description}: a progress bar of {self.bar.max} steps, moving while this cell runs]"

    def step(self, message: str = "") -> None:
        """One step done; ``message`` says which (a leading ``[3/18]`` is dropped: the bar counts already)."""
        self.bar.value = min(self.bar.value + 1, self.bar.max)
        message = re.sub(r"^\[\d+/\d+\]\s*", "", message)
        self.label.value = f"{self.bar.value}/{self.bar.max} {message}".rstrip()
