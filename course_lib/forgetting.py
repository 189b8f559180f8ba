"""What "a forgotten fact reaches a model" means, and the filter that keeps every later model call from it.

**Folded text.** Two texts name the same thing when they read the same once *folded*: Unicode NFKC with case
folding (``STRASSE`` is ``Straße``, a full-width ``\\uff52\\uff45…`` is ``re…``, NFD ``Café`` is ``Café``), every
run of white space one space (``SQL  Server``, ``SQL\\xa0Server``, a line break), and every invisible character
dropped (``Rep\\u200borting``; :func:`course_lib.memory.invisible`, the characters the block escapes). Folding works
one character cluster at a time (a base character with the combining marks that follow it), so each folded
character points back at the original characters it came from and a redaction cuts exactly those.

**A forgotten fact** is a ``(key, value)`` the store held when ``forget`` ran and does not hold again. A text
*carries* it when, folded:

* the value appears as a whole word sequence: not glued to a letter or digit on either side (``Reporting-based``
  and ``Reporting_v2`` carry ``Reporting``, ``Reportings`` and ``MyReporting`` do not), and not inside a value the
  store still holds (a held ``Reporting v2`` is that fact, not the forgotten one); or
* the key and the value stand together (``module=Billing``, ``module: "Billing"``, ``module Billing``,
  ``Billing module``), even where the bare value is still held under another key.

**What a later model call is sent** (:class:`ForgottenFactsFilter`): every text that carries a forgotten fact,
with each such value replaced by :data:`FORGOTTEN_MARK`, and nothing else changed. Three kinds of text carry no
forgotten fact and go exactly as written: the host's own words (the instructions, which MAF passes as options,
and system messages); a prompt block's frame and the line of every fact the store holds (the block is built by
the host from the store: a line of a forgotten key is dropped from a stale block, and a citation is redacted
like any text); and the words of a turn that began after the forget (the user said them again: "Which database
am I on?" stays whole when ``symptom=database`` was forgotten, and a new ``module=Reporting`` reaches the writer).
"""

from __future__ import annotations

import copy
import functools
import json
import re
import unicodedata
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from agent_framework import Agent, ChatContext, ChatMiddleware, Content, Message

from .assertions import LINE_BREAKS, value_core
from .memory import (
    NO_FACTS_LINE,
    PROMPT_BLOCK_FOOTER,
    PROMPT_BLOCK_HEADER,
    WorkingMemory,
    invisible,
    quote_for_prompt,
)

__all__ = [
    "FACT_LINE",
    "FORGOTTEN_MARK",
    "Folded",
    "Forgetting",
    "ForgottenFactsFilter",
    "carries_forgotten",
    "fold",
    "folded",
    "forget_filter",
    "hold_agent",
    "hold_client",
    "whereabouts",
]


_Client = TypeVar("_Client")
_Agent = TypeVar("_Agent", bound=Agent)

FORGOTTEN_MARK = "[forgotten]"
"""What a forgotten value becomes in a message sent after the forget: "module=[forgotten]"."""


def whereabouts(value: str, *, held: Iterable[str], history: Iterable[str], sent: Iterable[str] | None = None) -> str:
    """Where ``value`` still is, in words (lesson 02's table of why ``forget`` replaces the session).

    ``held`` are the values the store holds, ``history`` the texts of a desk's session, and ``sent``, when given,
    the values one model call carried (:func:`course_lib.tracing.values_sent`). A value in the history that the
    call did not carry was replaced by :data:`FORGOTTEN_MARK` on its way: the session is sent whole, and only the
    forget filter rewrites it.
    """
    places = [name for name, texts in (("the store", held), ("the session", history)) if any(value in t for t in texts)]
    where = " and ".join(places) or "nowhere"
    if sent is None:
        return where
    if value in set(sent):
        return f"{where}; the model is sent it"
    if "the session" in places:
        return f"{where}; the model is sent {FORGOTTEN_MARK} instead"
    return f"{where}; the model is not sent it"


# region Folding


@dataclass(frozen=True)
class Folded:
    """A text folded for comparison, and for each folded character the original span ``[start, end)`` it came from."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters behind folded ``[start, end)``: whole clusters, never half of one."""
        return self.starts[start], self.ends[end - 1]


