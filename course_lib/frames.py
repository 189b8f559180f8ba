"""Rows become a table here: the one helper every module that measures something shares, at the bottom of the house.

A module that measures something (the call log, the loop trace, the environment check, the desks, the scorecard,
the recordings, the policy comparison) hands its typed rows to :func:`rows_frame`, the columns named by the caller.
It sits on the ground floor, importing no other course_lib module, so those modules never import the display
(:mod:`course_lib.presentation`, the top floor, which reads their row types); pandas loads only when a table is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas loads when a table is made: importing the modules that make rows stays quick
    import pandas as pd

__all__ = ["ELLIPSIS", "FORBIDDEN_NAMED", "count_noun", "rows_frame", "rule_label", "shorten_at_word"]

ELLIPSIS = "\u2026"
"""What ends a shortened text: one character, so a cut of ``width`` characters stays within ``width``."""

FORBIDDEN_NAMED = "forbidden values named"
"""Lesson 04's one name for what a graded answer named of its question's *forbidden values* (the values a right
answer must not name: superseded ones, or ones not declared yet): the answers' column and every table and line
that shows it use this name."""


def rows_frame(
    rows: Iterable[Mapping[str, object]], columns: Sequence[str], *, dtype: type | None = None
) -> pd.DataFrame:
    """A table of ``rows`` (one mapping each) with exactly ``columns``, in that order: the one way rows become a table.

    The columns are named by the caller, so an empty table still has its headings; a row whose keys are not
    exactly ``columns`` is an error (a missing value would show as NaN, an extra one would vanish), naming the
    row and the keys that differ. ``dtype=object`` keeps a column of mixed counts and measures as given (pandas
    would print every count of a column holding one float as a float).
    """
    import pandas as pd

    rows = list(rows)
    expected = set(columns)
    for number, row in enumerate(rows, start=1):
        if set(row) != expected:
            missing, extra = sorted(expected - set(row)), sorted(set(row) - expected)
            raise ValueError(
                f"Row {number} does not fit the table's columns {list(columns)} (rule: every row has exactly the "
                f"table's columns): missing {missing}, unexpected {extra}. No table was made."
            )
    return pd.DataFrame([[row[c] for c in columns] for row in rows], columns=list(columns), dtype=dtype)


def rule_label(rule: str) -> str:
    """A resolution rule in the words a student reads (``most_frequent`` -> ``most frequent``), in tables and panels.

    The identifier stays what the code passes around; only what is shown loses its underscore.
    """
    return rule.replace("_", " ")


def shorten_at_word(text: str, width: int) -> str:
    """``text`` on one line (white space folded), at most ``width`` characters: past it, cut between words and ended
    with an ellipsis.

    A table cell cut inside a word (``module=Bil…``) reads as a typo or a value the store never held; a cut between
    words (``(evidence:…``) reads as "more follows". Only a text whose first word is already too long is cut inside
    it, there being no word boundary to cut at.
    """
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    if text[width - 1] != " " and " " in cut.strip():  # the cut falls inside a word: drop that word
        cut = cut[: cut.rstrip().rfind(" ")]
    return cut.rstrip() + ELLIPSIS


def count_noun(count: int, noun: str, plural: str | None = None) -> str:
    """``1 fact``, ``2 facts``, ``0 facts``: a count and its noun as a sentence says it, never ``2 fact(s)``.

    ``plural`` is for a noun whose plural is not the noun plus ``s`` (``count_noun(2, "reply", "replies")``).
    """
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"
