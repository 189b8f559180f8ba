"""The memory lessons' offline models: the fact writer, the desk assistant (and reader), the summarizer.

Memory-half scenario code: each model reads the contract (:mod:`course_lib.assertions`) and the store's
prompt block (:mod:`course_lib.memory`) the way a real model would read them, and computes its reply
from the messages it receives -- never from a table of expected answers. They are real MAF clients
(:class:`~course_lib.offline.OfflineChatClient`); a lesson gets one from
:func:`course_lib.clients.make_chat_client`, which imports this module only when it builds one of these
roles, so the loop lessons never load it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from agent_framework import Message

from .assertions import (
    ALLOWED_KEYS,
    Declaration,
    MessageRefused,
    NearMiss,
    check_message,
    find_declarations,
    is_keyless,
    keyless_reason,
    near_misses,
    parts,
)
from .memory import FactCandidate, parse_prompt_block, split_prompt_block
from .offline import OfflineChatClient, last_user_text
from .prompts import read_summary_prompt
from .tracing import CallLog, SeenMessage, message_text

__all__ = [
    "SCOPE_CLAUSE",
    "SCOPE_WORDS",
    "SUMMARY_MODES",
    "WRITER_MISBEHAVIOURS",
    "OfflineAssistantClient",
    "OfflineSummarizerClient",
    "OfflineWriterClient",
    "ResolutionRule",
    "SummaryMode",
    "WriterMisbehaviour",
    "abstractive_summary",
    "generalize",
    "infer_from_prose",
    "near_misses_by_part",
    "refused_declarations",
    "resolve",
    "strip_prompt_block",
    "visible_mentions",
    "you_said",
]


WriterMisbehaviour = Literal["infer", "paraphrase", "drop", "broken_json"]
WRITER_MISBEHAVIOURS: tuple[WriterMisbehaviour, ...] = ("infer", "paraphrase", "drop", "broken_json")
ResolutionRule = Literal["latest", "earliest", "most_frequent"]


class OfflineWriterClient(OfflineChatClient):
    """An offline fact writer: proposes candidates from the last User message, as JSON.

    Careful by default: one candidate per explicit declaration (the last of a key), citing the
    declaration's own words. A ``misbehaviour`` makes it err the way real models do, so a lesson can
    show each rejection path: ``infer`` adds facts guessed from prose ("our database is Oracle"),
    ``paraphrase`` cites words the user never wrote, ``drop`` forgets the last declaration,
    ``broken_json`` answers with truncated JSON.
    """

    def __init__(self, misbehaviour: WriterMisbehaviour | None = None, *, log: CallLog | None = None) -> None:
        super().__init__(log=log, name="writer")
        if misbehaviour is not None and misbehaviour not in WRITER_MISBEHAVIOURS:
            raise ValueError(f"Unknown misbehaviour {misbehaviour!r}; choose one of {WRITER_MISBEHAVIOURS}.")
        self.misbehaviour = misbehaviour

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        facts = self.propose(last_user_text(messages))
        text = json.dumps({"facts": facts}, ensure_ascii=False)
        return text[: len(text) // 2] if self.misbehaviour == "broken_json" else text

    def propose(self, user_text: str) -> list[dict[str, str]]:
        """The candidates this writer would propose for ``user_text``, misbehaviour included."""
        declared = _last_declarations(user_text)
        facts = [FactCandidate.from_declaration(d).model_dump() for d in declared.values()]
        if self.misbehaviour == "infer":
            facts += [f for f in infer_from_prose(user_text) if f["key"] not in declared]
        elif self.misbehaviour == "paraphrase":
            facts = [{**f, "evidence": f"The user said that the {f['key']} is {f['value']}."} for f in facts]
        elif self.misbehaviour == "drop":
            facts = facts[:-1]
        return facts


_PROSE = re.compile(
    r"\b(?P<key>" + "|".join(ALLOWED_KEYS) + r")\s+(?:is|was|should be|must be|is now)\s+(?P<value>[^.,;?!\n]+)",
    re.IGNORECASE,
)


def infer_from_prose(text: str) -> list[dict[str, str]]:
    """Facts a too-helpful model would read into prose such as "our database is Oracle"."""
    return [
        {"key": m["key"].lower(), "value": m["value"].strip(), "evidence": m.group(0).strip()}
        for m in _PROSE.finditer(text)
    ]


class OfflineAssistantClient(OfflineChatClient):
    """An offline desk assistant that answers only from what it receives.

    It collects every ``key=value`` it can see -- fact lines of controlled-fact blocks and explicit
    declarations in User messages, in message order -- and resolves each key with an explicit,
    switchable ``resolution`` rule (latest, earliest or most frequent mention). It then acknowledges a
    declaration or answers a question by citing what it resolved; with nothing visible it says so
    instead of guessing.
    """

    def __init__(self, resolution: ResolutionRule = "latest", *, log: CallLog | None = None, name: str = "assistant"):
        super().__init__(log=log, name=name)
        self.resolution = resolution

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        question = strip_prompt_block(last_user_text(messages))
        declared = _safe_declarations(question)
        if declared:
            said = "; ".join(f"{k}={v}" for k, v in declared.items())
            return f"Noted what you declared: {said}" + ("" if said.endswith((".", "!", "?")) else ".")
        if refused := refused_declarations(question):
            return (
                f"That looks like a declaration, but I cannot note it: {'; '.join(refused)}. Nothing was noted "
                f"(allowed keys: {', '.join(ALLOWED_KEYS)})."
            )
        resolved = resolve(visible_mentions(messages), self.resolution)
        if not resolved:
            return f"{you_said(question)} I see no facts about your setup; state them as key=value."
        known = "; ".join(f"{k}={v}" for k, v in resolved.items())
        return f"{you_said(question)} From what I can see: {known}."


def you_said(text: str) -> str:
    """The offline desk's echo of the user's line: "You asked: '…'." for a question, "You wrote: '…'." otherwise.

    A question is a line that ends with ``?``, as the store's verdict reads it ("it is a question"): a statement such
    as ``deployments failed`` was answered "You asked" (walk 24 of lesson 03).
    """
    said = text.strip()
    return f"You {'asked' if said.endswith('?') else 'wrote'}: {said!r}."


def refused_declarations(text: str) -> list[str]:
    """Why each ``key=value``-shaped segment of ``text`` that the contract does not accept declares nothing.

    ``owner=alice`` (not an allowed key), ``Module=Billing`` (keys are case-sensitive) and ``module=`` (no
    value) look like declarations and declare nothing: an assistant that answered them as questions would
    hide the refusal. The contract says which segments these are (:func:`~course_lib.assertions.near_misses`);
    a message it refuses as a whole declares nothing, so there is nothing to explain. A declaration with words
    before it is refused only when it is the message's one part (``We are on module=Payments``). A part with an
    ``=`` and no key (``= =``, ``=Payroll``) is refused as the store's verdict refuses it: "'= =' has no key".
    """
    try:
        check_message(text)
    except MessageRefused:
        return []
    reasons: list[str] = []
    several = len(parts(text)) > 1
    for part, misses in near_misses_by_part(text):  # each reason where its part is (walk 21: '=Payroll' came last)
        for miss in misses:
            if miss.problem == "markup" and any(char.isspace() for char in miss.key):
                continue  # a Markdown heading or list item ("- module = ...", a loop's feedback) is read as prose
            if miss.problem == "not alone" and several:
                continue  # words around a declaration in a longer text (a loop's feedback) are prose here too
            if (reason := miss.reason) not in reasons:
                reasons.append(reason)
        if is_keyless(part) and (reason := keyless_reason(part)) not in reasons:
            reasons.append(reason)
    return reasons


def near_misses_by_part(text: str) -> list[tuple[str, list[NearMiss]]]:
    """Each part of ``text`` (:func:`~course_lib.assertions.parts`) with its near misses, in the message's order.

    The one reading order of every reader that explains a message part by part: the desk's own reply
    (:func:`refused_declarations`) and the panels' notes (:func:`course_lib.widgets.declaration_notes`), so a reason
    stands where its part is, whatever its kind (walk 21: ``=Payroll; color=red`` named the missing key last).
    """
    return [(part, near_misses(part)) for part in parts(text)]


def visible_mentions(messages: Sequence[Message | SeenMessage]) -> list[tuple[str, str]]:
    """Every ``(key, value)`` visible in the messages, in order: block fact lines and user declarations.

    A block counts where the host puts one -- a message that starts with it -- so a block typed inside
    the user's words is read as the user's words (declarations), never as controlled facts.
    """
    return [mention for message in messages for mention in _mentions_in(str(message.role), message_text(message))]


@functools.lru_cache(maxsize=4096)
def _mentions_in(role: str, text: str) -> tuple[tuple[str, str], ...]:
    """One message's mentions, cached: a long history is re-read on every turn, its old messages unchanged."""
    block, words = split_prompt_block(text)
    mentions = parse_prompt_block(block)
    if role == "user":
        mentions += list(_safe_declarations(words).items())
    return tuple(mentions)


