"""Recorded runs on the real local model: the qualification and lesson 04's policy comparison, kept as data.

A lesson's stored output must be what its code produces (strict nbval), and a live model's answers are not
repeatable across machines. So a lesson that shows a real model shows a **recording**: a JSON file under
``data/`` (schema beside it, generated from the models here), written by ``make record-local`` on the local
model, and labelled as a recording with everything needed to reproduce it: the model and its SHA-256, the
xllamacpp version, the sampling settings, the machine and its load, the date, and the command.

``python -m course_lib.recordings [qualification|policies]`` writes the files (``make record-local``).
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import platform
import re
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .assertions import MessageRefused, find_declarations
from .clients import course_backends, make_chat_client
from .extraction import WRITER_EXAMPLES, ExtractionStatus
from .frames import rows_frame
from .live import LOCAL_ROLE_SAMPLING, MAX_TOKENS_VAR, REUSE_VAR, Backends, LiveSettingsError
from .live_client import cut_advice
from .local_model import LocalModelError, current_local_server
from .memory import mark_invisible
from .policies import (
    STOP_CAUSES,
    AnswerRow,
    SummaryRejected,
    course_policies,
    load_timeline,
    run_policy,
    stop_cause,
    stop_in_words,
    stop_line,
)
from .qualify import (
    BATTERY,
    SCORECARD_COLUMNS,
    Case,
    CaseResult,
    ScorecardRow,
    facts_of,
    model_in_words,
    reason_in_words,
    score_battery,
    summary,
)
from .tracing import (
    EST_TOKENS,
    UNKNOWN,
    USAGE_FIELDS,
    CallLog,
    ModelCall,
    reported_label,
    reported_total,
    shown_count,
)

if TYPE_CHECKING:  # types only: a recording's tables are made by frames.rows_frame, which loads pandas
    from collections.abc import Callable, Iterable

    import pandas as pd

__all__ = [
    "COMPARABLE_LOAD",
    "DATA",
    "FACTS_TOKENS_COMMAND",
    "FACTS_TOKENS_FILE",
    "LOAD_ROW",
    "NOT_SENT",
    "POLICY_COSTS_FILE",
    "POLICY_COST_COLUMNS",
    "QUALIFICATION_BEFORE_FILE",
    "QUALIFICATION_EXAMPLES_FILE",
    "QUALIFICATION_FILE",
    "QUALIFICATION_FILES",
    "RECORDED_ADDRESS",
    "RECORD_COMMAND",
    "SAMPLING_MARK",
    "SCHEMAS",
    "STOP_CAUSES",
    "WRITER_REQUEST",
    "CallTokens",
    "FactsTokenCount",
    "Machine",
    "PolicyCostRecording",
    "PolicyRun",
    "QualificationRecording",
    "RecordedCase",
    "RecordedModel",
    "Recording",
    "address_in_words",
    "command_lines",
    "compare_qualifications",
    "count_facts_tokens",
    "cut_reply_note",
    "declared_pairs",
    "example_on_the_recording_day",
    "facts_gap_note",
    "facts_gap_sentence",
    "load_facts_tokens",
    "load_policy_costs",
    "load_qualification",
    "main",
    "misses_note",
    "qualification_steps",
    "record_facts_tokens",
    "record_policy_costs",
    "record_qualification",
    "recorded_case",
    "rejected_before_any_call",
    "relabelled",
    "rows_overlap_note",
    "save",
    "steps_details_html",
    "steps_headline",
    "steps_plain_caption",
    "stop_cause",
    "stop_in_words",
    "stop_line",
    "times_note",
    "unsent_note",
    "wrong_admitted",
]


DATA = Path(__file__).resolve().parent.parent / "data"
QUALIFICATION_FILE = DATA / "qualification_local.json"
QUALIFICATION_BEFORE_FILE = DATA / "qualification_local_rules_only.json"
QUALIFICATION_EXAMPLES_FILE = DATA / "qualification_local_examples.json"
"""The run before the declared count (2026-12-01): worked examples and a bounded schema, the same model."""
"""The recording of the writer's earlier request (rules only, an unbounded schema), kept to compare (lesson 00)."""


LOAD_ROW = "how busy the machine was at the start (1.0: one core's worth of work)"
"""The load average in words a student reads: a busier machine makes the same run take longer (lesson 00). The row
shows each run's load at its start; the fold above the table gives it from start to end ("1.0 to 1.7"), so the row
says which of the two it shows (walk 24, issue 32)."""


def _sampling_words(sampling: dict[str, float] | dict[str, float | int]) -> str:
    """``{'temperature': 0.0}`` as a recording's reader reads it: ``temperature 0.0``."""
    return ", ".join(f"{name} {value}" for name, value in sampling.items())


SAMPLING_MARK = ", the writer's sampling: "
"""Where a recorded ``writer_request`` names the sampling the writer asked for (none before it: the server's)."""
WRITER_REQUEST = (
    f"the rules, {len(WRITER_EXAMPLES)} worked examples as earlier turns, a schema bounded to the contract's keys "
    f"and the store's limits that asks for as many candidates as the message declares{SAMPLING_MARK}"
    f"{_sampling_words(LOCAL_ROLE_SAMPLING['writer'])}"
)
"""How the writer is asked now (``course_lib.extraction``), in the words a recording keeps."""
POLICY_COSTS_FILE = DATA / "policy_costs_local.json"
FACTS_TOKENS_FILE = DATA / "facts_tokens_local.json"
"""The facts policy's calls counted again with the local model's own tokenizer (:func:`record_facts_tokens`)."""
RECORD_COMMAND = "make local && make record-local"


class Machine(BaseModel):
    """Where a recording ran: enough to judge its times, nothing that names a person or a path."""

    model_config = ConfigDict(frozen=True)

    platform: str
    cpus: int
    python: str
    load_average_start: tuple[float, float, float]
    load_average_end: tuple[float, float, float]

    @classmethod
    def now(cls, load_at_start: tuple[float, float, float]) -> Machine:
        return cls(
            platform=f"{platform.system()} {platform.machine()}",
            cpus=os.cpu_count() or 1,
            python=platform.python_version(),
            load_average_start=load_at_start,
            load_average_end=_load(),
        )


class RecordedModel(BaseModel):
    """The model and server a recording ran on, as :meth:`course_lib.local_model.LocalServer.describe` says."""

    model_config = ConfigDict(frozen=True)

    model: str
    model_file: str
    model_package: str
    model_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    server: str
    sampling: dict[str, float | int]


_SKIPPABLE_SETTINGS = (
    "The other values (top_k, top_p, min_p, seed, context tokens, threads, the file's SHA-256) are sampling and "
    "server settings kept to reproduce the run: safe to ignore; the load average is how busy the machine was."
)
"""The caption's last line: what a student may skip among the values it names, and what the load average is."""


_NOT_DETERMINISTIC = (
    "Another machine, thread count or version may answer otherwise: a small model is not deterministic across them."
)
"""The plain caption's last line: why a re-run may differ."""


_PLAIN_SETTINGS = {
    "temperature": ("temperature", " (how freely it picks its words)"),
    "max_output_tokens (n_predict)": ("maximum output tokens", " (a longer answer is cut there)"),
    "context_tokens": ("context", " tokens (the most it reads at once)"),
    "threads": ("threads", ""),
}
"""The server settings :meth:`Recording.plain_caption` names in words, by their key in a recording."""

_SERVER_OWN = ("max_output_tokens (n_predict)", "context_tokens", "threads")
"""A recording's server settings that no request changes: the output cap (llama.cpp's ``n_predict``, enforced on every
answer whatever a request asks: :class:`course_lib.local_model.LocalServerSettings`), the context and the threads.
The captions name them apart from the defaults a request may override (lesson 00's walk, issue 32: "the server's
defaults ... n_predict 256" read as a default the course's larger ``max_tokens`` would replace)."""

_SERVER_OWN_WORDS = "which no request changes"
"""How the captions introduce :data:`_SERVER_OWN`."""


