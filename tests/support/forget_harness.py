"""Issue 33's families: forget is final and the block a fence, as properties and as races (run by ``make stress``).

* **fold**: folding does not depend on how a text is encoded (NFC, NFD, NFKC, NFKD), on which white space or how much
  separates its words, or on invisible characters between its characters; it is idempotent, and each folded
  character points back at characters of the original.
* **match**: a forgotten value written another way (case, NFD, full width, spaces, invisible characters, quoted,
  in a ``-``/``_`` compound) is caught; glued to a letter or digit it is another word, not caught.
* **redaction**: on a real store that forgot some facts and holds others (the same value may be both), the current
  block goes exactly as built and parses back to the held facts, the user's words said after the forget go as
  typed, a stale block keeps its frame and loses the forgotten lines, other text carries no forgotten fact, nothing
  but the redacted spans changes, and redacting twice changes nothing more.
* **races**: forgets interleaved with desk turns (manual and provider), the writer, and loops with an AI judge
  around the desk; every model call checks, when it starts, that the filter would change nothing in what it was
  sent (nothing forgotten reached it), that every block in it keeps its frame, and that no block line names a
  forgotten fact.
"""

from __future__ import annotations

import asyncio
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agent_framework import Agent, AgentSession, Message
from hypothesis import strategies as st

from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.forgetting import FORGOTTEN_MARK, Forgetting, carries_forgotten, fold, folded
from course_lib.loop import AIJudgeLoopEvaluator, LoopAgent, LoopAgentOptions
from course_lib.memory import (
    PROMPT_BLOCK_FOOTER,
    PROMPT_BLOCK_HEADER,
    FactCandidate,
    WorkingMemory,
    parse_prompt_block,
)
from course_lib.memory_models import OfflineAssistantClient, OfflineWriterClient
from course_lib.offline import OfflineChatClient
from course_lib.providers import DESK_INSTRUCTIONS, DeskConsole, ManualInjectionDesk, ProviderDesks, inject

try:
    from .trust_harness import interleave
except ImportError:  # imported beside stress_trust.py, as a top-level module
    from trust_harness import interleave  # type: ignore[no-redef]

# region fold

TRICKY = (
    "ß",
    "ẞ",
    "é",
    "e\u0301",
    "ﬁ",
    "\uff52",
    "\uff32",
    "½",
    "İ",
    "\u0131",
    "Σ",
    "ς",
    "ǅ",
    "㎒",
    "한",
    "\u1112\u1161\u11ab",
    "Å",
    "Ω",
    "\u210c",
    "①",
    "\u0301",
    "\u0327",
    "\u0308",
    "¨",
    "中",
    "😀",
    "-",
    "_",
    "=",
    '"',
    "[",
    "]",
)
SPACES = (" ", "  ", "\t", "\n", "\r\n", "\xa0", "\u2003", "\u3000", "\u2028")
INVISIBLES = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\u034f", "\ufe0f", "\u202e")
fold_text = st.lists(
    st.sampled_from((*TRICKY, *SPACES, *INVISIBLES, "a", "B", "1", "Reporting", "SQL Server")), max_size=10
).map("".join)


def _respaced(text: str) -> str:
    """Every white space run of ``text`` written as another run (two spaces, a no-break space and a tab)."""
    return re.sub(r"\s+", " \xa0\t", text)


def fold_violations(text: str) -> list[str]:
    """Folding is blind to encoding, spacing and invisible characters, idempotent, and maps back to ``text``."""
    found: list[str] = []
    base = fold(text)
    variants = {form: unicodedata.normalize(form, text) for form in ("NFC", "NFD", "NFKC", "NFKD")}
    variants["respaced"] = _respaced(text)
    variants["invisible between every character"] = "\u200b".join(text)
    for name, variant in variants.items():
        if fold(variant) != base:
            found.append(f"fold differs for the {name} form: {fold(variant)!r} != {base!r}")
    if fold(base) != base:
        found.append(f"fold is not idempotent: {fold(base)!r} != {base!r}")
    view = folded(text)
    if len(view.starts) != len(view.text) or any(
        not 0 <= s < e <= len(text) for s, e in zip(view.starts, view.ends, strict=True)
    ):
        found.append("a folded character points outside the original")
    return found


