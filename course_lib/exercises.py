"""Checking cells for the lessons' exercises.

A student writes a prediction in place of ``...`` and runs the checking cell, which compares it with
what the library computes. The expected value always comes from running the code, never from an
answer key typed into the notebook, so an exercise checks understanding of the mechanism itself.

The comparison minds types: ``'9'`` is text, not the number 9, and ``1`` is not ``True``. When the
only thing wrong is the type, the feedback says so instead of a bare "not quite"; a near miss (the case of
a word, spaces around it, a dict with a key too many or too few) is named too. A correct answer says, in
one line, why it is correct: the reasons are written here, in :data:`EXERCISES`, beside each exercise's hint.

Dict answers (lesson 01's exercise 1, and any exercise whose answer is a dict) follow one policy, everywhere a dict
is checked. The feedback may say what is wrong with the answer's FORM: it is not a dict, a key is not text, a key
or a value hedges, a key is not an allowed key name at all (a slip, another case, spaces around it, words before
it), a value is not text or holds an invisible character. Each form is said before any grading ("not checked
yet"), in the same words whatever the rest of the dict holds, right or wrong. A key written exactly as the
exercise's own message writes one (the text before a part's '=', trimmed as the contract trims:
:attr:`Exercise.message_keys`) is never a form, whatever it is: the message plants it as a trap ('Database',
'Hello! database'), and a note on its form would state the rule the trap tests. It is graded as content, counted
among the keys that should not be there. Past the form, a wrong dict is told
only HOW MANY keys are missing, extra, or hold a wrong value, always all three counts in one sentence of the same
shape (:func:`_dict_hint`), then WHICH keys hold a wrong value, by name only: never the right value, and no note
said only of some wrong answers (a case slip in a value) that would point at it. One exception (lesson 01's third
walk 23): a value that is the right one once its ends are trimmed as the contract trims them is told to check the
spaces at its ends (section 1's rule), since "not the right one" sent the student looking for other words. A value
of None is no form to fix: it is graded like any value (a key holding it should not be there, as one holding ''
should not).

What the checker says is broken into lines between words (:func:`readable_lines`), so it never depends on the
notebook's styling to wrap: JupyterLab's own style breaks a long printed line in the middle of a word.
"""

from __future__ import annotations

import ast
import io
import itertools
import linecache
import numbers
import re
import sys
import tokenize
import traceback
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # IPython loads when a notebook installs the guidance: the text helpers stay light
    from IPython.core.interactiveshell import InteractiveShell

__all__ = [
    "EXERCISES",
    "FEEDBACK_WIDTH",
    "LESSON_01_EVICTION_TURNS",
    "NOT_A_PYTHON_VALUE",
    "RIGHT_VALUE",
    "RUN_ALL_STOPS",
    "UNANSWERED",
    "Exercise",
    "answer_syntax_guidance",
    "case_form_hint",
    "check",
    "detail_hint",
    "dict_syntax_guidance",
    "echoed",
    "end_mark_hint",
    "exercise",
    "explain_unquoted_names",
    "hedge_hint",
    "hedged_answer_lines",
    "hedged_syntax_guidance",
    "key_value_hint",
    "literal_text_hint",
    "load_ipython_extension",
    "message_keys",
    "near_miss_hint",
    "not_defined_yet",
    "number_form_hint",
    "one_item_hint",
    "quoted_text_hint",
    "readable_lines",
    "several_choices_hint",
    "several_numbers_hint",
    "several_words_hint",
    "spelling_hint",
    "truth_form_hint",
    "type_hint",
    "unquoted_name_guidance",
    "value_written",
]


UNANSWERED = ...

FEEDBACK_WIDTH = 88
"""The longest line the checker prints: it fits a laptop's notebook width beside JupyterLab's file browser."""

_SPACE = re.compile(r"(?<=[^\s+*/=<>-]) (?=[^\s+*/=<>-])")
"""Where a line may break: a single space between two words, not beside an operator (``3 + 2 * 3`` stays whole)."""

_QUOTED = re.compile(r"\"[^\"\n]{1,40}\"|(?<!\w)'[^'\n]{1,40}'(?!\w)|`[^`\n]{1,40}`")
"""A short quoted text (``'  Billing '``, ``"## Feedback"``, an answer typed bare in backticks; an apostrophe opens
none): it stays on one line, where
the student can read it whole and count the spaces in it."""


def readable_lines(text: str, width: int = FEEDBACK_WIDTH) -> str:
    """``text`` with each of its lines broken between words into lines of at most ``width`` characters.

    Only a single space between words, outside a short quoted text (:data:`_QUOTED`), becomes a line break, so
    joining the lines with spaces gives ``text`` back; a part with no such space stays whole, however long.
    """
    return "\n".join(_broken(line, width) for line in text.split("\n"))


def _broken(line: str, width: int) -> str:
    """One line, broken greedily between its words: each line takes as many words as fit."""
    lines: list[str] = []
    for word in _words(line):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def _words(line: str) -> list[str]:
    """``line`` cut at the spaces where it may break: between words, never inside a short quoted text."""
    quoted = [match.span() for match in _QUOTED.finditer(line)]
    cuts = [m.start() for m in _SPACE.finditer(line) if not any(a < m.start() < b for a, b in quoted)]
    return [line[start + 1 : end] for start, end in zip([-1, *cuts], [*cuts, len(line)], strict=True)]


_ECHO = 60
"""How many characters of a student's text the checker shows back: a 5000-character answer was echoed whole."""


def _shown(value: Any) -> str:
    """``value`` as the checker echoes it: its repr, or, when long, its first :data:`_ECHO` characters, "…" and
    its length (``'xxx…'… (5000 characters)``), the same way in every message that echoes an answer. A whole number
    too long for Python to write in digits (over 4300 of them) is said as one, never a crash (lesson 06's walk 8)."""
    try:
        text = repr(value)
    except ValueError:  # int's limit on digits it converts to text
        return "a whole number of more than 4300 digits"
    if len(text) <= _ECHO + 2:
        return text
    if isinstance(value, str):
        return f"{value[:_ECHO]!r}… ({len(value)} characters)"
    return f"{text[:_ECHO]}… ({len(text)} characters)"


def echoed(value: Any) -> str:
    """A student's value as every checker message echoes it (:func:`_shown`), for feedback said outside the checker
    (lesson 03's exercise 1: ``message_1 = 10**5000`` must be echoed, not crash, as the checker's answers are)."""
    return _shown(value)


def _clipped(code: str) -> str:
    """A piece of the student's code as the checker quotes it: whole, or its first characters and its length."""
    return code if len(code) <= _ECHO else f"{code[:_ECHO]}… ({len(code)} characters)"


@dataclass(frozen=True)
class Exercise:
    """One lesson exercise: its label in the checking cell, the hint shown on a wrong answer, and why the answer holds.

    The expected value is never here: the checking cell computes it by running the library. ``why`` explains
    the mechanism behind the answer in one line, shown only once the answer is correct. ``misses`` pairs a
    tempting wrong answer with what is wrong with it, said before the hint (the hint alone may seem to support it),
    less any sentence of the hint that the miss already says or asks (:func:`_not_said_in`).
    ``choices`` are the names the question lists (``"accepted"``, ``"rejected"``...): an answer a slip away from one
    of them is told so (:func:`spelling_hint`). With ``choice_noun`` (``"desk"``), an answer that holds none of them
    is told what they are (:func:`_not_a_choice`). ``answer_type`` is the kind of the answer (``int``, ``str``...):
    a cell whose answer line fails before its expected value is computed is told how to write that kind.
    ``known`` are values the lesson uses where the question lists none (lesson 02's modules): an answer that is
    one of them apart from its case, or a slip away from one, is told so, alike for each of them.
    ``said_alone`` are misses said without the hint: the hint asks of a step that answer got right (lesson 02's
    walk 6: 8 counts the writer's calls right and only the user turns wrong).
    ``message`` is the message the exercise asks about (lesson 01's exercise 1), as the lesson's checking cell
    builds it: the keys it writes (:attr:`message_keys`) are content to grade, never a form to fix.
    ``made`` pairs a name the checking cell uses with the lesson cell that makes it, for the note a restarted
    kernel gets (:func:`not_defined_yet`): lesson 01's ``C`` is made in section 3, not by the imports cell.
    ``floor`` is the least value the answer can have and what is said of a number below it (lesson 00's exercise 1:
    a wait cannot be negative; walk 24: ``-61.5`` got the hint any wrong number gets).
    """

    lesson: str
    label: str
    hint: str
    why: str
    misses: tuple[tuple[Any, str], ...] = ()
    choices: tuple[str, ...] = ()
    choice_noun: str = ""
    answer_type: type = object
    known: tuple[str, ...] = ()
    said_alone: tuple[Any, ...] = ()
    message: str = ""
    made: tuple[tuple[str, str], ...] = ()
    floor: tuple[float, str] | None = None

    @property
    def message_keys(self) -> tuple[str, ...]:
        """The keys as :attr:`message` writes them: the text before each part's first '=', trimmed as the contract
        trims, once each in the message's order (``('database', 'version', 'log', 'Hello! database', 'Database')``).
        An allowed key or not: a key the message itself writes is what the exercise asks the student to judge."""
        return message_keys(self.message)


_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character that ends a part of a message, as the contract reads one. A copy of
``assertions.LINE_BREAKS`` (the checker imports nothing of the memory half); tests/test_lesson01_walk21.py keeps the
two equal."""

_PART_ENDS = re.compile("[;" + "".join(re.escape(char) for char in _LINE_BREAKS) + "]")


def _contract_trimmed(text: str) -> str:
    """``text`` without whitespace or invisible format characters at either end, as ``assertions.trim`` cuts it."""
    start, end = 0, len(text)
    while start < end and _edge(text[start]):
        start += 1
    while end > start and _edge(text[end - 1]):
        end -= 1
    return text[start:end]


def _edge(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) == "Cf"


def message_keys(message: str) -> tuple[str, ...]:
    """The keys ``message`` writes, as the contract reads a part: the text before its first '=', trimmed; a part
    with no '=' or nothing before it writes none. Allowed or not, once each, in the message's order."""
    keys = (_contract_trimmed(part.partition("=")[0]) for part in _PART_ENDS.split(message) if "=" in part)
    return tuple(dict.fromkeys(key for key in keys if key))