def _split_settings(sampling: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A recording's server settings as (the defaults a request may override, the server's own: :data:`_SERVER_OWN`)."""
    defaults = {key: value for key, value in sampling.items() if key not in _SERVER_OWN}
    return defaults, {key: value for key, value in sampling.items() if key in _SERVER_OWN}


class Recording(BaseModel):
    """What every recording carries beside its rows: model, machine, date, wall time, the command."""

    model_config = ConfigDict(frozen=True)

    kind: str
    recorded_at: datetime
    command: str
    model: RecordedModel
    machine: Machine
    wall_seconds: float

    def caption(self) -> str:
        """The label a lesson prints above a recording: it was not run now, and how to run it again.

        The sampling it names is the server's default, used by every request that asks for no other; a recording
        whose requests asked for their own says so after it (:meth:`asked_sampling`).
        """
        defaults, own = _split_settings(self.model.sampling)
        sampling = _sampling_words(defaults)
        fixed = f"The server's own settings, {_SERVER_OWN_WORDS}: {_sampling_words(own)}.\n" if own else ""
        load = "-".join(f"{x:.1f}" for x in (self.machine.load_average_start[0], self.machine.load_average_end[0]))
        return (
            f"RECORDING (not run in this notebook): {self.model.model} ({self.model.model_package}, "
            f"SHA-256 {self.model.model_sha256[:12]}...) served by {self.model.server}.\n"
            f"The server's defaults, for every request that asks for no other: {sampling}{self.asked_sampling()}.\n"
            f"{fixed}"
            f"Recorded {self.recorded_at:%Y-%m-%d %H:%M} UTC on {self.machine.platform}, {self.machine.cpus} CPUs "
            f"(load average {load}), {self.wall_seconds:.0f} s wall.\n{command_lines(self.command, 'Reproduce')}\n"
            "Another machine, thread count or version may answer otherwise: a small model is not deterministic "
            f"across them.\n{_SKIPPABLE_SETTINGS}"
        )

    def asked_sampling(self) -> str:
        """What the recorded requests asked for over the server's defaults, as the caption ends it ("" here)."""
        return ""

    def details_html(self, *, plain: bool = False) -> str:
        """The caption folded away: a ``<details>`` a student may open (what ran, its settings, the machine, how to
        run it again), so the lesson's own sentence stays the one line a student reads.

        ``plain=True`` folds :meth:`plain_caption` instead, in a newcomer's words; the exact :meth:`caption` then
        goes under the hood (lesson 04).
        """
        caption = self.plain_caption() if plain else self.caption()
        what = "model, settings, machine" if plain else "model file, settings, machine, command"
        return f"<details><summary>How this was recorded ({what})</summary><pre>{html.escape(caption)}</pre></details>"

    def plain_caption(self) -> str:
        """:meth:`caption` in words a student new to local models reads: "the local server" for the server program and
        its version, "maximum output tokens" for the server's own setting name, no file hash and no command: making a
        recording is a maintainer's task (``make record-local``), so the command stays with the exact names under the
        hood. The values are the caption's; the exact names are :meth:`caption`'s."""
        return (
            f"{self.plain_model_lines(self.asked_sampling())}\n"
            f"Recorded {self.recorded_at:%Y-%m-%d %H:%M} UTC on {self.machine.platform}, {self.machine.cpus} CPUs, "
            f"{self.wall_seconds:.0f} s in all; the machine's load went from {self.load_words()} (1.0: one core's "
            f"worth of work).\n{_NOT_DETERMINISTIC}"
        )

    def plain_model_lines(self, asked: str) -> str:
        """The plain caption's first lines: the model, the server, its default settings, then ``asked``, what
        the requests asked for over them (several runs that asked for different ones share these lines)."""
        defaults, own = _split_settings(self.model.sampling)

        def named(settings: dict[str, Any]) -> list[str]:
            return [
                f"{words} {settings[key]}{note}" for key, (words, note) in _PLAIN_SETTINGS.items() if key in settings
            ]

        others = [key for key in defaults if key not in _PLAIN_SETTINGS]
        settings = "; ".join(named(defaults))
        if others:
            settings += f"; and {len(others)} more sampling settings, kept only to reproduce the run"
        fixed = f"\nIts own settings, {_SERVER_OWN_WORDS}: {'; '.join(named(own))}." if own else ""
        return (
            f"RECORDING (not run in this notebook): the model {model_in_words(self.model.model)}, answered by the "
            "local server (the "
            "program on the recording machine that loads the model file and answers the course's requests).\n"
            f"Its default settings, for every request that asks for no other: {settings}{asked}.{fixed}"
        )

    def load_words(self) -> str:
        """The machine's load at the start and end of the run, as the plain caption says it: ``7.9 to 6.3``."""
        return " to ".join(f"{x:.1f}" for x in (self.machine.load_average_start[0], self.machine.load_average_end[0]))


class RecordedCase(BaseModel):
    """One qualification case: the message, what the writer wrote (its raw reply, per call), the host's verdict.

    ``proposal`` holds each call's reply as the model wrote it; for a call that failed, the text it had written
    before the failure (an answer cut at the output cap), empty when it wrote nothing. ``call_errors`` holds each
    call's error (key masked), empty for a call that answered.
    """

    model_config = ConfigDict(frozen=True)

    case: str
    kind: str
    message: str
    expected: str
    outcome: ExtractionStatus | Literal["not_run"]
    as_contract: bool
    reason: str
    proposal: list[str]
    call_errors: list[str]
    admitted: str
    latency_s: float
    calls: int
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None