# region match

VALUES = ("Reporting", "SQL Server 2022", "Straße", "Café", "C++", "P1", "中文", "x-y", "facts", "data", "v2.1")
PREFIXES = ("", " ", "(", '"', "-", "_", "=", "the ", "module=", "[", "\n")
SUFFIXES = ("", "-based", "_v2", ".", " ", ")", '"', "?", "\u2029", " module")
VARIANTS = ("upper", "lower", "nfd", "nfkd", "full width", "respace", "invisible", "title")


def _variant(value: str, how: str) -> str:
    if how == "upper":
        return value.upper()
    if how == "lower":
        return value.lower()
    if how == "title":
        return value.title()
    if how in ("nfd", "nfkd"):
        return unicodedata.normalize(how.upper(), value)
    if how == "full width":
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value)
    if how == "respace":
        return value.replace(" ", "  \xa0")
    return "\u200b".join(value)  # invisible


match_case = st.tuples(
    st.sampled_from(VALUES),
    st.lists(st.sampled_from(VARIANTS), max_size=3),
    st.sampled_from(PREFIXES),
    st.sampled_from(SUFFIXES),
)


def match_violations(case: tuple[str, list[str], str, str]) -> list[str]:
    """A value written another way is caught; the same value glued to a letter on both sides is not."""
    value, hows, prefix, suffix = case
    written = value
    for how in hows:
        written = _variant(written, how)
    found: list[str] = []
    if not carries_forgotten(prefix + written + suffix, [("module", value)]):
        found.append(f"missed {prefix + written + suffix!r} for {value!r}")
    glued = "x" + written + "x"
    if value[0].isalnum() and value[-1].isalnum() and carries_forgotten(glued, [("product", value)]):
        found.append(f"caught {glued!r}, another word than {value!r}")
    return found


# region redaction on a real store

STORE_VALUES = (
    "Reporting",
    "Billing",
    "SQL Server 2022",
    "Straße",
    "Café",
    "facts",
    "user",
    "data",
    "instructions",
    "database",
    "controlled",
    "end",
    "module",
    "P1",
    "1",
    "C++",
    "forgotten",
    "[forgotten]",
    "evidence",
    "turn",
    "recorded",
    "Rep\u200borting",
    "中文",
    "Reporting v2",
)
KEYS = ("module", "database", "priority", "customer", "symptom")
TEXT_PIECES = (
    *STORE_VALUES,
    *KEYS,
    "=",
    " ",
    "; ",
    "\n",
    "-based",
    "_v2",
    "REPORTING",
    "SQL  Server 2022",
    "STRASSE",
    "Cafe\u0301",
    "Earlier you said ",
    PROMPT_BLOCK_HEADER,
    PROMPT_BLOCK_FOOTER,
    '- module = "Reporting" (evidence: "module=Reporting"; turn 1; recorded 2026-01-01T00:00:00+00:00)',
)
store_case = st.tuples(
    st.lists(st.sampled_from(STORE_VALUES), min_size=1, max_size=len(KEYS)),  # one value per key, in KEYS order
    st.sets(st.sampled_from(KEYS)),  # the keys forgotten
    st.lists(st.sampled_from(TEXT_PIECES), max_size=12).map("".join),  # an earlier message
    st.lists(st.sampled_from(TEXT_PIECES), max_size=6).map(lambda p: "Now: " + "".join(p)),  # words said after
)


def _store(values: Sequence[str], gone: set[str]) -> tuple[WorkingMemory, str]:
    """A store that admitted ``values`` under the first keys, then forgot ``gone``; and its block before the forget."""
    memory = WorkingMemory()
    candidates = [FactCandidate(key=k, value=v, evidence=f"{k}={v}") for k, v in zip(KEYS, values, strict=False)]
    ticket = memory.begin_turn("; ".join(c.evidence for c in candidates))
    memory.apply(ticket, candidates)
    before = memory.to_prompt_block()
    for key in sorted(gone):
        memory.forget(key)
    return memory, before