_KEYS = (
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
"""The ten allowed keys, which an exercise asking for a key offers. A copy of ``assertions.ALLOWED_KEYS``: the loop
lessons load the checker and nothing of the memory half (``tests/test_structure.py``); a test keeps the two equal."""

_LESSON_01_MESSAGE = "database = SQL Server 2022 ; version=; log=a=b\nHello! database=Oracle; Database=MySQL"
"""Lesson 01's exercise 1 asks what ``parse_assertions`` returns for this message: its checking cell builds
``message_1`` from the same two lines (tests/test_lesson01_walk21.py runs the stored cell's lines and compares). Its
keys ('Hello! database', 'Database' among them) are read from it by :func:`message_keys`, never listed by hand."""

_LESSON_02_DECLARATIONS = (
    "module=Reporting; database=PostgreSQL",
    "module=Billing; database=SQL Server 2022",
    "module=Payments\ndatabase=Oracle\nOur priority is high.",
)
"""The lines of lesson 02 that declare a database (exercise 2's correction, the seed's correction, section 5's)."""

_LESSON_02_DATABASES = tuple(
    dict.fromkeys(
        value.strip()
        for line in _LESSON_02_DECLARATIONS
        for key, _, value in (part.partition("=") for part in re.split(r"[;\n]", line))
        if key.strip() == "database"
    )
)
"""The database values lesson 02 declares: an answer to exercise 2 (which asks for the module) that is one of them
mixed up the two keys. Read from the lines as the contract reads them (a part's key is the text before its '=')."""

_LESSON_02_MODULES = tuple(
    dict.fromkeys(
        value.strip()
        for line in _LESSON_02_DECLARATIONS
        for key, _, value in (part.partition("=") for part in re.split(r"[;\n]", line))
        if key.strip() == "module"
    )
)
"""The module values lesson 02 declares: exercise 2 asks for one, and a slip from any of them is said alike."""

_DEFAULT_TIMEOUT = 30.0
_DEFAULT_MAX_RETRIES = 1
"""Copies of ``live.DEFAULT_TIMEOUT`` and ``live.DEFAULT_MAX_RETRIES``, the settings lesson 00's section 4 prints the
total of (the checker imports no other course_lib module); tests/test_lesson00_walk22.py keeps them equal."""


def _worst_case_wait(timeout: float, retries: int) -> float:
    """``live.LiveSettings.worst_case_wait`` for these settings: every attempt times out, plus the SDK's waits
    between them (0.5 s, doubling up to 8 s); tests/test_lesson00_walk22.py compares the two."""
    return float(timeout * (retries + 1) + sum(min(0.5 * 2**attempt, 8.0) for attempt in range(retries)))


_DEFAULT_RETRIES_WORD = "retry" if _DEFAULT_MAX_RETRIES == 1 else "retries"
_DEFAULTS_IN_WORDS = f"a timeout of {_DEFAULT_TIMEOUT:g} s and {_DEFAULT_MAX_RETRIES} {_DEFAULT_RETRIES_WORD}"
_DEFAULTS_TOTAL = _worst_case_wait(_DEFAULT_TIMEOUT, _DEFAULT_MAX_RETRIES)
"""The total section 4 prints for the default settings: lesson 00's exercise 1 answered with it is told whose it is
(lesson 00's walk 22: 60.5 got the hint any wrong number gets)."""

_EXERCISE_1_TIMEOUT = 20.0
_EXERCISE_1_RETRIES = 2
"""Lesson 00's exercise 1: the settings it asks about (``providers`` computes its answer from the same two)."""


def _silent_wait_slips(timeout: float, retries: int) -> tuple[tuple[float, str], ...]:
    """Each likely wrong count for ``timeout`` and ``retries``, with the slip behind it, computed from the sum.

    The sum is every attempt's timeout (the first attempt and each retry) plus the SDK's wait before each retry
    (:func:`_worst_case_wait`). A count that leaves out one of its parts names the part, never the total (lesson 00's
    walk 23: 40 and 61 got the hint any wrong number gets; its second walk: 40.5, the retries taken for the attempts in
    all). Section 4's total for the default settings is told whose it is; the answer cut to whole seconds is told the
    question keeps the fraction. Counts two slips share say both.
    """
    attempts = retries + 1
    waits = [min(0.5 * 2**attempt, 8.0) for attempt in range(retries)]
    total = _worst_case_wait(timeout, retries)
    retry_words = f"{retries} retr{'ies' if retries != 1 else 'y'}"
    slips: dict[float, list[str]] = {}

    def slip(count: float, words: str) -> None:
        if count != total:
            slips.setdefault(count, []).append(f"{count:g} s {words}")

    slip(
        _DEFAULTS_TOTAL,
        f"is section 4's total for the default settings ({_DEFAULTS_IN_WORDS}): which of them does this exercise "
        "change?",
    )
    slip(
        timeout * retries,
        f"counts the {retry_words} of {timeout:g} s: what about the first attempt, the one before any retry, and "
        "the SDK's waits between attempts?",
    )
    slip(
        timeout * retries + sum(waits),
        f"counts the {retry_words} and the SDK's waits: what about the first attempt, the one before any retry?",
    )
    if retries > 1:  # the retries taken for the attempts in all (with one retry, that is the retries-alone count)
        waits_words = f"{retries - 1} wait{'s' if retries > 2 else ''}"
        slip(
            _worst_case_wait(timeout, retries - 1),
            f"counts {retries} attempts of {timeout:g} s and {waits_words} between them: are the {retry_words} the "
            "attempts in all, or do they come after the first attempt?",
        )
    slip(
        timeout * attempts,
        f"counts {attempts} attempts of {timeout:g} s and no wait: does the next attempt start the very moment the "
        "last one gives up?",
    )
    for wait in waits:
        slip(
            total - wait,
            f"counts {attempts} attempts of {timeout:g} s and {retries - 1} of the SDK's {retries} waits: "
            "the SDK waits once before each retry; how long is each wait?",
        )
    if total != int(total):  # the sum cut to whole seconds (rounded up, it would tell how near a guess is)
        slip(float(int(total)), "is a whole number: does section 4's sum for this exercise have a fraction?")
    return tuple((count, " Or: ".join(words)) for count, words in slips.items())


_DATABASE_VALUE = "That is a database value; the question asks for the module."
"""Lesson 02, exercise 2: said alike to every database value, so it never points at the right module."""

_ROUTER_RULE = (
    "Section 2's rule looks for a line's whole words (not letters inside a word) on the router's list: which words "
    "of the question are on it?"
)
"""Lesson 03, exercise 2: said alike to either desk answered wrong, so it points at the rule, never at a word."""

LESSON_01_EVICTION_TURNS = ("product=P; customer=C", "module=M", "database=D; version=V", "symptom=timeout")
"""Lesson 01, exercise 2: the turns its checking cell replays into a fresh store (a test keeps the cell's equal)."""

_NEW_FACT_MISSES = tuple(
    (
        key,
        f"The new fact is never the one pushed out: {key} arrives at turn {len(LESSON_01_EVICTION_TURNS)}, and the "
        "store makes room for it among the facts it already holds.",
    )
    for key in message_keys(LESSON_01_EVICTION_TURNS[-1])
)
"""Lesson 01, exercise 2: the last turn's keys, each told that the fact it brings is the one the store keeps."""

EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "00",
        "Exercise 1",
        "Section 4's cell prints this sum for the default settings: what does each of its terms become with the "
        "timeout and retries of this exercise?",
        "One attempt and two retries of 20 s each (60 s), plus the SDK's waits of 0.5 s and 1 s between them: 61.5 s.",
        _silent_wait_slips(_EXERCISE_1_TIMEOUT, _EXERCISE_1_RETRIES),
        answer_type=float,
        floor=(0.0, "A wait cannot be negative: each attempt and each wait between them adds seconds."),
    ),
    Exercise(
        "00",
        "Exercise 2",
        "How many rows are roles, which of them gets a model of its own, and does the last row follow OPENAI_MODEL "
        "at all? See section 3's configuration cell (Ollama, with a judge of its own) for the same kind of set-up.",
        "Six roles follow OPENAI_MODEL unless a COURSE_<ROLE>_MODEL gives one its own: the writer says gpt-4o and "
        "the other five say gpt-4o-mini; the last row is the seed's fake numbering model, which no setting switches.",
        (
            (
                6,
                "Does every role follow OPENAI_MODEL here? Look again at which variables you set, and what each one "
                "decides.",
            ),
            (
                7,
                "Is every row of the table a role? Look again at what section 2 says of its last row, and at whether "
                "any setting changes it.",
            ),
        ),
        answer_type=int,
    ),
    Exercise(
        "00",
        "Exercise 3",
        "The exercise states where a value ends, and section 6 what the host does: what does this message declare, "
        "and what does the host do with a proposal that is not exactly the declared facts?",
        "A value runs to the next ';' or line break, and a comma is neither: the message declares one fact, "
        'module="Billing, priority=P1". '
        "The writer proposed module=Billing and priority=P1 instead, so the host "
        "rejects the whole proposal and stores nothing.",
        (
            (
                "accepted",
                "Where does the value of module end in this message, and so how many facts does it declare?",
            ),
            (
                "nothing_to_extract",
                "When does the host give that status? Look again at the exercise's list of statuses: did this writer "
                "propose nothing?",
            ),
            (
                "writer_failed",
                "writer_failed is the status of a writer that gave no usable reply, as section 4's closed port did. "
                "Did this writer's call fail, or did it answer with a proposal for the host to judge?",
            ),
        ),
        ("accepted", "rejected", "nothing_to_extract", "writer_failed"),
        answer_type=str,
    ),
    Exercise(
        "01",
        "Exercise 1",
        "Section 1 says where a part of a message ends, which of its text is the key and which the value, and when "
        "a part declares nothing: what does each part of the two lines give under those rules?",
        'The key is all the segment holds before its first "=": "Hello! database" is not a key, so Oracle was '
        'never declared; "Database" is not one either (case matters); "version=" declares nothing; the one real '
        'database declaration gives "SQL Server 2022" (spaces trimmed); a value may itself contain "=".',
        answer_type=dict,
        message=_LESSON_01_MESSAGE,
    ),
    Exercise(
        "01",
        "Exercise 2",
        "Section 5 says which fact a full store evicts, and how it breaks a tie: which facts does that rule look "
        "at here, and which one does it pick?",
        "Six keys for five places, so one goes: the oldest turn (1) holds two, product and customer. The tie is "
        'decided by comparing the keys as Python compares text: "customer" < "product" (c comes before p), so '
        "customer, the smaller, is evicted.",
        # 'product' and the others get the hint alone, one form (walk 9: "apply both steps" after 'product'
        # told its first step was right). The new fact's key alone is told why it cannot be the answer, a
        # step before the rule the hint asks about (second walk 24), computed from the exercise's turns.
        _NEW_FACT_MISSES,
        choices=_KEYS,
        answer_type=str,
    ),
    Exercise(
        "01",
        "Exercise 3",
        "Section 3 lists every rule the store checks a batch against: does either candidate here break one of them?",
        'The store checks the citation, not the meaning: "SQL Server" is inside "database=SQL Server 2022", so a '
        "cut-off value gets in; lesson 02's host check, which compares the proposal with the declarations, catches it.",
        answer_type=bool,
        made=(("C", "section 3's first code cell makes it (C = FactCandidate)"),),
    ),
    Exercise(
        "02",
        "Exercise 1",
        "What does lesson 01's contract make of each of the two parts of this message?",
        '"Module" is not an allowed key, so the message declares only module=Billing, which the writer proposes.',
        (
            (
                "rejected",
                "The host rejects a batch only when it differs from what the message declares. First work out "
                "what this message declares, then what the careful writer would propose for it.",
            ),
            (
                "nothing_to_extract",
                "Does this message declare nothing at all? Read each of its two parts with lesson 01's contract.",
            ),
        ),
        choices=("accepted", "rejected", "nothing_to_extract", "writer_failed", "stale", "forgotten"),
        answer_type=str,
    ),
    Exercise(
        "02",
        "Exercise 2",
        "Look in section 5's table, at the row of the writer that drops a declaration: read its status and its column "
        "'store unchanged'. What do they mean for this store's module?",
        "The writer dropped a declaration, so the whole batch is rejected: even module=Reporting is not stored, and "
        "module keeps the value the store held before it, Payments.",
        (
            (
                "Reporting",
                "Reporting was declared in that message: was the batch holding it stored?",
            ),
            ("nothing", "Does the store lose a fact it held?"),
            ("Billing", "Billing is what section 5's store held; this store was given another module first."),
            *((value, _DATABASE_VALUE) for value in _LESSON_02_DATABASES),
        ),
        answer_type=str,
        known=_LESSON_02_MODULES,
    ),
    Exercise(
        "02",
        "Exercise 3",
        "Which of the four lines are user turns (not mem or forget)? And in section 6's table, which models does "
        "the column 'model called' name for the line of each user turn?",
        'Each user turn calls the desk and the writer (2 + 2); "mem" and "forget" call no model.',
        (
            (8, "That counts two calls for every line: are all four lines user turns?"),
            (3, "Which models does section 6's table name in its column 'model called' for each user turn's line?"),
        ),
        answer_type=int,
        said_alone=(8,),
    ),
    Exercise(
        "03",
        "Exercise 1",
        "Which parts of your message are declarations of their own, as the contract reads them (section 7's value rule "
        "says where a value ends), and how many facts do they leave in the store? mem lists what the store holds, "
        'whatever the desk said "Noted" for.',
        'The store holds one fact per key your message declared. The desk\'s "Noted" quotes each value it read whole, '
        "and priority=P0 sat inside the value of another key: it is no declaration of its own, so it is no fact. "
        "What a desk says is not what the store holds; mem is.",
        answer_type=int,
    ),
    Exercise(
        "03",
        "Exercise 2",
        "Section 2 prints the router's rule and its list of operations words: which words of the question does "
        "that rule find on the list?",
        'The router compares whole words with its list: "catalog" and "blog" hold the letters "log" but are not '
        "the word log, and no other word of the question is on the list, so it goes to triage.",
        (("operations", _ROUTER_RULE), ("triage", _ROUTER_RULE)),
        choices=("triage", "operations"),
        choice_noun="desk",
        answer_type=str,
    ),
    Exercise(
        "03",
        "Exercise 3",
        "What did forget module do to every session, and which of the three lines reached triage?",
        "forget module gave triage a new, empty session; only database=Oracle reached it after that (a user message "
        'and an answer), "mem" reaches no desk and the question about logs went to operations.',
        misses=(
            (6, "forget module replaced triage's session by a new, empty one: its 4 older messages are gone."),
            (
                4,
                "The logs question went to the operations desk, not triage: in section 3, the reply to "
                "'Where can I find logs?' begins [operations], the desk that answered it.",
            ),
            (3, '"mem" reaches no desk, and the history never stores the facts block.'),
            (1, "The history keeps the desk's answer too, not only your message."),
        ),
        answer_type=int,
    ),
    Exercise(
        "04",
        "Exercise 1",
        "Which turns does a 9-turn window hold at turn 10?",
        "A 9-turn window at turn 10 holds turns 1 to 9, the whole conversation before the question: the prohibition "
        "of turn 2 and the correction of turn 6, but also turn 1's superseded Reporting and PostgreSQL, as full "
        "history does. It is right only because the latest rule picks the correction; under the other rules it is "
        "wrong (below), so a wide window is not a safe one.",
        answer_type=bool,
    ),
    Exercise(
        "04",
        "Exercise 2",
        "Which keys would a store of 8 hold at turn 10 under the eviction rule the exercise states (oldest turn "
        "first, ties by key name), and do they hold all that the final question needs?",
        "Nine keys for eight places: product (turn 1) is evicted; module, database and the constraint, which the "
        "question needs, are all still held.",
        answer_type=bool,
    ),
    Exercise(
        "04",
        "Exercise 3",
        "Section 3b says which lines an extractive summary drops first when it runs over its budget: which of the "
        "lines it printed are left at 200 characters, and do they hold all that the final question needs?",
        "An extractive summary over budget drops its oldest lines first, and the prohibition is turn 2: at 200 "
        "characters it is gone from the summary the reader receives (below).",
        answer_type=bool,
    ),
    Exercise(
        "05",
        "Exercise 1",
        "Read section 3's chart (each iteration is one model call): how many messages does each iteration add to the "
        "one before, and which call is the last when the evaluator allows 4 iterations?",
        "Three input messages, then a response and a feedback message for each of the three earlier iterations: "
        "3 + 2 * 3 at the 4th call.",
        (
            (
                11,
                "Does the last call get its own response and feedback?",
            ),
            (
                7,
                "That is section 2's last call, where the evaluator allows 3 iterations: how many does it allow here?",
            ),
        ),
        answer_type=int,
    ),
    Exercise(
        "05",
        "Exercise 2",
        "With allowed=1, what does the evaluator decide after the first answer, and does it send any feedback? "
        "Section 2 says what the loop's response holds, and what it leaves out.",
        "The evaluator stops after the first response, so it sends no feedback: the loop's response holds that "
        "one answer, one message.",
        (
            (5, "That is section 2's run, where the evaluator allows 3 iterations; here it allows 1."),
            (3, "Did you count the messages you sent? The response leaves out your three input messages."),
            (
                4,
                "Does the loop's response repeat the caller's input messages? See which message opens section 2's "
                "listing of the response.",
            ),
            (
                2,
                "Is there a feedback message after the last answer? Look at the last Evaluator block of section 2's "
                "trace: what does the evaluator send when it says stop?",
            ),
        ),
        answer_type=int,
    ),
    Exercise(
        "05",
        "Exercise 3",
        "Which response first carries the number [5], and is the model called again after it?",
        "The LLM answers [4], the evaluator asks again, the LLM answers [5]: stop, after two calls.",
        (
            (5, "[5] is the fifth numbered message, not the fifth call."),
            (
                3,
                "Once the model has answered [5], what does stop_at_5 decide, and what does the loop do then?",
            ),
        ),
        answer_type=int,
    ),
    Exercise(
        "06",
        "Exercise 1",
        "Step through section 8's stepper (its caller sends one input message, where section 1's sends three): read "
        "the count beside Incoming messages at each call, and what those messages are. Does the count still grow "
        "after the second call?",
        "With a fresh context every re-run (every call after the first) sees the three initial messages plus one "
        '"## Feedback" message that lists all the feedback so far: 4 messages, however many iterations came before.',
        (
            (
                11,
                "11 is the default flow (3, 5, 7, 9, 11): with a fresh context, the answers the model wrote in this "
                "loop are not sent again.",
            ),
            (
                9,
                "That grows with every call, as the default flow does; with a fresh context, the answers the model "
                "wrote in this loop are not sent again.",
            ),
            (
                5,
                "5 is what the default flow's second call receives (section 1's table: 3, 5, 7): the caller's three "
                "messages, the model's latest answer and one feedback message. With a fresh context, is any of the "
                "answers the model wrote in this loop sent again, the latest included?",
            ),
            (7, "That counts one message per feedback; the loop puts all the feedback into a single message."),
            (
                2,
                "2 is the count the stepper shows at its second and third calls, where its caller sends 1 message. "
                "How many does section 1's caller send, what is sent with them at each re-run, and is it more "
                "messages at a later re-run?",
            ),
            (
                3,
                "3 counts the caller's three messages, all that the first call receives. Section 1's table of the "
                "third call lists what a re-run receives. What else is sent with the caller's three messages at "
                "every re-run?",
            ),
            (
                6,
                "6 is the stepper's count, 2, times three. But only the caller's messages are three times as many "
                "in section 1's run. In the stepper, what comes after the caller's one message at each re-run, and "
                "does it grow with the caller's messages?",
            ),
            (
                8,
                "8 counts the model's earlier answers as sent again, with the caller's three messages and one "
                "feedback message. With a fresh context, are the answers the model wrote in this loop sent again?",
            ),
        ),
        answer_type=int,
        said_alone=(2, 3, 6),
    ),
    Exercise(
        "06",
        "Exercise 2",
        'Section 1\'s table counts sessions in its column "sessions created": how many runs does max_iterations=2 '
        "allow, and which of them start on a new session?",
        "One session at the start and one for the second (and last) iteration.",
        (
            (
                1,
                "One session for the whole loop is the default flow. Does the loop keep one session with a fresh "
                "context?",
            ),
            (3, "That counts three runs."),
        ),
        answer_type=int,
    ),
    Exercise(
        "06",
        "Exercise 3",
        "Walk the iterations in order: who is asked first, and at which iteration does A say stop?",
        "B is asked only when A says stop, and A stops once, at iteration 3, where B agrees.",
        (
            (3, "B is not asked while A asks to continue: the first evaluator that continues decides."),
            (
                2,
                "Look again at section 3's first table: while the first evaluator asks to continue, is the second "
                "one asked at all?",
            ),
            (
                0,
                "Does a stop from A end the loop by itself? Look at iteration 2 in section 3's first table: the "
                "first evaluator says stop there; is the second one still asked?",
            ),
        ),
        answer_type=int,
    ),
    Exercise(
        "07",
        "Exercise 1",
        "Full history sends the reader every turn: which value of each corrected key does the latest rule (lesson "
        "04) keep, and which of section 3's verdicts fits the run that follows?",
        "Under 'latest' the reader keeps each correction, so the first answer is correct (graded as in lesson 04) and "
        "the evaluator finds nothing to send back: the loop stops after one iteration.",
        choices=("right first time", "repaired", "partly repaired", "not repaired"),
        answer_type=str,
    ),
    Exercise(
        "07",
        "Exercise 2",
        "The facts run's store is section 4's first table: which of the answer's three keys does it hold, and "
        "with which value?",
        "The store holds module=Billing and database=SQL Server 2022 but has evicted the constraint: only "
        "database=PostgreSQL contradicts it.",
        answer_type=int,
    ),
    Exercise(
        "07",
        "Exercise 3",
        "Section 4's second table lists, for a store of 5, each key evicted and the turn it went, and section 3 says "
        "which turn declares each key: which keys would a store of 6 hold at the final question? Then compare them "
        "with the set-up cell's line 'a correct answer contains'.",
        "Six places keep six facts: version (turn 4), module and database (turn 6), environment, symptom and log "
        "(turns 7 to 9). The constraint of turn 2 is evicted, so nothing holds the plan to it.",
        answer_type=bool,
    ),
)
"""Every lesson exercise, in lesson order. A checking cell names its exercise by its label and hint."""


def exercise(lesson: str, label: str) -> Exercise:
    """The exercise ``label`` (``"Exercise 2"``) of ``lesson`` (``"01"``); a name that is none is refused by name."""
    for candidate in EXERCISES:
        if (candidate.lesson, candidate.label) == (lesson, label):
            return candidate
    raise KeyError(f"There is no {label!r} in lesson {lesson!r}: see course_lib.exercises.EXERCISES.")


def _named(label: str, hint: str) -> Exercise | None:
    """The exercise a checking cell names by its label and hint, or None (a cell's own, ad hoc exercise)."""
    return next((e for e in EXERCISES if (e.label, e.hint) == (label, hint)), None)


def _miss(named: Exercise | None, answer: Any) -> str:
    """What is wrong with a tempting wrong answer the exercise foresaw, or ``""``."""
    if named is None:
        return ""
    if named.floor is not None and _below(answer, named.floor[0]):
        return named.floor[1]
    return next((said for wrong, said in named.misses if _same(wrong, answer)), "")


def _below(answer: Any, floor: float) -> bool:
    """``answer`` is a number (never a bool) less than ``floor``."""
    return isinstance(answer, int | float) and not isinstance(answer, bool) and answer < floor


def _same(wrong: Any, answer: Any) -> bool:
    """Equal and of the same kind. A value whose ``==`` gives no single yes or no (a table, an array) is not equal:
    its kind is then named by the type hint, never a traceback from ``bool()``."""
    try:
        return bool(wrong == answer) and _kind(wrong) == _kind(answer)
    except (ValueError, TypeError):
        return False


RIGHT_VALUE = "Right value"
"""How the checker starts its words to an answer whose value is right but written as ``key=value``."""


def value_written(answer: Any) -> str:
    """The value of an answer written as a declaration (``"module=Billing"`` -> ``"Billing"``), or ``""``.

    An exercise that asks for a value is often answered the way the course writes facts, ``key=value``: the
    checker then judges the value and says to write only it, rather than calling a right value wrong.
    """
    if not isinstance(answer, str) or "=" not in answer:
        return ""
    key, _, value = answer.partition("=")
    if not key.strip() or any(char.isspace() for char in key.strip()):
        return ""
    return value.strip().strip("'\"").strip()


def check(
    exercise: str,
    answer: Any,
    expected: Any,
    hint: str = "",
    why: str | None = None,
    *,
    namespace: Mapping[str, Any] | None = None,
) -> str:
    """What the checking cell prints: not answered yet, correct (and why, on a ``Why:`` line of its own), or not
    quite (and a hint, on a ``Hint:`` line of its own: the two verdicts have one shape, lesson 07's walk 19).

    ``why`` defaults to the reason :data:`EXERCISES` gives for the exercise named by ``exercise`` and
    ``hint``. A wrong answer gets, before the exercise's hint, what is wrong with its type, or how close
    it came (:func:`near_miss_hint`). The words are broken into lines between words (:func:`readable_lines`).
    ``namespace`` holds the notebook's variables (by default the caller's globals: a checking cell's are the
    notebook's), so an answer that is one of them is named as a variable, not judged as a value.
    """
    names = sys._getframe(1).f_globals if namespace is None else namespace
    return readable_lines(_verdict(exercise, answer, expected, hint, why, names))


def _verdict(exercise: str, answer: Any, expected: Any, hint: str, why: str | None, names: Mapping[str, Any]) -> str:
    """What :func:`check` says, before it is broken into lines."""
    if missing := _unassigned_answer(names):  # the line was deleted: the value, even ..., is an earlier run's
        if compared := _compared_line(_cell_text(names), missing):  # `answer_1 == 9`: an = meant, said alike
            said, write = _two_equals_words(*compared)
            return f"{exercise}: not checked yet. {said} {write}, then run the cell again."
        write = (
            f"Write the line {missing} = ... back where the cell had it"
            if missing.startswith("message")
            else f"Write {missing} = your answer where the cell had it"
        )
        return (
            f"{exercise}: not checked yet. This cell no longer sets {missing}, so {missing} still holds what an "
            f"earlier run gave it.{_set_instead(missing, names)} {write}, then run the cell again."
        )
    if answer is UNANSWERED:  # only while the cell still shows the `...` to replace
        return f"{exercise}: not answered yet. Replace ... with your prediction and run this cell again."
    named = _named(exercise, hint)
    if joined := _joined_answer_line(names, answer):  # `answer_2 = 1 or 2` is 1 to Python: never graded as an answer
        return f"{exercise}: not checked yet. {joined} Then run the cell again."
    if variable := _variable_hint(answer, expected, names):  # a name, never graded, even if its value is right
        return f"{exercise}: not checked yet. {variable} Then run the cell again."
    if computed := _computed_answer_line(names, expected):  # `answer_1 = parse_assertions(message_1)`: no prediction
        return f"{exercise}: not checked yet. {computed} Then run the cell again."
    if worked := _worked_out(names, answer):  # `answer_3 = 2 + 2`: graded by its value, said back right or wrong
        echo, answer = worked
        said = _graded(exercise, answer, expected, hint, why, names, named)
        status, dot, rest = said[len(exercise) :].partition(".")
        return f"{exercise}{status}{dot} {echo}{rest}"
    return _graded(exercise, answer, expected, hint, why, names, named)


def _graded(
    exercise: str,
    answer: Any,
    expected: Any,
    hint: str,
    why: str | None,
    names: Mapping[str, Any],
    named: Exercise | None,
) -> str:
    """What :func:`_verdict` says of an answer the student wrote as a value: its form, then whether it is right."""
    if decimal := _decimal_count(answer, expected, _typed_value(names, answer)):  # 1.0, -1, 1.5, 1e0 for a count
        return f"{exercise}: not checked yet. {decimal} Then run the cell again."
    if doubt := _doubting_comment(names, answer, expected, named):  # `9  # maybe 11?`: a hedge, right or wrong alike
        return f"{exercise}: not checked yet. {doubt} Then run the cell again."
    if _same(answer, expected):
        reason = (named.why if named else "") if why is None else why
        return f"{exercise}: correct." + (f"\nWhy: {reason}" if reason else "")
    specific = _miss(named, answer)
    if not specific and (
        form := _form_words(answer, expected, named, _typed_bare(names), _typed_value(names, answer))
    ):  # said alike, right or wrong
        return f"{exercise}: not checked yet. {form} Then run the cell again."
    if specific:  # the hint's sentences that the miss already says or asks are not said twice
        alone = named is not None and any(_same(value, answer) for value in named.said_alone)
        hint = "" if alone else _not_said_in(hint, specific)
    specific = specific or near_miss_hint(answer, expected)
    if specific.startswith(RIGHT_VALUE):  # the hint would explain a value the student already has
        hint = ""
    said = " ".join(part for part in (specific, hint) if part)  # a labelled line of its own, as a right one's Why
    return f"{exercise}: not quite." + (f"\nHint: {said}" if said else "")