class QualificationRecording(Recording):
    """``make qualify``'s battery on the local model, case by case, with the request the writer was sent."""

    kind: Literal["qualification"] = "qualification"
    writer_request: str
    cases: list[RecordedCase]

    def writer_sampling(self) -> str:
        """The sampling the writer asked for, in the recording's words, or "" when it asked for none (the server's).

        The request is kept in words (:data:`WRITER_REQUEST`); its sampling follows :data:`SAMPLING_MARK`.
        """
        _, _, asked = self.writer_request.partition(SAMPLING_MARK)
        return asked

    def server_temperature(self) -> str:
        """The server's default temperature in the caption's words (``temperature 0.8``)."""
        return _sampling_words({"temperature": self.model.sampling["temperature"]})

    def asked_sampling(self) -> str:
        """The writer's own sampling after the server's defaults, or that it asked for none."""
        asked = self.writer_sampling()
        return f"; the writer asks for {asked} instead" if asked else "; the writer asks for no other"

    def is_cut(self, case: RecordedCase) -> bool:
        """A writer failure whose reply used the whole output cap: the server stopped it there."""
        cap = self.model.sampling.get("max_output_tokens (n_predict)")
        return case.outcome == "writer_failed" and cap is not None and (case.output_tokens or 0) >= cap * case.calls

    def measures(self) -> dict[str, object]:
        """What the lesson compares: the writer's sampling, cases as the contract says, cut at the cap, rejected,
        wrong admitted, time. The request itself is what each compared column is named by (its words name changes)."""
        return {
            "writer's sampling": self.writer_sampling() or f"the server's: {self.server_temperature()}",
            "cases as the contract says": f"{sum(c.as_contract for c in self.cases)} of {len(self.cases)}",
            "cut at the output cap": sum(map(self.is_cut, self.cases)),
            "rejected by the host": self.rejected_words(),
            "facts admitted that were not declared": sum(map(wrong_admitted, self.cases)),
            "output tokens": shown_count(reported_total(c.output_tokens for c in self.cases if c.calls)),
            "seconds it took": f"{self.wall_seconds:.0f}",
            LOAD_ROW: f"{self.machine.load_average_start[0]:.1f}",
        }

    def rejected_words(self) -> int | str:
        """The cases the host rejected, with how many of them it refused before any call, when some were.

        Why: lesson 00's row read 6 / 6 / 4 and counted the over-long message, which the host refuses before the
        writer is called (walk 21, issue 32): the writer never saw it. :func:`unsent_note` says which and why.
        """
        rejected = sum(c.outcome == "rejected" for c in self.cases)
        unsent = len(rejected_before_any_call(self))
        return f"{rejected} ({unsent} before any call)" if unsent else rejected

    def card(self) -> pd.DataFrame:
        """The scorecard ``make qualify`` prints, from the recording (its columns, :data:`SCORECARD_COLUMNS`)."""
        rows = [
            ScorecardRow(
                c.case,
                c.kind,
                c.expected,
                c.outcome,
                c.as_contract,
                self.shown_reason(c),
                c.latency_s,
                c.calls,
                c.input_tokens,
                c.output_tokens,
                c.total_tokens,
            ).shown()
            for c in self.cases
        ]
        return rows_frame(rows, SCORECARD_COLUMNS)

    def shown_reason(self, case: RecordedCase) -> str:
        """The reason, with a writer failure whose reply used the whole output cap said to be cut there.

        The server reports the completion tokens; a reply that used all of ``n_predict`` and is not valid JSON was
        stopped by the cap, whatever the parser's position (each one reads differently: line 6, line 40...).
        """
        if self.is_cut(case):
            cap = int(self.model.sampling["max_output_tokens (n_predict)"])
            return f"cut at the output cap ({cap} tokens): incomplete JSON"
        return case.reason

    def proposals(self) -> pd.DataFrame:
        """What the writer wrote for each case (cut to 120 characters) and what the host admitted, beside the outcome
        the contract expects and whether this run got it (the scorecard's ``expected`` and ``as contract``).

        Invisible characters are shown as markers (``[U+200B]``: :func:`course_lib.memory.mark_invisible`): the
        hidden-characters case's reply and fact read ``Billing`` on screen otherwise.

        A call that failed shows what it had written before the failure, after a ``[cut]`` mark, or its error when it
        wrote nothing; a case the host refused before any call says so (:data:`NOT_SENT`).
        """
        return rows_frame(
            [
                {
                    "case": c.case,
                    "expected": c.expected,
                    "outcome": c.outcome,
                    "as contract": c.as_contract,
                    "writer's reply": mark_invisible(_cut(" | ".join(map(_written, c.proposal, c.call_errors)), 120))
                    if c.calls
                    else NOT_SENT,
                    "admitted": mark_invisible(c.admitted) or "-",
                }
                for c in self.cases
            ],
            ["case", "expected", "outcome", "as contract", "writer's reply", "admitted"],
        )

    def wrong_proposals(self) -> pd.DataFrame:
        """:meth:`proposals`, folded to the cases this run did not get as the contract says, without the *as contract*
        column (it would read ``False`` on every row).

        Why: lesson 00's section 6 showed all fifteen cases in six columns, to make a point about three of them; a
        newcomer read the whole table to find them (issue 32). :meth:`wrong_proposals_note` counts the others.
        """
        every = self.proposals()
        wrong = every[[not c.as_contract for c in self.cases]]
        return wrong.drop(columns=["as contract"]).reset_index(drop=True)

    def wrong_proposals_note(self, limit: int = 120) -> str:
        """The line under :meth:`wrong_proposals`: how many other cases came out as the contract says, then any wrong
        reply the table cuts at ``limit`` characters, in full."""
        right = sum(c.as_contract for c in self.cases)
        said = f"The other {right} of {len(self.cases)} cases came out as the contract says."
        cut = self.cut_replies(limit, cases={c.case for c in self.cases if not c.as_contract})
        return f"{said}\n{cut}" if cut else said

    def cut_replies(self, limit: int = 120, cases: Iterable[str] | None = None) -> str:
        """The writer's replies :meth:`proposals` cuts at ``limit`` characters, in full, for under the table (issue 32:
        the three-declarations reply read ``{"key": "mo...`` and nowhere whole); only those of ``cases``, if given."""
        shown = None if cases is None else set(cases)
        replies = [
            (c.case, " | ".join(map(_written, c.proposal, c.call_errors)))
            for c in self.cases
            if c.calls and (shown is None or c.case in shown)
        ]
        cut = [(case, mark_invisible(reply)) for case, reply in replies if len(reply) > limit]
        if not cut:
            return ""
        return "\n".join(["The replies cut in the table, in full:", *(f"  {case}: {reply}" for case, reply in cut)])

    def totals(self) -> pd.DataFrame:
        return summary(self.card())


class PolicyRun(BaseModel):
    """One memory policy replayed on the local model: its calls, its cost reported and estimated, its time."""

    model_config = ConfigDict(frozen=True)

    policy: str
    reader_calls: int
    extra_calls: int
    chars_sent: int
    est_tokens: int
    input_tokens: int | None
    output_tokens: int | None
    seconds: float
    graded_correct: int
    graded: int
    stopped: str


POLICY_COST_COLUMNS = (
    "policy",
    "model calls",
    EST_TOKENS,
    reported_label("input_tokens"),
    reported_label("output_tokens"),
    "reported / estimate",
    "seconds",
    "correct answers",
    "stopped",
)
"""The columns of :meth:`PolicyCostRecording.table`, named once (the estimate spelled as every table spells it)."""