def resolve(mentions: Sequence[tuple[str, str]], rule: ResolutionRule) -> dict[str, str]:
    """One value per key by the rule; keys in order of first mention."""
    values: dict[str, list[str]] = {}
    for key, value in mentions:
        values.setdefault(key, []).append(value)
    pick: Callable[[list[str]], str] = {
        "latest": lambda vs: vs[-1],
        "earliest": lambda vs: vs[0],
        "most_frequent": lambda vs: max(vs, key=lambda v: (vs.count(v), -vs.index(v))),
    }[rule]
    return {key: pick(vs) for key, vs in values.items()}


def strip_prompt_block(text: str) -> str:
    """The user's own words: ``text`` without a controlled-facts block prefixed to it (see ``split_prompt_block``)."""
    return split_prompt_block(text)[1]


def _last_declarations(text: str) -> dict[str, Declaration]:
    """The last declaration of each key; a message the contract refuses declares nothing (a model still answers it)."""
    try:
        return {d.key: d for d in find_declarations(text)}
    except MessageRefused:
        return {}


def _safe_declarations(text: str) -> dict[str, str]:
    return {key: d.value for key, d in _last_declarations(text).items()}


SummaryMode = Literal["extractive", "abstractive"]
SUMMARY_MODES: tuple[SummaryMode, ...] = ("extractive", "abstractive")