def _kept_in_order(original: str, redacted: str) -> bool:
    """Whether the text between the marks of ``redacted`` is ``original``'s own, in order (nothing else changed).

    Line by line: a stale block's line of a forgotten key is dropped whole.
    """
    at = 0
    for piece in (p for line in redacted.splitlines(keepends=True) for p in line.split(FORGOTTEN_MARK)):
        found = original.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def redaction_violations(case: tuple[list[str], set[str], str, str]) -> list[str]:
    values, gone, earlier, later = case
    memory, stale = _store(values, gone)
    held = [(f.key, f.value) for f in memory.facts]
    forgotten = [(f.key, f.value) for _, f in memory.forgotten if (f.key, f.value) not in held]
    memory.begin_turn(later)  # the user says ``later`` after the forget
    rules = Forgetting.of(memory)
    found: list[str] = []
    block = memory.to_prompt_block()
    if rules.text(block) != block:
        found.append(f"the current block changed: {rules.text(block)!r}")
    manual = rules.text(inject(block, later))
    if manual != inject(block, later) or parse_prompt_block(manual) != held:
        found.append(f"the manual message changed: {manual!r}")
    texts = {"earlier message": earlier, "stale block": stale, "stale block + earlier": stale + "\n" + earlier}
    for name, text in texts.items():
        sent = rules.text(text)
        if carries_forgotten(sent, forgotten, held):
            found.append(f"the {name} still carries a forgotten fact: {sent!r}")
        if not _kept_in_order(text, sent):
            found.append(f"the {name} changed beyond its redacted spans: {sent!r}")
        if rules.text(sent) != sent:
            found.append(f"redacting the {name} twice changed it again: {rules.text(sent)!r}")
        lines = sent.splitlines()
        if name != "earlier message" and (PROMPT_BLOCK_HEADER not in lines or PROMPT_BLOCK_FOOTER not in lines):
            found.append(f"the {name} lost its frame: {sent!r}")
        if any(pair in forgotten for pair in parse_prompt_block(sent)):
            found.append(f"the {name} still has a forgotten fact line: {sent!r}")
    return found


# region races: forgets during desk, writer and judge calls

RACE_VALUES = ("Reporting", "Billing", "SQL Server 2022", "facts", "user", "database", "Straße")


def sent_violations(memory: WorkingMemory, role: str, messages: Sequence[Message]) -> list[str]:
    """What a call that starts now may be sent: nothing the filter would still redact, every block whole."""
    rules = Forgetting.of(memory)
    forgotten = {(k, v) for _, k, v in rules.forgotten}
    found: list[str] = []
    for message in messages:
        if message.role == "system":
            continue
        texts = [c.text for c in message.contents if c.type == "text" and c.text]  # the filter's unit: one text
        found += [f"{role} was sent a forgotten fact: {t!r}" for t in texts if rules and rules.text(t) != t]
        text = message.text
        lines = text.splitlines()
        if lines.count(PROMPT_BLOCK_HEADER) != lines.count(PROMPT_BLOCK_FOOTER):
            found.append(f"{role} was sent a broken block: {text!r}")
        if any(pair in forgotten for pair in parse_prompt_block(text)):
            found.append(f"{role} was sent a forgotten fact line: {text!r}")
    return found


class Checked:
    """Mixed into an offline model: checks what each call is sent when it starts, then waits a random while."""

    memory: WorkingMemory
    violations: list[str]
    rng: random.Random
    role: str
    seen: Counter[str]

    def watch(
        self, memory: WorkingMemory, violations: list[str], rng: random.Random, role: str, seen: Counter[str]
    ) -> None:
        self.memory, self.violations, self.rng, self.role, self.seen = memory, violations, rng, role, seen

    async def _checked(self, messages: Sequence[Message]) -> None:
        self.seen[f"{self.role} calls checked"] += 1
        self.violations += sent_violations(self.memory, self.role, messages)
        for _ in range(self.rng.randint(0, 4)):
            await asyncio.sleep(0)