class PolicyCostRecording(Recording):
    """Lesson 04's comparison (the Demo170 timeline, rule ``latest``) on the local model, policy by policy."""

    kind: Literal["policy_costs"] = "policy_costs"
    timeline: str
    runs: list[PolicyRun]

    def table(self) -> pd.DataFrame:
        """Per policy: reported input and output tokens beside the chars/4 estimate, and the seconds spent."""
        rows = [
            {
                "policy": r.policy,
                "model calls": r.reader_calls + r.extra_calls,
                EST_TOKENS: r.est_tokens,
                reported_label("input_tokens"): shown_count(r.input_tokens),
                reported_label("output_tokens"): shown_count(r.output_tokens),
                "reported / estimate": UNKNOWN if r.input_tokens is None else f"{r.input_tokens / r.est_tokens:.2f}",
                "seconds": r.seconds,
                "correct answers": f"{r.graded_correct} of {r.graded}",
                "stopped": stop_cause(r.stopped, brief=True) if r.stopped else "no",
            }
            for r in self.runs
        ]
        return rows_frame(rows, POLICY_COST_COLUMNS).set_index("policy")

    def headline(self) -> str:
        """The one sentence a student reads above the table: which model, when, and what the table shows."""
        return (
            f"A recording made on {self.recorded_at:%Y-%m-%d} (not run here) of the {len(self.runs)} policies on a "
            f"small real model, {model_in_words(self.model.model)}: the tokens its server reported beside the "
            "estimate, and the seconds each policy took."
        )

    def columns_note(self) -> str:
        """What each column of :meth:`table` counts, with its unit: printed above the table, where a student needs it
        (read after the table, a column such as "reported / estimate" was a riddle while the numbers were in view).
        """
        graded = max((r.graded for r in self.runs), default=0)
        return "\n".join(
            (
                "The columns:",
                "- model calls: the reader's calls and the extra ones (writer, summarizer) together;",
                f'- "reported / estimate": the reported input tokens divided by the {EST_TOKENS}: above 1, the '
                "server counted more tokens than the estimate;",
                "- seconds: the time each policy's whole run took;",
                f"- correct answers: how many of the {graded} graded questions were answered right;",
                "- stopped: why a policy stopped before the end, or no.",
            )
        )

    def reading_notes(self) -> str:
        """How to read the table, under it, one note a paragraph: what the answers are worth (:meth:`answers_note`),
        and why the window and the reducer differ here (:meth:`same_turns_note`). The columns are said by
        :meth:`columns_note`.
        """
        return "\n\n".join(note for note in (self.answers_note(), self.same_turns_note()) if note)

    def answers_note(self) -> str:
        """What the recording's answers are worth, in one sentence, computed: when the small model got every graded
        answer wrong under every policy, the recording says something about cost only, and the student is told so
        instead of comparing zeros."""
        right = sum(r.graded_correct for r in self.runs)
        if right == 0:
            return (
                "The small model got every graded answer wrong under every policy here: read this recording for "
                "cost only, not for which policy answers best."
            )
        return f"The small model got {right} of {sum(r.graded for r in self.runs)} graded answers right in all."

    def notes_html(self, *more: str) -> str:
        """The notes on the table folded away: :meth:`columns_note`, :meth:`same_turns_note`, then ``more`` (lesson
        04 adds why the facts policy is the furthest off), in a ``<details>`` a student may open.

        Lesson 04's walk 25: printed in full, the recording's cell was about 1000 pixels tall; in view stay only what
        the lesson's prose uses (the table, what its answers are worth, the stop), and these notes are one click away.
        Escaped without quotes (``quote=False``), so a note reads the same in the fold as printed.
        """
        notes = "\n\n".join(note for note in (self.columns_note(), self.same_turns_note(), *more) if note)
        summary = "Notes on this table (its columns, and why some policies' tokens differ)"
        return f"<details><summary>{summary}</summary><pre>{html.escape(notes, quote=False)}</pre></details>"

    def same_turns_note(self) -> str:
        """Why the window and the reducer, which send the same turns offline, cost differently here: one sentence.

        Both keep the last turns, each a question *and the model's answer to it*. The offline reader answers the same
        words to the same messages, so their requests coincide; a real model samples, writes answers of other lengths
        in each run, and every answer is sent again with the questions after it. The sentence is computed from the two
        runs (their output tokens, then their input tokens), and is "" when either is missing or reported nothing.
        """
        kinds = {label: factory.kind for label, factory in course_policies().items()}
        pair = {kinds.get(r.policy): r for r in self.runs}
        window, reducer = pair.get("last_turns"), pair.get("reducer")
        if window is None or reducer is None:
            return ""
        counts = (window.output_tokens, reducer.output_tokens, window.input_tokens, reducer.input_tokens)
        if None in counts or window.input_tokens == reducer.input_tokens:
            return ""
        more, less = (
            (reducer, window) if (reducer.input_tokens or 0) > (window.input_tokens or 0) else (window, reducer)
        )
        same = (
            f"The {window.policy} and {reducer.policy} policies send the same turns, and each turn carries the model's "
            "own answer, which a real model words differently in every run"
        )
        read = f"its calls read more ({more.input_tokens} input tokens against {less.input_tokens})"
        if (more.output_tokens or 0) > (less.output_tokens or 0):
            wrote = f"{more.output_tokens} output tokens against {less.output_tokens}"
            resent = "every answer is sent again with the next questions"
            return f"{same}: here the {more.policy} run wrote more ({wrote}), and {resent}, so {read}."
        return f"{same}: here the {more.policy} run kept longer answers in view, so {read}."

    def stop_notes(self) -> str:
        """Each stopped policy in one plain sentence, for below the table ("" if none).

        The full message names the server's local address, the operator's setting and the server's output cap,
        which mean nothing to a student and are dead by the time one reads them; :meth:`stop_details` keeps it for
        "Under the hood" (:func:`~course_lib.policies.stop_line`: lesson 04's walk 25 moved the cap there too).
        """
        return "\n".join(
            f"{stop_line(r.policy, r.stopped, 'the small model')} {self._partial_estimate(r)}"
            for r in self.runs
            if r.stopped
        )

    @staticmethod
    def _partial_estimate(run: PolicyRun) -> str:
        """What a stopped policy's estimate counts: only the calls it made before it stopped, not the whole timeline.

        The summary's 127 estimated tokens sat in one column with the full runs' thousands, and a student read it as
        the cheapest policy; it is two calls, one turn.
        """
        calls = run.reader_calls + run.extra_calls
        return (
            f"Its estimate ({run.est_tokens} tokens) counts only its {calls} model call{'' if calls == 1 else 's'}, "
            "up to that stop, where a policy that did not stop counts its whole run."
        )

    def stop_details(self) -> str:
        """The full message of each policy that stopped, one paragraph each ("" if none), its server's address said in
        words (:func:`address_in_words`): that server stopped when the recording ended.

        A message recorded before the client knew the local server's own cap advised raising
        ``COURSE_LLM_MAX_TOKENS``, which the course refuses above that cap (lesson 04's walks): that advice is replaced
        by what the client says now (:func:`~course_lib.live_client.cut_advice`), and one short note after the
        message says so. Showing the old advice and then retracting it left a student unsure which to follow
        (walk 19); the recording file keeps its words.
        """
        return "\n".join(
            f"{r.policy} stopped: {self._advice_now(address_in_words(r.stopped))}" for r in self.runs if r.stopped
        )

    def _advice_now(self, message: str) -> str:
        """``message`` with recorded advice that no longer holds at the server's own cap replaced by the advice the
        client gives now, and a note saying so; any other message unchanged."""
        cap = self.model.sampling.get("max_output_tokens (n_predict)")
        old = re.search(rf"raise {MAX_TOKENS_VAR} \(now (\d+)\)( or ask for a shorter answer)?", message)
        if cap is None or old is None or int(old.group(1)) < int(cap):
            return message
        now = cut_advice(int(old.group(1)), int(cap))
        return (
            f"{message[: old.start()]}{now}{message[old.end() :]}\n"
            "(Advice as the course's client gives it now; the recording, made earlier, said to raise the setting.)"
        )


class CallTokens(BaseModel):
    """One call of the facts policy, counted with the model's tokenizer: its text alone, then as the server sends it.

    ``prompt_tokens`` is the call as the server's chat template lays it out (each message between the marks that say
    who speaks), what a server reports as input tokens; ``text_tokens`` counts the instructions and messages alone,
    each on its own, as *chars sent* counts their characters.
    """

    model_config = ConfigDict(frozen=True)

    client: str
    messages: int
    chars: int
    text_tokens: int
    prompt_tokens: int


class FactsTokenCount(BaseModel):
    """Lesson 04's facts policy (Demo170, rule ``latest``) replayed offline, each call counted by the local model's
    tokenizer: the facts policy sends the same characters offline and live (no model answer is sent again), so
    this is the text the recording's facts run sent, and its total can be checked against the reported tokens.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["facts_tokens"] = "facts_tokens"
    model: str
    command: str
    timestamp: str
    """A time as a fact carries it (``recorded 2026-12-02T02:15:18+00:00``), counted alone: ``timestamp_tokens``."""
    timestamp_tokens: int
    reader_times: int
    """How many times (one per fact) the reader's calls carry, and ``reader_time_tokens`` the tokens they take."""
    reader_time_tokens: int
    calls: list[CallTokens]

    def part(self, client: str) -> tuple[int, int, int, int]:
        """``client``'s calls added up: characters, text tokens, template tokens, and the most messages in one call."""
        mine = [c for c in self.calls if c.client == client]
        return (
            sum(c.chars for c in mine),
            sum(c.text_tokens for c in mine),
            sum(c.prompt_tokens - c.text_tokens for c in mine),
            max((c.messages for c in mine), default=0),
        )

    @property
    def total(self) -> int:
        """The input tokens these calls come to as the server counts them (the chat template included)."""
        return sum(c.prompt_tokens for c in self.calls)


def count_facts_tokens(
    calls: Iterable[ModelCall], tokens: Callable[[str], int], prompt: Callable[[list[dict[str, str]]], str]
) -> list[CallTokens]:
    """Each call counted: ``tokens`` counts a text's tokens, ``prompt`` lays messages out as the server's template.

    The instructions go first, as a ``system`` message: where MAF puts them in the request.
    """
    counted = []
    for call in calls:
        texts = ([call.instructions] if call.instructions else []) + [m.text for m in call.messages]
        roles = (["system"] if call.instructions else []) + [m.role for m in call.messages]
        laid_out = prompt([{"role": role, "content": text} for role, text in zip(roles, texts, strict=True)])
        counted.append(
            CallTokens(
                client=call.client,
                messages=len(texts),
                chars=call.chars_sent,
                text_tokens=sum(tokens(text) for text in texts),
                prompt_tokens=tokens(laid_out),
            )
        )
    return counted


