"""Pictures shared by the lessons: which facts the store held after each turn.

A table of "key x turn" answers at a glance what a list of events hides: when a fact arrived, when a
correction replaced it, when the bound evicted it and when forget cleared it.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from .assertions import ALLOWED_KEYS
from .memory import Fact


def presence_frame(snapshots: Sequence[tuple[str, Sequence[Fact]]]) -> pd.DataFrame:
    """Rows are keys (in ``ALLOWED_KEYS`` order), columns are the labelled snapshots, cells the values."""
    columns = {label: {f.key: f.value for f in facts} for label, facts in snapshots}
    keys = [k for k in ALLOWED_KEYS if any(k in values for values in columns.values())]
    frame = pd.DataFrame(columns, index=keys).fillna("")
    frame.index.name = "key"
    return frame


def plot_presence(frame: pd.DataFrame, title: str = "Facts held after each step") -> Figure:
    """A grid: a filled cell is a fact in the store, labelled with its value; new or changed values are darker."""
    fig, ax = plt.subplots(figsize=(1.8 * max(len(frame.columns), 3), 0.6 * max(len(frame.index), 2) + 1))
    for row, key in enumerate(frame.index):
        previous = ""
        for col, label in enumerate(frame.columns):
            value = str(frame.loc[key, label])
            if value:
                alpha = 0.55 if value != previous else 0.2
                ax.add_patch(plt.Rectangle((col, row), 0.95, 0.9, color="tab:blue", alpha=alpha))
                ax.text(col + 0.47, row + 0.45, _short(value), ha="center", va="center", fontsize=8)
            previous = value
    ax.set_xlim(0, len(frame.columns))
    ax.set_ylim(len(frame.index), 0)
    ax.set_xticks([i + 0.47 for i in range(len(frame.columns))], list(frame.columns), rotation=30, ha="right")
    ax.set_yticks([i + 0.45 for i in range(len(frame.index))], list(frame.index))
    ax.set_title(title)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    fig.tight_layout()
    return fig


def _short(text: str, width: int = 18) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"