def _doubting_comment(names: Mapping[str, Any], answer: Any, expected: Any, named: Exercise | None) -> str:
    """What to say when the answer line's comment doubts the answer (``answer_1 = 9  # maybe 11?``), or ``""``.

    ``9?`` was told it hedges while ``9  # maybe 11?`` was graded (lessons 05 and 06's walk 6): a comment holding a
    '?', a word of doubt, an 'or', or another value of the answer's kind (``# 11`` for a number, ``# False`` for a
    truth value, a listed name for a name) hedges too, said before any grading, alike for a right and a wrong value.
    A plain comment (``# from section 3``, lesson 03's own ``# your prediction: ...``) is left alone, and so is one
    that says the student's own ``answer`` again (:func:`_restates`).
    """
    for line in _cell_text(names).splitlines():
        comment = _without_comment(line)[1].strip().lstrip("#").strip()
        if _ANSWER_LINE.match(line) and _doubts(comment, expected, named, answer):
            return "Your comment doubts the answer: write one answer, as sure as you can be, or remove the comment."
    return ""


def _doubts(comment: str, expected: Any, named: Exercise | None, answer: Any) -> bool:
    """Does an answer line's ``comment`` (without its '#') doubt the ``answer``? See :func:`_doubting_comment`."""
    if not comment or _restates(comment, answer):
        return False
    if _HEDGES.search(comment) or re.search(r"\bor\b", comment, re.IGNORECASE):
        return True
    if _kind(expected) == "a number":
        return bool(re.fullmatch(r"-?\d+(?:\.\d+)?", comment)) or comment.casefold() in _NUMBER_WORDS
    if _kind(expected) == _kind(True):
        return bool(re.search(r"\b(?:true|false)\b", comment, re.IGNORECASE))
    values = (named.choices + named.known) if named else ()
    return any(re.search(rf"(?<!\w){re.escape(value)}(?!\w)", comment, re.IGNORECASE) for value in values)


def _restates(comment: str, answer: Any) -> bool:
    """Does ``comment`` say the student's own ``answer`` again, and nothing else (``answer_2 = 1  # one``)?

    Lesson 07's walk 21: ``# one`` and ``# 1`` after ``1`` were told the comment doubts the answer; they doubt
    nothing. The same number in digits or in words, the same truth value, or the same text apart from its case and
    quotes, is the same answer. The comment is compared with what the student wrote, never with the expected value:
    a right and a wrong answer with such a comment are graded as they are without it.
    """
    said = comment.strip().strip(_QUOTE_MARKS).strip().casefold()
    if not said:
        return False
    if _kind(answer) == _kind(True):
        return said == str(bool(answer)).casefold()
    if _kind(answer) == "a number":
        number = _comment_number(said)
        return number is not None and bool(number == answer)
    return isinstance(answer, str) and said == answer.strip().casefold()


def _comment_number(text: str) -> float | None:
    """The number a comment writes alone, in digits or in words (``1``, ``one``, ``once``), else None."""
    if re.fullmatch(r"-?\d+(?:\.\d+)?", text):
        return float(text)
    if text in _NUMBER_WORDS:
        return float(_NUMBER_WORDS.index(text))
    return float(_TIMES_WORDS[text]) if text in _TIMES_WORDS else None


_COMMON_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "in", "is", "it", "its", "of", "on", "or"}
    | {"that", "the", "them", "this", "to", "what", "which", "with"}
)
"""Words too common to tell whether two sentences ask the same thing."""


def _content_words(text: str) -> list[str]:
    return [word for word in re.findall(r"[a-z0-9']+", text.casefold()) if word not in _COMMON_WORDS]


def _not_said_in(hint: str, miss: str) -> str:
    """``hint`` without the sentences whose words ``miss`` already holds (half of them or more).

    Lesson 02's walk: answer 3 was asked "Does the writer skip a question that declares nothing?" by the miss and
    again "does the writer run for a question that declares nothing?" by the hint; a sentence left opening with
    "And" loses it.
    """
    said = set(_content_words(miss))
    kept: list[str] = []
    for sentence in re.split(r"(?<=[.?!])\s+", hint):
        words = _content_words(sentence)
        if words and 2 * sum(word in said for word in words) >= len(words):
            continue
        if not kept and sentence.startswith("And "):
            sentence = sentence[4:5].upper() + sentence[5:]
        kept.append(sentence)
    return " ".join(kept)


def _form_words(answer: Any, expected: Any, named: Exercise | None, bare: bool = False, typed: str = "") -> str:
    """What to say to an answer whose form is wrong whatever its value, or ``""``: the form is fixed first.

    Empty, another kind than the answer's (text for a number, a number for text, None), a hedge, several numbers
    or several words for one, no name the question lists, capitals or spaces where the answers are lower case, a
    slip from a listed name, a number or a truth value written as text. The words never depend on whether the value
    underneath is right, and the exercise's hint (about the reasoning) is not given: either would tell the student
    which they wrote. ``bare``: the student typed the answer line's value without quotes (:func:`_typed_bare`).
    ``typed``: the answer line's value as the student typed it, when it is the answer (:func:`_typed_value`).
    """
    choices = named.choices if named else ()
    known = named.known if named else ()
    values = choices + known
    written = named.message_keys if named else ()  # keys the exercise's message writes: content, never a form
    return (
        _empty(answer, expected)
        or hedge_hint(answer, expected, quoted=not bare)
        or _dict_hedge(answer, expected, written)
        or _dict_key_form(answer, expected)
        or _dict_key_not_allowed(answer, expected, written)
        or _dict_value_kind(answer, expected)
        or _dict_value_hidden(answer, expected)
        or several_numbers_hint(answer, expected)
        or _not_a_choice(named, answer)
        or quoted_text_hint(answer, expected)
        or end_mark_hint(answer, expected)
        or key_value_hint(answer, expected, choices)
        or _choice_among_words(answer, choices, known)
        or _listed_case(answer, expected, choices, known)
        or spelling_hint(answer, expected, choices)
        or _known_slip(answer, known)
        or literal_text_hint(answer, expected)
        or detail_hint(answer, expected, values)
        or _off_the_list(answer, choices)
        or several_choices_hint(answer, expected, values)
        or several_words_hint(answer, expected, values)
        or number_form_hint(answer, expected)
        or truth_form_hint(answer, expected)
        or _one_item_off_the_list(answer, choices, typed)
        or one_item_hint(answer, expected, typed)
        or _not_text_for_choice(answer, expected, choices)
        or type_hint(answer, expected, typed)
    )


def _not_text_for_choice(answer: Any, expected: Any, choices: tuple[str, ...]) -> str:
    """What to say to an answer that is not text (``1``, ``True``, ``None``) where the answer is one of the names the
    question lists, or ``""``.

    "Your answer is a number; the answer is text (a string). Write it between quotes." was said to ``1`` for lesson
    00's status (lesson 00's fourth walk): "it" read as the 1, and ``'1'`` is no status either. The names are said,
    all of them, the same way in every lesson, whichever of them is right.
    """
    if not choices or isinstance(answer, str) or not isinstance(expected, str):
        return ""
    return (
        f"Your answer is {_kind(answer)}; the answer is one of {_choices_in_words(choices)}: write one of them, "
        "in quotes."
    )


_ONE_ITEM_MARKS = {list: "square brackets", tuple: "parentheses and the comma", set: "braces"}
"""What makes a one-item list, tuple or set of a value: what to remove to write the value on its own."""


def one_item_hint(answer: Any, expected: Any, typed: str = "") -> str:
    """What to say to a list, tuple or set of one item of the answer's kind (``['accepted']``, ``[2]``), or ``""``.

    "Your answer is a list; the answer is text (a string). Write it between quotes." was said to ``['accepted']``,
    whose item has its quotes (lesson 02's walk): the brackets are what is wrong. The item is echoed as the student
    wrote it, in the same words whether it is right or wrong.

    ``typed`` is the answer as the student typed it (:func:`_typed_value`), quoted with its item when known:
    ``answer_1 = 9,`` was told "Your answer (9,) ...: remove the parentheses and the comma", parentheses that are
    Python's display, not the student's (lesson 05's walk 21). A tuple typed without them is told to remove the
    comma after its item; without the cell's text, the value is shown as Python shows it.
    """
    marks = next((said for kind, said in _ONE_ITEM_MARKS.items() if type(answer) is kind), "")
    if not marks or len(answer) != 1 or _kind(answer) == _kind(expected):
        return ""
    (item,) = answer
    if _kind(item) != _kind(expected):
        return ""
    shown, (item_shown,), bare = _typed_items(typed, answer) or (_shown(answer), (_shown(item),), False)
    if bare:  # `9,`: a comma, no parentheses
        return (
            f"Your answer {shown} (as typed) is a tuple holding one item (a comma after a value makes one): "
            f"remove the comma after {item_shown}: write {item_shown} on its own."
        )
    return (
        f"Your answer {shown} is {_kind(answer)} holding one item: remove the {marks}: write {item_shown} on its own."
    )


def _typed_items(typed: str, answer: Any) -> tuple[str, tuple[str, ...], bool] | None:
    """A list, tuple or set as the student typed it (``typed``), when its value is ``answer``: the whole as typed,
    each item as typed, and whether it is a tuple typed without parentheses (``9,``); else None."""
    try:
        node = ast.parse(typed.strip(), mode="eval").body
        if not isinstance(node, ast.List | ast.Tuple | ast.Set) or not _same(ast.literal_eval(node), answer):
            return None
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    code = typed.strip()
    items = tuple(_clipped(ast.get_source_segment(code, item) or "") for item in node.elts)
    bare = isinstance(node, ast.Tuple) and not (code.startswith("(") and code.endswith(")"))
    return _clipped(code), items, bare


def _answer_assignments(cell: str) -> list[ast.Assign]:
    """The lines of ``cell`` that set an answer (``answer_1 = ...``), as parsed; none when the cell does not parse."""
    try:
        tree = ast.parse(cell)
    except SyntaxError:
        return []
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id.startswith("answer") for target in node.targets)
    ]


def _literal(node: ast.expr, names: Mapping[str, Any]) -> Any:
    """The value an answer line writes out, read without running it: what ``ast.literal_eval`` reads, and a
    ``dict(...)`` call whose arguments are all keyword arguments with such values (``dict(database="SQL Server
    2022")``), which is the dict literal written another way (lesson 01's walk 22: it was refused as code).

    Anything else raises ``ValueError``, as ``ast.literal_eval`` does: a positional argument, ``**``, a computed
    value, a method (``dict.fromkeys``), or ``dict`` when the notebook gave that name another value.
    """
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and names.get("dict", dict) is dict
        and not node.args
        and all(keyword.arg is not None for keyword in node.keywords)
    ):
        return {keyword.arg: _literal(keyword.value, names) for keyword in node.keywords}
    return ast.literal_eval(node)


def _typed_value(names: Mapping[str, Any], answer: Any) -> str:
    """The value of the cell's answer line as the student typed it (``9,``, ``( 9, )``, ``"accepted",``), when that
    value is ``answer``; else ``""`` (outside IPython, code that computes, or an answer another cell set)."""
    cell = _cell_text(names)
    for node in _answer_assignments(cell):
        try:
            value = _literal(node.value, names)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return ""
        return (ast.get_source_segment(cell, node.value) or "") if _same(value, answer) else ""
    return ""


def _dict_key_form(answer: Any, expected: Any) -> str:
    """What to say to a dict whose keys should be text and one is not, or ``""``: each key takes quotes.

    ``{database: 'SQL Server 2022'}`` reads the lesson's variable ``database`` (a candidate) as the key, and the
    reply named that candidate "an extra key" without saying what to fix (lesson 01's walk). The key is not shown:
    its repr is the lesson's object, not what the student typed. Said alike whatever the values are.
    """
    if not (isinstance(answer, dict) and isinstance(expected, dict) and all(isinstance(k, str) for k in expected)):
        return ""
    if all(isinstance(key, str) for key in answer):
        return ""
    return (
        "A key of your dict is not text: a key written without quotes is read as a name (a variable of this "
        "lesson, or a number). Write each key in quotes, e.g. {'key': 'value'}."
    )


def _dict_key_not_allowed(answer: Any, expected: Any, written: tuple[str, ...] = ()) -> str:
    """What to say to a dict with a key that is not one of the ten allowed keys at all, or ``""``: a form.

    Where the answer is a dict of declarations (its keys are allowed keys), a key that is none of the ten can never be
    right, whatever the rest holds, so it is a form to fix, said before any grading and in the same words whatever
    the values and the other keys are (the dict-answer policy, in the module's docstring). The key is named with the
    rule it breaks: a slip from an allowed key (``'databse'``) is told the key it reads as, a key in another case
    (``'Database'``) that keys are case-sensitive, spaces around an allowed key that they go, any other
    (``'Hello! database'``) that it is not an allowed key. An allowed key the answer does not hold is not a form: it
    is counted by :func:`_dict_hint`, never named.

    ``written`` are the keys the exercise's own message writes (:attr:`Exercise.message_keys`). One of them is no
    form at all: lesson 01's walk 21 found ``'Database'`` and ``'Hello! database'``, the traps of exercise 1's
    message, told "keys are case-sensitive" and "not one of the ten allowed keys", the very point each trap tests,
    before any grading. They are graded like any extra key. A true slip is still a form, but where the exercise has
    a message the note names no rule the message tests: spaces around one of its keys are said as spaces, and a
    slip (or another case) of an allowed key is told the allowed key it reads as, case included. A slip is never
    told it reads as a key only the message writes: the second walk of lesson 01 (walk 21) found ``'DATABASE'``
    told it reads as ``'Database'``, the trap, which a student then wrote and was graded wrong for.
    """
    if not (isinstance(answer, dict) and isinstance(expected, dict)) or not all(key in _KEYS for key in expected):
        return ""
    for key in answer:
        if not isinstance(key, str) or key in _KEYS or key in written:
            continue
        if key.strip() in _KEYS or _contract_trimmed(key) in written:
            return f"The key {_shown(key)} has {_padding(key)}: write the key alone, without them."
        if written:  # a note that names no rule the message tests, and never points at one of its traps
            return _not_written(key, _closest_slips(key, _KEYS))
        if next((allowed for allowed in _KEYS if allowed.casefold() == key.strip().casefold()), ""):
            return (
                f"The key {_shown(key)} is not an allowed key: keys are case-sensitive, and the ten allowed keys are "
                f"all lower case ({', '.join(_KEYS)})."
            )
        if listed := _listed_slip(key, _KEYS):
            return (
                f"The key {_shown(key)} reads as {listed!r}, one of {_choices_in_words(_KEYS)}: write it exactly as "
                "the question spells it."
            )
        return (
            f"The key {_shown(key)} is not one of {_choices_in_words(_KEYS)}: a declaration's key is always one of "
            "them, written exactly so."
        )
    return ""


def _closest_slips(key: str, names: tuple[str, ...]) -> list[str]:
    """The names ``key`` is a slip of (:func:`_slip`: case, spaces, a letter or two), the closest ones only, case
    counted: ``'databse'`` reads as ``'database'`` (one letter), not also as the message's ``'Database'`` (two)."""
    slips = [name for name in dict.fromkeys(names) if _slip(key, name)]
    closest = min((_distance(key, name) for name in slips), default=0)
    return [name for name in slips if _distance(key, name) == closest]


def _not_written(key: str, read_as: list[str]) -> str:
    """What to say to a key an exercise with a message finds neither in the message nor among the allowed keys: the
    keys it is a slip (or another case) of, ``read_as``, or that it is none of them, and where keys are spelled."""
    listed = f"the list of the ten allowed keys ({', '.join(_KEYS)})"
    if read_as:
        names = " or ".join(repr(name) for name in read_as)
        spelled = f"the message or {listed} spells it"
        return f"The key {_shown(key)} reads as {names}: write each key exactly as {spelled}, case included."
    return (
        f"The key {_shown(key)} is in neither the message nor {listed}: write each key exactly as one of them "
        "spells it, case included."
    )


def _dict_value_kind(answer: Any, expected: Any) -> str:
    """What to say to a dict whose values should be text and one is not (``{'database': ['SQL Server 2022']}``),
    or ``""``: each value takes quotes.

    "The keys are right; the value of 'database' is not" was said of a list holding the right words (lesson 01's
    walk 9): the words were right, the kind wrong. The kind is a form, said before any grading, for any key of the
    dict, whatever the words inside.

    None is no form: it is how Python says "no value", the very misconception exercise 1 tests (``version=``
    declares a key with no value). Told "each value is text in quotes", a student wrote ``'version': ''`` (lesson
    01's third walk 23); it is graded like any value, a key that should not be there, as ``''`` is.
    """
    if not (isinstance(answer, dict) and isinstance(expected, dict) and expected):
        return ""
    if not all(isinstance(value, str) for value in expected.values()):
        return ""
    for key, value in answer.items():
        if not isinstance(value, str) and value is not None:
            return (
                f"The value of {_shown(key)} is {_kind(value)}; each value is text in quotes, e.g. {{'key': 'value'}}."
            )
    return ""


def _dict_value_hidden(answer: Any, expected: Any) -> str:
    """What to say to a dict whose value holds an invisible character (``'Bill\u200bing'``), or ``""``: a form.

    A character no one can see is a paste's leftover, not a prediction: it is said before any grading, in the same
    words whatever the value around it is, where no value of the answer holds one (the dict-answer policy, in the
    module's docstring).
    """
    if not (isinstance(answer, dict) and isinstance(expected, dict)):
        return ""
    if any(isinstance(value, str) and _hidden_characters(value) for value in expected.values()):
        return ""
    for key, value in answer.items():
        if isinstance(value, str) and (hidden := _hidden_characters(value)):
            them = "them" if sum(map(_hidden, value)) > 1 else "it"
            return f"The value of {_shown(key)} holds {hidden}: delete {them} or type the value again."
    return ""


def _off_the_list(answer: Any, choices: tuple[str, ...]) -> str:
    """What to say to a text answer that is none of the names the question lists, or ``""``: said before any
    grading, with every name, as to a number or a tuple (:func:`_not_text_for_choice`).

    Lesson 07's walk 19: ``'first time'`` and ``'stopped at the cap'`` were graded "not quite" and given the hint,
    while ``'banana'`` and ``3`` were told the names; "The answer is one word, and 'first time' has 2" told lesson
    00's students to keep one of two words that are no name. Any text, of one word or several, that the readings
    before this leave (a case slip, spaces, a close typo, a name among other words, a mark after it) is off the list.
    A text whose visible letters are a name but for an invisible character is left to that character's note.
    """
    if not choices or not isinstance(answer, str) or not answer.strip():
        return ""
    visible = "".join(char for char in answer if not _hidden(char) or char.isspace())
    if _folded(visible) in {_folded(choice) for choice in choices}:
        return ""
    term = next((what for what, names in _COURSE_TERMS if _folded(visible) in map(_folded, names)), "")
    if term:  # lesson 07's walk 22: "'stopped at the cap' is not one of the names" denied section 3's verdict
        return (
            f"{_shown(answer)} is {term}, but it is not one of this exercise's choices: write one of "
            f"{_choices_in_words(choices)}, exactly as written."
        )
    return f"{_shown(answer)} is not one of {_choices_in_words(choices)}: write one of them exactly as written."