FACTS_TOKENS_COMMAND = "make local && .venv/bin/python -m course_lib.recordings facts-tokens"


async def record_facts_tokens() -> FactsTokenCount:
    """The facts policy's calls replayed offline and counted by the running local model's tokenizer (its server's
    ``/tokenize`` and ``/apply-template``): no model answers, so the count is the same on any machine."""
    from .local_model import LocalServerSettings, start_local_server, threads_setting  # xllamacpp: local only

    server = current_local_server() or start_local_server(LocalServerSettings(threads=threads_setting(None)))
    root = server.base_url.removesuffix("/v1")

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            root + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as reply:  # the local server, on 127.0.0.1
            answer: dict[str, Any] = json.load(reply)
        return answer

    def tokens(text: str) -> int:
        return len(post("/tokenize", {"content": text, "add_special": False})["tokens"]) if text else 0

    log = CallLog()
    facts = course_policies(backends=Backends(backend="offline"))["facts"]  # the text only: no model answers
    await run_policy(load_timeline(), facts("latest", log), log, "latest")
    reader_text = "\n".join(m.text for c in log.calls if c.client == "reader" for m in c.messages)
    times = re.findall(r"; recorded (\S+?)\)", reader_text)
    return FactsTokenCount(
        model=server.model.alias,
        command=FACTS_TOKENS_COMMAND,
        timestamp=times[0] if times else "",
        timestamp_tokens=tokens(times[0]) if times else 0,
        reader_times=len(times),
        reader_time_tokens=sum(tokens(time) for time in times),
        calls=count_facts_tokens(
            log.calls, tokens, lambda messages: post("/apply-template", {"messages": messages})["prompt"]
        ),
    )


def load_facts_tokens(path: Path = FACTS_TOKENS_FILE) -> FactsTokenCount:
    """The committed count of the facts policy's tokens (lesson 04 prints :func:`facts_gap_note` from it)."""
    return FactsTokenCount.model_validate_json(path.read_text(encoding="utf-8"))


def example_on_the_recording_day(example: str, recorded_at: datetime) -> str:
    """How the note shows a fact's time: "a timestamp such as ..." written like ``example``, at ``recorded_at``.

    The count replays the facts policy later than the recording, so its own timestamp (``example``) can fall on
    another day than the recording's: shown as is, a fact would seem recorded after the recording. The time shown is
    the recording's own, in ``example``'s form (same length, so the same tokens a character); a form the course
    cannot read is not shown at all.
    """
    try:
        parsed = datetime.fromisoformat(example)
    except ValueError:
        return "a timestamp"
    if parsed.tzinfo is None:
        return "a timestamp"
    moment = recorded_at if recorded_at.tzinfo else recorded_at.replace(tzinfo=UTC)
    form = "microseconds" if "." in example else "seconds"
    shown = moment.astimezone(parsed.tzinfo).isoformat(timespec=form)
    return f"a timestamp such as {shown}" if len(shown) == len(example) else "a timestamp"


def _facts_gap_mismatch(recording: PolicyCostRecording, counted: FactsTokenCount) -> str | None:
    """``None`` when the count reproduces the recording's facts run (same model, characters and reported tokens);
    otherwise what :func:`facts_gap_note` and :func:`facts_gap_sentence` say instead ("" with no reported tokens)."""
    run = next((r for r in recording.runs if r.policy == "facts"), None)
    if run is None or run.input_tokens is None:
        return ""
    same = (
        counted.model == recording.model.model
        and sum(c.chars for c in counted.calls) == run.chars_sent
        and counted.total == run.input_tokens
    )
    if same:
        return None
    return (
        f"The facts policy's reported tokens are the furthest from the estimate "
        f"({run.input_tokens / run.est_tokens:.2f}); the course's own count of its calls does not match this "
        "recording, so the course does not explain that gap here."
    )


def facts_gap_sentence(recording: PolicyCostRecording, counted: FactsTokenCount) -> str:
    """:func:`facts_gap_note` in one sentence, for lesson 04's path: the main cause (each fact's timestamp, about a
    token a digit) and where the arithmetic is (the lesson's "Under the hood", which prints the note). Lesson 04's
    walk 22: the note's arithmetic, on the path, was the hardest text of section 4.
    """
    mismatch = _facts_gap_mismatch(recording, counted)
    if mismatch is not None:
        return mismatch
    run = next(r for r in recording.runs if r.policy == "facts")
    ratio = f"{run.input_tokens / run.est_tokens:.2f}" if run.input_tokens is not None else ""
    example, each = counted.timestamp, counted.timestamp_tokens
    shown = example_on_the_recording_day(example, recording.recorded_at)
    stamp = (
        "a token for each digit and sign" if each == len(example) else f"{each} tokens for {len(example)} characters"
    )
    return (
        f"Why the facts policy is the furthest off ({ratio}): each fact carries the time it was recorded, {shown}, "
        f"which costs {stamp}, not one token for every 4 characters; the arithmetic, counted again with the model's "
        "own tokenizer, is under the hood at the end of the lesson."
    )


def facts_gap_note(recording: PolicyCostRecording, counted: FactsTokenCount) -> str:
    """Why the facts policy's reported tokens are the furthest from the chars/4 estimate, computed from the count.

    Said only when the count reproduces the recording (same model, same characters, same reported input tokens):
    otherwise the note says the course does not explain the gap, rather than explain another run's.
    """
    mismatch = _facts_gap_mismatch(recording, counted)
    if mismatch is not None:
        return mismatch
    run = next(r for r in recording.runs if r.policy == "facts")
    ratio = f"{run.input_tokens / run.est_tokens:.2f}" if run.input_tokens is not None else ""
    reader_chars, reader_tokens, reader_marks, _ = counted.part("reader")
    writer_chars, writer_tokens, writer_marks, writer_messages = counted.part("writer")
    example, each = counted.timestamp, counted.timestamp_tokens
    shown = example_on_the_recording_day(example, recording.recorded_at)
    stamp = (
        "a token for each digit and sign" if each == len(example) else f"{each} tokens for {len(example)} characters"
    )
    times, time_tokens = counted.reader_times, counted.reader_time_tokens
    time_chars = times * len(example)  # every time written the same way: an ISO date, time and offset
    rest = (reader_chars - time_chars) / (reader_tokens - time_tokens)
    return (
        f"Why the facts policy is the furthest off ({ratio}): counted again with the model's own tokenizer (its rule "
        f"for cutting text into tokens), its {len(counted.calls)} calls come to {counted.total} tokens, the number "
        f"its server reported. Its reader's calls run {reader_chars / reader_tokens:.1f} characters a token, not 4 "
        f"({reader_tokens} tokens for {reader_chars} characters), because each fact carries the time it was "
        f"recorded, {shown}, at {stamp}: {times} times, {time_tokens} tokens; the rest runs {rest:.1f}. "
        f"Its writer's instructions, worked examples and messages run {writer_chars / writer_tokens:.1f} "
        f"({writer_tokens} tokens for {writer_chars} characters). And the marks the server puts around every message "
        "to say who speaks, which no character count sees, add "
        f"{reader_marks + writer_marks} tokens, {writer_marks} of them in the writer's calls of {writer_messages} "
        "messages each."
    )


RECORDED_ADDRESS = "the local model's address (its server stopped when the recording ended)"
"""What a recorded message says where it named the server's URL: a link there would lead nowhere."""


def address_in_words(text: str) -> str:
    """``text`` with every web address replaced by :data:`RECORDED_ADDRESS`.

    JupyterLab turns an address in printed text into a link; a recording's ``http://127.0.0.1:36927/v1`` names a
    server that ran on the recording's machine for the length of the recording, so the link would be dead.
    The punctuation after an address (``.../v1:``) stays the sentence's.
    """
    return re.sub(r"https?://\S+?(?=[:;,.)]?(\s|$))", RECORDED_ADDRESS, text)


