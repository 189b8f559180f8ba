"""Checking cells for the lessons' exercises.

A student writes a prediction in place of ``...`` and runs the checking cell, which compares it with
what the library computes. The expected value always comes from running the code, never from an
answer key typed into the notebook, so an exercise checks understanding of the mechanism itself.
"""

from __future__ import annotations

from typing import Any

UNANSWERED = ...


def check(exercise: str, answer: Any, expected: Any, hint: str = "") -> str:
    """One line for the checking cell: not answered yet, correct, or not quite (with a hint)."""
    if answer is UNANSWERED:
        return f"{exercise}: not answered yet. Replace ... with your prediction and run this cell again."
    if answer == expected:
        return f"{exercise}: correct."
    return f"{exercise}: not quite. {hint}".rstrip()