_COURSE_TERMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "one of lesson 07's verdicts (section 3)",
        ("right first time", "repaired", "partly repaired", "not repaired", "stopped at the cap"),
    ),
    (
        "one of the host's statuses (lesson 02)",
        ("accepted", "rejected", "nothing_to_extract", "writer_failed", "stale", "forgotten"),
    ),
    ("one of lesson 03's desks", ("triage", "operations")),
    ("one of the ten allowed keys (lesson 01)", _KEYS),
)
"""Names the course defines, each with what it is and where: an answer that is one of them, where an exercise does
not offer it, is told it is a real term, not a word the course never used (:func:`_off_the_list`)."""


def _one_item_off_the_list(answer: Any, choices: tuple[str, ...], typed: str = "") -> str:
    """What to say to a one-item list, tuple or set whose item is text that is no name the question lists and no
    reading of one (``['first time']``), or ``""``: "remove the brackets: write 'first time' on its own" sent the
    student to another answer off the list. An item that is a name, or a slip or another case of one, is left to
    :func:`one_item_hint`. The answer is quoted as typed when ``typed`` is known (``"first time",``, as typed)."""
    if not choices or type(answer) not in _ONE_ITEM_MARKS or len(answer) != 1:
        return ""
    (item,) = answer
    if not isinstance(item, str) or not item.strip() or _hidden_characters(item):
        return ""
    if _folded(item) in {_folded(choice) for choice in choices} or _listed_slip(item, choices):
        return ""
    if _values_held(_phrase_words(item), choices):
        return ""
    shown, _, bare = _typed_items(typed, answer) or (_shown(answer), (), False)
    shown = f"{shown} (as typed)" if bare else shown
    return f"Your answer {shown} is not one of {_choices_in_words(choices)}: write one of them, in quotes."


def _choices_in_words(choices: tuple[str, ...]) -> str:
    """The names an answer is chosen from, each named (lesson 00's and 01's walks: "the names to choose from" was
    said where the question lists none); the ten allowed keys by that name, as the course calls them."""
    if set(choices) == set(_KEYS):
        return f"the ten allowed keys ({', '.join(_KEYS)})"
    return f"the names to choose from ({', '.join(choices)})"  # all of them: naming one would point at it


def several_choices_hint(answer: Any, expected: Any, values: tuple[str, ...] = ()) -> str:
    """What to say to a text answer listing several choices (``'repaired or right first time'``), or ``""``.

    Where the exercise has names or values to choose from (``values``), two of them are said by
    :func:`_choice_among_words`, and a sentence joined by 'and' that names none lists no choice (lesson 00's walk).

    Said whatever the choices are, for a phrase as for a word: "pick one (naming the right one among them would
    give it away)" was said only when the right one was listed, which gave it away (lesson 07's walk). An answer
    whose own text holds a separator is left to the other rules.
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or len(_choices(expected)) > 1:
        return ""
    if values or value_written(answer) or _hidden_characters(answer) or len(_choices(answer)) < 2:
        return ""
    return f"Your answer {_shown(answer)} lists several choices: pick one."


def literal_text_hint(answer: Any, expected: Any) -> str:
    """What to say to a dict or a list written inside quotes where the answer is one text, or ``""``.

    Lesson 01's walk: ``"{'evicted': 'customer'}"`` was told it "has words after a ':'", a fix that, taken
    literally, asks for ``{'evicted'``. Said alike whatever is inside.
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or answer.strip()[:1] not in "{[(":
        return ""
    try:
        value = ast.literal_eval(answer.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return ""
    if not isinstance(value, dict | list | tuple | set):
        return ""
    return (
        f"You wrote {_kind(value)} inside quotes ({_shown(answer)}); the answer is one text: write only it, between "
        "quotes, with no braces or brackets."
    )


def detail_hint(answer: Any, expected: Any, values: tuple[str, ...] = ()) -> str:
    """What to say to a text answer with a detail after a colon (``'accepted: all of it'``), or ``""``.

    Copying a table's verdict with its detail is a likely move. "Right words, with more after them" for the right
    verdict alone told the student which it was: any words before a ':' get the same note. Where the answer is one
    of ``values`` (the names the question lists, the values the lesson declares), the note is said only when the
    phrase before the ':' is one of them or a slip from one: "write only the short phrase before it" told
    ``'evicted: customer'`` to keep ``evicted`` (lesson 01's walk 8). A name among the words is said by
    :func:`_choice_among_words`, before this.
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or ":" in expected:
        return ""
    head, colon, tail = answer.partition(":")
    if not (colon and head.strip() and tail.strip()) or value_written(answer):
        return ""
    if values and not any(_folded(head) == _folded(value) or _slip(head.strip(), value) for value in values):
        return ""
    return f"Your answer {_shown(answer)} has words after a ':': write only the short phrase before it."


def several_words_hint(answer: Any, expected: Any, values: tuple[str, ...] = ()) -> str:
    """What to say to several words where the answer is one word (``'the triage desk'``, ``'customer or product'``).

    Said alike whichever word is right ("holds the right word" for the right one alone told the student which it
    was): several choices are told to pick one, other words around a word to write only it.
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or not re.fullmatch(r"\w+", expected.strip()):
        return ""
    if value_written(answer) or _hidden_characters(answer):  # "module=Billing", "Bill\u200bing": rules of their own
        return ""
    words = re.findall(r"\d+(?:\.\d+)?|\w+", answer)  # "3.0" is one word: a number in digits, not "3" and "0"
    if len(words) < 2:
        return ""
    if len(_choices(answer)) > 1 and not values:  # with values to choose from: _choice_among_words
        return f"Your answer {_shown(answer)} lists several choices: pick one."
    return f"The answer is one word, and {_shown(answer)} has {len(words)}: write only the one word you choose."


def _not_a_choice(named: Exercise | None, answer: Any) -> str:
    """What to say to a text answer that is none of its exercise's names (``'operatons'``), or ``""``.

    Its reasoning may be right and its spelling wrong, so it is told the names, not the exercise's hint. A name in
    the wrong case, with spaces or among other words is a near miss of its own (:func:`near_miss_hint`).
    """
    noun, choices = (named.choice_noun, named.choices) if named else ("", ())
    if not noun or not choices or not isinstance(answer, str) or not answer.strip() or _hidden_characters(answer):
        return ""
    if any(_holds_word(answer, choice) or answer.strip().casefold() == choice for choice in choices):
        return ""
    count = _NUMBER_WORDS[len(choices)] if len(choices) < len(_NUMBER_WORDS) else str(len(choices))
    return (
        f"{_shown(answer)} is not a {noun} name: the {count} {noun}s are {_names(list(choices))}. "
        f"Write one of them, in quotes, in place of {_shown(answer)}."
    )


_NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
"""The numbers a student may write in words, by value."""

_TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
"""How often, in words: an answer to "how many times" written as a word."""

_HEDGED = re.compile(
    r"(?:about|around|roughly|approximately|maybe|perhaps|probably|~|≈)?\s*(-?\d+(?:\.\d+)?)\s*"
    r"(?:\?+|!+|maybe|perhaps|probably|or so)?",
    re.IGNORECASE,
)
"""A number with a hedge around it: ``2?``, ``~2``, ``maybe 2``, ``about 2``, ``2 or so``."""


_WITH_UNIT = re.compile(r"(-?\d+(?:\.\d+)?)\s+[A-Za-z][A-Za-z ]{0,20}")
"""A number with its unit after it: ``9 messages``, ``2 calls``; the unit is what the question counts."""


_ONE_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]\w)")
"""A number in digits standing among words: ``1`` in ``'B is asked 1 time'`` (lesson 06's walk)."""


def _number_in(text: str) -> tuple[float, str] | None:
    """The number ``text`` writes, in digits (hedged or not) or in words, and how it was written; else None."""
    words = text.strip().casefold()
    if words in _NUMBER_WORDS:
        return float(_NUMBER_WORDS.index(words)), "words"
    if words in _TIMES_WORDS:  # "once", "twice": a count of times in words
        return float(_TIMES_WORDS[words]), "words"
    first, _, rest = words.partition(" ")
    if rest.strip() and (first in _NUMBER_WORDS or first in _TIMES_WORDS):  # "two calls": a number with words
        return float(_NUMBER_WORDS.index(first) if first in _NUMBER_WORDS else _TIMES_WORDS[first]), "hedged"
    match = _HEDGED.fullmatch(text.strip())
    if match is None and (unit := _WITH_UNIT.fullmatch(text.strip())):  # "9 messages", "2 calls"
        return float(unit.group(1)), "hedged"
    if match is None and len(found := _ONE_NUMBER.findall(text)) == 1:  # "B is asked 1 time", "about 61.5 seconds"
        return float(found[0]), "hedged"
    if match is None:
        return None
    return float(match.group(1)), "digits" if match.group(1) == text.strip() else "hedged"


def _digits(number: float) -> str:
    return str(int(number)) if number.is_integer() else str(number)


def number_form_hint(answer: Any, expected: Any) -> str:
    """What to say to a number written as text in words (``'two'``) or with words around it (``'~2'``), or ``""``.

    A hedge (``'2?'``, ``'maybe 2'``) is named as one before this (:func:`hedge_hint`)."""
    read = _number_in(answer) if isinstance(answer, str) and _kind(expected) == "a number" else None
    if read is None or answer.strip() == str(expected):
        return ""  # not a number, or the answer in quotes: type_hint says so
    number, form = read
    if form == "digits":  # another number in quotes ('5', '2.0'): the quotes are wrong whatever the number
        return f"You wrote the text {_shown(answer)}; the answer is a number: write it without quotes."
    if form == "words":  # the student's word in digits, the same form for any number word (lesson 06's walk 6)
        return f"Your word {_shown(answer)} in digits is {_digits(number)}: write that, without quotes."
    if _NAME_WITH_DIGITS.search(answer):  # 'gpt-4o-mini': a name, told as any text is (type_hint; walk 9)
        return ""
    if _number_words_only(answer):  # 'nine nine nine': no number around words, only words (lesson 05's walk 9)
        return (
            f"You wrote the text {_shown(answer)}: words, not a number: the answer is a number, so write only the "
            "number you choose, in digits, without quotes."
        )
    return (
        f"You wrote the text {_shown(answer)}, a number with words around it: the answer is a number, so write "
        "only the number you choose, in digits, without quotes."
    )


_NAME_WITH_DIGITS = re.compile(r"[^\W\d_]{2,}[-_]?\d")
"""Two letters or more right before a digit (``gpt-4o-mini``, ``v2``): a name holding digits, not a number with words
around it; a number then a unit (``9 messages``, ``3s``) or an ordinal (``2nd``) is none."""


def _number_words_only(text: str) -> bool:
    """Does ``text`` hold no digit and two number words or more (``'nine nine'``, ``'twenty one'``)? One number
    word among words (``'two calls'``) is a number with words around it."""
    spelled = set(_NUMBER_WORDS) | set(_TIMES_WORDS)
    words = [word for word in re.findall(r"[^\W\d_]+", text.casefold()) if word in spelled]
    return not re.search(r"\d", text) and len(words) > 1


_HEDGES = re.compile(
    r"\?|\b(?:maybe|perhaps|probably|possibly|i think|i guess|i suppose|i believe|not sure)\b", re.IGNORECASE
)
"""What makes a text answer a hedge: a question mark, or a word of doubt.

A bare *guess* is not one: the exercises ask for a prediction, and ``# my guess`` beside a sure answer names it
(lesson 05's walk 21); *I guess* still doubts."""

_TRUTH_WORDS = {"true", "false", "yes", "no"}
"""The words a student writes for a yes/no prediction that Python spells True or False."""


def hedge_hint(answer: Any, expected: Any, *, quoted: bool = True) -> str:
    """What to say to an answer that hedges (``'accepted?'``, ``'maybe Billing'``, ``'False?'``, ``'2?'``) or ``""``.

    Said alike whether the value inside is right or wrong: "holds the right word" for one and the reasoning hint for
    the other would tell the student which it is before they commit. The hedge is named first whatever the kind of
    answer: the truth-value note ("write True or False") never mentioned the '?' of ``'False?'``, and "a number with
    words around it" did not say that ``'2?'`` hedges. Only the way to write the answer's kind follows. An answer
    whose own text holds a '?' or a word of doubt is not hedged by one. "Without quotes around it" is said of a dict
    only when the student typed quotes (``quoted``): ``answer_1 = {...}?`` has none, IPython's reader makes it text
    (lesson 01's walk). An answer typed without quotes is echoed as typed and said to be (``True? (as typed, without
    quotes)``): quotes around it, then "no quotes", blamed quotes the student never typed (lesson 01's walk 6).
    """
    if _two_numbers_or(answer, expected):  # '1 or 2', 'one or two': two answers for one number (walk 9)
        echo = _shown(answer) if quoted else f"{_clipped(answer)} (as typed, without quotes)"
        return (
            f"Your answer {echo} hedges (two answers joined by 'or'): write one answer on its own, as sure as you "
            "can be. Write the number alone, in digits: no 'or', no quotes, no other words."
        )
    if not isinstance(answer, str) or not _HEDGES.search(answer):
        return ""
    if isinstance(expected, str) and _HEDGES.search(expected):
        return ""
    # typed bare: as typed, said so (printed text is no Markdown: backticks were shown as typed, lesson 05's walk 8)
    echo = _shown(answer) if quoted else f"{_clipped(answer)} (as typed, without quotes)"
    said = f"Your answer {echo} hedges (a '?' or a word of doubt): write one answer on its own, as sure as you can"
    if isinstance(expected, str):
        return f"{said} be; the check compares the exact text."
    if isinstance(expected, dict) and quoted:  # '{"module": "Billing"} I think': a dict in quotes, with a hedge
        return f"{said} be. Write the dict itself, without quotes around it, e.g. {{'key': 'value'}}."
    if isinstance(expected, dict):  # answer_1 = {...}? typed without quotes
        return f"{said} be. Write the dict alone: no '?', no other words, e.g. {{'key': 'value'}}."
    return f"{said} be.{_hedge_free_kind(expected)}"


_OR_PAIR = re.compile(r"\s*(\S+)\s+or\s+(\S+)\s*", re.IGNORECASE)
"""Two answers joined by 'or': ``'1 or 2'``, ``'one or two'``."""


def _two_numbers_or(answer: Any, expected: Any) -> bool:
    """Is ``answer`` two numbers (digits or words) joined by 'or', where the answer is a number? A hedge: "several
    numbers" was said to ``'1 or 2'`` and "a number with words around it" to ``'one or two'`` (lesson 06's walk 9)."""
    if _kind(expected) != "a number" or not isinstance(answer, str) or not (pair := _OR_PAIR.fullmatch(answer)):
        return False
    return all(re.fullmatch(r"-?\d+(?:\.\d+)?", side) or side.casefold() in _NUMBER_WORDS for side in pair.groups())


def _hedge_free_kind(expected: Any) -> str:
    """How to write a number or a truth value after a hedge: what to leave out, not "without quotes".

    ``answer_1 = 61.5?`` has no quotes (IPython's reader makes it the text ``'61.5?'``), so "Write a number in
    digits, without quotes" blamed quotes the student never typed (lesson 00's walk). The list names the '?' first.
    """
    if _kind(expected) == _kind(True):
        return " Write True or False alone: no '?', no quotes, no other words, with a capital first letter."
    if _kind(expected) == "a number":
        return " Write the number alone, in digits: no '?', no quotes, no other words."
    return _how_to_write_kind(expected)


def _dict_hedge(answer: Any, expected: Any, written: tuple[str, ...] = ()) -> str:
    """What to say to a dict answer with a hedge in a key or a value (``{'module': 'Billing?'}``), or ``""``.

    "The value of 'module' is not right" was said of ``'Reporting?'`` only, never of ``'Billing?'``, which told the
    student which value was right. The hedge is named in the same words for both; a key or value whose expected
    text holds a '?' or a word of its own is no hedge, nor a key the exercise's message writes (``written``).
    """
    if not (isinstance(answer, dict) and isinstance(expected, dict)):
        return ""
    for key, value in answer.items():
        hedged = isinstance(key, str) and key not in written and _HEDGES.search(key)
        if hedged and not any(_HEDGES.search(str(k)) for k in expected):
            return (
                f"The key {_shown(key)} in your dict hedges (a '?' or a word of doubt): write each key on its own, "
                "as sure as you can be; the check compares the exact text."
            )
        theirs = expected.get(key)
        if isinstance(value, str) and _HEDGES.search(value) and not _HEDGES.search(str(theirs or "")):
            return (
                f"The value of {_shown(key)} in your dict, {_shown(value)}, hedges (a '?' or a word of doubt): "
                "write one value on its own, as sure as you can be; the check compares the exact text."
            )
    return ""


def truth_form_hint(answer: Any, expected: Any) -> str:
    """What to say to a yes/no prediction written as text (``'True'``, ``'true'``, ``'yes'``), or ``""``.

    One sentence for all of them, whichever the answer is: the student learns how Python writes a truth value, not
    whether theirs is right. A text that holds a truth word beside other words (``'yes, True'``, ``'True because
    ...'``) is told in the same sentence that those words go too (:func:`_beside_truth_word`): told only about the
    quotes, the student of lesson 04's walk 22 would have typed ``yes, True`` bare.
    """
    if _kind(expected) != _kind(True) or not isinstance(answer, str) or not answer.strip():
        return ""
    if extra := _beside_truth_word(answer):
        return (
            f"You wrote the text {_shown(answer)}; the answer is {_kind(True)} and nothing else: write True or False "
            f"alone, without quotes and without the other words ({_shown(extra)}), with a capital first letter."
        )
    return (
        f"You wrote the text {_shown(answer)}; the answer is {_kind(True)}: write one of them without quotes, with "
        "a capital first letter."
    )


_TRUTH_WORD = re.compile(r"(?<![^\W_])(?:true|false)(?![^\W_])", re.IGNORECASE)
"""A truth word written as a word of a text: ``True``, ``false``, never part of ``untrue`` or ``True_``."""

_AROUND_WORDS = " \t\n,.;:!-\u2013\u2014()'\"`"
"""What is left around the other words of a text once its truth word is taken out: spacing and punctuation."""


def _beside_truth_word(text: str) -> str:
    """The other words of a text that holds a truth word (``'yes, True'`` -> ``'yes'``), or ``""`` when it holds no
    truth word or nothing but it (``'True'``, ``'true.'``). Only the first truth word is taken out: the rest, a
    second truth word included, are the words that do not belong."""
    match = _TRUTH_WORD.search(text)
    if match is None:
        return ""
    rest = f"{text[: match.start()].strip(_AROUND_WORDS)} {text[match.end() :].strip(_AROUND_WORDS)}"
    rest = " ".join(rest.split())
    return rest if any(char.isalnum() for char in rest) else ""