NOT_SENT = "(not sent: the host refused the message before any call)"
"""The writer's reply for a case with no call: the contract refused the message whole (too long, say)."""


def _written(text: str, error: str) -> str:
    """One call's text in the proposals table: its reply, what it wrote before it failed (marked), or its error."""
    if not error:
        return text
    return f"[cut] {text}" if text else f"(failed: {error})"  # the mark first: the table cuts the text at 120


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _load() -> tuple[float, float, float]:
    one, five, fifteen = os.getloadavg()
    return (round(one, 2), round(five, 2), round(fifteen, 2))


def _local_model() -> RecordedModel:
    """The running local server's description; a recording is of the local model, never of another endpoint."""
    backends = course_backends()
    server = current_local_server()
    if backends.backend != "local" or server is None:
        raise LocalModelError(
            "A recording is made on the local model: run it with COURSE_LLM=local (make record-local)."
        )
    return RecordedModel(**server.describe())


def _require_every_call(what: str) -> None:
    """Refuse to time calls that the memo could answer (``COURSE_LOCAL_REUSE``): they would be timed at its speed."""
    live = course_backends().live
    if live is not None and live.reuse_answers:
        raise LocalModelError(
            f"{what}: record with {REUSE_VAR}=0 (make record-local and python -m course_lib.recordings set it), or a "
            "request already answered would be timed at the memo's speed."
        )


def declared_pairs(case: Case) -> set[tuple[str, str]]:
    """Every ``(key, value)`` declared in the case's messages: the only facts the contract lets in.

    A message the contract refuses as a whole (too long, hidden characters) declares nothing.
    """
    pairs: set[tuple[str, str]] = set()
    for text in (*case.before, case.text):
        try:
            pairs |= {(d.key, d.value) for d in find_declarations(text)}
        except MessageRefused:
            continue
    return pairs


def wrong_admitted(recorded: RecordedCase) -> int:
    """Facts admitted in a recorded case that none of its messages declared (the host keeps this at 0).

    ``admitted`` is ``key=value; key=value``: a value cannot hold ``;``, which separates declarations.
    """
    case = next(c for c in BATTERY if c.name == recorded.case)
    admitted = [tuple(pair.split("=", 1)) for pair in recorded.admitted.split("; ") if pair]
    return sum(pair not in declared_pairs(case) for pair in admitted)


def qualification_steps() -> dict[str, QualificationRecording]:
    """The recorded runs of the writer's request, each change after the last (issue 39), the current one last."""
    return {
        "the rules alone": load_qualification(QUALIFICATION_BEFORE_FILE),
        "+ worked examples, bounded schema": load_qualification(QUALIFICATION_EXAMPLES_FILE),
        "+ the declared count (now)": load_qualification(),
    }


def compare_qualifications(recordings: dict[str, QualificationRecording]) -> pd.DataFrame:
    """Recordings side by side, one column each (lesson 00: the writer's request before and after issue 39)."""
    measures = {name: recording.measures() for name, recording in recordings.items()}
    rows = [
        {"measure": m, **{name: values[m] for name, values in measures.items()}} for m in next(iter(measures.values()))
    ]
    return rows_frame(rows, ["measure", *recordings], dtype=object).set_index("measure")


_COUNT_WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five"}
"""How many runs a comparison's headline names, in words (a sentence does not open on a digit)."""


def _shared_model(recordings: dict[str, QualificationRecording]) -> QualificationRecording:
    """The last run, once every run is checked to share its model, server settings and command.

    Why: the comparison's headline and fold say these once for all its runs, which is only true if they agree.
    """
    runs = list(recordings.values())
    last = runs[-1]
    if any(run.model != last.model or run.command != last.command for run in runs):
        raise ValueError("the runs differ in model, server settings or command: say each run's apart")
    return last


def steps_headline(recordings: dict[str, QualificationRecording]) -> str:
    """The one sentence above lesson 00's comparison: how many recordings, when, of what, and how to run one again.

    Why: it once read "A recording made on 2026-12-02" above a table of three runs made on two days (issue 32).
    """
    last = _shared_model(recordings)
    days = sorted({f"{run.recorded_at:%Y-%m-%d}" for run in recordings.values()})
    when = f"on {days[0]}" if len(days) == 1 else f"from {days[0]} to {days[-1]}"
    count = _COUNT_WORDS.get(len(recordings), str(len(recordings)))
    return (
        f"{count} recordings, one per column below, made {when} (not run here) of make qualify on a small real model, "
        f"{model_in_words(last.model.model)}.\n"
        f"{command_lines(last.command, 'To run the last one again, in a terminal')}"
    )


_ALSO = re.compile(r"^(?P<command>[^(]+?) \((?P<label>[^:()]+): (?P<also>[^()]+)\)$")
"""A recorded command with a second one in brackets: ``make local && make record-local (the scorecard alone: ...)``."""


def command_lines(command: str, lead: str) -> str:
    """A recorded command as a student copies it: ``lead``, then each shell command on a line of its own.

    Why: the headline gave ``make local && make record-local (the scorecard alone: make qualify COURSE_LLM=local)``
    inside its sentence, brackets and all, which no shell runs as copied (issue 32, lesson 00's seventh walk).
    """
    also = _ALSO.match(command)
    if also is None:
        return f"{lead}:\n  {command}"
    label = also["label"][0].upper() + also["label"][1:]
    return f"{lead}:\n  {also['command']}\n{label}:\n  {also['also']}"


def steps_plain_caption(recordings: dict[str, QualificationRecording]) -> str:
    """The fold above lesson 00's comparison, in a newcomer's words: the model and server settings the runs share,
    then one line per run (when, how long, how busy the machine was), each named by its column.

    Why: the fold was the last run's caption alone ("24 s in all; the machine's load went from 7.9 to 6.3") above a
    table whose runs took 75, 48 and 24 s at loads 1.0, 10.3 and 7.9 (issue 32): now each figure names its run. The
    writer's own sampling differs by run, so the fold points to the table's row that gives it.
    """
    last = _shared_model(recordings)
    machines = {(run.machine.platform, run.machine.cpus) for run in recordings.values()}
    where = f" on {last.machine.platform} with {last.machine.cpus} CPUs" if len(machines) == 1 else ""
    lines = [
        last.plain_model_lines("; the table's first row says what the writer asked for in each run"),
        f"{_COUNT_WORDS.get(len(recordings), str(len(recordings)))} runs{where}, one per column of the table; the "
        "load is how busy the machine was (1.0: one core's worth of work):",
    ]
    for name, run in recordings.items():
        on = "" if where else f" on {run.machine.platform}, {run.machine.cpus} CPUs"
        lines.append(
            f"  {name}: recorded {run.recorded_at:%Y-%m-%d %H:%M} UTC{on}, {run.wall_seconds:.0f} s in all; the load "
            f"went from {run.load_words()}."
        )
    return "\n".join([*lines, _NOT_DETERMINISTIC])


def steps_details_html(recordings: dict[str, QualificationRecording]) -> str:
    """:func:`steps_plain_caption` folded away, as :meth:`Recording.details_html` folds one run's."""
    caption = html.escape(steps_plain_caption(recordings))
    summary = "How these were recorded (model, settings, machine)"
    return f"<details><summary>{summary}</summary><pre>{caption}</pre></details>"


def misses_note(recordings: dict[str, QualificationRecording]) -> str:
    """The cases each run missed (not as the contract says), one line per run, under the comparison's count.

    A sentence about the table is computed from it: lesson 00 once said "two faults" beside 10 of 15 (issue 32).
    A run that missed most cases names the few it kept instead.
    """
    lines = ["The cases each request missed (not as the contract says):"]
    for name, recording in recordings.items():
        missed = [c.case for c in recording.cases if not c.as_contract]
        kept = [c.case for c in recording.cases if c.as_contract]
        count = f"missed {len(missed)} of {len(recording.cases)}"
        if not missed:
            lines.append(f"  {name}: {count}.")
        elif len(missed) > len(kept):
            lines.append(f"  {name}: {count}, every case but {_quoted_list(kept)}.")
        else:
            lines.append(f"  {name}: {count}: {_quoted_list(missed)}.")
    return "\n".join(lines)