class CheckedDesk(Checked, OfflineAssistantClient):
    async def _respond(self, messages, options):
        await self._checked(messages)
        return await super()._respond(messages, options)


class CheckedWriter(Checked, OfflineWriterClient):
    async def _respond(self, messages, options):
        await self._checked(messages)
        return await super()._respond(messages, options)


class CheckedJudge(Checked, OfflineChatClient):
    """A judge that says done or more at random, checked like the others."""

    def answer(self, messages, options):
        done = self.rng.random() < 0.3
        return '{"answered": %s, "gapAnalysis": "check the module again"}' % ("true" if done else "false")

    async def _respond(self, messages, options):
        await self._checked(messages)
        return await super()._respond(messages, options)


def race_line(rng: random.Random) -> str:
    parts = [f"{rng.choice(KEYS)}={rng.choice(RACE_VALUES)}" for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5 or not parts:
        parts.append(rng.choice(["Which module and database am I on?", "Which database?", "Earlier you said it."]))
    return "; ".join(parts)


def _console(
    kind: str, memory: WorkingMemory, violations: list[str], rng: random.Random, seen: Counter[str]
) -> tuple[DeskConsole, Any]:
    desk, writer = CheckedDesk(name="desk"), CheckedWriter()
    desk.watch(memory, violations, rng, "desk", seen)
    writer.watch(memory, violations, rng, "writer", seen)
    extraction = MemoryExtraction(memory, ChatFactWriter(writer))
    if kind == "manual":
        return ManualInjectionDesk(Agent(client=desk, name="desk", instructions=DESK_INSTRUCTIONS), extraction), desk
    return ProviderDesks.build(extraction, {"desk": desk}, {"desk": DESK_INSTRUCTIONS}), desk


async def forget_race(rng: random.Random, seen: Counter[str] | None = None) -> list[str]:
    """Console turns, loops with a judge around the desk, and forgets, interleaved on one store.

    ``seen`` counts what the race exercised: the calls checked per role, and the forgets that removed a fact.
    """
    memory, violations, seen = WorkingMemory(), [], Counter() if seen is None else seen
    console, _ = _console(rng.choice(["manual", "provider"]), memory, violations, rng, seen)
    judge = CheckedJudge(name="judge")
    judge.watch(memory, violations, rng, "judge", seen)
    spare = AgentSession()  # a session no forget replaces: its history keeps every earlier mention

    async def turn() -> None:
        await console.handle(race_line(rng))

    async def looped() -> None:
        session = spare if rng.random() < 0.5 else console.sessions["desk"]
        options = LoopAgentOptions(max_iterations=3, fresh_context_per_iteration=rng.random() < 0.5)
        loop = LoopAgent(console.agents["desk"], AIJudgeLoopEvaluator(judge), options)
        await loop.run(race_line(rng), session=session)

    async def forget() -> None:
        held = len(memory.facts)
        await console.handle(rng.choice(["forget", *(f"forget {k}" for k in KEYS)]))
        seen["forgets that removed a fact"] += len(memory.facts) < held

    operations: list[Callable[[], Awaitable[None]]] = [turn] * rng.randint(2, 4) + [looped] * rng.randint(1, 3)
    operations += [forget] * rng.randint(1, 3)
    rng.shuffle(operations)
    await turn()  # something to forget
    await interleave(rng, operations)
    return violations


async def run_forget_races(count: int, seed: int = 0, seen: Counter[str] | None = None) -> tuple[int, list[str]]:
    violations: list[str] = []
    for i in range(count):
        found = await forget_race(random.Random(f"{seed}:forget:{i}"), seen)
        violations += [f"forget race #{i}: {v}" for v in found]
    return count, violations


FORGET_PROPERTIES: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], list[str]]]] = {
    "forget: fold blind to encoding, spacing, invisible characters": (fold_text, fold_violations),
    "forget: a forgotten value written another way is caught": (match_case, match_violations),
    "forget: redaction keeps held lines and later words, lets nothing forgotten by": (store_case, redaction_violations),
}
"""Each property: the hypothesis strategy of its input and the check that returns the violations found."""

FORGET_RACES = "forget: desk, writer and a loop's judge racing forgets"