SCOPE_WORDS = ("production", "prod", "staging", "live", "test")
"""Words that scope a statement to an environment; an abstractive summary drops them as detail."""

SCOPE_CLAUSE = re.compile(r"\s+(?:during|after|before|outside|while|when|until|unless|except)\b.*$", re.IGNORECASE)
"""A trailing clause that says when a statement holds ("during business hours", "after a retry")."""


class OfflineSummarizerClient(OfflineChatClient):
    """An offline summarizer with a character budget, extractive or abstractive.

    Both read the previous summary and the explicit ``key=value`` declarations of the new user turn.

    * ``extractive`` (honest, the contrast): keeps the previous summary's lines and appends the new
      declarations as lines of their own (a correction is appended, not merged: it does not resolve
      conflicts), then drops the oldest lines until the summary fits ``budget``. It never rewrites a line.
    * ``abstractive`` imitates mistakes real summarizers can make, by rules applied to whatever it receives:
      it merges everything into one line, drops qualifiers it takes for detail (environment words such
      as "production", trailing clauses such as "during business hours" -- see :func:`generalize`) and
      blends a correction with the value it replaced (``Reporting/Billing``: which one is current is
      lost). It then drops the oldest declarations until the summary fits ``budget``.

    Neither knows which question will come; what the summary loses is decided by these rules alone.
    """

    def __init__(self, budget: int = 240, *, mode: SummaryMode = "extractive", log: CallLog | None = None) -> None:
        super().__init__(log=log, name="summarizer")
        if mode not in SUMMARY_MODES:
            raise ValueError(f"Unknown summary mode {mode!r}; choose one of {SUMMARY_MODES}.")
        self.budget = budget
        self.mode = mode

    def answer(self, messages: Sequence[Message], options: Mapping[str, Any]) -> str:
        previous, user_text = read_summary_prompt(last_user_text(messages))
        declared = _safe_declarations(user_text)
        if self.mode == "abstractive":
            lines = abstractive_summary(previous, declared)
            separator = "; "
        else:
            lines = previous + [f"{k}={v}" for k, v in declared.items()]
            separator = "\n"
        while lines and len(separator.join(lines)) > self.budget:
            lines.pop(0)
        return separator.join(lines)


def generalize(value: str) -> str:
    """``value`` without the qualifiers a summarizer drops as detail; unchanged when nothing would be left.

    >>> generalize("never restart the production database during business hours")
    'never restart the database'
    """
    words = [word for word in value.split() if word.lower() not in SCOPE_WORDS]
    return SCOPE_CLAUSE.sub("", " ".join(words)).strip() or value


def abstractive_summary(previous: Sequence[str], declared: Mapping[str, str]) -> list[str]:
    """The merged ``key=value`` items of a rewritten summary: qualifiers dropped, corrections blended."""
    merged = _safe_declarations("\n".join(previous))
    for key, value in declared.items():
        value = generalize(value)
        old = merged.get(key)
        if old is None:
            merged[key] = value
        elif value not in old.split("/"):
            merged[key] = f"{old}/{value}"
    return [f"{key}={value}" for key, value in merged.items()]