def cut_reply_note(recordings: dict[str, QualificationRecording], chars: int = 150) -> str:
    """The start of one reply cut at the output cap, from the first run that has one; "" when no run has one.

    Lesson 00 said "it repeated itself inside the JSON until the output cap cut it" and showed only the count (walk
    22): the first cut case of the first such run is shown, its first ``chars`` characters, runs of blanks made one
    space and invisible characters marked (:func:`course_lib.memory.mark_invisible`).
    """
    for name, recording in recordings.items():
        cut = next((c for c in recording.cases if recording.is_cut(c) and any(c.proposal)), None)
        if cut is None:
            continue
        reply = " ".join(next(p for p in cut.proposal if p).split())
        shown = mark_invisible(reply[:chars]) + ("..." if len(reply) > chars else "")
        return (
            f"One cut reply, for “{cut.case}” in the run “{name}”, its first {min(chars, len(reply))} of "
            f"{len(reply)} characters (line breaks made spaces):\n  {shown}"
        )
    return ""


def rows_overlap_note(recordings: dict[str, QualificationRecording]) -> str:
    """The lines right under lesson 00's comparison: why its counts of cases need not add up, and what a cut reply's
    outcome is; "" when no row overlaps another and no reply was cut.

    Why: the first run's column read 1 of 15 as the contract says, 9 cut at the output cap and 6 rejected, 16 in all,
    and nothing said that the 9 cut replies are ``writer_failed`` (walk 24, issue 32). A case the contract expects
    rejected counts both as the contract says and as rejected; a cut reply is a writer failure, never a rejection.
    Both are computed from the recordings.
    """
    both = {
        name: [c.case for c in run.cases if c.as_contract and c.outcome == "rejected"]
        for name, run in recordings.items()
    }
    cut = {name: sum(map(run.is_cut, run.cases)) for name, run in recordings.items()}
    items = []
    if any(both.values()):
        if len({tuple(cases) for cases in both.values()}) == 1:
            cases = next(iter(both.values()))
            where = " in every run" if len(recordings) > 1 else ""
            one = len(cases) == 1
            items.append(
                f"{_quoted_list(cases)} {'counts' if one else 'count'}{where} both as the contract says and as "
                f"rejected by the host: the contract expects the host to reject {'it' if one else 'them'}"
            )
        else:
            items += [
                f"in \N{LEFT DOUBLE QUOTATION MARK}{name}\N{RIGHT DOUBLE QUOTATION MARK}, {_quoted_list(cases)} "
                "counts both as the contract says and as rejected by the host (the contract expects it rejected)"
                for name, cases in both.items()
                if cases
            ]
    with_cuts = {name: count for name, count in cut.items() if count}
    failed = "writer_failed: the writer gave no proposal to check, so nothing was stored"
    if len(with_cuts) == 1:
        ((name, count),) = with_cuts.items()
        replies = "the reply" if count == 1 else f"the {count} replies"
        where = f"in \N{LEFT DOUBLE QUOTATION MARK}{name}\N{RIGHT DOUBLE QUOTATION MARK}"
        items.append(f"{replies} cut at the output cap {where} {'is' if count == 1 else 'are'} {failed}")
    elif with_cuts:
        counts = _spoken(
            f"{count} in \N{LEFT DOUBLE QUOTATION MARK}{name}\N{RIGHT DOUBLE QUOTATION MARK}"
            for name, count in with_cuts.items()
        )
        items.append(f"the replies cut at the output cap ({counts}) are {failed}")
    if not items:
        return ""
    if not any(both.values()):
        return "\n".join(f"{item[0].upper()}{item[1:]}." for item in items)
    sizes = {len(run.cases) for run in recordings.values()}
    total = f" to {next(iter(sizes))}" if len(sizes) == 1 else ""
    lead = f"The rows overlap, so their counts need not add up{total}: a case counts in every row it fits."
    return "\n".join([lead, *(f"  {item};" for item in items[:-1]), f"  {items[-1]}."])


def rejected_before_any_call(recording: QualificationRecording) -> list[RecordedCase]:
    """The cases the host rejected without calling the writer: the contract refused the message whole."""
    return [c for c in recording.cases if c.outcome == "rejected" and c.calls == 0]


def unsent_note(recordings: dict[str, QualificationRecording]) -> str:
    """The lines under lesson 00's comparison that say which rejections came before any call, and why; "" if none.

    Computed from the recordings: the cases each run rejected with no call, named once when every run has the same
    ones, else run by run, then each case's reason in the scorecard's words (:func:`reason_in_words`).
    """
    unsent = {name: rejected_before_any_call(run) for name, run in recordings.items()}
    if not any(unsent.values()):
        return ""
    named = {name: [c.case for c in cases] for name, cases in unsent.items()}
    reasons = {c.case: reason_in_words(c.reason) for cases in unsent.values() for c in cases}
    them = "it" if len(reasons) == 1 else "them"
    if len({tuple(cases) for cases in named.values()}) == 1:
        cases = _quoted_list(next(iter(named.values())))
        lines = [f"In every run, the host refused {cases} before any call: the writer never saw {them}."]
    else:
        lines = [f"The host refused these before any call: the writer never saw {them}."]
        lines += [f"  {name}: {_quoted_list(cases)}." for name, cases in named.items() if cases]
    if len(reasons) == 1:
        lines.append(f"Why: {next(iter(reasons.values()))}.")
    else:
        lines += [f"Why, for “{case}”: {why}." for case, why in reasons.items()]
    return "\n".join(lines)


def _quoted_list(names: list[str]) -> str:
    """Case names in quotes, the last after "and" (a name may hold a colon or a comma: the quotes keep it whole)."""
    quoted = [f"“{name}”" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


COMPARABLE_LOAD = 1.5
"""How much busier one run's machine may be than another's before their seconds say more about the load than about
the request: beyond it, a lesson says the times are not comparable."""


def times_note(recordings: dict[str, QualificationRecording]) -> str:
    """A few short lines under a comparison: may a student read its seconds as the effect of each change?

    Computed from the loads and the output tokens the runs recorded, so a re-recording on a quiet machine says it
    may. A model takes time for every token it writes, so the seconds follow the output tokens as much as the load:
    when the slowest run was not on the busiest machine, the note says the tokens explain it (the recording showed
    75 s at load 1.0 against 24 s at load 7.9, with 2954 output tokens against 318: "a busier machine is slower"
    alone contradicted the table, issue 32). It ends on what to compare instead, the cases and output tokens (the
    rows each change is meant to move), since "compare the other rows" left the conclusion to the student. Each
    cause has a line of its own: one sentence holding both, with their numbers, was too much to read at once
    (walk 19).
    """
    loads = [recording.machine.load_average_start[0] for recording in recordings.values()]
    low, high = min(loads), max(loads)
    if high <= COMPARABLE_LOAD * max(low, 0.1):
        span = f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f} to {high:.1f}"
        return f"The machine was about as busy in every run (load {span}): the seconds compare."
    runs = list(recordings.values())
    tokens = [reported_total(c.output_tokens for c in run.cases if c.calls) for run in runs]
    busy = f"load {_spoken(f'{load:.1f}' for load in loads)}"
    lines = [
        "The seconds are not comparable. They mix two causes:",
        f"  how busy the machine was at the start: {busy} (a busier machine works slower);",
    ]
    wrote = "(a model takes time for every token it writes)."
    counts = [count for count in tokens if count is not None]
    if len(counts) < len(tokens):  # a run without reported tokens: no count to compare
        lines += [
            f"  how much the model wrote {wrote}",
            "So judge each change by the rows of cases, not by its seconds.",
        ]
        return "\n".join(lines)
    lines.append(f"  how much the model wrote: {_spoken(str(count) for count in counts)} output tokens {wrote}")
    slowest = max(range(len(runs)), key=lambda i: runs[i].wall_seconds)
    if loads[slowest] < high and counts[slowest] == max(counts):
        seconds = f"{runs[slowest].wall_seconds:.0f} s"
        lines.append(f"The slowest run ({seconds}) was not on the busiest machine: it wrote the most tokens.")
    lines.append("So judge each change by the rows of cases and output tokens, not by its seconds.")
    return "\n".join(lines)


