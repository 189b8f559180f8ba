"""Lesson 07's panel: type an answer, and see what the facts check and the loop make of it.

The panel joins the two halves as the capstone does. Its top half is lesson 02's memory panel, reused as it is: the
store the evaluator holds answers to, corrected by a message through the writer and the host check, or forgotten
key by key. Its bottom half takes an answer (typed, or picked from a few examples) and runs it through the real
thing: a :class:`~course_lib.loop.LoopAgent` whose inner agent gives that answer, held by the capstone's
:class:`~course_lib.capstone.FactsConsistencyEvaluator`. The panel shows each violation the evaluator found (the
key, what the answer said, what the store holds and why) or that there was none, and the message the loop added for
the next iteration: the feedback, as the model would receive it. Nothing here reads an answer itself, so a better
answer check in the evaluator is what the panel shows as soon as it exists.

Output is written as HTML values, every piece of the student's text escaped (Markdown and tables show as typed), a
long stretch shortened (:func:`~course_lib.widgets.shorten_long_input`). A refusal says in words which rule it
follows and changes nothing.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
from agent_framework import Agent, Message

from .answer_reader import (
    CUT_MARK,
    action_planned,
    carries_constraint,
    mentions,
    named_keys,
    plain_text,
    planner,
    plans_action,
    shown_value,
    values_match,
    without_html_tags,
)
from .assertions import value_core
from .capstone import FEEDBACK_HEADER, FactCheck, FactsConsistencyEvaluator, Violation, record_superseded
from .conventions import attribution_source
from .extraction import ExtractionReport, MemoryExtraction, and_listed, make_extraction
from .frames import count_noun, rows_frame
from .loop import LoopAgent, LoopAgentOptions
from .memory import PROMPT_BLOCK_FOOTER, PROMPT_BLOCK_HEADER, Fact, WorkingMemory
from .offline import OfflineChatClient
from .policies import Timeline
from .presentation import html_lines, recorded_time
from .widgets import (
    EXPECTED_ERRORS,
    NOT_READ_LABEL,
    NOT_STORED_IN_BOX,
    NOTE_STYLE,
    REFUSED_LABEL,
    STILL_IN_BOX,
    MemoryPanel,
    SingleSpacedHTML,
    box_note,
    correction_notes,
    describe_error,
    kept_punctuation,
    on_click_once,
    panel_table_html,
    refused_lines,
    refused_parts,
    shorten_long_input,
)

__all__ = [
    "ALL_FORGOTTEN",
    "ANSWER_BOX_WIDTH",
    "ASK_TASK",
    "CORRECTION_EXAMPLE",
    "MAX_ANSWER_CHARS",
    "NEVER_HELD_DATABASES",
    "NOT_READ_LABEL",
    "NOT_STORED_IN_BOX",
    "PLAN_TASK",
    "REFUSED_LABEL",
    "STILL_IN_BOX",
    "TURN_COUNTED",
    "AnswerCheck",
    "CapstonePanel",
    "GivenAnswerClient",
    "box_note",
    "check_in_loop",
    "example_answers",
    "feedback_html",
    "forget_note",
    "frame_notes",
    "how_it_differs",
    "refused_lines",
    "refused_parts",
    "said_in_answer",
    "said_runs",
    "shared_second_note",
    "start_over_note",
    "verdict_html",
    "violation_rows",
]

_PICK = "(pick an answer to fill the box)"
"""The Try menu's prompt: shown whenever the box holds no example unchanged."""
_NOTHING_TO_TRY = "(nothing to try: the store is empty)"
"""The Try menu's only entry on an empty store: every answer passes, so no example would show anything."""
_EMPTY = (
    "<i>Check answer is off while the Answer box is empty or only spaces: type an answer, or pick one under Try.</i>"
)

ANSWER_BOX_WIDTH = "95%"
"""The width of the Answer box, and of the Message box above it (one width for both boxes a student types in)."""

TURN_COUNTED = "(a message that stores nothing still counts as a turn: this one was turn {turn})"
"""Said on the line of a message that stored nothing, when the store counted it: a later "only its turn moved (from
turn 10 to turn 16)" would otherwise count turns the student never saw stored (lesson 07's walk 21)."""

MAX_ANSWER_CHARS = 20_000
"""The longest answer the panel checks. A model's answer is a few hundred characters; the check is linear in the
length, and past this the page would wait on a paste rather than on an answer."""

PLAN_TASK = "Plan the fix: which module and database, and what must we never do?"
"""The capstone's final question: it asks for an action, so a stored constraint must travel with the answer."""
ASK_TASK = "Which module and database are we on?"
"""A question that plans nothing: only the first rule (no other value as current) applies."""

NEVER_HELD_DATABASES = ("MariaDB 11", "Oracle 19c", "MySQL 8", "DynamoDB")
"""Databases the lesson's story never names: the example of "a value the store never held" takes the first that the
store neither holds nor held before a correction (a student may have stored one)."""

CORRECTION_EXAMPLE = "module=Payroll"
"""The correction the panel suggests, in its words and in its Message box: a value the store does not hold yet."""


