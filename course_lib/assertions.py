"""The explicit ``key=value`` contract: the only way a user's words become a fact.

The contract is deliberately narrow (seed: "Un contrat volontairement étroit"). A declaration is a
segment of the message, separated by ``;`` or a line break, of the form ``key=value`` where ``key`` is
one of ten allowed keys, compared ordinally (case matters), and ``value`` is everything after the
first ``=``, trimmed. Anything else -- a question, prose, an unknown key, an empty value -- is not a
declaration and yields no fact. The host compares the writer's proposal with this parse, so the parse
is the ground truth of what the user explicitly said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
"""A user message longer than this is refused before anything is parsed or stored."""

_SEPARATORS = re.compile(r";|\r\n|\r|\n")


class MessageTooLong(ValueError):
    """Raised when a user message exceeds :data:`MAX_MESSAGE_CHARS`; nothing is parsed."""


@dataclass(frozen=True)
class Declaration:
    """One explicit declaration and the exact text it came from.

    ``evidence`` is the trimmed segment (``"module=Billing"``): an exact substring of the message that
    contains the value, which is what the store demands as a citation.
    """

    key: str
    value: str
    evidence: str


def check_message_length(text: str) -> None:
    """Refuse a message over the limit, naming the rule and both lengths."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise MessageTooLong(
            f"Message refused: it has {len(text)} characters and the limit is "
            f"{MAX_MESSAGE_CHARS} (rule: message length). Nothing was parsed or stored."
        )


def find_declarations(text: str) -> list[Declaration]:
    """Every explicit declaration in ``text``, in order, repeats included.

    Use :func:`parse_assertions` for the contract's answer (last declaration of a key wins); this
    lower-level list keeps each occurrence with its evidence, which a writer needs to cite.
    """
    check_message_length(text)
    found: list[Declaration] = []
    for segment in _SEPARATORS.split(text):
        declaration = _parse_segment(segment)
        if declaration is not None:
            found.append(declaration)
    return found


def _parse_segment(segment: str) -> Declaration | None:
    evidence = segment.strip()
    key, sep, value = evidence.partition("=")
    key, value = key.strip(), value.strip()
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

    Raises :class:`MessageTooLong` for a message over :data:`MAX_MESSAGE_CHARS` characters.
    """
    return {d.key: d.value for d in find_declarations(text)}
