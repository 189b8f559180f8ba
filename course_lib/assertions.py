"""The explicit ``key=value`` contract: the only way a user's words become a fact.

The contract is deliberately narrow (seed: "Un contrat volontairement étroit"). A declaration is a
segment of the message, separated by ``;`` or a line break, of the form ``key=value`` where ``key`` is
one of ten allowed keys, compared ordinally (case matters), and ``value`` is everything after the
first ``=``, trimmed. Anything else -- a question, prose, an unknown key, an empty value -- is not a
declaration and yields no fact. The host compares the writer's proposal with this parse, so the parse
is the ground truth of what the user explicitly said.

**One rule for line breaks.** A line break is every character Python's ``str.splitlines`` breaks on:
``\n``, ``\r`` (and ``\r\n``), ``\v``, ``\f``, ``\x1c``-``\x1e``, U+0085, U+2028 and U+2029. Each one
separates declarations exactly as ``;`` does, so no key, value or citation ever contains one. The same
set ends a line of the prompt block (:func:`course_lib.memory.parse_prompt_block`) and of every text
the offline models read, so a value can never start a new line anywhere: a fence cannot be broken by
an exotic line break that one reader honours and another ignores.

**Invisible edges are trimmed like spaces.** A key, a value and a citation are trimmed of whitespace *and*
of invisible format characters (Unicode category ``Cf``: the byte-order mark U+FEFF an editor or a paste
puts before the first line, zero-width spaces and joiners, direction marks). Such a character is not part
of what the user can see: left in place, ``\ufeffmodule=Billing`` would have a key that is not ``module``
and the declaration would vanish without a word. Inside a key or a value it stays (``mod\u200bule`` is
not an allowed key; ``Bill\u200bing`` is kept as it is), since trimming only ever removes edges.

**Only encodable text.** A message holding a lone surrogate (``"\ud800"``, which no UTF-8 or UTF-16
text can carry) is refused before anything is parsed, by :class:`UnencodableMessage`.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "ALLOWED_KEYS",
    "LINE_BREAKS",
    "LINE_BREAK_MARK",
    "MAX_MESSAGE_CHARS",
    "NOT_ALONE_RULE",
    "SENTENCE_END_MARKS",
    "SHOWN_SEGMENT_CHARS",
    "SPACE_MARK",
    "Declaration",
    "MessageNotText",
    "MessageRefused",
    "MessageTooLong",
    "NearMiss",
    "NearMissProblem",
    "UnencodableMessage",
    "allowed_in_other_case",
    "as_written",
    "case_note",
    "check_message",
    "check_message_length",
    "declarations_inside",
    "declared_inside_reason",
    "find_declarations",
    "has_lone_surrogate",
    "is_keyless",
    "keyless_reason",
    "left_out",
    "length_in_units",
    "length_in_utf16_units",
    "mark_line_breaks",
    "missing_marks",
    "near_misses",
    "nothing_declared_note",
    "parse_assertions",
    "parts",
    "repeated_keys",
    "require_text",
    "shown_pair",
    "spelling_slip",
    "trim",
    "utf16_length",
    "value_core",
]


ALLOWED_KEYS: tuple[str, ...] = (
    "product",
    "module",
    "priority",
    "database",
    "constraint",
    "customer",
    "version",
    "environment",
    "symptom",
    "log",
)
"""The ten keys a declaration may use, in the seed's order."""

MAX_MESSAGE_CHARS = 4096
"""A user message longer than this (in UTF-16 code units, as .NET counts) is refused before anything is parsed."""

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character ``str.splitlines`` breaks on: each separates declarations, like ``;``."""
LINE_BREAK_MARK = "\u23ce"
"""How a student reads a line break inside one value or one table cell: ``⏎``, not Python's ``\\n`` escape."""


SPACE_MARK = "\u2423"
"""How a table shows a space the eye would miss (``␣``): a space a refused value holds at either end."""


def mark_line_breaks(text: str) -> str:
    """``text`` with each line break (``\\r\\n`` counts as one) shown as :data:`LINE_BREAK_MARK`, on one line."""
    return re.sub("\r\n|[" + LINE_BREAKS + "]", LINE_BREAK_MARK, text)