def several_numbers_hint(answer: Any, expected: Any) -> str:
    """What to say to several numbers given for one (``'1 or 2'``, ``(1, 2)``), or ``""``: pick one.

    Said alike whichever number is right. A decimal comma (``61,5``) is a tuple too: it is read as one only when the
    answer has a fraction (:func:`type_hint`).
    """
    if _kind(expected) != "a number":
        return ""
    counts = isinstance(expected, numbers.Integral) or float(expected).is_integer()
    if isinstance(answer, str) and not counts and (comma := _DECIMAL_COMMA.fullmatch(answer.strip())):
        whole, part = comma.groups()  # '61,5': a decimal comma, as the tuple 61,5 is told (type_hint)
        return (
            f"Your answer {_shown(answer)} writes a decimal comma: use a dot for decimals ({whole}.{part}), "
            "without quotes."
        )
    if isinstance(answer, str) and _LETTER_IN_NUMBER.search(answer) and _mostly_digits(answer):  # '6l.5', a typo
        return (
            f"Your answer {_shown(answer)}: this is not a number: check for a letter typed among the digits, then "
            "write the number in digits, without quotes."
        )
    if isinstance(answer, str) and len(_numbers_in(answer)) > 1:
        return f"Your answer {_shown(answer)} gives several numbers: pick one and write it in digits, without quotes."
    if isinstance(answer, tuple) and len(answer) > 1 and counts and all(_kind(n) == "a number" for n in answer):
        return "Your answer gives several numbers (Python reads them as a tuple): pick one."
    return ""


def _mostly_digits(text: str) -> bool:
    """At most two letters: a number with a slip (``6l.5``), not a name holding digits (``gpt-4o-mini``, walk 9)."""
    return sum(ch.isalpha() for ch in text) <= 2


_LETTER_IN_NUMBER = re.compile(r"\d[.,]?[^\W\d_]{1,2}[.,]?\d|\d[lIoO](?![^\W\d_])|(?<![^\W\d_])[lIoO][.,]?\d")
"""A letter typed among a number's digits (``6l.5``, ``6O.5``), or an l, I or O for a digit at its end or start
(``61.5l``): a number with its unit (``9 messages``, ``3s``) or an ordinal (``2nd``) is none (lesson 00's walk 6)."""

_DECIMAL_COMMA = re.compile(r"(-?\d+),(\d+)")
"""A number written with a decimal comma, as French and many other languages write it: ``61,5``."""


def _numbers_in(text: str) -> list[str]:
    """The numbers written in digits in ``text``."""
    return re.findall(r"-?\d+(?:\.\d+)?", text)


def case_form_hint(answer: Any, expected: Any) -> str:
    """What to say to a text answer in capitals or with spaces around it where the answers are lower case, or ``""``.

    Said alike whether the word is right or wrong ("Mind the case: write 'customer'" for the right word only told the
    student which one it was): the rule is the answers' form, read from the expected answer's style, not its value.
    The note never describes the answer's letters ("a name with a capital first letter" told lesson 02's students
    the form of the module's name, its fourth walk): Python compares text exactly, case included, and the answer is
    written as the lesson writes it (:func:`_case_note`). An exercise that lists its names or values reads the case
    from them instead (:func:`_listed_case`).
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or not answer.strip():
        return ""
    if _hidden_characters(answer) or _HEDGES.search(answer):
        return ""
    capitals = expected == expected.lower() and answer.strip() != answer.strip().lower()
    padded = answer != answer.strip()
    word = answer.strip()
    names_case = (  # 'billing' or 'BILLING' where the answers are names written as the lesson spells them
        not padded
        and _capitalized(expected)
        and word.isalpha()
        and min(len(word), len(expected.strip())) > 1
        and word in (word.lower(), word.upper())
        and word.casefold() not in _NO_VALUE_WORDS
    )
    if capitals or names_case:
        return _case_note(answer)
    if padded:
        return f"Your answer has {_padding(answer)} ({_shown(answer)}): write only its words, {_shown(answer.strip())}."
    return ""


def _case_note(answer: str) -> str:
    """The one case note, for every exercise, right or wrong alike: it never says which letters the answer has."""
    if answer != answer.strip():
        return (
            f"Mind the case and the {_padding(answer, article=False)}: Python compares text exactly, case included "
            f"({_shown(answer)}). Write the word as the lesson writes it, with nothing around it."
        )
    return (
        f"Mind the case: Python compares text exactly, case included, and {_shown(answer)} is not written as the "
        "lesson writes it. Write the word as the lesson writes it; whether the answer itself is right is checked "
        "after that."
    )


_NO_VALUE_WORDS = {"nothing", "none", "null", "nil", "empty", "blank"}
"""Words that say there is no value: their case is not what is wrong with them ('Nothing' is no more a value than
'nothing'), so the note on capitals, which is about a name written in the wrong case, is not said to them."""


def _capitalized(text: str) -> bool:
    """Is ``text`` one word with a capital first letter and the rest lower case (``Billing``)?"""
    return bool(re.fullmatch(r"[^\W\d_]\w*", text)) and text[:1].isupper() and text[1:] == text[1:].lower()


_QUOTE_MARKS = "'\"`\u2018\u2019\u201c\u201d"
"""Marks a student may type around a word inside the string's own quotes: ``"'numbering'"``, ``"`writer`"``."""


def quoted_text_hint(answer: Any, expected: Any) -> str:
    """What to say to a text answer with quote marks or backticks inside its own quotes, or ``""``.

    Said alike whatever the word inside (a slip note for the right word alone told the student which it was, lesson
    00's final walk).
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or expected[:1] in _QUOTE_MARKS:
        return ""
    text = answer.strip()
    if len(text) < 3 or text[0] not in _QUOTE_MARKS or text[-1] not in _QUOTE_MARKS:
        return ""
    return (
        f"Your answer {_shown(answer)} has quote marks inside the text: one pair of quotes is enough, so write the "
        "word alone between them."
    )


def end_mark_hint(answer: Any, expected: Any) -> str:
    """What to say to a text answer ending in a full stop or another mark the answers do not have, or ``""``.

    Said alike whatever the words before it ("right first time." was "not quite" although its words were right,
    lesson 07's final walk; "Billing." and "Reporting." alike, lesson 02's).
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or _HEDGES.search(answer):
        return ""
    text = answer.strip()
    mark = text[-1:] if text[-1:] in ".,;:!" else ""
    if not mark or expected.strip().endswith(mark) or not text[:-1].strip():
        return ""
    return (
        f"Your answer {_shown(answer)} ends with {mark!r}, which the answers here do not have: write the words alone."
    )


