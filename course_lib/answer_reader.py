"""The answer check: how lesson 07's evaluator reads an answer, the values it states for the stored keys and the
constraints it carries.

The lesson calls these the evaluator's rules, never a "reader": the reader is the model whose answer they check
(lesson 04's word), and one word for two things had a newcomer mix the model and the evaluator.

A real model writes prose: "The module is Billing and the database is Oracle.", "Billing module, Oracle database.",
"For the database, use MySQL.", Markdown lists, bold, tables and headings, HTML tags (``<b>Billing</b>``), and
histories ("moved off PostgreSQL"). Markdown marks and HTML tags are read as spaces (:func:`plain_text`).
:func:`check_answer` holds such an answer to the store: for every stored key, a statement of any other value is a
violation that names the key and what the answer said, whether or not the store ever held that value.

**Where a value is read.** Next to a word of its key (the key, its plural, ``DB`` for ``database``), clause by
clause:

* after the key, through ``=`` or ``:`` (the contract's form, any case), a dash, a parenthesis, or link words ("is",
  "stays", "will be", "use", "set to", ", use"): "the database is Oracle", "Database - Oracle", "For the database,
  use MySQL";
* after the key with nothing between ("Module Billing, database MySQL."), only where that reads as a statement: the
  key in lower case or first in its clause, the value closed by the clause's end, a comma or a connector, and the
  line neither a heading nor a label ending in a colon ("## Database Migration Notes", "**Module Owner:**");
* before the key, directly or through "for the" / "as the": "Billing module", "the SQLite database", "Use Oracle for
  the database";
* in a Markdown table, from a row whose first cell is a key, or from a column whose header is a key;
* after a known value's history: "from Reporting to Inventory", "PostgreSQL was replaced by Oracle", "Reporting ->
  Inventory" (any arrow: ``\u2192``, ``->``, ``=>``, ``\u21d2``) state the new value for the old one's key; a key's
  value written as a history ("module: Reporting -> Billing") states its last value;
* a superseded value (one the store held before a correction) also counts where the answer names it without its key.

**A value's extent.** In the contract's form and in a table cell, the value runs to the clause's end, a comma, a
parenthesis or a connector ("module=Payroll on MariaDB 11" states ``Payroll``); in the contract's form it also ends
where the next statement of an allowed key begins (``key=``): "module=Reporting module=Reporting" states
``Reporting`` twice, and "module=Billing database=PostgreSQL" states each value for its own key. In prose, the
stored value and the superseded ones are matched first, whatever their case ("the module is billing" restates
``Billing``); otherwise the value is a run of at most six *name words* (a word that starts with a capital or a
digit, or has a capital inside: "SQL Server 2019", "MariaDB 10.6", "DB2"), ended by any other word, by punctuation
or by a word that cannot name a value (a determiner, a connector, a key, a verb that opens a sentence: "Use", or a
word that describes rather than names: "Production", "new"). A prose value that is the start of the stored one ("SQL
Server" for "SQL Server 2022") contradicts nothing; one that is another stored key's value ("the Billing database")
qualifies the key, not states it.

**Comparing values.** A value read is compared with the stored ones up to case, spacing, quotes, Markdown marks, HTML
tags and the sentence punctuation that ends it (``.``, ``?``, ``!``, ``,``, ``;``, ``:``): the contract stores
``Payroll.`` for ``module=Payroll.``, and "The module is Payroll." states that value (:func:`values_match`).

**Chinese and Japanese.** They write no space between words, so a model answering in them writes a Latin value or
key flush against their characters ("Reporting模块", "モジュールはReportingです"): where the script changes, a word
ends, as at a space (:data:`_SPACELESS`); their full-width commas, colons and full stops are read as ASCII ones. Their
own words for a key ("模块") are not read.

**Not a claim.** A question (a clause ending in "?"), a negation or a history before the value ("no longer", "not",
"was", "moved off", "instead of", "from ... to", "old") or after it ("... was replaced", "(old)", an arrow to the
next value, "to" and the key's current value: "Reporting -> Billing", "Reporting to Billing"). A constraint said
only inside a question ("Never restart the production database during business hours?") is not carried either.

**What it cannot read** (lesson 07 measures these on the battery of ``tests/support/capstone_battery.py``): a value in
lower case that the store never held ("the database is oracle"); a value with a lower-case word inside ("SQL Server
for Linux" reads as "SQL Server"); a value named with no word of its key near it ("Everything lives on Oracle now");
a key and its value in two clauses ("Which database? Oracle.", a heading then a line); a capitalized word that
describes but is not in the rules' short list ("Legacy database" reads as a value); a history or a negation said in
other words ("left PostgreSQL behind", "Reporting is wrong"). Each list of words above is short on purpose: every
word added to one is a new way to miss a claim, so what they lack is left to these measured misreads.

Every step is linear in the answer's length: the answer is split once into clauses and words, and each key word reads
a bounded number of words around it; no pattern can backtrack over a run of one character.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from .assertions import ALLOWED_KEYS, value_core
from .memory import MAX_VALUE_CHARS, Fact

__all__ = [
    "CONNECTORS",
    "CUT_MARK",
    "SHOWN_VALUE_CHARS",
    "Planner",
    "Violation",
    "action_planned",
    "carries_constraint",
    "check_answer",
    "clauses",
    "mentions",
    "named_keys",
    "plain_text",
    "planner",
    "plans_action",
    "problems",
    "prose_values",
    "shown_value",
    "stated_values",
    "values_match",
    "verdict",
    "without_html_tags",
]

_SPACELESS = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
"""The letters of the scripts written without spaces between words: Japanese kana and Chinese (or Japanese) Han
characters. A model answering in them writes a Latin value flush against them (``Reporting模块``,
``モジュールはReportingです``): where one of these meets a Latin letter or a digit, a word ends, as at a space."""
_LETTER = f"[^\\W{_SPACELESS}]"
"""A letter, digit or ``_`` of a script written with spaces (a ``\\w`` that is not :data:`_SPACELESS`)."""
_SCRIPT_CHANGE = f"(?<=[{_SPACELESS}])(?={_LETTER})|(?<={_LETTER})(?=[{_SPACELESS}])"
_STARTS = f"(?:(?<![\\w-])|{_SCRIPT_CHANGE})"
"""Where a word may start: after no letter, digit, ``-`` or ``_``, or where the script changes."""
_ENDS = f"(?:(?![\\w-])|{_SCRIPT_CHANGE})"
"""Where a word may end: before no letter, digit, ``-`` or ``_``, or where the script changes."""
_FULL_WIDTH = str.maketrans("\uff0c\u3001\uff1b\u3002\uff01\uff1f\uff1a\uff1d\uff08\uff09", ",,;;!?:=()")
"""The punctuation of Chinese and Japanese text read as its ASCII counterpart, one character for one: the full-width
comma and the enumeration comma are commas, the ideographic full stop ends a clause (as ``;``: it needs no space after
it), and the full-width colon, semicolon, marks and brackets are their ASCII selves."""
_MARKDOWN = str.maketrans({"*": " ", "`": " ", "#": " ", "|": " ", ">": " "})
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![^\W_])__?(?=[^\W_])|(?<=[^\W_])__?(?![^\W_])")
"""``_never_`` and ``__never__``: underscores that open a word or close one. One inside a word stays
(``billing_worker.log``)."""
_HTML_ELEMENTS = (
    "a abbr b big blockquote br cite code del details div em font h1 h2 h3 h4 h5 h6 hr i ins kbd li mark ol p pre q s "
    "samp small span strike strong sub summary sup table tbody td th thead tr tt u ul var"
)
_HTML_TAG = re.compile(r"</?(?:" + "|".join(_HTML_ELEMENTS.split()) + r")\b[^<>]*>", re.IGNORECASE)
"""An HTML tag a model or a student may write around a value (``<b>``, ``</b>``, ``<br/>``, ``<span style="...">``):
a mark, as ``**`` is. Only the names of HTML elements: ``<Payroll>`` or ``count < 5`` is no tag. Linear: the part
after the name stops at the next ``<`` or ``>``."""
_ARROW = "\u2192"
"""How the plain copy writes every arrow of a history ("Reporting -> Billing", "=>", "\u21d2"): ``\u2192``."""
_ARROW_SPELLINGS = re.compile(r"(?<!-)-+>|(?<!=)=+>|\u21d2")  # linear: a run of dashes is tried once
_ARROW_THEN = re.compile(r"\s*\u2192\s*")
_CLAUSE_END = re.compile(r"[;!?\n]+|[.:](?=\s|$)")
_MAX_VALUE = 2 * MAX_VALUE_CHARS
"""The longest stretch after a key that is read as its value in the contract's form: twice the longest value the
store accepts, so a stored value stated word for word (in quotes, or with its spacing changed) is read whole. A
stated value usually ends sooner, at a clause end, a comma or a connector; one that runs past this is cut, and marked
(:data:`CUT_MARK`)."""
CUT_MARK = "\u2026"
"""What marks a stated value the rules read only in part ("Oracle0 Oracle1 … "): the answer goes on past the bound of
a value in the contract's form (:data:`_MAX_VALUE` characters) or of a name in prose (six name words). A value read in
part is shown with this mark wherever it is quoted (a verdict, the feedback, a panel), never as if it were whole."""
_NEXT_STATEMENT = re.compile(_STARTS + "(?:" + "|".join(ALLOWED_KEYS) + r")[ \t]*=", re.IGNORECASE)
"""Where the next statement in the contract's form begins (``module=``, ``database =``): a value before it ends
there, so "module=Reporting module=Reporting" is two statements of ``Reporting``, not one value."""
_STATEMENT = re.compile(
    _STARTS + "(?P<key>" + "|".join(ALLOWED_KEYS) + r")[ \t]*[=:][ \t]*"
    r"(?P<value>(?:(?!" + _NEXT_STATEMENT.pattern + r")(?:[^;\n.,]|[.,](?=\S))){1," + str(_MAX_VALUE) + "})",
    re.IGNORECASE,
)
CONNECTORS = ("and", "with", "on", "in", "for", "but", "while", "so", "because", "which", "that")
"""Words that end a value read in a sentence: "module=Payroll on MariaDB 11" states ``Payroll``. A stored value
that itself holds one of them as a word ("Billing on Linux") is read in full when the answer states it in full,
and its first words alone pass for it: rules that read words cannot tell the two apart."""
_VALUE_END = re.compile(r"\s+(?:" + "|".join(CONNECTORS) + r")\b|\s+\(|\s[-\u2013\u2014]\s|[,;)]", re.IGNORECASE)
_NEGATION_BEFORE = re.compile(
    r"\b(?:no longer|not|never|isn't|aren't|wasn't|no more|formerly|previously|used to|was|were|moved from|"
    r"migrated from|switched from|changed from|corrected from|replaced|replacing|instead of|rather than|from|"
    r"old|older|earlier|former|superseded|retired|retiring|dropped|away from|off)\W+"
    r"(?:(?!(?:to|by|with|into|onto)\b)\w+\W+){0,3}$",
    re.IGNORECASE,
)
_NEGATION_AFTER = re.compile(
    r"^\W{0,3}(?:\((?:old|former|previous|superseded|retired|before)|(?:is|was|has been|have been|were|got)\s+"
    r"(?:no longer|replaced|superseded|retired|dropped|gone|corrected|changed)|no longer|before\b|"
    r"(?:is|was) (?:the )?(?:old|former|previous))",
    re.IGNORECASE,
)
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_ACTION = re.compile(
    r"\b(plan|planned|planning|fix|fixing|restart|deploy|migrate|roll ?back|upgrade|patch|apply|run|execute)\b",
    re.IGNORECASE,
)


class _Clause(NamedTuple):
    """One clause of an answer, its plain text (marks removed, spacing collapsed), and how it ended."""

    text: str
    end: str
    """The mark that closed it: ``.``, ``:``, ``;``, ``?``, ``!``, a line break, or "" at the end of a line or cell."""
    title: bool
    """Whether its line is a heading or a bold line alone (``**`` or ``__``): it names a topic ("## Database Migration
    Notes")."""


_TITLE = re.compile(r"\s*(?:#|\*\*[^*]*\*\*:?\s*$|__[^_]*__:?\s*$)")
_TABLE_RULE = re.compile(r"\s*:?-{2,}:?\s*")


def plain_text(text: str) -> str:
    """The answer without Markdown marks (``*``, backticks, headings, quotes, table bars, ``_`` emphasis) or HTML
    tags (``<b>``, ``</b>``, ``<br>``).

    Each mark becomes a space, so positions do not move; an underscore is a mark only where it opens or closes a
    word (``_never_``), never inside one (``billing_worker.log``); a tag is one only with the name of an HTML element
    (:data:`_HTML_TAG`). Linear in the text's length.
    """
    if "<" in text:
        text = _HTML_TAG.sub(lambda m: " " * len(m.group()), text)
    if "_" in text:
        text = _UNDERSCORE_EMPHASIS.sub(lambda m: " " * len(m.group()), text)
    if ">" in text or "\u21d2" in text:
        text = _ARROW_SPELLINGS.sub(lambda m: _ARROW + " " * (len(m.group()) - 1), text)
    return text.translate(_MARKDOWN).translate(_FULL_WIDTH)


def without_html_tags(text: str) -> str:
    """``text`` with each HTML tag (:data:`_HTML_TAG`) taken out: ``<b>Billing</b>`` is ``Billing``."""
    return _HTML_TAG.sub("", text) if "<" in text else text


def _clauses_of(line: str, title: bool) -> Iterator[_Clause]:
    plain = plain_text(line)
    start = 0
    for end in _CLAUSE_END.finditer(plain):
        if end.group() == ":" and _ends_in_key(plain, end.start()):
            continue
        yield _Clause(" ".join(plain[start : end.start()].split()), end.group().strip()[:1], title)
        start = end.end()
    yield _Clause(" ".join(plain[start:].split()), "", title)


def _read_lines(text: str) -> tuple[list[_Clause], list[list[list[str]]]]:
    """The clauses of the answer's prose, and its Markdown tables (each a list of rows of plain cells)."""
    found: list[_Clause] = []
    tables: list[list[list[str]]] = []
    in_table = False
    for line in text.splitlines():
        if line.strip().startswith("|") and line.count("|") >= 2:
            cells = [" ".join(plain_text(c).split()) for c in line.strip().strip("|").split("|")]
            if not all(_TABLE_RULE.fullmatch(c) for c in cells):
                if not in_table:
                    tables.append([])
                tables[-1].append(cells)
            in_table = True
            continue
        in_table = False
        found += [c for c in _clauses_of(line, bool(_TITLE.match(line))) if c.text]
    return found, tables


def clauses(text: str) -> list[str]:
    """The answer's clauses: split at ``;``, ``!``, ``?``, a line break, or a period or colon before a space.

    A colon ends a clause only before a space, so ``key: value`` stays whole, and a period inside a value
    (``4.2``, ``billing-worker.log``) does not end it. A table row's cells are read as clauses, one per cell.
    """
    prose, tables = _read_lines(text)
    return [c.text for c in prose] + [cell for table in tables for row in table for cell in row if cell]


def _ends_in_key(text: str, at: int) -> bool:
    """Whether the word before position ``at`` is an allowed key (``module: Billing`` is one statement)."""
    word = re.search(f"({_LETTER}+)\\W*$", text[max(0, at - 24) : at])
    return word is not None and word[1].lower() in ALLOWED_KEYS


def stated_values(text: str) -> list[tuple[str, str]]:
    """Every ``(key, value)`` the text states in the contract's form, ``key=value`` or ``key: value``, in order.

    Any key case; Markdown bold or code, or an HTML tag, around the key or the value is ignored. Linear in the
    text's length.
    """
    plain = plain_text(text)
    return [
        (m["key"].lower(), _cut_marked(m["value"].strip(), plain, m.end("value"))) for m in _STATEMENT.finditer(plain)
    ]


def named_keys(text: str, values: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """The keys ``text`` talks about, in order: each it gives a value in the contract's form, in prose next to a word
    of the key, or in a table, and each whose ``values`` (the values the key holds or held) it names as a whole
    phrase, even without its key ("We are on Reporting." talks about the module that held ``Reporting``)."""
    held = {key: [v for v in vs if _norm(v)] for key, vs in (values or {}).items()}
    held = {key: vs for key, vs in held.items() if vs}
    known = _Known({key: vs[0] for key, vs in held.items()}, {key: vs[1:] for key, vs in held.items()})
    keys = [key for key, _ in stated_values(text)]
    prose, tables = _read_lines(text)
    prose_keys = [key for key in ALLOWED_KEYS if key != "constraint"]
    for clause in prose:
        spans = [(m.start("value"), m.end("value")) for m in _STATEMENT.finditer(clause.text)]
        keys += [r.key for r in _prose_reads(clause, _Words(clause.text), known, prose_keys, spans)]
    keys += [key for table in tables for key, _, _ in _table_pairs(table)]
    plain = " ".join(plain_text(text).split())
    keys += [key for key, vs in held.items() if any(mentions(v, plain) for v in vs)]
    return list(dict.fromkeys(keys))


def _runs_on(text: str, end: int) -> bool:
    """Whether a value in the contract's form read up to ``end`` stopped only at its bound: the text goes on with
    characters a value holds (not a clause end, nor a period or comma before a space, nor the next ``key=``)."""
    if end >= len(text) or _NEXT_STATEMENT.match(text, end):
        return False
    if text[end] in ".,":
        return end + 1 < len(text) and not text[end + 1].isspace()
    return text[end] not in ";\n"


def _cut_marked(value: str, text: str, end: int) -> str:
    """``value`` (read from ``text`` up to ``end``), with :data:`CUT_MARK` after it when the answer goes on past it."""
    return value + CUT_MARK if _runs_on(text, end) else value


def plans_action(text: str) -> bool:
    """Whether the text plans or asks for an action (plan, fix, restart, deploy, ...)."""
    return bool(_ACTION.search(text))


def _norm(text: str) -> str:
    """A value as it is compared: no marks, quotes or final sentence punctuation, spacing collapsed, case folded.

    ``Payroll.``, ``"Payroll"`` and ``payroll`` are one value: the contract stores a final period the user typed,
    and an answer's sentence ends with one (:func:`~course_lib.assertions.value_core`).
    """
    quotes = "\"'`*"
    plain = value_core(plain_text(text).strip().strip(quotes)).strip(quotes)
    return " ".join(plain.split()).casefold()


def values_match(one: str, other: str) -> bool:
    """Whether two values are the same for the evaluator: equal up to case, spacing, quotes, Markdown marks, HTML
    tags and the sentence punctuation that ends them (``Payroll.`` is ``payroll``)."""
    return _norm(one) == _norm(other)


def _same_value(stated: str, current: str) -> bool:
    """Equal as :func:`values_match` says; a trailing note in parentheses (``Billing (corrected)``) is allowed."""
    return _norm(current) in (_norm(stated), _norm(_TRAILING_NOTE.sub("", value_core(stated))))


def _carried(value: str, said: str) -> bool:
    """Whether the normalized answer ``said`` contains ``value`` as a whole phrase (not inside a longer word)."""
    return re.search(_STARTS + re.escape(_norm(value)) + _ENDS, said) is not None


def mentions(value: str, clause: str) -> list[int]:
    """Where ``value`` occurs in ``clause`` as a whole phrase (case and spacing aside), never inside a longer word."""
    said, want = clause.casefold(), _norm(value)
    found: list[int] = []
    at = said.find(want) if want else -1
    while at >= 0:
        end = at + len(want)
        before = said[at - 1] if at else " "
        after = said[end] if end < len(said) else " "
        if not _joins(before, said[at]) and not _joins(after, said[end - 1]):
            found.append(at)
        at = said.find(want, at + 1)
    return found


def _joins(outside: str, edge: str) -> bool:
    """Whether ``outside``, next to a phrase's ``edge`` character, continues its word: a letter, a digit, ``-`` or
    ``_`` does ("Reporting-free" does not mention ``Reporting``), unless the script changes between them
    (``Reporting模块`` does: :data:`_SPACELESS`)."""
    if not (outside.isalnum() or outside in "-_"):
        return False
    return _spaceless(outside) == _spaceless(edge)


def _spaceless(char: str) -> bool:
    return re.match(f"[{_SPACELESS}]", char) is not None


# region Prose: a value next to a word of its key

_KEY_OF = {k: k for k in ALLOWED_KEYS} | {k + "s": k for k in ALLOWED_KEYS} | {"db": "database", "dbs": "database"}
"""The words that name a key: the key, its plural, and ``DB`` for the database."""
_KEY_WORD = re.compile(_STARTS + "(?:" + "|".join(_KEY_OF) + ")" + _ENDS, re.IGNORECASE)
_WORD = re.compile(f"[{_SPACELESS}]+|{_LETTER}(?:{_LETTER}|['\u2019+#]|[./-](?={_LETTER}))*\\+*")
"""A word, with the marks a name keeps inside it: ``10.6``, ``billing-worker.log``, ``C#``, ``C++``, ``Billing's``."""
_LINKS_TEXT = (
    "is are stays remain remains will would be should must becomes become set to still now currently use choose pick "
    "keep we you i can shall then going"
)
_LINKS = frozenset(_LINKS_TEXT.split())
"""Words that may stand between a key and the value it is given: "the database is still Oracle", ", use MySQL".
Not "uses": "the module uses Entity Framework" names what it relies on. "to" only after a verb that moves the key's
thing (``_MOVES``) or another link word: "move the database to MySQL", "set to", not "connect the module to Redis"."""
_MOVES = frozenset({"move", "moving", "migrate", "migrating", "switch", "switching", "change", "changing", "point"})
_DETERMINERS_TEXT = "the a an this that these those your our my their its his her each every any some"
_ARTICLES_ELSEWHERE = (
    "le la les l un une des du ce cet cette ces "  # French: the seed's own language, and a model may answer in it
    "el los las una unos unas "  # Spanish
    "der die das den dem ein eine einen "  # German
    "il lo gli uno"  # Italian
)
_DETERMINERS = frozenset(_DETERMINERS_TEXT.split()) | frozenset(_ARTICLES_ELSEWHERE.split())
"""Words that open a noun phrase, never a value: capitalized at a clause's start ("Le module est Billing"), one
would otherwise be read as a value before its key (a student's walk found ``module=Le``)."""
_OPENERS_TEXT = (
    "use keep set run check fix patch deploy restart target choose pick switch stay apply open update upgrade migrate "
    "move point configure connect work select go put leave try stick continue verify ensure make see note confirm "
    "which what whose it we you i they he she there here if when where why how no not yes both all only"
)
_OPENERS = frozenset(_OPENERS_TEXT.split())
"""Words a sentence opens with, capitalized only for that: they never begin a value ("Use Oracle for ...")."""
_DESCRIBING_TEXT = (
    "production prod staging test dev live primary main current new old same existing affected target whole entire "
    "other default local remote shared"
)
_DESCRIBING = frozenset(_DESCRIBING_TEXT.split())
"""Words that describe a key's thing rather than name it ("the Production database"); names of an environment."""
_NOT_NAMES = _DETERMINERS | _OPENERS | _LINKS | frozenset(CONNECTORS) | frozenset(_KEY_OF) | {"or", "nor", "as", "of"}
_MAX_NAME_WORDS = 6
_QUOTES = " \"'\u201c\u201d\u2018\u2019"
_DASHES = ("-", "\u2013", "\u2014", "(", "=>")


def _bare(word: str) -> str:
    """The word without a possessive: ``Billing's`` is ``Billing``."""
    return word[:-2] if word[-2:] in ("'s", "\u2019s") else word


def _is_name(word: str, key: str) -> bool:
    """Whether ``word`` can be part of a value: a capital first or inside, or a digit first; no common word."""
    word = _bare(word)
    low = word.casefold()
    if low in _NOT_NAMES or (low in _DESCRIBING and key != "environment"):
        return False
    return word[:1].isdigit() or any(c.isupper() for c in word)


class _Words:
    """A clause's words, with the text between each two: what the reading before and after a key walks over."""

    def __init__(self, clause: str) -> None:
        self.text = clause
        self.words = list(_WORD.finditer(clause))
        self.starts = [w.start() for w in self.words]
        self.lows = [_bare(w.group()).casefold() for w in self.words]
        self.count = len(self.words)

    def __len__(self) -> int:
        return self.count

    def low(self, i: int) -> str:
        return self.lows[i]

    def gap(self, i: int) -> str:
        """The text between word ``i - 1`` and word ``i`` (the clause's start before word 0), quotes aside."""
        start = self.words[i - 1].end() if i > 0 else 0
        return self.text[start : self.words[i].start()].strip(_QUOTES)

    def joined(self, i: int) -> bool:
        """Whether word ``i`` follows word ``i - 1`` with nothing but spacing (or quotes) between."""
        return i > 0 and self.gap(i) == ""

    def first_from(self, at: int) -> int | None:
        """The index of the first word that starts at or after position ``at`` (None if no word does)."""
        i = bisect.bisect_left(self.starts, at)
        return i if i < len(self.words) else None


def _name_run(words: _Words, first: int, key: str, step: int) -> tuple[int, int] | None:
    """The words ``(first, last)`` of a run of name words from ``first``, forward (``step=1``) or back (``-1``)."""
    last = first
    if not (0 <= first < len(words)) or not _is_name(words.words[first].group(), key):
        return None
    while 0 <= last + step < len(words) and abs(last + step - first) < _MAX_NAME_WORDS:
        nxt = last + step
        if not words.joined(max(nxt, last)) or not _is_name(words.words[nxt].group(), key):
            break
        last = nxt
    return (first, last) if step > 0 else (last, first)


class _Read(NamedTuple):
    key: str
    start: int
    """Where the value starts in the clause."""
    value: str
    cut: Literal["", "before", "after"] = ""
    """Where the answer goes on past a name run the bound of six words stopped: before it, or after it."""

    @property
    def shown(self) -> str:
        """The value as a verdict quotes it: with :data:`CUT_MARK` where the answer goes on past it."""
        if self.cut == "before":
            return CUT_MARK + self.value
        return self.value + CUT_MARK if self.cut == "after" else self.value


class _Known:
    """The values the answer check recognizes whatever their case: each stored key's current and superseded values."""

    def __init__(self, stored: Mapping[str, str], old: Mapping[str, Sequence[str]]) -> None:
        cores = {key: [value_core(v) for v in (stored[key], *old.get(key, ()))] for key in stored}
        self.values = {key: sorted(vs, key=len, reverse=True) for key, vs in cores.items()}
        """Each key's values, longest first: where one is the start of another, the longer is read."""
        self.key_of = {_norm(v): key for key, vs in self.values.items() for v in vs if _norm(v)}
        words = {v: [w.casefold() for w in _WORD.findall(v)] or [""] for vs in self.values.values() for v in vs}
        self.edges = {key: ({words[v][0] for v in vs}, {words[v][-1] for v in vs}) for key, vs in self.values.items()}
        """Each key's values' first words and last words: most words of an answer begin or end none of them."""

    def at(self, text: str, start: int, key: str, word: str) -> str | None:
        """The known value of ``key`` that ``text`` states from ``start`` (where ``word`` begins), longest first."""
        if word.casefold() not in self.edges.get(key, ((), ()))[0]:
            return None
        for value in self.values[key]:
            if _phrase_at(text, start, value):
                return value
        return None

    def ending(self, text: str, end: int, key: str, word: str) -> tuple[int, str] | None:
        """The known value of ``key`` that ``text`` states ending at ``end`` (where ``word`` ends): its start, value."""
        if word.casefold() not in self.edges.get(key, ((), ()))[1]:
            return None
        for value in self.values[key]:
            start = end - len(" ".join(value.split()))
            if start >= 0 and _phrase_at(text, start, value):
                return start, value
        return None

    def of_other_key(self, value: str, key: str) -> bool:
        """Whether ``value`` is a known value of another key: "the Billing database" names the module's database."""
        other = self.key_of.get(_norm(value))
        return other is not None and other != key


def _phrase_at(text: str, start: int, value: str) -> bool:
    want = " ".join(value.split())
    end = start + len(want)
    if start < 0 or end > len(text) or text[start:end].casefold() != want.casefold():
        return False
    before = start > 0 and _joins(text[start - 1], text[start])
    return not before and not (end < len(text) and _joins(text[end], text[end - 1]))


def _value_at(words: _Words, i: int, key: str, known: _Known, step: int) -> _Read | None:
    """The value whose first (``step=1``) or last (``step=-1``) word is word ``i``: a known value, or a name run."""
    if not 0 <= i < len(words):
        return None
    text = words.text
    word = words.words[i]
    if step > 0:
        value = known.at(text, word.start(), key, word.group())
        if value is not None:
            return _Read(key, word.start(), value)
    else:
        found = known.ending(text, word.end(), key, word.group())
        if found is not None:
            return _Read(key, found[0], found[1])
    run = _name_run(words, i, key, step)
    if run is None:
        return None
    start, end = words.words[run[0]].start(), words.words[run[1]].end()
    cut: Literal["", "before", "after"] = ""
    if run[1] - run[0] + 1 == _MAX_NAME_WORDS:  # the bound stopped the run: is there more of the name past it?
        nxt = run[1] + 1 if step > 0 else run[0] - 1
        joined = 0 <= nxt < len(words) and words.joined(max(nxt, run[0]))  # the later of the two words follows
        if joined and _is_name(words.words[nxt].group(), key):
            cut = "after" if step > 0 else "before"
    return _Read(key, start, _bare(text[start:end]), cut)


def _before_key(words: _Words, k: int, key: str, known: _Known) -> _Read | None:
    """The value written before the key at word ``k``: "Billing module", "Oracle for the database"."""
    i = k - 1
    if i >= 1 and words.low(i) in _DETERMINERS and words.low(i - 1) in ("for", "as"):
        i -= 1
    if i >= 0 and words.low(i) in ("for", "as"):
        i -= 1
    if i < 0 or not all(words.joined(j) for j in range(i + 1, k + 1)):
        return None
    return _value_at(words, i, key, known, -1)


def _after_key(words: _Words, k: int, key: str, known: _Known, clause: _Clause) -> _Read | None:
    """The value written after the key at word ``k``: "the database is Oracle", "Module Billing,"."""
    if k + 1 >= len(words):
        return None
    mark = words.gap(k + 1)
    if mark in ("=", ":"):
        return None  # the contract's form: read by ``_STATEMENT``
    if mark not in ("", ",", *_DASHES):
        return None
    i, linked = k + 1, 0
    moved = any(words.low(j) in _MOVES for j in range(max(0, k - 2), k))
    while i < len(words) and words.low(i) in _LINKS and linked < 4 and (linked == 0 or words.joined(i)):
        if words.low(i) == "to" and not (linked or moved):
            return None
        i, linked = i + 1, linked + 1
    if mark == "," and not linked:
        return None
    read = _value_at(words, i, key, known, 1)
    if read is None or mark or linked:
        return read
    return read if _bare_statement(words, k, read, clause) else None


def _bare_statement(words: _Words, k: int, read: _Read, clause: _Clause) -> bool:
    """Whether "key Value", with nothing between, states the value: "Module Billing, database MySQL."

    Not in a heading ("## Database Migration Notes"), nor a label that a colon closes ("Module Owner:"); the key in
    lower case or first in its clause ("Ask your Database Administrator" states nothing); and the value closed by the
    clause's end, a comma, a parenthesis or a connector.
    """
    if clause.title or not (words.words[k].group()[:1].islower() or k == 0):
        return False
    end = read.start + len(read.value)
    rest = words.text[end : end + 40].lstrip(_QUOTES)
    if not rest:
        return clause.end != ":"
    return rest[0] in ",;)(" or rest.split(maxsplit=1)[0].casefold() in CONNECTORS


def _prose_reads(
    clause: _Clause, words: _Words, known: _Known, keys: Iterable[str], skip: Sequence[tuple[int, int]]
) -> list[_Read]:
    """Each value the clause gives a word of one of ``keys`` in prose, before or after it, in order.

    ``skip`` are the spans of the clause's contract statements: a key word inside a stated value is not a key.
    """
    if clause.end == "?":
        return []
    wanted = set(keys)
    reads: list[_Read] = []
    span = 0  # the first statement span not yet behind the word: spans and words both run left to right
    for k, low in enumerate(words.lows):
        key = _KEY_OF.get(low)
        if key not in wanted:
            continue
        start = words.starts[k]
        while span < len(skip) and skip[span][1] <= start:
            span += 1
        if span < len(skip) and skip[span][0] <= start:
            continue
        before = _before_key(words, k, key, known)
        after = _after_key(words, k, key, known, clause)
        reads += [r for r in (before, after) if r is not None]
    return [
        r
        for r in reads
        if not known.of_other_key(r.value, r.key) and not _historical(clause.text, r.start, len(r.value))
    ]


def prose_values(clause: str) -> list[tuple[str, str]]:
    """The ``(key, value)`` a clause states in prose: "the database is PostgreSQL", "Billing module"."""
    reads = _prose_reads(_Clause(clause, "", False), _Words(clause), _Known({}, {}), ALLOWED_KEYS, [])
    return [(r.key, r.value) for r in reads]


# region Histories and transitions

_TRANSITION_AFTER = re.compile(
    r"\s+(?:(?:was|were|is|has been|have been|got|is being)\s+)?replaced\s+(?:by|with)\s+", re.IGNORECASE
)
_FROM_BEFORE = re.compile(r"\bfrom\s+(?:the\s+)?$", re.IGNORECASE)
_REPLACE_BEFORE = re.compile(r"\breplac\w*\s+(?:the\s+)?$", re.IGNORECASE)
_TO_AFTER = re.compile(r"\s+(?:to|into|onto)\s+", re.IGNORECASE)
_WITH_AFTER = re.compile(r"\s+with\s+", re.IGNORECASE)


def _historical(clause: str, at: int, length: int) -> bool:
    """Whether a mention at ``at`` is a negation or a history ("no longer X", "from X to Y", "X (old)")."""
    return bool(_NEGATION_BEFORE.search(clause[max(0, at - 60) : at])) or bool(
        _NEGATION_AFTER.search(clause[at + length : at + length + 40])
    )


def _successor(clause: str, start: int, end: int) -> int | None:
    """Where the value that replaced the one at ``start:end`` begins: "from X to Y", "X was replaced by Y"."""
    before = clause[max(0, start - 24) : start]
    transitions = (
        (_TRANSITION_AFTER, None),
        (_ARROW_THEN, None),  # "Reporting \u2192 Inventory"
        (_TO_AFTER, _FROM_BEFORE),
        (_WITH_AFTER, _REPLACE_BEFORE),
    )
    for pattern, needs in transitions:
        follows = pattern.match(clause, end)
        if follows and (needs is None or needs.search(before)):
            return follows.end()
    return None


class _OldValues:
    """The known values of the stored keys, found in a clause by one pattern (longest value first).

    A superseded one stated as current is a claim even without its key; any known value followed by its successor
    ("from Reporting to Inventory") gives the successor to its key.
    """

    def __init__(self, values: Mapping[str, Sequence[str]], current: Mapping[str, str]) -> None:
        self.key_of = {_norm(v): (key, v) for key, vs in values.items() for v in vs if _norm(v)}
        self.current = {_norm(v): (key, v) for key, v in current.items() if key != "constraint" and _norm(v)}
        names = sorted(self.key_of.keys() | self.current.keys(), key=len, reverse=True)
        alternatives = "|".join(re.escape(n).replace("\\ ", r"\s+") for n in names)
        self.pattern = re.compile(_STARTS + "(?:" + alternatives + ")" + _ENDS, re.IGNORECASE) if names else None

    def search(self, clause: str) -> bool:
        return self.pattern is not None and self.pattern.search(clause) is not None

    def claims(self, clause: str) -> list[tuple[str, str]]:
        """``(key, value)`` for each superseded value the clause states as current (not negated, not history).

        The value is given as the store held it, whatever the answer's case and spacing.
        """
        if self.pattern is None:
            return []
        found: list[tuple[str, str]] = []
        for m in self.pattern.finditer(clause):
            old = self.key_of.get(_norm(m.group()))
            if old is None or _historical(clause, m.start(), len(m.group())):
                continue
            if not self.moved_on(clause, m.end(), old[0]):
                found.append(old)
        return found

    def moved_on(self, clause: str, end: int, key: str) -> bool:
        """Whether the value that ends at ``end`` is the old end of a history written with an arrow ("Reporting
        \u2192 Billing", any arrow the plain copy writes as ``\u2192``), or with "to" and the key's current value
        ("Reporting to Billing"): the value after it is the one stated as current."""
        if _ARROW_THEN.match(clause, end):
            return True
        to = _TO_AFTER.match(clause, end)
        if to is None or self.pattern is None:
            return False
        then = self.pattern.match(clause, to.end())
        return then is not None and self.current.get(_norm(then.group()), ("", ""))[0] == key

    def successors(self, clause: _Clause, words: _Words, known: _Known) -> list[_Read]:
        """The value each history in the clause moves a known value to: "from Reporting to Inventory"."""
        if self.pattern is None or clause.end == "?":
            return []
        reads: list[_Read] = []
        for m in self.pattern.finditer(clause.text):
            at = _successor(clause.text, m.start(), m.end())
            if at is None:
                continue
            name = _norm(m.group())
            key = (self.key_of.get(name) or self.current[name])[0]
            first = words.first_from(at)
            read = None if first is None else _value_at(words, first, key, known, 1)
            if read is not None and not known.of_other_key(read.value, key):
                reads.append(read)
        return reads


# region Checking an answer against the store


def _differs(stated: str, current: str) -> bool:
    """Whether a value read in prose is another value than the stored one.

    Equal up to case and spacing passes, and so does the stored value with more words after it ("Billing on
    Linux" for ``Billing``: the extent of a prose value is uncertain), or its first words alone ("SQL Server" for
    ``SQL Server 2022``: less said, nothing contradicted).
    """
    said, want = _norm(stated), _norm(current)
    if said == want or (said.startswith(want) and said[len(want)] in " ,;.("):
        return False
    return not (want.startswith(said) and want[len(said)] == " ")


def check_answer(
    facts: Sequence[Fact], answer: str, task: str = "", superseded: Mapping[str, Iterable[str]] | None = None
) -> list[Violation]:
    """The rules an answer breaks against the stored ``facts``; [] when none. One violation per key at most.

    Read clause by clause (the module's docstring says where a value is read and what it cannot read): a value
    stated for a stored key that is not the stored one, whether or not the store ever held it, in the contract's form,
    in prose, in a table; a mention of a ``superseded`` value of a stored key (the values the store held before a
    correction) that is not a negation or a history. ``task`` is the request the answer responds to: a task (or an
    answer) that plans an action makes each stored ``constraint`` due, carried as :func:`carries_constraint` reads it.
    """
    stored = {f.key: f for f in facts}
    older = {
        key: [v for v in values if not _same_value(v, stored[key].value)]
        for key, values in (superseded or {}).items()
        if key in stored
    }
    old = _OldValues(older, {key: f.value for key, f in stored.items()})
    known = _Known({key: f.value for key, f in stored.items() if key != "constraint"}, older)
    prose, tables = _read_lines(answer)
    found: dict[str, str] = {}
    for clause in prose + [_Clause(cell, "", False) for cell in _free_cells(tables)]:
        if _KEY_WORD.search(clause.text) or old.search(clause.text):  # most clauses of a long answer name nothing
            for key, value in _claims(clause, stored, old, known):
                found.setdefault(key, value)
    for key, value in _table_claims(tables, stored):
        found.setdefault(key, value)
    violations = [Violation(fact=stored[key], stated=value) for key, value in found.items()]
    planned_by = planner(task, answer, facts)
    if planned_by is not None:
        parts = [c.text for c in prose if c.end != "?"]  # a question carries no constraint: it is not a claim
        parts += [cell for table in tables for row in table for cell in row if cell]
        violations += [
            Violation(fact=f, planned_by=planned_by)
            for f in facts
            if f.key == "constraint" and f.key not in found and not carries_constraint(f.value, answer, parts)
        ]
    return violations


def _claims(clause: _Clause, stored: Mapping[str, Fact], old: _OldValues, known: _Known) -> list[tuple[str, str]]:
    """The ``(key, other value)`` a clause states as current, in the order it states them."""
    claims: list[tuple[str, str]] = []
    spans: list[tuple[int, int]] = []
    for m in _STATEMENT.finditer(clause.text):
        spans.append((m.start("value"), m.end("value")))
        key = m["key"].lower()
        fact = stored.get(key)
        if fact is not None and not _historical(clause.text, m.start(), 0):
            value = _contract_value(key, m["value"], fact, cut=_runs_on(clause.text, m.end("value")))
            if value is not None:
                claims.append((key, value))
    prose_keys = [key for key in stored if key != "constraint"]
    words = _Words(clause.text)
    for read in _prose_reads(clause, words, known, prose_keys, spans) + old.successors(clause, words, known):
        if _differs(read.value, stored[read.key].value):
            claims.append((read.key, read.shown))
    return claims + ([] if clause.end == "?" else old.claims(clause.text))  # a question is not a claim


def _contract_value(key: str, value: str, fact: Fact, *, cut: bool = False) -> str | None:
    """The other value a ``key=value`` statement (or a table cell) gives ``fact``'s key; None if it is the stored one.

    "module=Payroll on MariaDB 11" states Payroll, not the whole rest of the clause; a constraint is read whole.
    ``cut``: the statement ran past the bound of a value (:data:`_MAX_VALUE`), so the value read is only its start,
    and it is marked so (:data:`CUT_MARK`) unless a connector or a comma ended it sooner.
    """
    value = value.strip()
    if _same_value(value, fact.value):
        return None
    if key != "constraint":
        value = value.rsplit(_ARROW, 1)[-1].strip() or value  # a history's last value: "Reporting \u2192 Billing"
        whole = value
        value = _VALUE_END.split(value, maxsplit=1)[0].strip() or value
        if _same_value(value, fact.value):
            return None
        cut = cut and value == whole
    return value + CUT_MARK if cut else value


def _table_key(cell: str) -> str | None:
    return _KEY_OF.get(_bare(cell.strip(_QUOTES + ":")).casefold())


def _table_pairs(table: list[list[str]]) -> list[tuple[str, str, tuple[int, int]]]:
    """Each ``(key, value cell, (row, column))`` a table states: by a row's first cell that is a key, or by a
    header that is a key (unless two rows start with a key: "| Module | Billing |" over "| Database | ... |")."""
    header = table[0]
    columns = {i: key for i, cell in enumerate(header) if (key := _table_key(cell)) is not None}
    keyed_rows = sum(_table_key(row[0]) is not None for row in table)
    if columns and len(table) > 1 and keyed_rows < 2:
        return [
            (key, row[i], (r, i))
            for r, row in enumerate(table[1:], start=1)
            for i, key in columns.items()
            if i < len(row) and row[i]
        ]
    return [
        (key, row[1], (r, 1))
        for r, row in enumerate(table)
        if len(row) > 1 and row[1] and (key := _table_key(row[0])) is not None
    ]


def _table_claims(tables: list[list[list[str]]], stored: Mapping[str, Fact]) -> list[tuple[str, str]]:
    claims: list[tuple[str, str]] = []
    for table in tables:
        for key, cell, _ in _table_pairs(table):
            fact = stored.get(key)
            value = None if fact is None else _contract_value(key, cell, fact)
            if value is not None:
                claims.append((key, value))
    return claims


def _free_cells(tables: list[list[list[str]]]) -> list[str]:
    """The cells of each table that hold no key's value: read as prose clauses."""
    cells: list[str] = []
    for table in tables:
        taken = {at for _, _, at in _table_pairs(table)}
        cells += [cell for r, row in enumerate(table) for i, cell in enumerate(row) if cell and (r, i) not in taken]
    return cells


# region Constraints

_STOPWORD_TEXT = (
    "the a an of to in on at for and or with by during must should we you be is are any do does our your it this"
    " that these those from as"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_NEGATIVE = frozenset({"never", "not", "no", "don't", "dont", "avoid", "without", "nor", "cannot", "can't", "mustn't"})


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _words(text: str) -> list[str]:
    return re.findall(r"[\w']+", plain_text(text).casefold())


def _without_questions(answer: str) -> str:
    """The answer with each question clause (one ending in "?") blanked, so a constraint quoted word for word in a
    question is not read as carried. Split as :func:`clauses` splits; linear in the answer's length."""
    lines = []
    for line in answer.splitlines():
        plain, kept, start = plain_text(line), [], 0
        for end in _CLAUSE_END.finditer(plain):
            if end.group() == ":" and _ends_in_key(plain, end.start()):
                continue
            if end.group().strip()[:1] != "?":
                kept.append(line[start : end.end()])
            start = end.end()
        lines.append(" ".join([*kept, line[start:]]))
    return "\n".join(lines)


def _statements(answer: str) -> list[str]:
    """The answer's clauses and table cells, without its questions: where a constraint can be carried."""
    prose, tables = _read_lines(answer)
    return [c.text for c in prose if c.end != "?"] + [cell for table in tables for row in table for cell in row if cell]


def carries_constraint(constraint: str, answer: str, parts: Sequence[str] | None = None) -> bool:
    """Whether the answer carries a stored constraint in the user's words or close to them.

    Word for word passes. Otherwise one clause must hold every content word of the constraint but at most one
    (stems: "restarting" counts for "restart"), and, for a negative constraint ("never ..."), a negation of its own:
    "Do not restart the production database in business hours" carries "never restart the production database
    during business hours"; "Restart the production database during business hours" does not. A constraint said
    only inside a question ("... during business hours?") is not carried: a question is not a claim. ``parts`` are
    the answer's clauses that are not questions, when the caller has them already.
    """
    if _carried(constraint, _norm(_without_questions(answer))):
        return True
    words = _words(constraint)
    content = {_stem(w) for w in words if w not in _STOPWORDS and w not in _NEGATIVE}
    negative = any(w in _NEGATIVE for w in words)
    for clause in _statements(answer) if parts is None else parts:
        said = _words(clause)
        present = content & {_stem(w) for w in said}
        if len(content) - len(present) <= (1 if len(content) > 3 else 0) and (
            not negative or any(w in _NEGATIVE or w.endswith("n't") for w in said)
        ):
            return True
    return False


Planner = Literal["the task", "your answer", "the task and your answer"]
"""What planned the action that makes a stored constraint due: the task, the answer, or both."""


def planner(task: str, answer: str, facts: Sequence[Fact] = ()) -> Planner | None:
    """Which of ``task`` and ``answer`` plans an action (None: neither, and no constraint is due).

    The words of a stored ``constraint`` among ``facts`` are not an action planned: "never restart the production
    database during business hours", quoted word for word or in close words, plans no restart. An action word of
    the text's own still counts, beside the constraint or in the same clause ("Patch Billing, but never restart ...").
    """
    constraints = [f.value for f in facts if f.key == "constraint"]
    by_task, by_answer = _plans_beyond(task, constraints), _plans_beyond(answer, constraints)
    if by_task and by_answer:
        return "the task and your answer"
    if by_task:
        return "the task"
    return "your answer" if by_answer else None


def _plans_beyond(text: str, constraints: Sequence[str]) -> bool:
    """Whether ``text`` plans an action in words of its own, not only in the words of one of ``constraints``."""
    if not constraints:  # an action the text forbids is none it plans (:func:`_forbidden`)
        return any(not _forbidden(text, m.start()) for m in _ACTION.finditer(text))
    prose, tables = _read_lines(text)
    for part in [c.text for c in prose] + [cell for table in tables for row in table for cell in row if cell]:
        for constraint in constraints:  # a constraint quoted word for word: its words are the user's, not a plan
            core = _norm(constraint)
            if core:
                phrase = re.escape(core).replace("\\ ", r"\s+")
                part = re.sub(_STARTS + phrase + _ENDS, " ", part, flags=re.IGNORECASE)
        found = [_stem(m.group().casefold()) for m in _ACTION.finditer(part) if not _forbidden(part, m.start())]
        if not found:
            continue
        own = {  # a constraint in close words ("do not restart ..."): its action words are its own too
            _stem(w) for c in constraints if carries_constraint(c, part) for w in _words(c) if w not in _STOPWORDS
        }
        if any(stem not in own for stem in found):
            return True
    return False


def _forbidden(text: str, at: int) -> bool:
    """Whether the action word at ``at`` follows a negation of its own ("never restart", "do not restart", "don't
    deploy", "not to patch"): it is forbidden, not planned (lesson 07's walk 22: "never restart prod DB" was read as
    a plan). Only the word right before it counts, past a "to": "Don't forget to patch" still plans a patch."""
    before = _words(text[max(0, at - 64) : at])[-2:]  # a bounded look back: the reading stays linear
    if before[-1:] == ["to"]:
        before = before[:-1]
    return bool(before) and (before[-1] in _NEGATIVE or before[-1].endswith("n't"))


class Violation(BaseModel):
    """One broken rule: the stored fact, and the other value the answer stated (None: the fact is missing)."""

    model_config = ConfigDict(frozen=True)

    fact: Fact
    stated: str | None = None
    planned_by: Planner | None = None
    """For a missing constraint: what planned the action that made it due, so a reason never blames the other."""

    @property
    def problem(self) -> str:
        """What the answer did wrong, in words a reader of the answer checks: the value it named ("your answer names
        Reporting as the current module", whatever form the answer used, so no ``module=Reporting`` it never wrote),
        a long one shortened (:func:`shown_value`), or the constraint it left out."""
        if self.stated is not None:
            return f"your answer names {shown_value(self.stated)} as the current {self.fact.key}."
        if self.planned_by == "your answer":
            return "your answer plans an action but does not carry this constraint."
        return f"{self.action_planned}, and your answer does not carry this constraint."

    @property
    def action_planned(self) -> str:
        """Who planned the action that made this constraint due, as a clause: "the task plans an action"."""
        return action_planned(self.planned_by)


def action_planned(planned_by: Planner | None) -> str:
    """What planned an action, as a clause a reason begins with: "the task plans an action"."""
    if planned_by is None:
        return "an action is planned"
    verb = "plan" if planned_by == "the task and your answer" else "plans"
    return f"{planned_by} {verb} an action"


def verdict(violations: Sequence[Violation]) -> str:
    """A short verdict for a table: ``pass``, or each violation as ``key: stated`` / ``constraint missing``."""
    if not violations:
        return "pass"
    return "; ".join(
        f"{v.fact.key} missing" if v.stated is None else f"{v.fact.key}: {shown_value(v.stated)}" for v in violations
    )


SHOWN_VALUE_CHARS = 40
"""How much of a long stated value a quote of it shows: enough to recognise it, never a 500-character run."""


def shown_value(stated: str) -> str:
    """A stated value as every quote of it shows it (a verdict, the loop's feedback, lesson 07's panel): a short one
    whole; a long one cut to its first :data:`SHOWN_VALUE_CHARS` characters and marked with :data:`CUT_MARK`, the
    mark the rules put where they stopped reading kept too. A long unbroken run read whole also gives its length
    ("ReportingReporting… (540 characters)"), as the panels shorten any long input. One rule, so the panel's table and
    the feedback the loop sends back quote a value alike."""
    before = CUT_MARK if stated.startswith(CUT_MARK) else ""
    rest = stated[len(before) :]
    after = CUT_MARK if rest.endswith(CUT_MARK) else ""
    core = rest[: len(rest) - len(after)]
    if len(core) <= 2 * SHOWN_VALUE_CHARS:
        return stated
    if after or " " in core:  # read in part, or words: the first ones, then the mark
        return f"{before}{core[:SHOWN_VALUE_CHARS].rstrip()}{CUT_MARK}"
    return f"{before}{core[:SHOWN_VALUE_CHARS]}{CUT_MARK} ({len(core)} characters)"  # one run read whole


def problems(violations: Sequence[Violation]) -> str:
    """Each violation's key and problem in one sentence, joined by ``;`` without doubling a period (empty: none).

    "module: your answer names Reporting as the current module; database: your answer names PostgreSQL as the
    current database." A table cell or a trace line reads it as one sentence.
    """
    if not violations:
        return ""
    return "; ".join(f"{v.fact.key}: {v.problem.removesuffix('.')}" for v in violations) + "."
