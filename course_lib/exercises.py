"""Checking cells for the lessons' exercises.

A student writes a prediction in place of ``...`` and runs the checking cell, which compares it with
what the library computes. The expected value always comes from running the code, never from an
answer key typed into the notebook, so an exercise checks understanding of the mechanism itself.

The comparison minds types: ``'9'`` is text, not the number 9, and ``1`` is not ``True``. When the
only thing wrong is the type, the feedback says so instead of a bare "not quite".
"""

from __future__ import annotations

import numbers
import traceback
from types import TracebackType
from typing import Any

from IPython import get_ipython
from IPython.core.interactiveshell import InteractiveShell

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


def unquoted_name_guidance(error: NameError) -> str:
    """What to do when an answer names something undefined: most often text written without quotes."""
    name = error.name or str(error)
    return (
        f"{name!r} is not defined: Python read it as the name of a variable. If your answer is the text {name}, "
        f"put it in quotes: '{name}'. Numbers and True/False take no quotes. Then run the cell again."
    )


def explain_unquoted_names(shell: InteractiveShell | None = None) -> bool:
    """Make a NameError raised by a lesson cell's own code print guidance instead of a bare traceback.

    ``answer_2 = module`` (meaning the text ``'module'``) fails before any checking cell can look at it,
    so the guidance has to come from the notebook's shell. A NameError raised inside a library keeps its
    full traceback: that is a defect to see, not a student's answer. Returns False outside IPython.
    """
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
        if isinstance(value, NameError) and raised_in_cell:
            print(f"NameError: {value}\n{unquoted_name_guidance(value)}")
        else:
            self.showtraceback((etype, value, tb), tb_offset=tb_offset)

    shell.set_custom_exc((NameError,), handler)
    return True