def example_answers(
    facts: Sequence[Fact], superseded: Mapping[str, Sequence[str]], task: str = PLAN_TASK
) -> dict[str, str]:
    """A few answers to ``task``, written from the store: right, stale, a value never held, a history, Markdown.

    Each is built from what the store holds now (and the latest value a correction replaced), so the examples
    stay meaningful after the student corrects or forgets a fact: a key the store no longer holds appears in none,
    an example that needs a replaced value is left out when there is none, and an empty store gives none at all.
    They answer the task chosen: plans (each carrying the constraint, or not) for a task that asks for an action,
    plain statements for a question that plans nothing, so no example makes a constraint due that the task did not.
    """
    held = {f.key: value_core(f.value) for f in facts}  # "Payroll." as a sentence says it: "... in Payroll on ..."
    if not held:
        return {}
    module, database, constraint = (held.get(key) for key in ("module", "database", "constraint"))
    old_module, old_database = (_latest(superseded, key) if held.get(key) else None for key in ("module", "database"))
    plans = plans_action(task)
    rule = f" {constraint[:1].upper()}{constraint[1:]}." if constraint and plans else ""  # the constraint as a sentence
    answers: dict[str, str] = {}
    if plans:
        where = " ".join(part for part in (_prefixed("in", module), _prefixed("on", database)) if part)
        answers["a right one"] = f"Patch the retry {where}".strip() + (f", and {constraint}." if constraint else ".")
    else:
        answers["a right one"] = _statement(module, database) or "; ".join(f"{k}={v}" for k, v in held.items()) + "."
    if old_module or old_database:
        stale = _statement(old_module, old_database)
        answers["a stale one"] = f"{stale[:-1]}: restart it tonight." if plans else stale
    if database:
        pairs = ([f"module={module}"] if module else []) + [f"database={_never_held(database, superseded)}"]
        answers["a value the store never held"] = "; ".join(pairs) + "." + rule
    if old_database:
        now = f"{database} now, on {module}" if plans else f"the database is {database} now, and the module is {module}"
        now = now if module else f"{database} now" if plans else f"the database is {database} now"
        answers["a history"] = f"We moved off {old_database}: {now}." + rule
    rows = ([("module", module)] if module else []) + ([("database", old_database or database)] if database else [])
    if rows:
        table = "".join(f"\n| {key} | {value} |" for key, value in rows)
        title, bullet = ("Plan", f"\n\n- {constraint}" if constraint else "") if plans else ("Where we are", "")
        answers["Markdown and a table"] = f"**{title}**\n\n| key | value |\n|---|---|{table}{bullet}"
    return answers


def _latest(superseded: Mapping[str, Sequence[str]], key: str) -> str | None:
    """The latest value a correction replaced for ``key``: what "a stale one" states as current, without the
    sentence punctuation that ended it ("Payroll." as a sentence says it: "The module is Payroll and ..."), as the
    evaluator compares it (:func:`value_core`)."""
    values = [*superseded.get(key, [])]
    return value_core(values[-1]) if values else None


def _prefixed(word: str, value: str | None) -> str:
    """ "in Billing", or "" for a value the store does not hold."""
    return f"{word} {value}" if value else ""


def _statement(module: str | None, database: str | None) -> str:
    """ "The module is Billing and the database is SQL Server 2022.", saying only the values given; "" for none."""
    parts = ([f"the module is {module}"] if module else []) + ([f"the database is {database}"] if database else [])
    said = " and ".join(parts)
    return f"{said[:1].upper()}{said[1:]}." if said else ""


def _never_held(held: str, superseded: Mapping[str, Sequence[str]]) -> str:
    """The first of :data:`NEVER_HELD_DATABASES` that is neither ``held`` nor a database a correction replaced."""
    replaced = superseded.get("database", [])
    return next(
        v
        for v in NEVER_HELD_DATABASES
        if not values_match(v, held) and not any(values_match(v, old) for old in replaced)
    )


class GivenAnswerClient(OfflineChatClient):
    """The student stands in for the model: every call is answered with the panel's answer box, word for word.

    It keeps what each call received, so the panel can show the message the loop added for the next iteration
    exactly as the model would have received it.
    """

    def __init__(self, text: str) -> None:
        super().__init__(name="your answer")
        self.text = text
        self.received: list[list[Message]] = []

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        self.received.append(list(messages))
        return self.text


