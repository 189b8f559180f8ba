"""Checking cells for the lessons' exercises.

A student writes a prediction in place of ``...`` and runs the checking cell, which compares it with
what the library computes. The expected value always comes from running the code, never from an
answer key typed into the notebook, so an exercise checks understanding of the mechanism itself.

The comparison minds types: ``'9'`` is text, not the number 9, and ``1`` is not ``True``. When the
only thing wrong is the type, the feedback says so instead of a bare "not quite".
"""

from __future__ import annotations

import numbers
from typing import Any

UNANSWERED = ...


def check(exercise: str, answer: Any, expected: Any, hint: str = "") -> str:
    """One line for the checking cell: not answered yet, correct, or not quite (with a hint)."""
    if answer is UNANSWERED:
        return f"{exercise}: not answered yet. Replace ... with your prediction and run this cell again."
    if answer == expected and _kind(answer) == _kind(expected):
        return f"{exercise}: correct."
    return " ".join(part for part in (f"{exercise}: not quite.", type_hint(answer, expected), hint) if part)


def type_hint(answer: Any, expected: Any) -> str:
    """What is wrong with the answer's type, if anything: text for a number, a number for a boolean..."""
    got, want = _kind(answer), _kind(expected)
    if got == want:
        return ""
    if isinstance(answer, str) and answer.strip() == str(expected):
        return f"You wrote the text {answer!r}; the answer is {want}: write it without quotes."
    if isinstance(expected, str) and str(answer) == expected:
        return f"You wrote {got}; the answer is text: put it in quotes."
    return f"Your answer is {got}; the answer is {want}."


def _kind(value: Any) -> str:
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):  # numpy's boolean too
        return "a boolean (True or False)"
    if isinstance(value, numbers.Number):
        return "a number"
    if isinstance(value, str):
        return "text (a string)"
    return f"a {type(value).__name__}"