def _spoken(values: Iterable[str]) -> str:
    """``1.0, 10.3, then 7.9``: the runs' values in their order."""
    items = list(values)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + ", then " + items[-1]


def recorded_case(result: CaseResult) -> RecordedCase:
    """A case of ``make qualify``'s run (:func:`course_lib.qualify.score_battery`) as the recording keeps it."""
    report = result.report
    return RecordedCase(
        case=result.case.name,
        kind=result.case.kind,
        message=_cut(result.case.text, 300),
        expected=result.expected.status,
        outcome=report.status if report is not None else "not_run",
        as_contract=result.as_contract,
        reason=result.reason,
        proposal=[_cut(call.reply or call.partial_reply, 2000) for call in result.calls],
        call_errors=[_cut(call.error or "", 600) for call in result.calls],
        admitted=facts_of(report) if report is not None and report.status == "accepted" else "",
        latency_s=round(result.latency, 2),
        calls=len(result.calls),
        **{field: result.usage(field) for field in USAGE_FIELDS},
    )


async def record_qualification(battery: tuple[Case, ...] = BATTERY) -> QualificationRecording:
    """``make qualify``'s run (the same loop, the same host admission) on the local writer, case by case."""
    load_at_start, started, recorded_at = _load(), time.perf_counter(), datetime.now(UTC)
    model = _local_model()
    _require_every_call("The qualification times each case's calls")  # two of its messages are the same words
    log = CallLog()
    results = await score_battery(make_chat_client("writer", log=log), log, battery)
    return QualificationRecording(
        recorded_at=recorded_at,
        command=f"{RECORD_COMMAND} (the scorecard alone: make qualify COURSE_LLM=local)",
        model=model,
        machine=Machine.now(load_at_start),
        wall_seconds=round(time.perf_counter() - started, 1),
        writer_request=WRITER_REQUEST,
        cases=[recorded_case(result) for result in results],
    )


async def record_policy_costs() -> PolicyCostRecording:
    """Each of lesson 04's six policies on the Demo170 timeline under ``latest``, timed; a refusal is recorded."""
    load_at_start, started, recorded_at = _load(), time.perf_counter(), datetime.now(UTC)
    model = _local_model()
    _require_every_call("The policy costs time every policy's own calls")  # two policies can send one request
    timeline = load_timeline()
    runs = []
    for name, factory in course_policies().items():
        log = CallLog()
        start = time.perf_counter()
        stopped, answers = "", list[AnswerRow]()
        try:
            _, answers = await run_policy(timeline, factory("latest", log), log, "latest")
        except SummaryRejected as error:
            stopped = str(error)
        calls = log.calls
        runs.append(
            PolicyRun(
                policy=name,
                reader_calls=sum(c.client == "reader" for c in calls),
                extra_calls=sum(c.client != "reader" for c in calls),
                chars_sent=sum(c.chars_sent for c in calls),
                est_tokens=sum(c.chars_sent // 4 for c in calls),
                input_tokens=reported_total(c.input_tokens for c in calls),
                output_tokens=reported_total(c.output_tokens for c in calls),
                seconds=round(time.perf_counter() - start, 1),
                graded_correct=sum(a.correct for a in answers),
                graded=sum(t.expect is not None for t in timeline.turns),
                stopped=stopped,
            )
        )
    return PolicyCostRecording(
        recorded_at=recorded_at,
        command=RECORD_COMMAND,
        model=model,
        machine=Machine.now(load_at_start),
        wall_seconds=round(time.perf_counter() - started, 1),
        timeline=timeline.name,
        runs=runs,
    )


def load_qualification(path: Path = QUALIFICATION_FILE) -> QualificationRecording:
    """The committed qualification recording (lesson 00 shows it)."""
    return QualificationRecording.model_validate_json(path.read_text(encoding="utf-8"))


def load_policy_costs(path: Path = POLICY_COSTS_FILE) -> PolicyCostRecording:
    """The committed policy-cost recording (lesson 04 shows it)."""
    return PolicyCostRecording.model_validate_json(path.read_text(encoding="utf-8"))


def save(recording: Recording, path: Path) -> None:
    path.write_text(recording.model_dump_json(indent=2) + "\n", encoding="utf-8")


QUALIFICATION_FILES = (QUALIFICATION_BEFORE_FILE, QUALIFICATION_EXAMPLES_FILE, QUALIFICATION_FILE)
"""Every recording of ``make qualify``'s battery: the three requests of :func:`qualification_steps`."""


def relabelled(recording: QualificationRecording, battery: tuple[Case, ...] = BATTERY) -> QualificationRecording:
    """``recording`` with each case's name and kind taken from ``battery``; what the model wrote is left as it is.

    A case's name and kind are labels: renaming one in :data:`~course_lib.qualify.BATTERY` should not need a new
    run of the model. The recording's cases are matched to the battery by position and message, so a case whose
    sent text changed is refused by name (its recorded answer is to another message: record it again).
    """
    if len(recording.cases) != len(battery):
        raise ValueError(
            f"The recording holds {len(recording.cases)} cases and the battery {len(battery)} (rule: a relabel "
            "renames cases, it neither adds nor drops one). Nothing was relabelled: record the battery again."
        )
    for recorded, case in zip(recording.cases, battery, strict=True):
        if recorded.message != _cut(case.text, 300):
            raise ValueError(
                f"Recorded case {recorded.case!r} sent {recorded.message[:60]!r}, the battery's case {case.name!r} "
                f"sends {case.text[:60]!r} (rule: a relabel keeps every message). Nothing was relabelled: record "
                "the battery again."
            )
    cases = [
        c.model_copy(update={"case": b.name, "kind": b.kind}) for c, b in zip(recording.cases, battery, strict=True)
    ]
    return recording.model_copy(update={"cases": cases})


SCHEMAS: dict[str, type[BaseModel]] = {
    "qualification_local.schema.json": QualificationRecording,
    "policy_costs_local.schema.json": PolicyCostRecording,
}
"""Each recording's schema file under data/, generated from its model (a test fails when they differ)."""


def main(argv: list[str]) -> int:
    os.environ[REUSE_VAR] = "0"  # a recording times each call: none is answered from the memo
    which = argv or ["qualification", "policies"]
    try:
        for name in which:
            if name == "qualification":
                qualification = asyncio.run(record_qualification())
                save(qualification, QUALIFICATION_FILE)
                print(qualification.caption(), qualification.totals().to_string(), sep="\n\n")
            elif name == "relabel":  # the battery's case names and kinds into the recordings, no model run
                for path in QUALIFICATION_FILES:
                    save(relabelled(load_qualification(path)), path)
                    print(f"relabelled {path.name}")
            elif name == "facts-tokens":  # the facts policy's calls counted by the local model's tokenizer
                counted = asyncio.run(record_facts_tokens())
                FACTS_TOKENS_FILE.write_text(counted.model_dump_json(indent=1) + "\n", encoding="utf-8")
                print(f"{counted.total} tokens in {len(counted.calls)} calls: {FACTS_TOKENS_FILE.name}")
            elif name == "policies":
                costs = asyncio.run(record_policy_costs())
                save(costs, POLICY_COSTS_FILE)
                print(costs.caption(), costs.table().to_string(), sep="\n\n")
            else:
                print(
                    f"Unknown recording {name!r}; choose qualification, policies, facts-tokens or relabel.",
                    file=sys.stderr,
                )
                return 2
    except LiveSettingsError as error:
        print(error, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