def key_value_hint(answer: Any, expected: Any, choices: tuple[str, ...] = ()) -> str:
    """What to say to an answer written as ``key=value`` (``'module=Billing'``), or ``""``: write the value, or the
    key where the question asks for a key (its ``choices`` are allowed keys: lesson 01's ``'customer=C'`` was told
    to write the value, ``'C'``, a walk of three misleading replies).

    Said alike whether the value is right or wrong ("Right value" for the right one alone told the student which it
    was, lesson 02's re-walk). Where the ``choices`` are other names (statuses, desks, outcomes), the question asks
    for one of them, and they are listed as the other refusals list them: lesson 00's ``'module=Billing'`` for a
    status was told to write the value alone, and ``'Billing'`` then was no status either (lesson 00's walk 22).
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or "=" in expected or not value_written(answer):
        return ""
    if choices and set(choices) <= set(_KEYS):
        return (
            f"Your answer is written as key=value ({_shown(answer)}): the question asks for the key: write only "
            "the key."
        )
    if choices:
        return (
            f"Your answer is written as key=value ({_shown(answer)}), as a fact is written; the question asks for "
            f"one of {_choices_in_words(choices)}: write one of them, exactly as written."
        )
    return (
        f"Your answer is written as key=value ({_shown(answer)}): the question asks for the value alone, write only it."
    )


def _phrase_words(text: str) -> list[str]:
    """The words of ``text`` in lower case, underscores and hyphens counting as spaces: ``nothing_to_extract``
    and ``nothing to extract`` are the same three words."""
    return re.findall(r"[^\W_]+", text.casefold())


def _choice_among_words(answer: Any, choices: tuple[str, ...], known: tuple[str, ...] = ()) -> str:
    """What to say to a text answer holding one of the names the question lists, or one of the values the lesson
    declares (``known``), among other words, or to one holding two or more of them, or ``""``.

    ``'it is right first time'`` was graded "not quite" although its words held the right name (lesson 07's walk);
    said alike whichever name it holds, right or wrong, and the name is not repeated back. ``'Payments, unchanged'``
    was told it "lists several choices" (lesson 02's walk): it lists one value and other words, so "several choices"
    is said only where two values or more appear (a name inside a longer one, 'repaired' in 'not repaired', is not
    one more). An answer written key=value, or a list or dict inside quotes, has words of its own. One with a detail
    after a ':' is said the same: "write only the short phrase before it" told ``'evicted: customer'`` to keep
    ``evicted`` and ``'product: no'`` to keep the key it ruled out (lesson 01's walk 8).
    """
    values = choices + known
    if not (values and isinstance(answer, str)) or _hidden_characters(answer):
        return ""
    if value_written(answer) or _literal_container(answer):
        return ""
    words = _phrase_words(answer)
    if words in [_phrase_words(value) for value in values]:
        return ""
    held = _values_held(words, values)
    if len(held) > 1:
        return f"Your answer {_shown(answer)} lists several choices: pick one."
    if not held:
        return ""
    if held[0] in choices:
        return (
            f"Your answer {_shown(answer)} holds one of {_choices_in_words(choices)} among other words: write "
            "only the name, as the question spells it."
        )
    return (
        f"Your answer {_shown(answer)} holds one of the values the lesson declares ({', '.join(known)}) among other "
        "words: write only the value, as the lesson spells it."
    )


def _values_held(words: list[str], values: tuple[str, ...]) -> list[str]:
    """The ``values`` whose words appear in ``words`` (an answer's :func:`_phrase_words`), each once, in order; a
    value found only inside a longer one's place (``repaired`` in ``not repaired``) is not counted."""
    spans = []
    for value in values:
        name = _phrase_words(value)
        spans += [
            (i, i + len(name), value)
            for i in range(len(words) - len(name) + 1)
            if name and words[i : i + len(name)] == name
        ]
    kept = [
        span
        for span in spans
        if not any(o[0] <= span[0] and span[1] <= o[1] and o[1] - o[0] > span[1] - span[0] for o in spans)
    ]
    return list(dict.fromkeys(value for _, _, value in sorted(kept)))


def _literal_container(text: str) -> bool:
    """Is ``text`` a dict, list, tuple or set written inside quotes (``"['accepted']"``)? :func:`literal_text_hint`
    says what to write."""
    if text.strip()[:1] not in "{[(":
        return False
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return isinstance(value, dict | list | tuple | set)


def _listed_case(answer: Any, expected: Any, choices: tuple[str, ...], known: tuple[str, ...] = ()) -> str:
    """The case note (:func:`_case_note`) where the word is one of the exercise's ``values`` but for its case.

    A word that is none of them is not told to change its case: lesson 02's ``'rejected'`` was told to take a
    capital, and ``'Rejected'`` then was "not quite", and lesson 01's ``'C'`` to be lower case, then ``'c'`` was
    no allowed key. The case is read from the values, never from the expected answer, so the note comes to every
    value's case slip alike (``'payments'`` and ``'reporting'``, ``'pAyments'`` too). Spaces around a word are still
    named. An exercise that lists no values keeps :func:`case_form_hint`.

    The note says which case to write, read from the listed value the word matches (lesson 03's walk 9: "Write the
    word as the lesson writes it" was vague): "in lower case, as the question does", or "with the capitals the
    lesson uses" for a value the lesson declares (``known``). Every value of an exercise shares its case, so the
    words are the same whether the word is the right one or not. The note says "Write your answer ...", never
    "Write 'Triage' in lower case" (walk 19: that read as if the capitalised word were the one to write).
    """
    values = choices + known
    if not values or not isinstance(answer, str):
        return case_form_hint(answer, expected)
    if not isinstance(expected, str) or not answer.strip() or _hidden_characters(answer) or _HEDGES.search(answer):
        return ""
    word = answer.strip()
    listed = next((value for value in values if word.casefold() == value.casefold()), None)
    if word not in values and listed is not None:
        source = "the question" if listed in choices else "the lesson"
        case = f"in lower case, as {source} does" if listed == listed.lower() else f"with the capitals {source} uses"
        if word != answer:
            return (
                f"Mind the case and the {_padding(answer, article=False)}: Python compares text exactly, case "
                f"included ({_shown(answer)}). Write your answer {case}, with nothing around it."
            )
        return (
            f"Mind the case: Python compares text exactly, case included ({_shown(answer)}). Write your answer "
            f"{case}; whether the answer itself is right is checked after that."
        )
    if word != answer:
        return f"Your answer has {_padding(answer)} ({_shown(answer)}): write only its words, {_shown(word)}."
    return ""


def _known_slip(answer: Any, known: tuple[str, ...]) -> str:
    """What to say to an answer a slip away from a value the lesson uses (lesson 02's ``'Biling'``), or ``""``.

    Said alike for each of the values, the right one or another (lesson 02's walk: ``'acepted'`` was told its slip
    in Exercise 1, ``'Biling'`` a plain "not quite" in Exercise 2).
    """
    if not (listed := _listed_slip(answer, known)):
        return ""
    return (
        f"{_shown(answer)} reads as {listed!r}, one of the values the lesson declares ({', '.join(known)}): write it "
        "exactly as the lesson spells it."
    )


def _cell_text(names: Mapping[str, Any]) -> str:
    """The text of the cell being run (IPython's latest input, ``In[-1]``), or ``""`` outside IPython."""
    inputs = names.get("In")
    return inputs[-1] if isinstance(inputs, list) and inputs and isinstance(inputs[-1], str) else ""


def _typed_bare(names: Mapping[str, Any]) -> bool:
    """Did the student type the cell's answer line's value without quotes (``answer_1 = {'log': 'a=b'}?``)?

    IPython's ``In`` holds the cell as its reader changed it: :func:`hedged_answer_lines` puts quotes around a
    value ending in '?'. The cell as typed is IPython's ``_iN`` (N, the cell's number: ``len(In) - 1``). Unknown
    (outside IPython) is False: a text answer there was typed in quotes.
    """
    inputs = names.get("In")
    typed = names.get(f"_i{len(inputs) - 1}") if isinstance(inputs, list) and inputs else None
    if not isinstance(typed, str):
        return False
    for line in typed.splitlines():
        if match := _ANSWER_LINE.match(line):
            value = line[match.end() :].strip()
            return bool(value) and value[0] not in _QUOTE_MARKS
    return False


def _joined_answer_line(names: Mapping[str, Any], answer: Any = None) -> str:
    """What to say when the cell's ``answer_N = ...`` line joins two values with ``or``/``and``, or ``""``.

    ``answer_2 = 1 or 2`` runs: Python keeps one of the two (here 1), and a hedge would then be graded as if the
    student had chosen. The cell's own text is IPython's latest input (``In``), read as Python tokens so that an
    ``or`` inside quotes or a comment does not count. Two texts side by side (``"accepted" "rejected"``) are
    joined by Python into one, ``'acceptedrejected'``: said as such, not as a name off the list (lesson 02's walk).
    """
    for line in _cell_text(names).splitlines():
        if not re.match(r"\s*answer_\w*\s*=[^=]", line):
            continue
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
        except (tokenize.TokenError, SyntaxError):
            continue
        code = _clipped(_without_comment(line.partition("=")[2])[0].strip())
        words = [t.string for t in tokens if t.type == tokenize.NAME]
        if joiner := next((word for word in words if word in ("or", "and")), None):
            return (
                f"Your answer line joins two answers with {joiner!r}: Python keeps only one of them for you "
                f"({code} is {_shown(answer)} to Python). Write one answer, the one you choose."
            )
        kinds = [t.type for t in tokens if t.type not in _LAYOUT_TOKENS]
        if any(a == b == tokenize.STRING for a, b in itertools.pairwise(kinds)):
            return (
                f"Your answer line puts texts side by side ({code}), and Python joins texts side by side into one: "
                f"{_shown(answer)}. Write one answer, the one you choose."
            )
    return ""


_LAYOUT_TOKENS = frozenset(
    {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)
"""Tokens that are layout, not code: two texts with only these between them are side by side."""


def _computed_answer_line(names: Mapping[str, Any], expected: Any) -> str:
    """What to say when the cell's answer line computes its value (``answer_1 = parse_assertions(message_1)``), or
    ``""``.

    The value is then the library's, not a prediction: graded, it was "correct" (lesson 01's walk). Any value
    :func:`_literal` cannot read is code that computes (a call, an attribute, an operation), but for plain
    arithmetic on numbers written out (``2 + 2``, ``3*20 + 0.5 + 1``): that is the student's own reasoning, as the
    Whys write it ("the desk and the writer (2 + 2)"), and it is graded by its value (:func:`_worked_out`; lesson
    02's walk 19 found ``answer_3 = 2 + 2`` refused). A lesson's name and ``or``/``and`` are said before, in words of
    their own. Said alike whatever the code computes.

    The refusal states the rule for the exercise's kind of answer (:func:`_predicted_forms`): for a number, that plain
    arithmetic is fine, so a graded ``1+3`` and a refused ``len([...])`` read as one rule (lesson 02's walk 21: "write
    the value you predict, not code that computes it" read as a second rule beside the graded sum).
    """
    cell = _cell_text(names)
    for node in _answer_assignments(cell):
        try:
            _literal(node.value, names)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            if _arithmetic(node.value):  # the student's own sum: graded by its value
                continue
            code = _clipped(ast.get_source_segment(cell, node.value) or "")
            return f"Your answer line computes its value with code ({code}). {_predicted_forms(expected)}"
    return ""


def _predicted_forms(expected: Any) -> str:
    """How to write a prediction of ``expected``'s kind instead of code, said after any refused code: a call, a
    method, ``**``, texts joined with ``+``, a name in a sum.

    Only what fits the kind is said: plain arithmetic for a number (it is graded, :func:`_worked_out`), never for
    text, a truth value or a dict. The words depend on the expected value's kind only, never on the answer.
    """
    if _kind(expected) == _kind(True):
        said = "Write True or False, as you predict"
    elif _kind(expected) == "a number":
        said = f"Write the number you predict, {_number_forms(expected)}"
    elif isinstance(expected, str):
        said = "Write the text you predict, in quotes"
    elif isinstance(expected, dict):
        said = "Write the dict you predict, each key and value in quotes"
    else:
        said = "Write the value you predict"
    return f"{said}: no call, no name, no other code."


_ARITHMETIC_EXAMPLES = (("2*20 + 2", 42), ("2*15 + 6", 36), ("2*10 + 7", 27))
"""Sums an answer line may write, each with its value: neutral examples, as :func:`_value_forms`' numbers are."""


def _number_forms(expected: Any) -> str:
    """How a number may be written in an answer line: in digits, or as plain arithmetic on them (graded by its value,
    :func:`_worked_out`). The example's value is never ``expected``: the next one stands in when it is."""
    example = next(code for code, value in _ARITHMETIC_EXAMPLES if value != expected)
    return f"in digits or as plain arithmetic with + - * / (for example {example})"


_ARITHMETIC_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div)
"""The operations of plain arithmetic an answer line may write out: ``+ - * /`` (and parentheses)."""


def _arithmetic(node: ast.AST, depth: int = 0) -> bool:
    """Is ``node`` plain arithmetic on numbers written in digits (``2 + 2``, ``3*20 + 0.5 + 1``, ``(1 + 1) * 2``)?
    No name, no call, no ``**`` (``9**9**9`` would take a kernel's memory), no True or False (Python's 1 and 0)."""
    if depth > 200:  # a sum of 200 terms is no answer line; Python's own recursion limit stays far
        return False
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        return _arithmetic(node.operand, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC_OPERATORS):
        return _arithmetic(node.left, depth + 1) and _arithmetic(node.right, depth + 1)
    return False


def _worked_out(names: Mapping[str, Any], answer: Any) -> tuple[str, Any] | None:
    """The cell's answer line written as plain arithmetic (``answer_3 = 2 + 2``): what the checker says back ("Your
    sum 2 + 2 is 4."), and the value graded; or None.

    The value is graded as the same number written in digits would be: a division of whole numbers that comes out
    whole is that whole number (``8 / 2`` is the count 4, though Python makes it 4.0: the student wrote no decimal
    point), and a fraction is rounded to 10 places (``0.1 + 0.2`` is 0.3). The sentence said back has the same form
    whether the value is right or wrong, and comes first, so a wrong sum is seen as the student's own arithmetic.
    """
    cell = _cell_text(names)
    try:
        tree = ast.parse(cell)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id.startswith("answer") for target in node.targets)
            and _arithmetic(node.value)
            and any(isinstance(part, ast.BinOp) for part in ast.walk(node.value))  # `-1` is a number, not a sum
        ):
            continue
        try:
            value = eval(compile(ast.Expression(node.value), "<answer>", "eval"), {"__builtins__": {}})
        except (ArithmeticError, ValueError, MemoryError, RecursionError):
            return None
        if not _same(value, answer):  # the answer checked is not this line's (another cell set it)
            return None
        whole = all(type(n.value) is int for n in ast.walk(node.value) if isinstance(n, ast.Constant))
        if isinstance(value, float) and value == value and abs(value) != float("inf"):
            value = int(value) if whole and value.is_integer() else round(value, 10)
        ops = [n.op for n in ast.walk(node.value) if isinstance(n, ast.BinOp | ast.UnaryOp)]
        sums = all(isinstance(op, ast.Add) for op in ops)
        code = _clipped(ast.get_source_segment(cell, node.value) or "")
        return f"Your {'sum' if sums else 'calculation'} {code} is {_shown(value)}.", value
    return None


def _decimal_count(answer: Any, expected: Any, typed: str = "") -> str:
    """What to say to a number that is no count (``-1``, ``1.5``) or a count written with a decimal point (``1.0``)
    where the answer is a count, or ``""``.

    Python finds ``1.0 == 1``, so ``1.0`` was "correct" while ``1.5`` was told a count is whole (lesson 07's walk):
    the form is said first, alike for any such number. A negative number or a fraction is a form to fix too, as
    ``'9'`` or ``None`` are: graded "not quite" beside them, it told the student which forms the check had judged
    (lesson 05's walk). ``typed``: the answer as the student typed it (:func:`_typed_value`); a number typed with an
    exponent (``1e0``) is quoted so and called the decimal number it is: "1.0 has a decimal point" named a point the
    student never typed (lesson 07's walk 22), and its whole number is not offered ("write it as a whole number,
    1000" for ``1e3`` invited an answer the student never meant: lessons 00 and 05's third walks). Where the typed
    text is unknown (no IPython history), the value may have been typed either way: it is said as the decimal number
    Python shows, with neither a point claimed nor its whole number offered (lesson 03's walk 23: ``1e3`` was told
    "1000.0 has a decimal point ... write it as a whole number, 1000").
    """
    if isinstance(expected, bool) or not isinstance(expected, numbers.Integral):
        return ""
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return ""
    whole = isinstance(answer, numbers.Integral) or float(answer).is_integer()  # a 400-digit int is no float
    exponent = typed.strip() if "e" in typed.casefold() and isinstance(answer, float) else ""  # 1e0: no point typed
    if answer < 0 or not whole:
        shown = f"{exponent}, the decimal number {_shown(answer)}," if exponent else _shown(answer)
        return (
            f"A count is a whole number, 0 or more (how many), and {shown} is not one: write the count you "
            "predict in digits, with no minus sign and no decimal point."
        )
    if not isinstance(answer, float):
        return ""
    if exponent:  # 1e3: its whole number (1000) is no guess the student made, so it is not offered (walk 22)
        return (
            f"{exponent} is the decimal number {answer}, but the answer is a count: write the count you predict as "
            "a whole number in digits, with no e and no decimal point."
        )
    if not typed.strip():  # out of sight: 1000.0 may have been typed 1e3, so neither a point nor 1000 is said
        return (
            f"Your answer is the decimal number {answer}, but the answer is a count: write the count you predict "
            "as a whole number in digits, with no decimal point and no e."
        )
    # its whole number is not offered: it may be the answer itself (1.0 for 1: lesson 07's walk 24)
    return (
        f"{answer} has a decimal point, but the answer is a count: write it as a whole number, without the "
        "decimal point."
    )


def _set_instead(missing: str, names: Mapping[str, Any]) -> str:
    """A name the cell sets that is a slip from ``missing`` (``answr_1`` for ``answer_1``), said after the
    missing line's words, or ``""`` (lesson 06's walk: the typo was never pointed at)."""
    try:
        tree = ast.parse(_cell_text(names))
    except SyntaxError:
        return ""
    stored = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    near = sorted(name for name in stored if name != missing and _distance(name, missing) <= 2)
    return f" The cell sets {near[0]} instead: is that {missing} misspelt?" if near else ""


_COMPARED_LINE = re.compile(r"^\s*(answer_\w*|message_\w+)\s*==(?!=)\s*(\S.*)$")
"""A line that compares the cell's own name with a value where it meant to set it: ``answer_1 == 9``."""


def _compared_line(cell: str, name: str = "") -> tuple[str, str, str] | None:
    """The cell's line ``answer_N == value`` (or ``message_N == ...``), as (its code, the name, the value's code),
    for ``name`` or any of the cell's own names; else None. The value is as typed, its comment left out."""
    for line in cell.splitlines():
        match = _COMPARED_LINE.match(_without_comment(line)[0])
        if match and (not name or match.group(1) == name):
            return match.group(0).strip(), match.group(1), match.group(2).strip()
    return None


def _two_equals_words(code: str, name: str, value: str) -> tuple[str, str]:
    """What an answer (or message) line written with ``==`` is told: what it does, and what to write instead.

    ``answer_1 == 9`` compares and sets nothing: the cell was told only that it "no longer sets answer_1" (lesson
    05's walk 19), which is true but leaves the cause unsaid. Said for every exercise, the same words whatever the
    value, right or wrong, in a kernel where the name holds an earlier run's value as in one where it holds none.
    """
    noun = "message" if name.startswith("message") else "answer"
    said = f"Your line {_clipped(code)} compares {name} with a value and sets nothing: use one = to set your {noun}; "
    return f"{said}== compares.", f"Write {name} = {_clipped(value)}"


def _unassigned_answer(names: Mapping[str, Any]) -> str:
    """The ``answer_N`` the cell's ``check`` call reads, or the ``message_N`` the cell reads, but the cell never
    sets, or ``""`` (lesson 04's walk; lesson 03's for a deleted message line).

    A student who deletes the ``answer_1 = ...`` line and runs the cell is graded on the value an earlier run left,
    "correct" included; and one who deletes it before answering was told to replace a ``...`` no longer on screen.
    Read from the cell's text (IPython's ``In``); a cell Python cannot parse is left alone.
    """
    try:
        tree = ast.parse(_cell_text(names))
    except SyntaxError:
        return ""
    read = {
        node.args[1].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "check"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Name)
        and node.args[1].id.startswith("answer")
    }
    read |= {  # a message the student writes (lesson 03) or the exercise's own (lesson 01), read but not set
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and re.fullmatch(r"message_\w+", node.id)
    }
    stored = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return next(iter(sorted(read - stored)), "")


def _variable_hint(answer: Any, expected: Any, names: Mapping[str, Any]) -> str:
    """What to say to an answer that is a variable of the lesson (``answer_1 = repaired``), or ``""``.

    A student who writes a word without quotes means the word; when the lesson happens to define a variable of
    that name, Python gives its object, and judging that object ("a value of type CapstoneRun") would mislead.
    Text, numbers, booleans and None are answers in their own right, whatever name also holds them.
    """
    name = _answer_line_name(names)
    if name is None and not (isinstance(answer, str | numbers.Number | bool) or answer is None):
        name = next((n for n, value in names.items() if value is answer and _a_lesson_name(n)), None)
    if name is None:
        return ""
    return (
        f"You wrote the name '{name}' without quotes, so Python read it as a variable of this lesson, not as "
        f"an answer: {_how_to_write(expected, name)}"
    )


def _answer_line_name(names: Mapping[str, Any]) -> str | None:
    """The lesson variable the cell's ``answer_N = name`` line gives as the answer, or ``None``.

    ``answer_1 = right`` in a cell that ran before holds the lesson's ``right`` (True, perhaps the right answer):
    graded, it would be "correct" for a word the student did not write. ``answer_1 = summary`` would be judged as
    a 200-character text. Read from the cell's text (IPython's ``In``): a value written out, even one that
    happens to be a lesson variable's, is not a name.
    """
    for line in _cell_text(names).splitlines():
        if match := re.fullmatch(r"\s*answer_\w*\s*=\s*([A-Za-z_]\w*)\s*(?:#.*)?", line):
            word = match.group(1)
            if word not in ("True", "False", "None") and word in names and _a_lesson_name(word):
                return word
    return None


def _a_lesson_name(name: str) -> bool:
    """A name the lesson defined, not the answer line's own (``answer_1``) nor one IPython keeps (``_``, ``Out``)."""
    return not name.startswith(("_", "answer")) and name not in ("In", "Out")


def _how_to_write(expected: Any, word: str) -> str:
    """How an answer of ``expected``'s kind is written, for a student who wrote the name ``word`` instead."""
    kind = _kind(expected)
    if isinstance(expected, str):
        return f"put your answer in quotes, e.g. '{word}'."
    if kind == _kind(True):
        return "write True or False (no quotes)."
    if kind == "a number":
        return f"write the number you predict, {_number_forms(expected)}, with no quotes."
    if isinstance(expected, dict):
        return "write the dict itself, e.g. {'key': 'value'}."
    return f"the answer is {kind}: write the value itself."


def _empty(answer: Any, expected: Any) -> str:
    """What to say to an answer of empty quotes (or only spaces): nothing was written yet.

    "Between the quotes" fits a text answer only: for a number or a boolean it would steer the student to ``'2'``,
    which the next check calls text, so it says the kind of answer and that it goes without quotes.
    """
    if not (isinstance(answer, str) and not answer.strip()):
        return ""
    if isinstance(expected, str):
        return f"You left it empty ({_shown(answer)}): write your answer between the quotes."
    if example := _CONTAINER_EXAMPLES.get(type(expected)):  # "without quotes" would not say how a dict is written
        return f"You left it empty ({_shown(answer)}); the answer is {_kind(expected)}: write {example}."
    return f"You left it empty ({_shown(answer)}); the answer is {_kind(expected)}: write it without quotes."


_CONTAINER_EXAMPLES: dict[type, str] = {dict: "a dict, e.g. {'key': 'value'}", list: "a list, e.g. ['first', 'second']"}
"""How an answer that is a dict or a list is written, for a student who left the quotes empty."""


def near_miss_hint(answer: Any, expected: Any) -> str:
    """How close a wrong answer of the right type came: the case, spaces around it, a dict's keys or values."""
    if isinstance(answer, str) and isinstance(expected, str):
        return _text_hint(answer, expected)
    if isinstance(answer, dict) and isinstance(expected, dict):
        return _dict_hint(answer, expected)
    if isinstance(answer, list | tuple) and isinstance(expected, list | tuple) and len(answer) != len(expected):
        return f"Your answer has {_items(len(answer))}; the answer has {_items(len(expected))}."
    return ""  # a number: nothing says how close it came (a count's form is said first, by _decimal_count)


def _text_hint(answer: str, expected: str) -> str:
    """What is wrong with a text answer's form that the form rules before it leave (an invisible character), or ``""``.

    Nothing here depends on the answer being right but for its case or spaces: "Mind the case: … write 'X'" for such
    an answer alone handed the student the answer (lessons 01 and 07's walks); those are said alike by
    :func:`case_form_hint`, or not at all.
    """
    if (value := value_written(answer)) and value.casefold() == expected.strip().casefold():
        case = "" if value == expected.strip() else ", and mind the case"
        return f"{RIGHT_VALUE}: write only the value{case}, {expected!r}, not {_shown(answer)}."
    if hidden := _hidden_characters(answer):
        them = "them" if sum(map(_hidden, answer)) > 1 else "it"
        return f"Your answer holds {hidden}: delete {them} or type the answer again."
    return ""


def spelling_hint(answer: Any, expected: Any, choices: tuple[str, ...] = ()) -> str:
    """An answer a slip away from a name the question lists (``choices``), said as a slip, or ``""``.

    A slip is spaces or hyphens for underscores, or one or two letters off (two for a name of 8 letters or more):
    ``"nothing to extract"``, ``"rejeted"``, ``"numberin"``. The listed name is said, right or wrong alike (the
    question shows it anyway). A slip from an answer the question does not list is not said: the same words for a
    slip from the right answer only would tell the student which answer is right (lesson 02's re-walk).
    """
    if not (isinstance(answer, str) and isinstance(expected, str)) or not answer.strip():
        return ""
    if listed := _listed_slip(answer, choices):
        spelled = "write it exactly as the question spells it."
        return f"{_shown(answer)} reads as {listed!r}, one of {_choices_in_words(choices)}: {spelled}"
    return ""


def _listed_slip(answer: Any, choices: tuple[str, ...]) -> str:
    """The listed name ``answer`` is a slip away from, or ``""``."""
    if not isinstance(answer, str):
        return ""
    return next((name for name in choices if _slip(answer, name)), "")


def _folded(text: str) -> str:
    """A name as a slip would not change it: case, the spaces around it, and spaces or hyphens for underscores."""
    return re.sub(r"[\s-]+", "_", text.strip().casefold())


def _slip(answer: str, name: str) -> bool:
    """Is ``answer`` a slip away from ``name`` (and not ``name`` itself)?

    A short name (under 4 letters) is a slip only of two neighbouring letters swapped: ``'lgo'`` for ``log`` was
    graded "not quite" while ``'databse'`` was told it reads as database (lesson 01's walk 8); one letter changed in
    a 3-letter word is too often another word.
    """
    if answer == name:
        return False
    a, b = _folded(answer), _folded(name)
    if a == b:
        return True
    if len(b) < 4:
        return len(b) >= 2 and sorted(a) == sorted(b) and _distance(a, b) == 1
    return _distance(a, b) <= (2 if len(b) >= 8 else 1)


def _distance(a: str, b: str) -> int:
    """The edits (a letter added, dropped, changed, or two swapped) that turn ``a`` into ``b``."""
    previous, current = None, list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        before, previous, current = previous, current, [i] + [0] * len(b)
        for j, other in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            if before is not None and j > 1 and char == b[j - 2] and a[i - 2] == other:
                current[j] = min(current[j], before[j - 2] + 1)
    return current[-1]


def _padding(text: str, *, article: bool = True) -> str:
    """What surrounds ``text``'s words, named: "spaces around it", or "a line break after it" when it is not spaces.

    A trailing line break or a tab is whitespace too (``str.strip`` removes it), but a student told about "spaces"
    looks for a space that is not there (issue 32: ``'numbering\\n'``).
    """
    before = text[: len(text) - len(text.lstrip())]
    after = text[len(text.rstrip()) :]
    if set(before + after) <= {" "}:
        return "spaces around it"
    sides = ((before, "before"), (after, "after"))
    return " and ".join(f"{_whitespace_words(run, article)} {where} it" for run, where in sides if run)


def _whitespace_words(run: str, article: bool) -> str:
    """A run of whitespace in words: "a line break", "spaces and a tab" (each kind once, in order of appearance)."""
    counts: dict[str, int] = {}
    for char in run:
        name = _BLANK_NAMES.get(char) or f"{unicodedata.name(char, 'blank character').lower()} (U+{ord(char):04X})"
        counts[name] = counts.get(name, 0) + 1
    one = "a " if article or len(counts) > 1 else ""
    return " and ".join(f"{one}{kind}" if count == 1 else f"{kind}s" for kind, count in counts.items())


_BLANK_NAMES = {"\n": "line break", "\r": "line break", "\t": "tab", " ": "space"}


def _hidden(char: str) -> bool:
    """A character a student cannot see and ``str.strip`` does not remove (a zero-width space, U+200B).

    Python's non-printable characters less whitespace: format and control characters. The checker sits below
    :mod:`course_lib.memory` in the floors, so it does not import :func:`course_lib.memory.invisible`, whose wider
    rule also marks the few visible-category characters a font shows as nothing (variation selectors, fillers).
    """
    return not char.isspace() and not char.isprintable()


def _hidden_characters(text: str) -> str:
    """The invisible characters in ``text`` and where they are, in words, or ``""`` when it holds none.

    "holds the right word among others" would send a student looking for a word they cannot see; this names the
    character and the visible text on each side of it.
    """
    found = [(index, char) for index, char in enumerate(text) if _hidden(char)]
    if not found:
        return ""
    places = []
    for index, char in found:
        before = "".join(c for c in text[:index] if not _hidden(c)).strip()
        after = "".join(c for c in text[index + 1 :] if not _hidden(c)).strip()
        name = unicodedata.name(char, "unnamed character").lower()
        where = (
            f"between {_shown(before)} and {_shown(after)}"
            if before and after
            else f"at the end, after {_shown(before)}"
            if before
            else f"at the start, before {_shown(after)}"
            if after
            else "alone"
        )
        places.append(f"U+{ord(char):04X} ({name}) {where}")
    many = len(found) > 1
    return f"{len(found) if many else 'an'} invisible character{'s' * many}, " + "; ".join(places)


def _choices(text: str) -> list[str]:
    """The parts of an answer that hedges ("product, customer", "triage or operations"): each a choice of its own."""
    return [part.strip() for part in re.split(r",|;|/|\bor\b|\band\b", text) if part.strip()]


def _holds_word(text: str, word: str) -> bool:
    """Does ``text`` hold ``word`` (one word, in any case) as a whole word among others?"""
    word = word.strip()
    return bool(re.fullmatch(r"\w+", word)) and bool(re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE))