def _joins_previous(char: str) -> bool:
    """A combining mark, or a Hangul vowel or final jamo: part of the cluster before it."""
    point = ord(char)
    return unicodedata.category(char).startswith("M") or 0x1160 <= point <= 0x11FF or 0xD7B0 <= point <= 0xD7FF


def _fold_cluster(cluster: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", cluster).casefold())


def folded(text: str) -> Folded:
    """``text`` folded (NFKC, case folded, white space runs as one space, invisible characters dropped)."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for start, end in _clusters(text):
        cluster = "".join(c for c in text[start:end] if c.isspace() or not invisible(c))
        for char in _fold_cluster(cluster) if cluster.strip() else (" " if cluster else ""):
            if char.isspace():
                if chars and chars[-1] == " ":
                    ends[-1] = end
                    continue
                char = " "
            chars.append(char)
            starts.append(start)
            ends.append(end)
    return Folded("".join(chars), tuple(starts), tuple(ends))


def _clusters(text: str) -> Iterable[tuple[int, int]]:
    """``(start, end)`` of each cluster: a white space character alone, else a base with its marks and invisibles.

    An invisible character joins the cluster it stands in, so that it never splits a base from its marks.
    """
    start = 0
    for index in range(1, len(text) + 1):
        if index == len(text) or _starts_cluster(text[index - 1], text[index]):
            yield start, index
            start = index


def _starts_cluster(before: str, char: str) -> bool:
    if before.isspace() or char.isspace():
        return True
    return not (_joins_previous(char) or invisible(char))


def fold(text: str) -> str:
    """``text`` folded: the form in which a forgotten value is looked for (see the module docstring)."""
    return folded(text).text


# region Which text carries a forgotten fact

_FOLDED_MARK = fold(FORGOTTEN_MARK)

_SEPARATOR = r"[\s=:\"'`()\[\]{}<>*_-]*"
"""What may stand between a key and its value ("module=Billing", "module: 'Billing'", "Billing module")."""


def _word(value: str) -> str:
    """A pattern for folded ``value`` as a whole word sequence: no letter or digit glued to either edge."""
    pattern = re.escape(value)
    if value[:1].isalnum():
        pattern = r"(?<![^\W_])" + pattern
    if value[-1:].isalnum():
        pattern += r"(?![^\W_])"
    return pattern


@dataclass(frozen=True)
class _Rule:
    """One forgotten fact, folded, with the patterns that find it in folded text."""

    key: str
    value: str
    bare: re.Pattern[str]
    pair: re.Pattern[str]

    @classmethod
    def of(cls, key: str, value: str) -> _Rule | None:
        key_f, value_f = fold(key).strip(), fold(value_core(value)).strip()  # "Payroll." is carried by "Payroll"
        if not value_f:
            return None
        word, key_word = _word(value_f), _word(key_f)
        pair = rf"{key_word}{_SEPARATOR}(?P<v1>{word})|(?P<v2>{word}){_SEPARATOR}{key_word}"
        return cls(key, value, re.compile(word), re.compile(pair))


def _spans(text: Folded, rules: Sequence[_Rule], held: Sequence[_Rule]) -> list[tuple[int, int]]:
    """The folded spans of ``text`` that carry a forgotten fact (see the module docstring).

    A bare value inside a held value, or inside a held fact's own ``key=value`` (the held ``database=Oracle`` when
    ``symptom=database`` was forgotten), is that held fact's, not the forgotten one. So is a forgotten pair that is
    exactly a held fact's own ``key=value`` read the other way round (the held ``database=module`` when
    ``module=database`` was forgotten).
    """
    kept = [m.span() for rule in held for pattern in (rule.bare, rule.pair) for m in pattern.finditer(text.text)]
    held_pairs = [m.span() for rule in held for m in rule.pair.finditer(text.text)]
    marks = [m.span() for m in re.finditer(re.escape(_FOLDED_MARK), text.text)]  # what a redaction already left
    found: list[tuple[int, int]] = []
    for rule in rules:
        for m in rule.pair.finditer(text.text):
            if _inside(m.span(), held_pairs):  # held database=module reads as forgotten module=database reversed
                continue
            found.append(m.span("v1") if m.group("v1") is not None else m.span("v2"))
        found += [m.span() for m in rule.bare.finditer(text.text) if not _inside(m.span(), kept)]
    return [span for span in found if not _inside(span, marks)]


def _inside(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    return any(low <= span[0] and span[1] <= high for low, high in spans)


def _rules(facts: Iterable[tuple[str, str]]) -> list[_Rule]:
    return [rule for key, value in facts if (rule := _Rule.of(key, value)) is not None]


def _redact(text: str, rules: Sequence[_Rule], held: Sequence[_Rule]) -> str:
    """``text`` with every span that carries a forgotten fact replaced by :data:`FORGOTTEN_MARK`, until none is left."""
    for _ in range(len(text) + 1):  # each pass removes at least one character of a match
        view = folded(text)
        spans = sorted(view.original_span(a, b) for a, b in _spans(view, rules, held))
        if not spans:
            return text
        merged: list[tuple[int, int]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        pieces, last = [], 0
        for start, end in merged:
            pieces += [text[last:start], FORGOTTEN_MARK]
            last = end
        text = "".join(pieces) + text[last:]
    return text


def carries_forgotten(text: str, forgotten: Iterable[tuple[str, str]], held: Iterable[tuple[str, str]] = ()) -> bool:
    """Whether ``text`` carries one of the ``forgotten`` ``(key, value)`` facts while the ``held`` ones are held.

    The one definition of a leak, for the filter and for every test: the filter would change ``text``
    (:meth:`Forgetting.text`, with no words said since the forget). A block's frame and the line of a held fact are
    the host's, and a mark the filter left is not a leak (a value that reads ``forgotten`` is not found inside one).
    """
    return Forgetting([(0, k, v) for k, v in forgotten], held).text(text) != text


# region The filter


def _said_at(memory: WorkingMemory, text: str) -> int | None:
    """The epoch ``memory`` says ``text`` was said in; a redacted copy counts as the words it was redacted from.

    So redacting twice (a guard, then a filter) keeps the exemption of words said after the forget.
    """
    said = memory.said_at(text)
    if said is not None or FORGOTTEN_MARK not in text:
        return said
    pattern = re.compile(".+?".join(map(re.escape, text.split(FORGOTTEN_MARK))), re.DOTALL)
    held = _rules((f.key, f.value) for f in memory.facts)
    copies = [
        epoch
        for words, epoch in memory.said_texts().items()
        if pattern.fullmatch(words) and _redacted_copy(words, epoch, memory, held) == text
    ]
    return max(copies, default=None)


def _redacted_copy(words: str, epoch: int, memory: WorkingMemory, held: Sequence[_Rule]) -> str:
    """``words`` (said in ``epoch``) as a filter redacts them: only the facts forgotten after they were said apply.

    A text holding the mark is a redacted copy of ``words`` only if it is exactly this; ``[forgotten]Billing`` is not
    a copy of ``Now: Billing`` said after Billing was forgotten, so it keeps no exemption.
    """
    holds = {(f.key, f.value) for f in memory.facts}
    later = _rules((f.key, f.value) for at, f in memory.forgotten if epoch < at and (f.key, f.value) not in holds)
    return _redact(words, later, held)


class Forgetting:
    """What a store forgot and still holds, at one moment: the rules one request is redacted by.

    ``forgotten`` holds ``(epoch, key, value)``: the epoch the forget began (words a turn said in that epoch or
    later are the user's again); ``said`` gives the epoch a text was said in (None: never, as far as is known).
    """

    def __init__(
        self,
        forgotten: Iterable[tuple[int, str, str]],
        held: Iterable[tuple[str, str]] = (),
        said: Callable[[str], int | None] = lambda _text: None,
    ) -> None:
        self.held = set(held)
        self.held_rules = _rules(self.held)
        self.forgotten = [(epoch, k, v) for epoch, k, v in forgotten if (k, v) not in self.held]
        self.keys = {k for _, k, _ in self.forgotten}
        self.said = said
        self._every = _rules((k, v) for _, k, v in self.forgotten)

    @classmethod
    def of(cls, memory: WorkingMemory) -> Forgetting:
        """The store's rules now: what it forgot and does not hold again, and the words its turns said."""
        forgotten = [(epoch, f.key, f.value) for epoch, f in memory.forgotten]
        return cls(forgotten, [(f.key, f.value) for f in memory.facts], functools.partial(_said_at, memory))

    def __bool__(self) -> bool:
        return bool(self.forgotten)

    def rules_for(self, text: str) -> list[_Rule]:
        """The forgotten facts ``text`` must not carry: all, but those forgotten before a turn that said ``text``.

        The words after a manual block are the turn's text once the blank line before them is off.
        """
        said = self.said(text)
        if said is None and text.lstrip(LINE_BREAKS) != text:
            said = self.said(text.lstrip(LINE_BREAKS))
        if said is None:
            return self._every
        return _rules((k, v) for epoch, k, v in self.forgotten if said < epoch)

    def text(self, text: str) -> str:
        """``text`` as a later call may send it: blocks kept for what the store holds, the rest redacted."""
        out: list[str] = []
        for kind, piece in _pieces(text):
            out.append(self._block(piece) if kind == "block" else self._words(piece))
        return "".join(out)

    def _words(self, text: str) -> str:
        rules = self.rules_for(text) if text.strip(LINE_BREAKS) else []
        return _redact(text, rules, self.held_rules) if rules else text

    def _block(self, block: str) -> str:
        lines = []
        for line in block.splitlines(keepends=True):
            bare = line.rstrip(LINE_BREAKS)
            if bare in (PROMPT_BLOCK_HEADER, PROMPT_BLOCK_FOOTER, NO_FACTS_LINE):
                lines.append(line)
            elif (kept := self._fact_line(bare)) is not None:
                lines.append(kept + line[len(bare) :] if kept else "")
            else:
                lines.append(self._words(line))
        return "".join(lines)

    def _fact_line(self, line: str) -> str | None:
        """A block's fact line as it may go ("" to drop it), or None when ``line`` is no fact line."""
        match = FACT_LINE.match(line)
        if match is None:
            return None
        key, value = match["key"], json.loads(match["value"])
        held = (key, value) in self.held
        if not held and key in self.keys:
            return ""  # a stale block's line of a key forgotten since
        shown = match["value"] if held else quote_for_prompt(_redact(value, self._every, self.held_rules))
        evidence = quote_for_prompt(_redact(json.loads(match["evidence"]), self._every, self.held_rules))
        return f"- {key} = {shown} (evidence: {evidence}{match['tail']}"


_QUOTED = r'"(?:[^"\\]|\\.)*"'
# A fact line as the facts block and the facts check write it: ``- key = "value" (evidence: "words"; turn N...)``.
FACT_LINE = re.compile(rf"^- (?P<key>\w+) = (?P<value>{_QUOTED}) \(evidence: (?P<evidence>{_QUOTED})(?P<tail>;.*)$")


def _pieces(text: str) -> list[tuple[str, str]]:
    """``text`` cut into ``("block", …)`` (a header line to the next footer line) and ``("words", …)`` pieces."""
    lines = text.splitlines(keepends=True)
    pieces: list[tuple[str, str]] = []
    words: list[str] = []
    index = 0
    while index < len(lines):
        end = _block_end(lines, index)
        if end is None:
            words.append(lines[index])
            index += 1
            continue
        if words:
            pieces.append(("words", "".join(words)))
            words = []
        pieces.append(("block", "".join(lines[index : end + 1])))
        index = end + 1
    if words:
        pieces.append(("words", "".join(words)))
    return pieces


def _block_end(lines: Sequence[str], index: int) -> int | None:
    if lines[index].rstrip(LINE_BREAKS) != PROMPT_BLOCK_HEADER:
        return None
    for end in range(index + 1, len(lines)):
        bare = lines[end].rstrip(LINE_BREAKS)
        if bare == PROMPT_BLOCK_FOOTER:
            return end
        if bare == PROMPT_BLOCK_HEADER:
            return None
    return None


class ForgottenFactsFilter(ChatMiddleware):
    """Chat middleware: once a forget returned, no model call is sent a fact it forgot.

    A forget replaces the desks' sessions, but a run already under way still holds what it had: a loop's next
    iteration runs on the session it was given (or on a clone of its snapshot), sends feedback that may quote an
    earlier answer, and a judge quotes the request and the answer. Every text of every message (but system
    messages, the host's own) is sent as :meth:`Forgetting.text` makes it; the caller's message objects are not
    changed. The store itself remembers what it forgot (:attr:`WorkingMemory.forgotten`), so a forget from any
    path (console, panel, the store) holds every call. One filter per store: :func:`forget_filter`.
    """

    guards_every_model_call = True
    """Read by :func:`course_lib.loop.call_guards`: a loop holds its judge to this filter too."""

    def __init__(self, memory: WorkingMemory) -> None:
        self.memory = memory

    def forget(self, key: str | None = None) -> int:
        """Forget ``key`` (or every fact) in the store; return how many facts went."""
        return self.memory.forget(key)

    @property
    def forgotten(self) -> list[tuple[str, str]]:
        """The ``(key, value)`` facts forgotten and not held again, oldest forget first."""
        return [(k, v) for _, k, v in Forgetting.of(self.memory).forgotten]

    def redacted(self, messages: Sequence[Message]) -> list[Message]:
        """``messages`` as a call may send them now (copies where a text changed; the caller's are untouched)."""
        rules = Forgetting.of(self.memory)
        if not rules:
            return list(messages)
        return [m if m.role == "system" else _redacted_message(m, rules.text) for m in messages]

    def redact_text(self, text: str) -> str:
        """One text (a judge's quote of the request or the answer) as a call may send it now."""
        rules = Forgetting.of(self.memory)
        return rules.text(text) if rules else text

    async def process(self, context: ChatContext, call_next: Callable[[], Any]) -> None:
        context.messages = self.redacted(context.messages)
        await call_next()


def _redacted_message(message: Message, redact: Callable[[str], str]) -> Message:
    texts = [redact(c.text) if c.type == "text" and c.text else None for c in message.contents]
    if all(new is None or new == c.text for new, c in zip(texts, message.contents, strict=True)):
        return message
    changed = copy.copy(message)
    changed.contents = [
        Content.from_text(new) if new is not None else c for new, c in zip(texts, message.contents, strict=True)
    ]
    return changed


_FILTERS: weakref.WeakKeyDictionary[WorkingMemory, ForgottenFactsFilter] = weakref.WeakKeyDictionary()


def forget_filter(memory: WorkingMemory) -> ForgottenFactsFilter:
    """The store's one filter: every agent and client on the store carries it."""
    found = _FILTERS.get(memory)
    if found is None:
        found = _FILTERS[memory] = ForgottenFactsFilter(memory)
    return found


def hold_client(client: _Client, memory: WorkingMemory) -> _Client:
    """``client`` with the store's filter first in its own chat middleware: every call on it is held to the forgets.

    Whichever agent runs it, a direct ``get_response`` (a judge), streamed or not: and before a live client's own
    recorder, so the call log shows what was sent. A client without chat middleware is returned as it is (hold
    the agent on it: :func:`hold_agent`).
    """
    chain = getattr(client, "chat_middleware", None)
    held = forget_filter(memory)
    if isinstance(chain, list) and held not in chain:
        chain.insert(0, held)
    return client


def hold_agent(agent: _Agent, memory: WorkingMemory) -> _Agent:
    """``agent`` with the store's filter among its middleware, unless it or its client carries it already.

    A desk console, a policy and an extraction call this on every agent they run, so a desk built by hand on any
    client is held to the store's forgets as the course's own desks are.
    """
    held = forget_filter(memory)
    client = getattr(agent, "client", None)
    if isinstance(getattr(client, "chat_middleware", None), list):
        # first in the client's own chain, before a live client's recorder: the call log shows what the model was
        # sent (the live run of lesson 02 logged the unredacted history when the filter ran after the recorder)
        hold_client(client, memory)
        return agent
    middleware = list(getattr(agent, "middleware", None) or ())
    if held not in middleware:
        agent.middleware = [*middleware, held]
    return agent
