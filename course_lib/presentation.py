"""Tables for the lessons: the library's objects as pandas frames, kept out of the domain modules.

The store, the extraction and the loop know nothing of pandas; a lesson asks this module for a table
of what they hold. (The home of every table, plot and display setting the lessons share.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:  # a type only: importing the table helpers does not load the memory half
    from .memory import Fact

FACT_COLUMNS = ["key", "value", "evidence", "turn", "recorded_at"]


def facts_frame(facts: Iterable[Fact]) -> pd.DataFrame:
    """The facts as a table, one row each, in eviction order: what a student inspects after a turn."""
    return pd.DataFrame([f.model_dump() for f in facts], columns=FACT_COLUMNS)