def _dict_hint(answer: dict[Any, Any], expected: dict[Any, Any]) -> str:
    """How many keys of a wrong dict are missing, extra or hold a wrong value; then which keys hold a wrong value.

    The one rule for every dict answer (the dict-answer policy, in the module's docstring): one sentence of the same
    shape for every wrong dict, with the three counts always said (a ``0`` too). A key whose value is wrong is then
    named, never its right value: the key is in the question (the exercise's message), so its name gives nothing
    away, while a count alone left a student guessing which key (second walk 22). No note is said only of some
    wrong values (a case slip, spaces around it): each wrong value gets the same words. A key's form (not text, a
    hedge, not an allowed key) and a value's form (not text, an invisible character) are said before any grading,
    by the form rules of :func:`_form_words`.
    """
    missing = sum(key not in answer for key in expected)
    extra = sum(key not in expected for key in answer)
    wrong = [key for key, value in expected.items() if key in answer and not _same(value, answer[key])]
    counts = (
        f"Compared key by key with the right dict: {_count(missing, 'key')} missing from yours, "
        f"{_count(extra, 'key')} in yours that should not be there, {_count(len(wrong), 'key')} with a wrong value."
    )
    if not wrong:
        return counts
    padded = [key for key in wrong if _padded(answer[key], expected[key])]
    if len(wrong) == 1:
        spaces = ": check the spaces at its ends (section 1)" if padded else ""
        return f"{counts} The value of {_names(wrong)} is not the right one{spaces}."
    its = "its" if len(padded) == 1 else "their"
    spaces = f"; for {_names(padded)}, check the spaces at {its} ends (section 1)" if padded else ""
    return f"{counts} The values of {_names(wrong)} are not the right ones{spaces}."


def _padded(value: Any, expected: Any) -> bool:
    """Is ``value`` the ``expected`` text once its ends are trimmed as the contract trims (``' SQL Server 2022 '``)?

    Lesson 01's third walk 23: such a value was told "is not the right one", as 'Oracle' is, and the student looked
    for other words. The spaces at its ends are what section 1's rule trims: said of that value, never its words."""
    return (
        isinstance(value, str)
        and isinstance(expected, str)
        and value != expected
        and _contract_trimmed(value) == expected
    )


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _items(count: int) -> str:
    return f"{count} item{'s' * (count != 1)}"


def _names(keys: list[Any]) -> str:
    """``'a'``, ``'a' and 'b'``, ``'a', 'b' and 'c'``: keys named once each, as a sentence lists them."""
    shown = [_shown(key) for key in keys]
    return " and ".join([", ".join(shown[:-1]), shown[-1]] if len(shown) > 2 else shown)


def type_hint(answer: Any, expected: Any, typed: str = "") -> str:
    """What is wrong with the answer's type, if anything: text for a number, a number for a boolean...

    A decimal comma is quoted as the student typed it (``typed``, :func:`_typed_value`) when known."""
    got, want = _kind(answer), _kind(expected)
    if got == want:
        return ""
    if isinstance(answer, str) and (answer.strip() == str(expected) or _reads_as_kind(answer, expected)):
        return f"You wrote the text {_shown(answer)}; the answer is {want}: write it without quotes."
    if isinstance(expected, str) and str(answer) == expected:
        return f"You wrote {got}; the answer is text: put it in quotes."
    if answer is None:
        return f"You wrote None; the answer is {want}.{_how_to_write_kind(expected)}"
    if want == "a number" and isinstance(answer, tuple) and len(answer) == 2 and all(type(n) is int for n in answer):
        whole, part = answer  # 61,5: a decimal comma, which Python reads as two numbers
        shown = _typed_items(typed, answer)
        return (
            f"Python reads {shown[0] if shown else f'{whole},{part}'} as a tuple of two numbers: use a dot for "
            f"decimals ({whole}.{part})."
        )
    if isinstance(answer, tuple):  # `{...}, 'maybe'`: a comma after the answer, which Python reads as a tuple
        return (
            f"Your answer is a tuple (a comma after a value makes one); the answer is {want}: keep one value, with "
            f"no comma after it.{_how_to_write_kind(expected)}"
        )
    return f"Your answer is {got}; the answer is {want}.{_how_to_write_kind(expected)}"


def _how_to_write_kind(expected: Any) -> str:
    """One instruction for writing an answer of ``expected``'s kind, or ``""`` (lesson 04's walk: "Then run the cell
    again" followed no instruction)."""
    if _kind(expected) == _kind(True):
        return " Write True or False, without quotes, with a capital first letter."
    if _kind(expected) == "a number":
        return " Write a number in digits, without quotes."
    if isinstance(expected, str):
        return " Write it between quotes."
    if isinstance(expected, dict):
        return " Write the dict itself, e.g. {'key': 'value'}, each key and value in quotes."
    return ""


def _reads_as_kind(text: str, expected: Any) -> bool:
    """Does ``text`` hold a Python value of ``expected``'s kind (``"{'log': 'a=b'}"`` for a dict), right or wrong?

    Then "write it without quotes" is said for any such text: said only for the right value, it told the student
    which one they wrote (lesson 01's final walk).
    """
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return _kind(value) == _kind(expected)


_CONTAINER_WORDS = {list: "a list", tuple: "a tuple", dict: "a dictionary", set: "a set"}
"""How the checker names a container answer: in the words of a Python course, not as a class name."""


def _kind(value: Any) -> str:
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):  # numpy's boolean too
        return "a boolean (True or False)"
    if isinstance(value, numbers.Number):
        return "a number"
    if isinstance(value, str):
        return "text (a string)"
    if value is None:
        return "None (no value)"
    words = next((said for kind, said in _CONTAINER_WORDS.items() if isinstance(value, kind)), None)
    return words or f"a value of type {type(value).__name__}"


_UNKNOWN: Any = object()
"""The expected answer when the checking cell's expected value cannot be read: any kind of answer is possible."""


def unquoted_name_guidance(
    error: NameError, expected: Any = _UNKNOWN, variable: str = "", names: Mapping[str, Any] | None = None
) -> str:
    """What happened and what to do when an answer names something undefined, for the kind of answer ``expected`` is.

    Three lines, as for a message line (:func:`_message_guidance`): what happened in plain words (the word has no
    quotes, so Python read it as a variable's name), Python's own error line (a student must learn what a NameError
    says), then the advice. For a text answer it is most often text written without quotes; for a number, a number
    written in words. For a True/False question every word (``true``, ``Flase``, ``yes``) is told first that it is
    not a Python value (:func:`_not_a_python_value`): "it has no quotes" sent the student to quote it, which gives
    another wrong answer. The word is said in quotes: a bare ``it is not a Python value`` read as the pronoun
    (lesson 01's walk 8). When the kind is unknown, a word spelled as True or False is told both ways. ``variable``
    is the answer line's name (``answer_1``), when the error came from one. ``names`` (the kernel's, with IPython's
    ``In``) lets a deleted answer line that the cell sets under a slip (``answr_2 = 5``) be pointed at, as it is in a
    kernel that ran the cell before (lesson 00's walk 21 saw the slip named only there).
    """
    name = error.name or str(error)
    if len(name) > _ECHO:  # a long word, echoed in its first letters, as every echo of the student's text
        return _long_name_guidance(error, expected, variable, _clipped(name))
    if re.fullmatch(r"message_\w+", name):  # the message line was deleted, in a kernel that never ran it
        return (
            f"{name} has no value yet: this cell does not set it.\n{_python_line(error)}\nWrite the line {name} = "
            "... back where the cell had it. Then run the cell again."
        )
    if re.fullmatch(r"answer_\w*", name):  # the answer line itself was deleted, in a kernel that never ran it
        slip = _set_instead(name, names or {})
        return (
            f"{name} has no value yet: this cell does not set it.{slip}\n{_python_line(error)}\nWrite {name} = your "
            f"answer where the cell had it (or {name} = ... to leave it for later). Then run the cell again."
        )
    if _said_as_a_boolean(name, expected):
        return _not_a_python_value(error, expected, variable, name)
    # the word unquoted, as typed: quoting it contradicts "has no quotes" (lesson 01's second walk 25)
    happened = (
        f"{name} has no quotes around it, so Python read it as the name of a variable, and no variable has that name"
    )
    said = f"{variable} is not a value yet: the word {happened}:" if variable else f"The word {happened}:"
    return f"{said}\n{_python_line(error)}\n{_name_advice(name, expected)} Then run the cell again."


NOT_A_PYTHON_VALUE = "is not a Python value: Python writes True or False, with a capital letter and no quotes."
"""What a bare word typed for a True/False answer is told first (lesson 04's walk 7): "true has no quotes around it"
sent the student to quote it, and a quoted 'true' is text, another wrong kind of answer."""


def _boolean_spelled(name: str) -> str:
    """``True`` or ``False`` when ``name`` is one of them in another case (``true``, ``FALSE``) or a slip from one
    (``Flase``, ``ture``), else ``""``."""
    return next((word for word in ("True", "False") if name.casefold() == word.casefold() or _slip(name, word)), "")


def _said_as_a_boolean(name: str, expected: Any) -> bool:
    """Is the undefined ``name`` a word typed for a True/False answer? Any word, when the answer is True or False;
    when the answer's kind cannot be read, a word spelled as True or False or a slip from one."""
    if expected is _UNKNOWN:
        return bool(_boolean_spelled(name))
    return _kind(expected) == _kind(True)


def _not_a_python_value(error: NameError, expected: Any, variable: str, name: str) -> str:
    """:func:`unquoted_name_guidance` for a word typed for a True/False answer, in the same words whatever the answer.

    It leads with what the word is not ("true is not a Python value"), then what Python did with it (its own error
    line, explained), then what to write: Python's spelling for ``true`` or a slip (``Flase`` looks like False
    misspelled), "the answer is a boolean (True or False)" for any other word. When the answer's kind cannot be
    read, the word may still be meant as text: that is said last.
    """
    shown = f"'{_clipped(name) if len(name) > _ECHO else name}'"  # quoted: a bare "it is not" reads as the pronoun
    lead = f"{shown} {NOT_A_PYTHON_VALUE}" if variable else f"The word {shown} {NOT_A_PYTHON_VALUE}"
    read = f"Python read {shown} as the name of a variable, and no variable has that name:"
    spelled = _boolean_spelled(name)
    checked = "whether it is the right answer is checked after that"  # "Write True." read as the answer (walk 9)
    if spelled and name.casefold() == spelled.casefold():
        advice = f"If you meant {spelled}, write {spelled}; {checked}."
    elif spelled:
        advice = f"{shown} looks like {spelled} misspelled: if you meant {spelled}, write {spelled}; {checked}."
    else:
        advice = f"The answer is {_kind(True)}: write the one you mean."
    if expected is _UNKNOWN:
        advice += f" If your answer is the text {name}, put it in quotes: '{name}'."
    return f"{lead} {read}\n{_python_line(error)}\n{advice} Then run the cell again."


def _long_name_guidance(error: NameError, expected: Any, variable: str, shown: str) -> str:
    """:func:`unquoted_name_guidance` for a word longer than :data:`_ECHO` letters, shown as ``shown``."""
    if _said_as_a_boolean(error.name or str(error), expected):
        return _not_a_python_value(error, expected, variable, error.name or str(error))
    happened = (
        f"{shown} has no quotes around it, so Python read it as the name of a variable, and no variable has that name"
    )
    said = f"{variable} is not a value yet: the word {happened}:" if variable else f"The word {happened}:"
    advice = _name_advice("name", expected).replace("'name'", "'...'").replace("text name", "text")
    return f"{said}\n{_python_line(error)}\n{advice} Then run the cell again."


_CELLS_OWN_NAME = re.compile(r"answer_\w*|message_\w+")
"""A name an exercise cell sets itself (its answer, its message): missing, its line was deleted, not a lesson name."""


def not_defined_yet(error: NameError, made: str = "") -> str:
    """What to say when a lesson cell's own code names something this kernel has not defined (lesson 05's walk).

    Run alone after a restart, an exercise cell stops at ``run_seed_demo``: the cells above define it. "The word
    run_seed_demo has no quotes" would send the student to quote a function's name. An answer line and a message
    line get their own words (:func:`unquoted_name_guidance`, :func:`_message_guidance`). Python's own line
    (``NameError: name 'run_seed_demo' is not defined``) is not shown: it said again, unexplained, what the advice says
    in words (the fourth walks of lessons 02 and 05). The cell still ends in an error, so Run All stops there.
    """
    name = error.name or str(error)
    if _CELLS_OWN_NAME.fullmatch(name):  # the cell reads its answer or message, whose line was deleted
        return unquoted_name_guidance(error)
    where = made or "a cell above imports or creates it"  # made: the cell the exercise names (Exercise.made)
    return (
        f"{name} is not defined in this kernel yet: {where}.\nRun the cells above first "
        "(Run > Run All Above Selected Cell), then this cell again."
    )


_EXERCISE_CALL = re.compile(r"""exercise\(\s*["'](\d\d)["']\s*,\s*["'](Exercise \d+)["']""")
"""How a checking cell names its exercise: ``exercise("01", "Exercise 3")``."""


def _made_where(filename: str | None, name: str) -> str:
    """Where the lesson makes ``name``, as the exercise the cell in ``filename`` checks says (:attr:`Exercise.made`),
    or ``""`` when the cell names no exercise or the exercise does not map the name."""
    found = _EXERCISE_CALL.search("".join(linecache.getlines(filename or "")))
    if found is None:
        return ""
    named = next((e for e in EXERCISES if (e.lesson, e.label) == found.groups()), None)
    return dict(named.made).get(name, "") if named else ""


def _python_line(error: BaseException) -> str:
    """Python's own one-line report of ``error``, as a traceback ends: ``NameError: name 'Billing' is not defined``."""
    said = error.msg if isinstance(error, SyntaxError) else str(error)
    name = getattr(error, "name", None)
    if isinstance(error, NameError) and isinstance(name, str) and len(name) > _ECHO:
        # the student's long word (Python keeps 200 letters of it), shortened as every echo of it
        said = re.sub(rf"'(\w{{{_ECHO}}})\w+'", r"'\1…'", said)
    return f"{type(error).__name__}: {said}"


def _name_advice(name: str, expected: Any) -> str:
    """What to write instead of the undefined ``name``, for the kind of answer ``expected`` is."""
    if name.casefold() in _NUMBER_WORDS and (expected is _UNKNOWN or _kind(expected) == "a number"):
        digits = _NUMBER_WORDS.index(name.casefold())
        if expected is _UNKNOWN:  # a number is likelier than the text, but the text stays possible
            return (
                f"If you mean the number {name}, write it in digits, with no quotes: {digits}; if you mean the "
                f"text {name}, put it in quotes: '{name}'."
            )
        return f"Your word '{name}' in digits is {digits}: write that, with no quotes."
    # a word for a True/False answer, or spelled as one, is told by _not_a_python_value
    if expected is _UNKNOWN:
        return f"If your answer is the text {name}, put it in quotes: '{name}'. Numbers and True/False take no quotes."
    if _kind(expected) == "a number":
        return f"The answer is a number: write it {_number_forms(expected)}, with no quotes."
    if isinstance(expected, dict):
        return "The answer is a dict: write it with braces, e.g. {'key': 'value'}, each key and value in quotes."
    return f"If your answer is the text {name}, put it in quotes: '{name}'."


_DICT_WITH_EQUALS = re.compile(r"[{,]\s*([A-Za-z_]\w*)\s*=(?!=)")
"""``{database='SQL Server 2022'`` or ``, log='a=b'``: a dict entry written as a keyword argument."""


def dict_syntax_guidance(source: str) -> str:
    """What to write when a dict's entries are written ``key=value`` (Python then says "Maybe you meant '=='")."""
    match = _DICT_WITH_EQUALS.search(source) if "{" in source else None
    if match is None:
        return ""
    key = match.group(1)
    return (
        f"In a dict, each key is text in quotes followed by a colon: write {{'{key}': ...}}, not {{{key}=...}}. "
        "Entries are separated by commas, e.g. {'module': 'Billing', 'log': 'a=b'}. Then run the cell again."
    )


def explain_unquoted_names(shell: InteractiveShell | None = None) -> bool:
    """Make a NameError or a dict written with ``=`` in a lesson cell print guidance instead of a bare traceback.

    ``answer_2 = module`` (meaning the text ``'module'``) fails before any checking cell can look at it,
    so the guidance has to come from the notebook's shell; so does ``answer_1 = {database='SQL Server 2022'}``,
    which Python refuses before running anything, with a suggestion ("Maybe you meant '=='") that misleads a
    student writing a dict. A NameError raised inside a library keeps its full traceback: that is a defect to
    see, not a student's answer; an answer line Python cannot read (``answer_1 =`` left empty) says what an answer
    looks like; any other syntax error keeps Python's own message. Returns False outside IPython.
    """
    from IPython import get_ipython  # only a notebook needs it: loop_demos wraps text with readable_lines

    shell = shell if shell is not None else get_ipython()
    if shell is None:
        return False

    def handler(
        self: InteractiveShell,
        etype: type[BaseException],
        value: BaseException,
        tb: TracebackType | None,
        tb_offset: int | None = None,
    ) -> None:
        frames = traceback.extract_tb(tb)
        cells = getattr(self.compile, "_filename_map", {})  # the file names IPython gives the cells it ran
        raised_in_cell = bool(frames) and frames[-1].filename in cells
        source = value.filename if isinstance(value, SyntaxError) else (frames[-1].filename if frames else None)
        first = _exercise_not_checked(source)
        frame = frames[-1] if raised_in_cell else None
        if said := _cell_error_guidance(value, frame, self.user_ns, first):
            stops = first and not _lesson_name_missing(value, frame)
            print(said + (f"\n{readable_lines(RUN_ALL_STOPS)}" if stops else ""))
            # ipykernel builds its error reply from _last_traceback, which only a shown traceback sets and which a
            # cell with a top-level await never resets: first in a fresh kernel, the reply failed and the cell stayed
            # at [*] (lesson 05's walk).
            self._last_traceback = None  # type: ignore[attr-defined]
        else:
            self.showtraceback((etype, value, tb), tb_offset=tb_offset)

    shell.set_custom_exc((NameError, SyntaxError), handler)
    if hedged_answer_lines not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.append(hedged_answer_lines)
    return True


def load_ipython_extension(shell: InteractiveShell) -> None:
    """``course_lib.exercises`` as an IPython extension: a kernel started with it says the guidance from its first cell.

    The guidance is installed by ``setup_display()`` in each lesson's imports cell, and by an exercise cell's import of
    this module. A cell run first after a restart (lesson 03's walk 24: section 3's ``desks.handle``) runs neither, so
    Python's own NameError traceback showed there, while the same mistake after the imports cell got the guidance. A
    kernel that loads this extension at its start (``--ext=course_lib.exercises``, or ``InteractiveShellApp.extensions``
    in the kernel's config) has it before any cell runs; the imports cell installs the same handler again, harmlessly.
    """
    explain_unquoted_names(shell)


def _lesson_name_missing(error: BaseException, frame: traceback.FrameSummary | None) -> bool:
    """A cell's own code (not its answer or message line) names what this kernel has not defined: the kernel was
    restarted, or the cells above were not run. Run All never gets there (it runs the cells above first), so the
    Run All note is not said of it: two fifth walks, who had run one cell, were puzzled by it."""
    if not isinstance(error, NameError) or frame is None or _ANSWER_LINE.match(frame.line or ""):
        return False
    return not _message_guidance(error, frame.line) and not _CELLS_OWN_NAME.fullmatch(error.name or "")