@dataclass
class AnswerCheck:
    """What one check found: the evaluator's verdict and the message the loop sent back (None: it stopped)."""

    task: str
    answer: str
    check: FactCheck
    superseded: dict[str, list[str]]
    sent_back: Message | None = None
    corrections: dict[str, dict[str, Fact]] = field(default_factory=dict)
    """Per key, each replaced value and the fact of the correction that replaced it (when the panel saw it)."""
    notes: list[str] = field(default_factory=list)
    forgotten: frozenset[str] = frozenset()
    """The keys forgotten (and not stored again) before this check: what "no longer in the store" names."""
    history_cleared: frozenset[str] = frozenset()
    """The keys a forget cleared, values replaced before it included, stored again since or not: for them, a value
    the store does not hold is one it holds "no record of", not one it "never held" (lesson 07's walk)."""
    said: dict[str, tuple[Fact, ...]] = field(default_factory=dict)
    """Per key, each time the user said the value the store holds: the first, then each time it was said again
    (:func:`said_runs`), so a reason names every turn, not only the latest (lesson 07's walk)."""
    forgotten_values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per forgotten key, the values it held when it was forgotten (the stored one, then those a correction replaced):
    an answer that names one talks about a key the store no longer holds ("We are on Reporting.")."""

    @property
    def violations(self) -> tuple[Violation, ...]:
        """The rules the answer broke, as the evaluator found them (empty: the loop stopped)."""
        return self.check.violations


async def check_in_loop(
    extraction: MemoryExtraction,
    task: str,
    answer: str,
    superseded: Mapping[str, Iterable[str]],
    corrections: Mapping[str, Mapping[str, Fact]] | None = None,
    forgotten: Collection[str] = (),
    history_cleared: Collection[str] = (),
    said: Mapping[str, Sequence[Fact]] | None = None,
    forgotten_values: Mapping[str, Sequence[str]] | None = None,
) -> AnswerCheck:
    """Run ``answer`` to ``task`` through a real loop held by the real evaluator; what it decided and sent back.

    The loop is capped at two iterations: the first gives the answer, the evaluator reads it against the store as
    it is now; on a violation the loop re-invokes the agent with its feedback, and the panel keeps that message
    (the second answer is not read: the cap stops the loop before the evaluators are asked again). An empty
    answer or one longer than :data:`MAX_ANSWER_CHARS` is refused before anything runs. ``corrections`` name, per
    key, the correction that replaced each superseded value, and ``said`` each time the user said the value the
    store holds (:func:`said_runs`), for the violations' reasons.
    """
    if not answer.strip():
        raise ValueError("The answer is empty: there is nothing for the evaluator to read. Type an answer or pick one.")
    if len(answer) > MAX_ANSWER_CHARS:
        raise ValueError(
            f"The answer has {len(answer):,} characters: the panel checks answers of at most {MAX_ANSWER_CHARS:,} "
            "characters (a model's answer is far shorter). Nothing was checked."
        )
    checks: list[FactCheck] = []
    evaluator = FactsConsistencyEvaluator(extraction.memory, superseded=superseded, on_check=checks.append)
    client = GivenAnswerClient(answer)
    loop = LoopAgent(Agent(client=client, name="reader"), evaluator, LoopAgentOptions(max_iterations=2))
    await loop.run(task)
    sent_back = client.received[1][-1] if len(client.received) > 1 else None
    return AnswerCheck(
        task=task,
        answer=answer,
        check=checks[0],
        superseded=evaluator.superseded,
        sent_back=sent_back,
        notes=frame_notes(answer),
        corrections={key: dict(by) for key, by in (corrections or {}).items()},
        forgotten=frozenset(forgotten),
        history_cleared=frozenset(history_cleared),
        said={key: tuple(facts) for key, facts in (said or {}).items()},
        forgotten_values={key: tuple(values) for key, values in (forgotten_values or {}).items()},
    )


def frame_notes(answer: str) -> list[str]:
    """What in an answer looks like a frame the course writes itself (the facts block, the facts check).

    Such a frame in an answer is only words of the answer: the evaluator reads it like any other text, and it
    does not change the store (the store takes only the user's own words).
    """
    frames = {
        "the controlled-facts block's frame": (PROMPT_BLOCK_HEADER, PROMPT_BLOCK_FOOTER),
        "the facts check's header": (FEEDBACK_HEADER,),
    }
    return [
        f"Your answer repeats {name}: here it is only words of the answer, read like any other text; "
        "the store does not change (it takes only the user's own words)."
        for name, marks in frames.items()
        if any(mark in answer for mark in marks)
    ]


def violation_rows(result: AnswerCheck) -> list[dict[str, str]]:
    """One row per violation: the key, what the answer said, what the store holds, and why it is a violation."""
    return [
        {
            "key": v.fact.key,
            "your answer says": "(nothing: the constraint is missing)"
            if v.stated is None
            else said_in_answer(v.stated, result.answer),
            "the store holds": v.fact.value,
            "why": _why(
                v,
                result.superseded.get(v.fact.key, []),
                result.corrections.get(v.fact.key, {}),
                cleared=v.fact.key in result.history_cleared,
                said=result.said.get(v.fact.key, ()),
                shown=None if v.stated is None else said_in_answer(v.stated, result.answer),
            ),
        }
        for v in result.violations
    ]


def said_in_answer(stated: str, answer: str) -> str:
    """A stated value as the panel quotes it: as the answer spells it, shortened by the rule every quote of a stated
    value follows (:func:`~course_lib.answer_reader.shown_value`: a long one cut and marked "…"), so the table and the
    feedback the loop sends back quote it alike and no value is shown clipped as if it ended there.
    """
    before = CUT_MARK if stated.startswith(CUT_MARK) else ""
    after = CUT_MARK if stated.endswith(CUT_MARK) and len(stated) > len(before) else ""
    core = stated[len(before) : len(stated) - len(after)]
    return shown_value(f"{before}{_as_written(core, answer)}{after}")


def _as_written(stated: str, answer: str) -> str:
    """``stated`` as the answer spells it: the evaluator gives a replaced value as the store held it ("Reporting"),
    and a student who wrote "REPORTING" should see their own word."""
    pattern = r"\s+".join(re.escape(word) for word in stated.split())
    found = re.search(pattern, answer, re.IGNORECASE) if pattern else None
    return found.group() if found else stated


def _why(
    violation: Violation,
    replaced: Sequence[str],
    corrections: Mapping[str, Fact],
    *,
    cleared: bool = False,
    shown: str | None = None,
    said: Sequence[Fact] = (),
) -> str:
    """Why a violation is one, short, citing the user's words: for a replaced value, those of the correction that
    replaced it (which need not be the one the store holds now: Reporting, then Billing, then Payroll). The row already
    shows the stated value and the stored one, so the reason does not repeat them. ``shown``: the stated value as the
    row quotes it (:func:`said_in_answer`), so a long one is cut the same way, and marked, in both. ``said``: each
    time the user said the value the store holds (:func:`said_runs`); the reason names the first and every turn it
    was said again, not only the latest."""
    fact = violation.fact
    stated = violation.stated if shown is None else shown
    run = tuple(said) if said and said[-1] == fact else (fact,)  # a record out of step with the store: the fact only
    first = run[0]
    source = f'the user said "{first.evidence}" at turn {first.turn}{_again([f.turn for f in run[1:]])}'
    holds = f'the store holds "{fact.value}" since {source}'  # quoted: "Payroll." ends no sentence
    if violation.stated is None:
        return (
            f"{violation.action_planned}, so the stored constraint (said at turn {fact.turn}) must travel with it. "
            "Said in other words? The rules read words, not meaning (section 5's table)."
        )
    by = next((f for old, f in corrections.items() if values_match(old, violation.stated)), None)
    if by is not None and len(chain := _chain(by, corrections, fact)) > 1:
        again = [str(f.turn) for f in run[1:]]
        turns = f"turn{'s' if len(again) > 1 else ''} {and_listed(again)}" if again else ""
        again_said = f", which the user said again at {turns}" if again else ""
        return f'{_chain_in_words(chain)}; the store holds "{fact.value}"{again_said}.'
    if by is not None:
        return f'a correction replaced it: the user said "{by.evidence}" at turn {by.turn}{_since(by, run, holds)}.'
    if any(values_match(violation.stated, old) for old in replaced):
        return f"a correction replaced it; {holds}."
    if cleared:  # a forget cleared this key's earlier values: the store may have held it then
        return (
            f'the store holds no record of "{stated}" for {fact.key} (a forget cleared its earlier '
            f"values): it {holds.removeprefix('the store ')}."
        )
    return f'the store never held "{stated}" for {fact.key}: it {holds.removeprefix("the store ")}.'


def _chain(by: Fact, corrections: Mapping[str, Fact], fact: Fact) -> list[Fact]:
    """Each correction from ``by`` (the one that replaced the stated value) to the one that set the value the store
    holds (``fact``), in turn order, read from the key's corrections (old value -> what replaced it).

    Walk 19: a value two corrections old was told 'the user said "module=Billing" at turn 6; the store holds
    "Payroll" since ... turn 10', which read as if Billing were current. A chain that cannot be followed to the held
    value (a gap, a cycle, a turn out of order) is only ``[by]``, and the reason names that one correction.
    """
    chain = [by]
    while not values_match(chain[-1].value, fact.value):
        step = next((f for old, f in corrections.items() if values_match(old, chain[-1].value)), None)
        if step is None or step.turn <= chain[-1].turn or step in chain:
            return [by]
        chain.append(step)
    return chain


def _chain_in_words(chain: Sequence[Fact]) -> str:
    """'"Billing" replaced it at turn 6, then "Payroll" replaced "Billing" at turn 10': each value quoted ("Payroll."
    ends no sentence)."""
    steps = [f'"{chain[0].value}" replaced it at turn {chain[0].turn}']
    steps += [f'"{now.value}" replaced "{was.value}" at turn {now.turn}' for was, now in itertools.pairwise(chain)]
    return ", then ".join(steps)


def _since(by: Fact, run: Sequence[Fact], holds: str) -> str:
    """What the store holds after the correction ``by``, when it is not that correction: another value ("; the store
    holds ..."), or the same one said again ("Payroll." after "Payroll"), which must not read as a value replacing
    itself. ``run``: each time the user said the value the store holds, the first one first."""
    if values_match(by.value, run[0].value):
        return _again([f.turn for f in run if f.turn > by.turn])
    return f"; {holds}"


def _again(turns: Sequence[int]) -> str:
    """ ", and said the same value again at turns 14 and 16": every turn, not only the latest (lesson 07's walk)."""
    if not turns:
        return ""
    listed = and_listed([str(turn) for turn in turns])
    return f", and said the same value again at {'turn' if len(turns) == 1 else 'turns'} {listed}"


def said_runs(
    runs: Mapping[str, Sequence[Fact]], before: Mapping[str, Fact], after: Iterable[Fact]
) -> dict[str, tuple[Fact, ...]]:
    """Per key of the store ``after`` a message, each time the user said the value it holds: the first, then each
    later turn that said it again (the evaluator's sameness, :func:`values_match`: ``Payroll`` then ``Payroll.``).

    ``runs`` is the record before the message and ``before`` the store then. A fact the message did not touch keeps
    its record; one said again adds its turn; a new value, or a key new to the store (declared for the first time,
    again after a forget or after the store pushed it out), starts afresh. A record out of step with the store
    (a fact stored before the record was kept) starts from the fact the store held.
    """
    now: dict[str, tuple[Fact, ...]] = {}
    for fact in after:
        was = before.get(fact.key)
        run = tuple(runs.get(fact.key, ()))
        if was is not None and (not run or run[-1] != was):
            run = (was,)
        if was is not None and fact == was:
            now[fact.key] = run
        elif was is not None and values_match(was.value, fact.value):
            now[fact.key] = (*run, fact)
        else:
            now[fact.key] = (fact,)
    return now


_DIFFERENCES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("its capitals", str.casefold),
    ("its spacing", lambda text: " ".join(text.split())),
    ("its quotes or Markdown marks", lambda text: re.sub(r"[\"'`*_\u2018\u2019\u201c\u201d]", "", text)),
    ("its HTML tags", without_html_tags),
    ("its final punctuation", lambda text: re.sub(r"[\s.!?;:,]+$", "", text)),
)
"""What the evaluator sets aside when it compares two values (:func:`values_match`), each named as a student sees it."""


def how_it_differs(one: str, other: str) -> str:
    """What differs between two values the evaluator reads as one: each difference it sets aside that they need.

    Lesson 07's walk: ``Payroll`` then ``payroll`` was told "only the final punctuation changed". A difference is
    named when, with every other one set aside, the two values still differ.
    """

    def without(skip: int, text: str) -> str:
        for i, (_, step) in enumerate(_DIFFERENCES):
            text = text if i == skip else step(text)
        return text

    named = [name for i, (name, _) in enumerate(_DIFFERENCES) if without(i, one) != without(i, other)]
    if not named:
        return "how it is written (case, spacing, quotes or final punctuation)"
    return and_listed(named)


def forget_note(key: str, value: str, facts: Sequence[Fact]) -> str:
    """What Forget key did, in words: the fact that went (its value too) and the keys the store holds now.

    "Forgot module" alone leaves the student to compare the table before and after; naming the value and what is
    left says the forget did what was asked, and nothing else went. The value is quoted: "Payroll." ends no sentence.
    """
    left = [f.key for f in facts]
    if not left:
        return f'Forgot {key}, which held "{shorten_long_input(value)}". The store is empty now.'
    now = f"The store holds {count_noun(len(left), 'fact')} now: {and_listed(left)}."
    return f'Forgot {key}, which held "{shorten_long_input(value)}". {now}'


ALL_FORGOTTEN = "Forgot every fact: the store is empty."
"""What Forget all says, as on lesson 02's panel."""


def start_over_note(turns: int) -> str:
    """How to get back the store a panel replayed from ``turns`` turns of a conversation: run its cell again.

    A forget cannot be undone from the panel; the cell that built it (:meth:`CapstonePanel.from_timeline`) replays
    the conversation into a new store, so its facts and the values its corrections replaced come back, in a new panel.
    """
    return (
        f"Running the panel's cell again builds it anew from turns 1 to {turns} of the conversation: "
        "their store, and the values their corrections replaced, come back."
    )


def shared_second_note(facts: Sequence[Fact], replayed: Collection[int] = ()) -> str:
    """What the table's time column cannot say: the panel's own replay stored most rows at one time, when its cell ran.

    The panel replays the conversation's turns into its store when its cell runs, all within a second or two, so its
    ``recorded (UTC)`` column shows one time for those rows; a student reading it as "when each turn happened" would
    be misled (walk 25: "to the second" and a list of turns was read twice). The note says which rows show the time
    the cell ran (``replayed``: their turn numbers; "every row" while the store holds no other), names any other
    turns stored within one second, and points at the turn column for the order. It is said only when two turns
    share a second, and stays true when the replay crossed a second or the student stored rows later.
    """
    turns_at: dict[str, set[int]] = {}
    for fact in facts:
        turns_at.setdefault(recorded_time(fact), set()).add(fact.turn)
    shared = [(time, sorted(turns)) for time, turns in turns_at.items() if len(turns) > 1]
    if not shared:
        return ""
    turns = {fact.turn for fact in facts}
    ran = sorted(turns & set(replayed)) if any(set(group) <= set(replayed) for _, group in shared) else []
    clauses = []
    if ran:
        rows = (
            "Every row shows"
            if len(ran) == len(turns)
            else f"The rows of turns {and_listed([str(t) for t in ran])} show"
        )
        clauses.append(f"{rows} the time the panel's cell ran")
    clauses += [
        f"turns {and_listed([str(t) for t in group])} share one time, {time}: they were stored in the same second"
        for time, group in shared
        if not set(group) <= set(ran)
    ]
    said = "; ".join([*clauses, "the turn column gives the order the user said them."])
    return said[:1].upper() + said[1:]


class CapstonePanel(MemoryPanel):
    """Lesson 02's memory panel (the store), then an answer to check, the evaluator's verdict and the loop's feedback.

    It is the memory panel itself, extended: the same table, message box and forget buttons act on the store the
    evaluator holds answers to, and one click order serves both sides (a check clicked after a correction waits
    for it). Anything that changes what a verdict answered (the store, the task, the answer) takes the verdict off
    the screen, so a verdict is only ever shown beside the store and the answer it was computed from.
    """

    title = "Capstone panel"

    def __init__(
        self,
        extraction: MemoryExtraction,
        *,
        superseded: Mapping[str, Iterable[str]] | None = None,
        tasks: Sequence[str] = (PLAN_TASK, ASK_TASK),
    ) -> None:
        self.superseded: dict[str, list[str]] = {k: list(v) for k, v in (superseded or {}).items()}
        self.corrections: dict[str, dict[str, Fact]] = {}  # per key: each value replaced here, and what replaced it
        self.result: AnswerCheck | None = None
        self.forgotten: set[str] = set()  # keys forgotten here and not stored again since
        self.history_cleared: set[str] = set()  # keys a forget cleared here, stored again since or not
        self.forgotten_values: dict[str, tuple[str, ...]] = {}  # per key in forgotten: the values it held
        self.said: dict[str, tuple[Fact, ...]] = {}  # per key: each time the value the store holds was said
        self.cleared: str | None = None
        """What the latest forget that removed replaced values forgot (a key, or "all"); None once one is listed."""
        self._filling = False  # the examples are being replaced: no choice is being made
        self._edits = 0  # counts changes of the store, task or answer: a check started before one is not shown
        # the replaced values run to two lines once a few are listed: single-spaced, as the store's other notes
        self.replaced = SingleSpacedHTML()
        self.times = widgets.HTML()  # which turns share a recorded second (the panel replayed them together)
        self.replayed: frozenset[int] = frozenset()
        self.start_over = ""
        """How to get the store back after a forget, said under the forget's line: set by :meth:`from_timeline`
        (the cell that builds the panel from a conversation); "" for a panel built on a store of its own."""
        self.task = widgets.Dropdown(options=list(tasks), description="Task", layout=widgets.Layout(width="95%"))
        self.examples = widgets.Dropdown(description="Try", layout=widgets.Layout(width="95%"))
        self.answer = widgets.Textarea(
            placeholder="Type an answer, or pick one above",
            description="Answer",
            rows=5,  # a Markdown answer shows its title and table rows, not one line and a half (walk 22)
            layout=widgets.Layout(width=ANSWER_BOX_WIDTH),
        )
        self.check_button = widgets.Button(description="Check answer", button_style="primary", disabled=True)
        self.verdict = SingleSpacedHTML()  # a verdict's reason runs to two lines: single-spaced, as the notes
        self.feedback = SingleSpacedHTML()
        named = {"task": self.task, "examples": self.examples, "answer": self.answer, "replaced": self.replaced}
        shown = {"times": self.times, "verdict": self.verdict, "feedback": self.feedback}
        for name, widget in {**named, **shown}.items():
            widget.add_class(f"capstone-panel-{name}")  # what a browser test finds them by
        super().__init__(extraction, submit=self._correct, on_forget=self._forget)  # shows the store: refresh()
        self.example_declaration = CORRECTION_EXAMPLE  # lesson 02's example would declare what the store holds
        self.message.placeholder = f"e.g. {CORRECTION_EXAMPLE}"
        # as wide as the Answer box, its label as wide too: at the memory panel's width (about 150 px beside the
        # Submit button's note) the placeholder wrapped onto a second line (lesson 07's walk 21)
        self.message.layout = widgets.Layout(width=ANSWER_BOX_WIDTH, min_width="0")
        self.message.style.description_width = self.answer.style.description_width
        self.add_class("capstone-panel")
        self.examples.observe(lambda _: self._example_chosen(), names="value")
        self.answer.observe(lambda _: self._answer_edited(), names="value")
        self.task.observe(lambda _: self._task_changed(), names="value")
        # a click checks what the box shows at the click, after the actions clicked before it
        # a double click checks once
        on_click_once(self.check_button, lambda: self._async.schedule(self._check(self.answer.value, self._edits)))
        # the memory panel's table, message box, diagnostic and forget buttons; not lesson 01's ticket, which does
        # not serve this lesson (walk 22): it still counts, unseen, and a message that stores nothing says its turn
        store = [child for child in self.children if child not in (self.ticket, self.ticket_note)]
        self.set_trait(  # not "self.children = ...": mypy would take the type of that line for the one above
            "children",
            (
                SingleSpacedHTML(  # a heading that wraps keeps its lines together (not the widget's 28 px)
                    "<b>1. The store the evaluator holds answers to.</b> Correct a value by typing a declaration "
                    f"such as <code>{CORRECTION_EXAMPLE}</code> in the Message box and pressing Submit; choose a key "
                    "and press Forget key, or press Forget all to empty the store."
                ),
                *_after(store, self.table, self.times),
                self.replaced,
                SingleSpacedHTML(
                    "<b>2. An answer to check.</b> You stand in for the model: type an answer or pick one."
                ),
                self.task,
                self.examples,
                self.answer,
                self.check_button,
                self.verdict,
                self.feedback,
            ),
        )

    @classmethod
    async def from_timeline(cls, timeline: Timeline, *, max_facts: int = 8) -> CapstonePanel:
        """The panel on the store the host held when ``timeline``'s final question came, that question its task.

        Every earlier user turn goes through the writer and the host check into a store of ``max_facts`` (8 keeps
        the constraint, as in lesson 07's roomy store), and each value a correction replaced is kept as superseded,
        exactly as a correction typed into the panel is.
        """
        *earlier, final = timeline.turns
        panel = cls(make_extraction(WorkingMemory(max_facts)), tasks=(final.user, ASK_TASK))
        for turn in earlier:
            await panel._correct(turn.user)
        panel.replayed = frozenset(f.turn for f in panel.extraction.memory.facts)
        panel.start_over = start_over_note(len(earlier))
        panel.refresh()
        return panel

    def refresh(self) -> None:
        """The memory panel's view of the store, then what depends on it: replaced values, examples, no verdict."""
        super().refresh()
        note = shared_second_note(self.extraction.memory.facts, self.replayed)
        self.times.value = f'<div style="{NOTE_STYLE}">{html.escape(note)}</div>' if note else ""
        self._store_changed()

    async def _correct(self, text: str) -> ExtractionReport | None:
        """A message through the writer and the host check; a value it replaces becomes a superseded one, kept with
        the fact of the correction that replaced it (its words and turn)."""
        held = {f.key: f for f in self.extraction.memory.facts}
        before = {key: fact.value for key, fact in held.items()}
        if self.cleared is not None:  # a new message is a new action: the last forget's note is no longer news
            self.cleared = "earlier"
        report = await self.extraction.update(text)
        self.forgotten -= {f.key for f in self.extraction.memory.facts}
        self.forgotten_values = {k: v for k, v in self.forgotten_values.items() if k in self.forgotten}
        self.said = said_runs(self.said, held, self.extraction.memory.facts)
        for old, fact in record_superseded(before, self.extraction.memory.facts, self.superseded):
            by = self.corrections.setdefault(fact.key, {})
            by[old] = fact
            self.corrections[fact.key] = {v: f for v, f in by.items() if v in self.superseded[fact.key]}
        return report

    def _forget(self, key: str | None) -> None:
        """Forget a key (or all): the values it held before go too, so nothing forgotten is held against an answer."""
        self.forgotten |= {f.key for f in self.extraction.memory.facts} if key is None else {key}
        for fact in self.extraction.memory.facts:
            if key is None or fact.key == key:
                self.forgotten_values[fact.key] = (fact.value, *self.superseded.get(fact.key, ()))
        every = {f.key for f in self.extraction.memory.facts} | set(self.superseded)
        self.history_cleared |= every if key is None else {key}
        self.extraction.memory.forget(key)
        for gone in list(self.superseded) + list(self.corrections) if key is None else [key]:
            if self.superseded.pop(gone, None):
                self.cleared = "all" if key is None else gone
            self.corrections.pop(gone, None)
            self.said.pop(gone, None)

    def forget(self, key: str | None) -> None:
        """The memory panel's forget; for one key, a line saying what went and what the store holds now; and, on a
        panel built from a conversation, how to get its store back (:attr:`start_over`)."""
        held = {f.key: f.value for f in self.extraction.memory.facts}
        super().forget(key)
        left = {f.key for f in self.extraction.memory.facts}
        if key is None and held and not left:
            lines = [ALL_FORGOTTEN]
        elif key is not None and key in held and key not in left:
            lines = [forget_note(key, held[key], self.extraction.memory.facts)]
        else:  # nothing went (a refusal, or no fact to forget): the memory panel's line says why
            return
        if self._still_in_box():  # what Submit said of it answered the store before the forget: not said again
            lines.append(NOT_STORED_IN_BOX)
        said = html_lines("\n".join([*lines, *([self.start_over] if self.start_over else [])]))
        self.diagnostic.value = said

    def _store_changed(self) -> None:
        replaced = "; ".join(f"{k}: {', '.join(self._replaced(k, v))}" for k, v in self.superseded.items() if v)
        if replaced:
            self.cleared = None
        self.replaced.value = (
            f"<i>Values a correction replaced (the evaluator flags them even without their key): "
            f"{html_lines(replaced)}</i>"
            if replaced
            else f"<i>{_nothing_replaced(self.cleared)}</i>"
        )
        self._task_changed()

    def show_report(
        self, report: ExtractionReport | None, text: str = "", before: tuple[Fact, ...] | None = None
    ) -> None:
        """The memory panel's report, with how the evaluator reads a value the store kept apart from the one
        before it only by its case, spacing or final punctuation."""
        super().show_report(report, text, before)
        self._same_value_notes(report, before or ())
        self._turn_counted(report)

    def _turn_counted(self, report: ExtractionReport | None) -> None:
        """On the line that says a message stored nothing, that it still counted as a turn (:data:`TURN_COUNTED`).

        The ticket's turn counts every message the store read, stored or not; said on the status line itself (the
        first bold run of the diagnostic), so the line stays one line, for every kind of message that stores nothing.
        """
        if report is None or report.status == "accepted" or report.turn is None:
            return
        said = html.escape(TURN_COUNTED.format(turn=report.turn))
        status, bold_end, rest = self.diagnostic.value.partition("</b>")
        if not bold_end:
            return
        status = f"{status[:-1]} {said}." if status.endswith(".") else f"{status} {said}"
        self.diagnostic.value = f"{status}{bold_end}{rest}"

    def _more_notes(self, report: ExtractionReport) -> list[str]:
        """How the evaluator reads a value kept with its final punctuation: it matches the value without it."""
        if not (kept := kept_punctuation(report)):
            return []
        value = kept[0].value  # the value just stored, as the student typed it (its final mark included)
        return [
            "The evaluator compares values without their final punctuation: an answer saying "
            f"<code>{html.escape(value[:-1])}</code> or <code>{html.escape(value)}</code> matches either."
        ]

    def _same_value_notes(self, report: ExtractionReport | None, before: Sequence[Fact]) -> None:
        """The memory panel's "replaced" note, for a value the evaluator reads as the one before it, says so.

        ``Payroll`` then ``Payroll.`` (or back) differ only in their final punctuation: the store kept the latest,
        but the evaluator compares values without it (:func:`values_match`), and the value is not listed among the
        replaced ones. "replaced" would say otherwise; the note says the same value, only its final mark changed.
        """
        if report is None or report.status != "accepted":
            return
        old = {fact.key: fact for fact in before}
        for fact in report.facts:
            was = old.get(fact.key)
            if fact.turn != report.turn or was is None or was.value == fact.value:
                continue
            if not values_match(was.value, fact.value):
                continue
            (said,) = correction_notes([was], report)  # the memory panel's note for this key alone
            same = (
                f'{fact.key}: "{shorten_long_input(fact.value)}" is the same value as '
                f'"{shorten_long_input(was.value)}" (said at turn {was.turn}) for the evaluator: only '
                f"{how_it_differs(was.value, fact.value)} changed, and the store keeps the latest."
            )
            self.diagnostic.value = self.diagnostic.value.replace(html_lines(said), html_lines(same))

    def _replaced(self, key: str, values: Sequence[str]) -> list[str]:
        """Each replaced value of ``key``, with the turn of the correction that replaced it when the panel saw it."""
        by = self.corrections.get(key, {})  # each value quoted: "Payroll." ends no sentence
        return [f'"{v}" (replaced at turn {by[v].turn})' if v in by else f'"{v}"' for v in values]

    def _task_changed(self) -> None:
        """Answers to try that fit the store and the task now; the menu back to its prompt."""
        examples = example_answers(self.extraction.memory.facts, self.superseded, self.task.value)
        options = [(_PICK if examples else _NOTHING_TO_TRY, ""), *examples.items()]
        self._filling = True
        try:
            self.examples.options = options
            self.examples.value = ""
        finally:
            self._filling = False
        self._changed()

    def _example_chosen(self) -> None:
        if self._filling or not self.examples.value:
            return
        self.answer.value = self.examples.value

    def _answer_edited(self) -> None:
        """An answer typed over a picked one is the student's own: the menu no longer names an example."""
        if self.examples.value and self.answer.value != self.examples.value:
            self._filling = True
            try:
                self.examples.value = ""
            finally:
                self._filling = False
        self._changed()

    def _changed(self) -> None:
        """The previous verdict answered another store, task or answer: it leaves the screen."""
        self._edits += 1
        self.result = None
        self.check_button.disabled = not self.answer.value.strip()
        self.verdict.value = (
            "<i>Press Check answer to hold this answer to the store.</i>" if self.answer.value.strip() else _EMPTY
        )
        self.feedback.value = ""

    async def check(self, answer: str | None = None) -> AnswerCheck | None:
        """Check ``answer`` (by default the box) against the store, in a real loop; show the verdict and feedback."""
        return await self._check(self.answer.value if answer is None else answer, self._edits)

    async def _check(self, text: str, edits: int) -> AnswerCheck | None:
        """Check ``text``; show the outcome unless the store, task or answer changed since ``edits`` was counted.

        A check reads the store and changes nothing in it, so the store's status line stays as the last Submit or
        Forget left it, whatever the verdict: a message refused there stays in the Message box, and so does why it
        was refused (lesson 07's fifteenth walk).
        """
        self.feedback.value = ""
        self.check_button.disabled = True
        try:
            result = await check_in_loop(
                self.extraction,
                self.task.value,
                text,
                self.superseded,
                self.corrections,
                self.forgotten,
                self.history_cleared,
                self.said,
                self.forgotten_values,
            )
        except EXPECTED_ERRORS as error:  # a rule the answer broke: said under the answer, nothing changed
            self.verdict.value = (
                f'<span style="color:crimson"><b>Refused:</b> {html_lines(describe_error(error))}</span>'
            )
            return None
        finally:
            self.check_button.disabled = not self.answer.value.strip()
        if edits != self._edits:  # the store, task or answer changed while it ran: this verdict answers old ones
            return None
        self.result = result
        self.verdict.value = verdict_html(result)
        self.feedback.value = feedback_html(result)
        return result


def _after(children: Sequence[widgets.Widget], anchor: widgets.Widget, added: widgets.Widget) -> list[widgets.Widget]:
    """``children`` with ``added`` right after ``anchor`` (a note under the table it explains)."""
    shown = list(children)
    shown.insert(shown.index(anchor) + 1, added)
    return shown


_WRAP = "overflow-wrap: anywhere; white-space: pre-wrap"
"""The feedback box keeps the message's line breaks and wraps a long word rather than widen the panel."""


def verdict_html(result: AnswerCheck) -> str:
    """The verdict: a table of violations (the answer's words escaped, a long one shortened), or "No violation"."""
    notes = "".join(f"<br><i>{html_lines(shorten_long_input(note))}</i>" for note in result.notes)
    if not result.violations:
        return f'<span style="color:green"><b>No violation</b>: {_passed(result)}</span>{notes}'
    rows = violation_rows(result)
    table = panel_table_html(rows_frame(rows, list(rows[0])), "capstone-violations")
    count = f"{len(rows)} violation" + ("s" if len(rows) > 1 else "")
    unheld = f"<i>Note: {html.escape(_unheld(result))}.</i>" if _unheld(result) else ""
    return f'<span style="color:crimson"><b>{count}</b>: the loop sends the answer back.</span>{table}{unheld}{notes}'


def _passed(result: AnswerCheck) -> str:
    """Why an answer passed, in the evaluator's terms: consistency with the store, not completeness. That the loop
    stopped is said once, by :func:`feedback_html`, where a failing answer's feedback would be."""
    facts = result.check.facts
    if not facts:
        return "the store is empty, so there is nothing to hold the answer to: this answer stands."
    planned_by = planner(result.task, result.answer, facts)
    due = planned_by is not None and any(f.key == "constraint" for f in facts)
    carried = f", and it carries every stored constraint ({action_planned(planned_by)})" if due else ""
    unheld = _unheld(result)
    plain = " ".join(plain_text(result.answer).split())
    left_out = [
        f.key
        for f in facts
        if not (carries_constraint(f.value, result.answer) if f.key == "constraint" else mentions(f.value, plain))
    ]
    why = (
        f"({unheld})"
        if unheld
        else "(an answer that leaves a fact out contradicts nothing)"
        if left_out
        else "(it states every stored fact)"
    )
    stated = f"the answer states no other value as current for any stored key{carried}"
    return f"{stated}. This answer stands {why}."


def _unheld(result: AnswerCheck) -> str:
    """What to say of keys the answer states but the store does not hold: nothing holds those parts of the answer."""
    held = {f.key for f in result.check.facts}
    values = {f.key: [f.value, *result.superseded.get(f.key, ())] for f in result.check.facts}
    named = named_keys(result.answer, {**values, **result.forgotten_values})
    keys = [key for key in named if key not in held]
    if not keys:
        return ""
    gone = [k for k in keys if k in result.forgotten]
    said = [f"{and_listed(gone)} {'is' if len(gone) == 1 else 'are'} no longer in the store"] if gone else []
    never = [k for k in keys if k not in result.forgotten]
    said += [f"{and_listed(never)} {'is' if len(never) == 1 else 'are'} not in the store"] if never else []
    parts = "that part" if len(keys) == 1 else "those parts"
    return f"{' and '.join(said)}, so there is nothing to hold {parts} of the answer to"


def _nothing_replaced(cleared: str | None) -> str:
    """What the replaced-values line says when it lists none: never any, the forget that just cleared them, or (once
    another message came) that none is flagged now."""
    if cleared == "earlier":
        return "No replaced value is flagged now."
    if cleared == "all":
        return "Forget all also cleared the replaced values: none is flagged now."
    if cleared is not None:
        return f"Forgetting {cleared} also cleared its replaced values: none is flagged now."
    return "No value has been replaced by a correction yet."


def feedback_html(result: AnswerCheck) -> str:
    """The message the loop added for the next iteration, as the model receives it, and who added it."""
    message = result.sent_back
    if message is None:
        return "<i>The loop sends nothing back: it stopped after this answer.</i>"
    added_by = attribution_source(message) or "the caller"
    return (
        f"<b>What the loop sends back</b> (a user-role message added by <code>{html_lines(added_by)}</code>, so the "
        "store never takes it for the user's words):"
        f'<pre class="capstone-feedback-text" style="{_WRAP}; background: #f6f6f6; padding: 6px; line-height: 1.3">'
        f"{html.escape(message.text)}</pre>"
    )