_SEPARATORS = re.compile("\r\n|[;" + LINE_BREAKS + "]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class MessageRefused(ValueError):
    """A user message the contract refuses as a whole: nothing is parsed, no turn begins."""


class MessageTooLong(MessageRefused):
    """Raised when a user message exceeds :data:`MAX_MESSAGE_CHARS`; nothing is parsed."""


class UnencodableMessage(MessageRefused):
    """Raised when a user message holds a lone surrogate: it is not text any model or file can carry."""


class MessageNotText(MessageRefused, TypeError):
    """Raised when a "message" is not text (None, a number, bytes, a dict): the contract reads only text.

    A student in lesson 01 may pass ``None`` or a dict; without this, Python's own error (``'NoneType' object has no
    attribute 'encode'``) names neither the rule nor what to pass.
    """


def as_written(thing: object) -> str:
    """What stood where text, a batch or a candidate belongs, as a student wrote it: ``None``, else its type's
    name with its article (``a generator``, ``an int``).

    Why: "NoneType" named Python's type of ``None``, not what a student wrote (``None``).
    """
    if thing is None:
        return "None"
    name = type(thing).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def require_text(text: object) -> None:
    """Refuse anything but text before it is read, naming the rule: a message is text, in quotes."""
    if not isinstance(text, str):
        raise MessageNotText(
            f"Message refused: it is {as_written(text)}, not text (rule: a message is text). "
            "Write the message in quotes, e.g. 'module=Billing'. Nothing was parsed or stored."
        )


@dataclass(frozen=True)
class Declaration:
    """One explicit declaration and the exact text it came from.

    ``evidence`` is the trimmed segment (``"module=Billing"``): an exact substring of the message that
    contains the value, which is what the store demands as a citation.
    """

    key: str
    value: str
    evidence: str


def utf16_length(text: str) -> int:
    """``text``'s length as .NET's ``string.Length`` counts it: UTF-16 code units (an emoji outside the BMP is 2).

    Every bound of the contract (message, value, evidence) counts these units, so that what the seed's store
    refuses is refused here too; a lone surrogate counts one unit, as in .NET.
    """
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def length_in_units(text: str) -> str:
    """``"N characters"`` as the limits count them, in words a student reads on the lesson's path (a panel).

    When the count differs from what Python's ``len`` says (an emoji counts two: :func:`utf16_length`), the
    sentence says so in plain words; the unit's name and the seed's reason are the lessons' "Under the hood" business.
    """
    units = utf16_length(text)
    if units == len(text):
        return f"{units} characters"
    return f"{units} characters (an emoji or other rare character counts as two)"


def length_in_utf16_units(text: str) -> str:
    """The store's refusal of a length: ``"N characters"``, or, when the count is in UTF-16 units (it differs from
    ``len``), ``"N UTF-16 units (...)"`` naming that unit and saying in plain words what it counts.

    Why: lesson 01's Under the hood prints ``len() = 200`` and then the refusal; "it has 400 characters" beside it
    read as a contradiction (twelfth walk). A panel on the lesson's path keeps :func:`length_in_units`.
    """
    units = utf16_length(text)
    if units == len(text):
        return f"{units} characters"
    return f"{units} UTF-16 units (the unit the limits count: an emoji or other rare character counts as two)"


def check_message_length(text: str) -> None:
    """Refuse a message over the limit (in UTF-16 code units: :func:`utf16_length`), naming the rule and lengths."""
    if utf16_length(text) > MAX_MESSAGE_CHARS:
        raise MessageTooLong(
            f"Message refused: it has {length_in_utf16_units(text)} and the limit is "
            f"{MAX_MESSAGE_CHARS} (rule: message length). Nothing was parsed or stored."
        )


def has_lone_surrogate(text: str) -> bool:
    """True when ``text`` holds a surrogate code point: not text any UTF-8 file, JSON string or model carries."""
    return _SURROGATE.search(text) is not None


def check_message(text: str) -> None:
    """Refuse a message the contract cannot read: not text, over the length limit, or not encodable text."""
    require_text(text)
    check_message_length(text)
    if surrogate := _SURROGATE.search(text):
        raise UnencodableMessage(
            f"Message refused: it holds a lone surrogate U+{ord(surrogate.group()):04X} at index "
            f"{surrogate.start()}, which no UTF-8 text can carry (rule: encodable text). Nothing was parsed or stored."
        )


def find_declarations(text: str) -> list[Declaration]:
    """Every explicit declaration in ``text``, in order, repeats included.

    Use :func:`parse_assertions` for the contract's answer (last declaration of a key wins); this
    lower-level list keeps each occurrence with its evidence, which a writer needs to cite.
    Raises :class:`MessageRefused` (too long, or a lone surrogate) before parsing anything.
    """
    check_message(text)
    found: list[Declaration] = []
    for segment in _SEPARATORS.split(text):
        declaration = _parse_segment(segment)
        if declaration is not None:
            found.append(declaration)
    return found


NearMissProblem = Literal["no value", "wrong case", "not allowed", "colon", "markup", "table", "not alone"]
"""Why a ``key=value``-shaped segment declares nothing: an allowed key without a value, a key in the wrong case,
a key the contract does not allow, an allowed key written with ``:`` instead of ``=`` (``priority:P1``), dressed
in Markdown (``**module**=Billing``, ``**module=Billing**``), set in a Markdown table row (``| module | Reporting |``),
or a declaration with other words in its part (``We are on module=Payments``)."""


@dataclass(frozen=True)
class NearMiss:
    """A segment shaped like ``key=value`` that declares nothing, and the rule it broke.

    ``owner=alice``, ``Module=Billing`` and ``module=`` look like declarations and declare nothing; a panel or
    a model that explains a message names the rule instead of dropping the segment without a word.
    """

    key: str
    """The segment's key, trimmed as the contract trims it."""
    problem: NearMissProblem
    """The rule it broke."""
    allowed: str | None = None
    """For a ``wrong case``, ``colon``, ``markup`` or ``table`` key, the allowed key that was meant; None otherwise."""
    value: str | None = None
    """For a ``table`` row, a declaration ``not alone`` or one dressed whole in Markdown (``**module=Billing**``), its
    value (the declaration to write is ``allowed=value``); None otherwise."""
    typed: str = field(default="", compare=False)
    """For a declaration ``not alone``, its whole part as the user typed it, trimmed (``We are on module = Payments``):
    a note quotes it so the student recognises their own words. Not compared: it only says what the fields say."""

    @property
    def written(self) -> str:
        """A declaration ``not alone`` as the user wrote it, without the words before it (``module=Payments``); a
        message quotes it (``before 'module=Billing is right'``), so a value of several words reads as one."""
        return _shown(f"{self.key.split()[-1]}={self.value}")

    @property
    def words_before(self) -> str:
        """The words that stop a declaration ``not alone`` from being one (``We are on``), shortened if long."""
        return _shown(self.key.rsplit(maxsplit=1)[0])

    @property
    def typed_shown(self) -> str:
        """The part as typed, its end kept when it is long: the end holds the declaration the student meant."""
        typed = self.typed or f"{self.key}={self.value}"
        return typed if len(typed) <= SHOWN_SEGMENT_CHARS else "\u2026" + typed[-(SHOWN_SEGMENT_CHARS - 1) :]

    @property
    def reason(self) -> str:
        """The rule this segment broke, in the words every reader of a message uses (lesson 01's table, the desks).

        ``'owner' is not an allowed key``, ``'module=' has no value``: one wording wherever a segment is left out.
        """
        if self.problem == "no value":
            return f"'{self.key}=' has no value"
        if self.problem == "wrong case":
            return case_note(self.key, self.allowed or "").removesuffix(".")  # the one case note, as a clause
        if self.problem == "colon":
            return f"'{self.key}:' is written with a colon (a declaration is '{self.allowed}=value')"
        if self.problem == "markup" and self.value is not None:
            return f"'{self.key}' is dressed in formatting (write it bare: '{self.allowed}={self.value}')"
        if self.problem == "markup":
            return f"'{self.key}' is dressed in formatting (a declaration is '{self.allowed}=value')"
        if self.problem == "table":
            return f"a table row is not a declaration (write '{self.allowed}={self.value}')"
        if self.problem == "not alone":
            return (
                f"'{self.typed_shown}' has the words '{self.words_before}' before '{self.written}' ({NOT_ALONE_RULE})"
            )
        if slip := spelling_slip(self.key):
            return f"'{self.key}' is not an allowed key: write '{slip}'"
        return f"'{self.key}' is not an allowed key"


NOT_ALONE_RULE = "a declaration must stand alone: between ';' or line breaks, with nothing else in its part"
"""Why ``We are on module=Payments`` declares nothing, in the words every reader of a message uses."""


def parts(text: str) -> list[str]:
    """The non-empty parts of ``text``, trimmed: the segments between ``;`` or line breaks that the contract reads."""
    return [trimmed for segment in _SEPARATORS.split(text) if (trimmed := trim(segment))]


def allowed_in_other_case(key: str) -> str | None:
    """The allowed key that ``key`` differs from only by case (``Module`` -> ``module``); None for any other key.

    Keys are compared ordinally, so ``Module=Billing`` declares nothing: this names the key that was meant.
    """
    if key in ALLOWED_KEYS:
        return None
    return next((allowed for allowed in ALLOWED_KEYS if allowed.casefold() == key.casefold()), None)


def spelling_slip(key: str) -> str | None:
    """The allowed key ``key`` is a slip of: one or two letters off it (``modul``, ``priorty``); None otherwise.

    ``Module=`` was told the key it meant and ``modul=`` was not, though both are one keystroke from ``module``
    (walk 22). Letters are compared in any case (``MODUL``), counted by :mod:`difflib` as the letters added, dropped
    or changed; a short key allows fewer (one for ``log``), so a word is never read as a key it merely shares letters
    with. An allowed key, or one in another case (:func:`allowed_in_other_case`), is no slip.
    """
    if key in ALLOWED_KEYS or allowed_in_other_case(key) is not None:
        return None
    typed = key.casefold()
    best: tuple[int, str] | None = None
    for allowed in ALLOWED_KEYS:
        matcher = difflib.SequenceMatcher(a=typed, b=allowed, autojunk=False)
        off = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")
        if off <= min(2, len(allowed) // 3) and (best is None or off < best[0]):
            best = (off, allowed)
    return best[1] if best else None


def near_misses(text: str) -> list[NearMiss]:
    """Every segment of ``text`` that is shaped like a declaration but is not one, in order, repeats included.

    The segments and the trimming are :func:`find_declarations`' own, so what this explains is exactly what the
    parse left out. A segment whose key holds white space ("what does a=b mean") is prose, not a near miss.
    This reads a message to explain it and admits nothing, so it does not refuse a long one.

    >>> [(m.key, m.problem) for m in near_misses("module=; Module=Billing; owner=alice; priority:P1; module=Billing")]
    [('module', 'no value'), ('Module', 'wrong case'), ('owner', 'not allowed'), ('priority', 'colon')]
    >>> [(m.key, m.allowed) for m in near_misses("**module**=Payments\n# database=Oracle\n- priority=P1")]
    [('**module**', 'module'), ('# database', 'database'), ('- priority', 'priority')]
    >>> [(m.problem, m.allowed, m.value) for m in near_misses("**module=Reporting**; We are on module=Payments")]
    [('markup', 'module', 'Reporting'), ('not alone', 'module', 'Payments')]
    """
    require_text(text)
    found: list[NearMiss] = []
    for segment in _SEPARATORS.split(text):
        if markup := _markup_near_miss(segment) or _table_near_miss(segment):
            found.append(markup)
            continue
        key, sep, value = trim(segment).partition("=")
        key = trim(key)
        if not sep:
            if colon := _colon_near_miss(segment):
                found.append(colon)
            continue
        if not key:
            continue
        if any(char.isspace() for char in key):
            if alone := _not_alone_near_miss(key, value, trim(segment)):
                found.append(alone)
            continue
        if key in ALLOWED_KEYS:
            if not trim(value):
                found.append(NearMiss(key, "no value"))
        elif cased := allowed_in_other_case(key):
            found.append(NearMiss(key, "wrong case", cased))
        else:
            found.append(NearMiss(key, "not allowed"))
    return found


_MARKUP_KEY = re.compile(
    r"^(?P<lead>(?:#+|[-*+>]|\d+[.)])\s+|)(?P<mark>[*_`]*)(?P<key>\w+)(?P=mark)\s*(?P<sep>[=:])(?P<value>.*)$", re.S
)
"""A key dressed in Markdown: a heading's ``#``, a list's ``-`` or ``1.``, a quote's ``>``, ``**bold**`` or ``code``."""

_MARKUP_DECLARATION = re.compile(
    r"^(?P<lead>(?:#+|[-*+>]|\d+[.)])\s+|)(?P<mark>[*_`]+)(?P<key>\w+)\s*(?P<sep>[=:])(?P<value>.*?)(?P=mark)$", re.S
)
"""A whole declaration dressed in Markdown: ``**module=Reporting**``, ```module=Reporting```, ``*module=Reporting*``."""


def _markup_near_miss(segment: str) -> NearMiss | None:
    """``**module**=Payments``, ``# database=Oracle``, ``- priority=P1``: an allowed key inside Markdown.

    A message pasted from a chat or a notes file often carries Markdown; the key is then not the bare word the
    contract compares, so the line declares nothing, and each such line deserves its own reason.
    """
    if whole := _MARKUP_DECLARATION.match(trim(segment)):
        meant = _meant(whole["key"])
        value = trim(whole["value"])
        return NearMiss(trim(segment), "markup", meant, value) if meant and value else None
    match = _MARKUP_KEY.match(trim(segment))
    if match is None or not (match["lead"] or match["mark"]) or not trim(match["value"]):
        return None
    meant = _meant(match["key"])
    if meant is None:
        return None
    return NearMiss(trim(segment)[: match.start("sep")].rstrip(), "markup", meant)


def _meant(word: str) -> str | None:
    """The allowed key ``word`` is, or differs from only by case; None for any other word."""
    return word if word in ALLOWED_KEYS else allowed_in_other_case(word)


def _not_alone_near_miss(key: str, value: str, typed: str) -> NearMiss | None:
    """``We are on module=Payments``: an allowed key (in any case) ends words that share its part, and has a value.

    The key of such a part is all its text before ``=`` ("We are on module"), so it declares nothing; a sentence
    that only mentions an ``=`` ("what does a=b mean") names no allowed key and is prose, not a near miss, and so is
    a question ("Is module=Billing still right?"): it asks, and a desk answers it rather than refusing it.
    """
    meant = _meant(key.split()[-1])
    if meant is None or not trim(value) or trim(value).endswith("?"):
        return None
    return NearMiss(key, "not alone", meant, trim(value), typed)


_TABLE_ROW = re.compile(r"^\|(?P<key>[^|]*)\|(?P<value>[^|]*)\|?$")
"""A Markdown table row of two cells: ``| module | Reporting |``."""


def _table_near_miss(segment: str) -> NearMiss | None:
    """``| module | Reporting |``: an allowed key (in any case) and a value in a Markdown table row.

    A table pasted from a wiki or a chat looks like facts, but a row is not ``key=value``: the student should
    hear which declaration to write instead. A header row (``| key | value |``) or a rule (``|---|---|``)
    names no allowed key, so it is no near miss.
    """
    match = _TABLE_ROW.match(trim(segment))
    if match is None:
        return None
    key, value = trim(match["key"]), trim(match["value"])
    meant = key if key in ALLOWED_KEYS else allowed_in_other_case(key)
    if meant is None or not value:
        return None
    return NearMiss(key, "table", meant, value)


def _colon_near_miss(segment: str) -> NearMiss | None:
    """``priority:P1`` or ``Module: Billing``: an allowed key (in any case) and a value, joined by ``:`` not ``=``.

    Only an allowed key counts: ``Note: call me`` is prose, while ``priority: P1`` is a declaration written the
    way a YAML file or a form would write it, and the student should hear that it was not one.
    """
    key, sep, value = trim(segment).partition(":")
    key = trim(key)
    if not sep or not trim(value) or (key not in ALLOWED_KEYS and allowed_in_other_case(key) is None):
        return None
    return NearMiss(key, "colon", key if key in ALLOWED_KEYS else allowed_in_other_case(key))


def trim(text: str) -> str:
    """``text`` without whitespace or invisible format characters (``Cf``, e.g. a BOM) at either end."""
    start, end = 0, len(text)
    while start < end and _invisible(text[start]):
        start += 1
    while end > start and _invisible(text[end - 1]):
        end -= 1
    return text[start:end]


def _invisible(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) == "Cf"


def _parse_segment(segment: str) -> Declaration | None:
    evidence = trim(segment)
    key, sep, value = evidence.partition("=")
    key, value = trim(key), trim(value)
    if not sep or key not in ALLOWED_KEYS or not value:
        return None
    return Declaration(key=key, value=value, evidence=evidence)


def parse_assertions(text: str) -> dict[str, str]:
    """The explicit ``key=value`` declarations of ``text`` as a dict; the last one of a key wins.

    >>> parse_assertions("module=Reporting; database=PostgreSQL")
    {'module': 'Reporting', 'database': 'PostgreSQL'}
    >>> parse_assertions("Where can I find logs?")
    {}
    >>> parse_assertions("log=level=debug")
    {'log': 'level=debug'}

    Raises :class:`MessageTooLong` for a message over :data:`MAX_MESSAGE_CHARS` characters and
    :class:`UnencodableMessage` for one holding a lone surrogate.
    """
    return {d.key: d.value for d in find_declarations(text)}


def repeated_keys(text: str) -> dict[str, list[str]]:
    """Each key ``text`` declares with more than one value, mapped to its values in order; ``{}`` if none.

    :func:`parse_assertions` keeps only the last declaration of a key, so ``module=Billing; module=Payroll`` is read
    as ``module=Payroll``: a panel uses this to say so, since the student may have meant the first. A key repeated
    with the same value loses nothing and is left out. A message the contract refuses whole has none.
    """
    try:
        declarations = find_declarations(text)
    except MessageRefused:
        return {}
    values: dict[str, list[str]] = {}
    for declaration in declarations:
        values.setdefault(declaration.key, []).append(declaration.value)
    return {key: said for key, said in values.items() if len(set(said)) > 1}


def case_note(key: str, allowed: str) -> str:
    """``'Module' is not an allowed key (keys are case-sensitive): write 'module'.``: the one note for a key typed in
    another case, said alike by lesson 01's table (:attr:`NearMiss.reason`, as a clause), the console's ``forget``, the
    panels' notes and lesson 07's panel (one colon, one rule)."""
    return f"'{key}' is not an allowed key (keys are case-sensitive): write '{allowed}'."


SHOWN_SEGMENT_CHARS = 40
"""How much of a left-out segment :func:`left_out` repeats: enough to recognise it."""


def left_out(text: str) -> list[str]:
    """Why each part of ``text`` that gives no fact gives none, in order: nothing is dropped without a word.

    A part is a segment between ``;`` or line breaks (the contract's own split). A near miss says the rule it broke
    (:attr:`NearMiss.reason`: ``'owner' is not an allowed key``); a key holding spaces (``Hello! module``) is named
    as the key it is; a segment with no ``=`` is prose, one with nothing before its ``=`` has an empty key; a
    declaration a later one of its key replaces says so. A declaration typed inside a value after a space, a comma,
    'and' or a period (``module = Billing, database = X``) is part of that value, and says so
    (:func:`declared_inside_reason`). A message the contract refuses whole is :func:`check_message`'s business:
    this explains, it admits nothing.
    """
    require_text(text)
    segments = [trim(segment) for segment in _SEPARATORS.split(text)]
    last = {d.key: i for i, segment in enumerate(segments) if (d := _parse_segment(segment)) is not None}
    notes: list[str] = []
    for i, segment in enumerate(segments):
        if not segment:
            continue
        declaration = _parse_segment(segment)
        if declaration is not None:
            if last[declaration.key] != i:
                notes.append(f"'{_shown(segment)}' is replaced by a later {declaration.key} (the last one wins)")
            elif inside := declared_inside_reason(declaration.key, declaration.value):
                notes.append(inside)  # 'module=Billing database=Oracle': database went into module's value
            continue
        notes.append(_why_no_fact(segment))
    return notes


_INSIDE_DECLARATION = re.compile(r"(?<![\w=])(\w+)\s*=")
"""A word and '=' inside a value, the word not glued to an earlier word or '=': a key typed where a value goes on."""

_AND_WORDS = {"and": "'and'", "&": "'&'"}


def declarations_inside(value: str) -> list[tuple[str, str]]:
    """Each allowed key declared inside ``value`` after other words, with what stood before it, in words.

    A value runs to ';' or the end of the line, so ``module=Billing database=Oracle`` (a space where ';' belongs),
    ``module=Billing and database=Oracle``, ``module=Billing. database=Oracle`` and ``module=Billing, database=Oracle``
    each store one fact, ``module``, with ``database=Oracle`` inside its value. This finds that second declaration
    and names the mark that did not separate it: "a space", "a comma", "a period", "'and'", or the mark itself in
    quotes. Only an allowed key counts (``Contoso, owner=dana`` and ``level=debug`` are values), and only after
    other words: ``log=module=x`` puts nothing between the two to blame.

    >>> declarations_inside("Billing, database=Oracle"), declarations_inside("slow, then stuck")
    ([('database', 'a comma')], [])
    """
    found: list[tuple[str, str]] = []
    for match in _INSIDE_DECLARATION.finditer(value):
        before = value[: match.start()].rstrip()
        if match.group(1) in ALLOWED_KEYS and before:
            found.append((match.group(1), _mark_in_words(before)))
    return found


def _mark_in_words(before: str) -> str:
    """What ends ``before`` (the value's words before a declaration inside it), as a sentence names it."""
    last_word = before.split()[-1]
    if last_word.casefold() in _AND_WORDS:
        return _AND_WORDS[last_word.casefold()]
    last = before[-1]
    if last.isalnum() or last == "_":
        return "a space"
    return {",": "a comma", ".": "a period"}.get(last, f"'{last}'")


def declared_inside_reason(key: str, value: str) -> str:
    """Why a declaration typed inside ``key``'s ``value`` is not one, and how to separate it; ``""`` when none is.

    The one wording of :func:`declarations_inside` for every reader (lesson 01's "left out, and why", the panels'
    notes), as a clause: ``the declaration of database is part of module's value, since a space does not separate
    declarations; use ';' or a new line to declare database too``.
    """
    inside = declarations_inside(value)
    if not inside:
        return ""
    keys = list(dict.fromkeys(k for k, _ in inside))
    marks = list(dict.fromkeys(mark for _, mark in inside))
    some = f"the declaration of {keys[0]} is" if len(keys) == 1 else f"the declarations of {_and_joined(keys)} are"
    verb = "does" if len(marks) == 1 else "do"
    # module=Billing module=Payroll: declaring module "too" would read as a second module
    own = "on its own" if len(keys) == 1 else "on their own"
    step = f"declare {_and_joined(keys)} {own if key in keys else 'too'}"
    return (
        f"{some} part of {key}'s value, since {_and_joined(marks)} {verb} not separate declarations; "
        f"use ';' or a new line to {step}"
    )


def _and_joined(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def shown_pair(key: str, value: str) -> str:
    """``key=value`` as a message lists it, the value in quotes when it holds '=', ',' or ';'.

    ``customer=a=b and product=Contoso, Inc`` cannot be read back: the quotes show where each value ends
    (``customer="a=b" and product="Contoso, Inc"``). A plain value stays bare, as the student typed it.

    >>> shown_pair("module", "Billing"), shown_pair("customer", "a=b")
    ('module=Billing', 'customer="a=b"')
    """
    return f'{key}="{value}"' if any(mark in value for mark in "=,;") else f"{key}={value}"


def is_keyless(part: str) -> bool:
    """Whether a part of a message is shaped like a declaration with no key: ``=Payroll``, ``= =``.

    The one test of "has no key", for the store's notes (:func:`missing_marks`) and the offline desk alike, so a
    desk never answers as a question a line the store's verdict calls a failed declaration.
    """
    key, sep, value = part.partition("=")
    return bool(sep) and not trim(key) and bool(trim(value))


def keyless_reason(part: str) -> str:
    """``'= =' has no key``: why a part with no key (:func:`is_keyless`) declares nothing, one wording everywhere."""
    return f"'{_shown(part)}' has no key"


def missing_marks(text: str) -> list[str]:
    """Why each part of ``text`` shaped like a declaration with a piece missing declares nothing, in a panel's words.

    ``=Payroll`` has a value and no key; ``module Payroll`` has a key and a value and no ``=``. Neither is a near
    miss of a key (:func:`near_misses` reads keys), so without this a panel would say only "nothing stored". A part
    counts as ``key value`` only when its first word is a key (in any case) and the next one names something (a
    capital or a digit first, no question mark): "module is broken?" is prose, not a slip.
    """
    notes: list[str] = []
    for part in parts(text):
        if is_keyless(part):
            keys = ", ".join(ALLOWED_KEYS)
            notes.append(f"{keyless_reason(part)}: write an allowed key before '=' (allowed keys: {keys}).")
            continue
        sep = "=" in part
        words = part.split(maxsplit=1)
        meant = words[0] if words[0] in ALLOWED_KEYS else allowed_in_other_case(words[0])
        if sep or ":" in part or "?" in part or len(words) < 2 or meant is None:
            continue
        if words[1][:1].isupper() or words[1][:1].isdigit():
            notes.append(f"'{_shown(part)}' has no '=': a declaration is written with '=', as {meant}={words[1]}.")
    return notes


def nothing_declared_note(text: str) -> str:
    """Why a message with no ``=`` at all stores nothing: it is a question, or prose; ``""`` when it has an ``=``.

    A panel that answered "Is the module still Reporting?" with only "Nothing stored" would leave a student to
    guess whether the store failed; the contract reads declarations only, never questions or sentences. A message
    with an ``=`` is a declaration with a slip, and :func:`missing_marks` and the near misses say which rule it broke.
    """
    if "=" in text:
        return ""
    kind = "it is a question" if trim(text).endswith("?") else "it holds no '='"
    return f"{kind}; only key=value declarations are stored."


def _why_no_fact(segment: str) -> str:
    """Why one trimmed segment that is no declaration gives no fact."""
    # words before a declaration: lesson 01 teaches that the key is then all the text before '=', said below
    if (misses := near_misses(segment)) and misses[0].problem != "not alone":
        return misses[0].reason
    key, sep, _ = segment.partition("=")
    if sep and trim(key):
        return f"'{_shown(trim(key))}' is not an allowed key (the key is all the text before '=')"
    if sep:
        return f"'{_shown(segment)}' has nothing before '=': an empty key is not an allowed key"
    return f"'{_shown(segment)}' has no '=': a sentence or a question declares nothing"


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_SEGMENT_CHARS else text[: SHOWN_SEGMENT_CHARS - 1] + "\u2026"


SENTENCE_END_MARKS = ".?!,;:"
"""The punctuation a sentence puts after a word: ``module=Payroll.`` stores ``Payroll.`` (the contract keeps every
character after ``=``), and "The module is Payroll." states the same value as ``module=Payroll``."""


def value_core(value: str) -> str:
    """``value`` without the sentence punctuation (and spacing) that ends it, the form in which values are compared.

    The contract stores what the user typed; a reader comparing an answer with the store, and the filter that keeps
    a forgotten value out of model calls, compare cores, so a final ``.`` on either side changes nothing. A value
    that is only punctuation (``...``) is its own core: nothing would be left to compare.
    """
    core = value.rstrip().rstrip(SENTENCE_END_MARKS + " \t")
    return core if core else value.strip()