def _cell_error_guidance(
    error: BaseException, frame: traceback.FrameSummary | None, names: Mapping[str, Any], first: str = ""
) -> str:
    """What the shell prints for a NameError or SyntaxError raised by a lesson cell (``frame``), or ``""``.

    ``first`` opens it on the same line, as a graded answer's form opens: "Exercise 2: not checked yet. ..."
    (:func:`_exercise_not_checked`; lesson 01's walk found it on a line of its own here and inline there).
    """
    if isinstance(error, NameError) and frame and (compared := _compared_line(frame.line or "")):
        said, write = _two_equals_words(*compared)  # `answer_1 == 9` in a kernel where one of its names has no value
        return readable_lines(
            f"{first}{said}\nPython stopped at that line:\n{_python_line(error)}\n{write}, then run the cell again."
        )
    if guidance := _message_guidance(error, frame.line if frame else None):
        return readable_lines(first + guidance)
    if isinstance(error, NameError) and _lesson_name_missing(error, frame):
        made = _made_where(frame.filename if frame else None, error.name or "")
        return readable_lines(first + not_defined_yet(error, made))  # a lesson name, in a kernel that has not run them
    if isinstance(error, NameError) and frame:
        answer = _ANSWER_LINE.match(frame.line or "")
        variable = answer.group(1) if answer else ""
        expected = _expected_in_cell(frame, names)
        typed = _without_comment((frame.line or "")[answer.end() :])[0].strip() if answer else ""
        if _two_numbers_or(typed, expected):  # `answer_3 = one or two`: a hedge, as the same words in quotes
            return readable_lines(f"{first}{hedge_hint(typed, expected, quoted=False)} Then run the cell again.")
        if words := _words_after_a_value(typed, error):  # `answer_1 = False, because`
            return readable_lines(
                f"{first}{variable} {words}\n{_python_line(error)}\nWrite your answer alone. Then run the cell again."
            )
        return readable_lines(first + unquoted_name_guidance(error, expected, variable, names))
    if isinstance(error, SyntaxError) and (guidance := _syntax_guidance(error)):
        # the dict examples stay whole on their lines: only the opening line is broken
        return f"{readable_lines(first + 'SyntaxError: this is not a dict yet.')}\n{guidance}"
    if isinstance(error, SyntaxError) and (guidance := hedged_syntax_guidance(error, names)):
        return readable_lines(first + guidance)
    if isinstance(error, SyntaxError) and (guidance := answer_syntax_guidance(error, names)):
        return readable_lines(f"{first}SyntaxError: your answer is not a Python value yet.\n{guidance}")
    return ""


RUN_ALL_STOPS = "If you use Run All, it stops at this cell until it runs without an error."
"""Said under an exercise cell whose answer stopped it before its check (lesson 04's walk: after Run All, the cells
below stayed empty and nothing said why). True whether the student ran this cell alone or Run All: the fifth walks,
who had run one cell, read "If you used Run All, it stopped here" as said to someone else. It says that this cell
stopped with an error, in those words: the guidance prints no red traceback, so "a cell with an error" did not read
as this one (walk 19). Lesson 01's second walk 25: "so Run All stops here" told a student who ran only this cell
that Run All had run; said as a condition, it is true either way. Printed broken into lines like the guidance above
it (:func:`readable_lines`)."""


_CHECKED_EXERCISE = re.compile(r"""check\(\s*["'](Exercise \d+)["']""")
"""The exercise a checking cell grades: ``check("Exercise 2", ...)``."""


def _exercise_not_checked(filename: str | None) -> str:
    """The first line of what an exercise cell says when it stops before its check: the same "Exercise 2: not
    checked yet." a graded answer's form gets (lesson 04's walk: a typo began "answer_1 is not a value yet")."""
    found = _CHECKED_EXERCISE.search("".join(linecache.getlines(filename or "")))
    return f"{found.group(1)}: not checked yet. " if found else ""


def _words_after_a_value(typed: str, error: NameError) -> str:
    """What to say of an answer line that is a value, a comma, then words (``False, because``), or ``""``.

    Python reads it as a tuple and stops at the first bare word; "put 'because' in quotes" (lesson 04's walk 21)
    sent the student to quote it, which gives a tuple, another wrong kind. The words are extra: the advice is to
    write the answer alone, said alike whatever the value is (it is never compared with the expected one).
    """
    try:
        tree = ast.parse(typed, mode="eval").body
    except SyntaxError:
        return ""
    if not (isinstance(tree, ast.Tuple) and len(tree.elts) > 1 and isinstance(tree.elts[0], ast.Constant)):
        return ""
    later = {node.id for item in tree.elts[1:] for node in ast.walk(item) if isinstance(node, ast.Name)}
    if (error.name or "") not in later:
        return ""
    value = ast.get_source_segment(typed, tree.elts[0]) or ""
    return (
        f"holds more than an answer: your value {_clipped(value) if len(value) > _ECHO else value}, then a comma and "
        f"other words, which Python read as a variable's name ('{error.name}'):"
    )


def _without_comment(line: str) -> tuple[str, str]:
    """``line`` cut where its trailing ``# comment`` starts: the code, and the comment with the spaces before it.

    A '#' inside quotes is text, not a comment (``answer_1 = 'a # b'``); after a quote left open, the rest of the
    line is that text, as Python reads it. Lesson 03's answer lines keep a comment (``answer_1 = ...  # your
    prediction``): ``answer_1 = 1?  # ...`` is the hedge ``1?`` (lesson 03's walk).
    """
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 1
            elif line.startswith(quote, index):
                index += len(quote) - 1
                quote = ""
        elif char == "#":
            code = line[:index].rstrip()
            return code, line[len(code) :]
        elif char in "'\"":
            quote = char * 3 if line.startswith(char * 3, index) else char
        index += 1
    return line, ""


_TRAILING_MARKS = re.compile(r"^(?P<line>\s*answer_\w*\s*=\s*(?P<value>.*?))\s*(?P<marks>\?+)\s*$")
"""An answer line ending in '?' outside any quotes: ``answer_2 = product?``, ``answer_3 = False?``."""


def hedged_answer_lines(lines: list[str]) -> list[str]:
    """Read an answer line that ends in '?' as the hedge it is, not as IPython's request for help.

    IPython reads ``answer_2 = product?`` as "show the help of product": the assignment never runs, and the check
    below it graded the answer the cell held before, "correct" included (lesson 01's walk). The line becomes the
    text the student typed, ``answer_2 = 'product?'``, which the checker names as a hedge like any other, and so do
    words without quotes (``answer_1 = right first time?``, lesson 07's walk). A '?' inside quotes is left alone,
    and so is a value holding a quote mark that is not Python without its '?'. A trailing comment stays, after the
    text (:func:`_without_comment`).
    """
    out = []
    for line in lines:
        code, comment = _without_comment(line.rstrip("\n"))
        match = _TRAILING_MARKS.match(code)
        if match and match["value"] and (_is_expression(match["value"]) or not set(match["value"]) & set("'\"#")):
            typed = code[match.start("value") : match.end("marks")]  # spaces before the '?' kept: echoed as typed
            line = f"{match['line'][: len(match['line']) - len(match['value'])]}{typed!r}{comment}\n"
        out.append(line)
    return out


def _is_expression(text: str) -> bool:
    """Is ``text`` one Python expression (``product``, ``False``, ``{'log': 'a=b'}``)?"""
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return True


_ANSWER_LINE = re.compile(r"^\s*(answer_\w*)\s*=(?!=)")
"""The line of a checking cell that holds the student's prediction: ``answer_1 = ...``, in every lesson."""

_READABLE_CALLS = {"len": len, "bool": bool}
"""The only calls :func:`_expected_in_cell` makes while reading a checking cell's expected value."""

_PURE_LESSON_CALLS = frozenset({"parse_assertions"})
"""Lesson functions :func:`_expected_in_cell` may call too, from the lesson's names: they read text and change
nothing (lesson 01's exercise 1 checks against ``parse_assertions(message_1)``, a dict)."""


def _expected_in_cell(frame: traceback.FrameSummary, names: Mapping[str, Any]) -> Any:
    """The expected value of the checking cell whose answer line raised, or ``_UNKNOWN``.

    ``answer_3 = false`` fails before ``check(..., answer_3, six.final_correct, ...)`` runs, so the kind of answer
    is read from the cell (:func:`_expected_in_source`).
    """
    answer = _ANSWER_LINE.match(frame.line or "")
    if answer is None:
        return _UNKNOWN
    return _expected_in_source("".join(linecache.getlines(frame.filename)), answer.group(1), names)


def _expected_in_source(source: str, answer: str, names: Mapping[str, Any]) -> Any:
    """The third argument of the ``check`` call on ``answer`` in a cell's ``source``, or ``_UNKNOWN``.

    Evaluated only if it is made of names, attributes, constant subscripts and ``len``/``bool`` (what every lesson
    writes there) or a lesson call that changes nothing, so nothing else of the cell runs. An answer line Python
    cannot read (``answer_1 =``) is set aside first, so the rest of the cell can be read.
    """
    lines = [f"{answer} = ..." if _ANSWER_LINE.match(line) else line for line in source.splitlines()]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return _UNKNOWN
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "check"
            and len(node.args) >= 3
            and isinstance(node.args[1], ast.Name)
            and node.args[1].id == answer
        ):
            try:
                return _read(node.args[2], names)
            except Exception:  # an expected value the cell has not computed yet: the exercise's own kind
                return _kind_of_exercise(tree)
    return _UNKNOWN


def _kind_of_exercise(tree: ast.AST) -> Any:
    """A value of the kind the cell's ``exercise("05", "Exercise 1")`` answers (``0`` for a count), or ``_UNKNOWN``.

    Lesson 05's walk: ``answer_1 = nine`` fails before ``trace_4`` is computed, so the expected value cannot be read,
    and the general advice sent a student with a count towards quotes or a dict.
    """
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "exercise"
            and len(node.args) == 2
            and all(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in node.args)
        ):
            lesson, label = (str(arg.value) for arg in node.args if isinstance(arg, ast.Constant))
            try:
                found = exercise(lesson, label)
            except KeyError:
                return _UNKNOWN
            if found.answer_type is not object:
                return found.answer_type()
    return _UNKNOWN


def _read(node: ast.expr, names: Mapping[str, Any]) -> Any:
    """The value of a simple expression (a name, an attribute, ``x[0]``, ``len(x)``, ``bool(x)``); else an error."""
    if isinstance(node, ast.Name):
        return names[node.id]
    if isinstance(node, ast.Attribute):
        return getattr(_read(node.value, names), node.attr)
    if isinstance(node, ast.Subscript):  # x[0], calls[-1]: a constant index only (literal_eval refuses the rest)
        return _read(node.value, names)[ast.literal_eval(node.slice)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        if node.func.id in _PURE_LESSON_CALLS:  # the lesson's own function, read from its names
            return names[node.func.id](_read(node.args[0], names))
        return _READABLE_CALLS[node.func.id](_read(node.args[0], names))  # KeyError for any other call
    raise ValueError(f"not a simple expression: {ast.dump(node)}")


_MESSAGE_LINE = re.compile(r"^\s*(message_\w*)\s*=(?!=)\s*(.*?)\s*(?:#.*)?$")
"""The line of an exercise that holds a message the student writes: ``message_1 = ...`` (lesson 03)."""


def _message_guidance(error: BaseException, line: str | None) -> str:
    """What happened and what to write when a ``message_N`` line is not text (``message_1 = priority=P0``), or ``""``.

    The same three lines as for an answer line (:func:`unquoted_name_guidance`): what happened in plain words,
    Python's own error line, then the advice. ``line`` is the cell line a NameError was raised on; a SyntaxError
    names its own. Python's advice for a name ("put it in quotes: 'P0'") would make the message ``"P0"``: the whole
    message goes in quotes. The example is the same neutral line whatever was typed: echoing the student's text
    (``message_1 = 'priority=P0'``) suggested a message the exercise then refuses (lesson 03's walk).
    """
    if isinstance(error, SyntaxError) and type(error) is SyntaxError:
        line = error.text
    elif not isinstance(error, NameError):
        return ""
    match = _MESSAGE_LINE.match((line or "").strip("\n"))
    if match is None:
        return ""
    name = match.group(1)
    return (
        f"{name} is not text yet: the message has no quotes around it, so Python read it as code and stopped:\n"
        f"{_python_line(error)}\n"
        f"A message is text, so put the whole message in quotes, e.g. {name} = 'your words here'. Then run the cell "
        "again."
    )


_HEDGE_MARKS = " ,;:.!?\t"
"""What is left around an answer once its words of doubt are taken out: spaces, commas, stops, '?'."""


def hedged_syntax_guidance(error: SyntaxError, names: Mapping[str, Any] | None = None) -> str:
    """What to say when Python cannot read an answer line because words of doubt surround a value
    (``answer_1 = True, I think``, ``answer_1 = maybe False``), or ``""``.

    ``True ?`` is read as the hedge it is (:func:`hedged_answer_lines`), but ``maybe False`` got "your answer is not
    a Python value yet" (lesson 04's walk): the same hedge, told two ways. The hedge words are said as the checker
    says them (:func:`hedge_hint`), alike whatever the value is; a line with no value left once the words of doubt
    are taken out keeps Python's reading (:func:`answer_syntax_guidance`).
    """
    line = _without_comment((error.text or "").strip("\n"))[0]
    match = _ANSWER_LINE.match(line)
    if match is None:
        return ""
    typed = line[match.end() :].strip()
    value = _HEDGES.sub(" ", typed).strip(_HEDGE_MARKS)
    if typed == value or not value:
        return ""
    cell = "".join(linecache.getlines(error.filename or ""))
    expected = _expected_in_source(cell, match.group(1), names) if cell and names is not None else _UNKNOWN
    if not _an_answer_value(value, expected):
        return ""
    if said := hedge_hint(typed, expected, quoted=False):
        return f"{said} Then run the cell again."
    return ""


_NOT_ANSWERS = _COMMON_WORDS | {"so", "not", "sure", "right", "correct", "wrong"}
"""Words left of ``I think so``, ``I think it is``: what is left once the words of doubt go, but no answer."""


def _an_answer_value(value: str, expected: Any) -> bool:
    """Is ``value``, what an answer line holds once its words of doubt are taken out, an answer a student may mean:
    a Python value (``False``, ``2``, ``{'log': 'a=b'}``), a truth or number word (``false``, ``two``), or, where the
    answer is text, one word (``product``)? ``so`` of ``I think so`` is none."""
    try:
        ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        word = value.casefold()
        if not re.fullmatch(r"[a-z_]\w*", word) or word in _NOT_ANSWERS:
            return False
        return word in _TRUTH_WORDS or word in _NUMBER_WORDS or expected is _UNKNOWN or isinstance(expected, str)
    return True


def answer_syntax_guidance(error: SyntaxError, names: Mapping[str, Any] | None = None) -> str:
    """What to write when Python cannot read an answer line (``answer_1 =`` left empty, an unclosed quote).

    A student who clears the ``...`` and runs the cell before writing gets Python's bare "invalid syntax"; the
    line's name says it is an answer, so the guidance says what an answer looks like: the kind the cell's check
    expects when it can be read from the cell (lesson 04's walk: "True or False" for a True/False question), else
    every kind. Any other line keeps Python's own message. The line is quoted without its comment: lesson 03's
    ``# your prediction: ...`` is the lesson's, not the student's.
    """
    line = _without_comment((error.text or "").strip("\n"))[0]
    match = _ANSWER_LINE.match(line)
    if match is None:
        return ""
    if "leading zeros" in str(error.msg) and (zeros := re.search(r"(?<![\w.])0+([1-9][0-9_]*)", line)):
        return (  # Python's own words ("use an 0o prefix for octal integers") speak of a number base
            f"Python cannot read the line {_shown(line.strip())}: a number cannot start with 0 in Python: write "
            f"{zeros.group(1)}. Then run the cell again."
        )
    typed = line[match.end() :].strip()
    if re.fullmatch(r"[\w.,]+", typed) and _LETTER_IN_NUMBER.search(typed):  # `6l.5`: the rule said to '6l.5'
        return (
            f"Python cannot read the line {_shown(line.strip())}: this is not a number: check for a letter typed "
            "among the digits, then write the number in digits. Then run the cell again."
        )
    if extra := _value_before_words(line[match.end() :].strip()):
        return (  # the echo, cut at 60 characters, hid the words that caused the error (lesson 01's walk 6)
            f"Python cannot read this answer line: there are extra words after your {extra}: write it alone. Then "
            "run the cell again."
        )
    cell = "".join(linecache.getlines(error.filename or ""))
    expected = _expected_in_source(cell, match.group(1), names) if cell and names is not None else _UNKNOWN
    return (
        f"Python cannot read the line {_shown(line.strip())} ({error.msg}): after '{match.group(1)} =' write your "
        f"prediction as {_value_forms(expected)}. To leave it for later, put back the three dots (...). "
        "Then run the cell again."
    )


def _value_before_words(typed: str) -> str:
    """``"dict"`` or ``"value"`` when ``typed`` is a complete Python value followed by extra words
    (``{'log': 'a=b'} or maybe not``, ``9 messages please``), else ``""``. What follows must hold a letter: ``3 +``
    or ``2 2`` keeps Python's own reading."""
    if len(typed) > 2000:
        return ""
    for end in range(len(typed) - 1, 0, -1):
        head, rest = typed[:end].rstrip(), typed[end:]
        if not head or not (rest[:1].isspace() or head[-1] in ")]}'\"") or not re.search(r"[^\W\d_]", rest):
            continue
        try:
            value = ast.literal_eval(head)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return "dict" if isinstance(value, dict) else "value"
    return ""


def _value_forms(expected: Any) -> str:
    """How a prediction of ``expected``'s kind is written, or every kind when it is unknown.

    A number's example is a neutral one (42, or 42.5 for an answer with a fraction), never the expected value: the
    next candidate stands in when it is. Why: lesson 00's Exercise 1 showed ``(0.5)``, a number its question gives,
    and it read as a hint (issue 32). Each example says it is one ("for example 42"): a bare "(42)" read as a value
    suggested to the student (lesson 05's walk 19). The words depend on the expected value only, never on the answer
    written.
    """
    if expected is _UNKNOWN:
        return (
            "a Python value: text in quotes (for example 'some text'), a number (for example 42 or 0.5), True or "
            "False, or a dict (for example {'key': 'value'})"
        )
    if _kind(expected) == _kind(True):
        return "True or False (a capital first letter, no quotes)"
    if _kind(expected) == "a number":
        candidates = (42, 36, 27) if isinstance(expected, numbers.Integral) else (42.5, 36.5, 27.5)
        example = next(number for number in candidates if number != expected)
        return f"a number in digits, no quotes (for example {example})"
    if isinstance(expected, dict):
        return "a dict (for example {'key': 'value'})"
    return "text in quotes (for example 'some text')"


def _syntax_guidance(error: SyntaxError) -> str:
    """Guidance for a dict written with ``=``, read from the whole cell (the entry may be on a line of its own)."""
    said = str(error.msg)
    if type(error) is not SyntaxError or ("'=='" not in said and "expected after dictionary key" not in said):
        return ""  # an IndentationError, or another slip: Python's own message is the right one
    cell = "".join(linecache.getlines(error.filename or "")) or (error.text or "")
    return dict_syntax_guidance(cell)


# A checking cell imports ``check`` itself: in a kernel where section 1's ``setup_display()`` has not run (a restart,
# then only the exercise), the guidance is installed here too, so a deleted or unquoted answer is said in words
# (lesson 00's walk). Only where IPython already runs: a module that wraps text with readable_lines loads no IPython.
if "IPython" in sys.modules:
    explain_unquoted_names()
