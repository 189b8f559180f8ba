"""Draw the course map (docs/course_map.png): lesson 00, the two halves, and where they meet in lesson 07.

Run ``.venv/bin/python docs/course_map.py`` after a lesson is added or renamed; the picture is committed, and
``tests/test_reading.py`` checks that :data:`LESSONS` names every lesson notebook, so the map cannot drift silently.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

HERE = Path(__file__).resolve().parent

LESSONS: dict[str, tuple[str, str]] = {
    "00": ("Set-up and\nmodel backends", "start"),
    "01": ("Which words\nbecome a fact;\nthe store", "memory"),
    "02": ("Correct, then\nforget facts,\nby hand", "memory"),
    "03": ("Facts added to\neach request;\ntwo assistants", "memory"),
    "04": ("Ways to\nremember a long\nchat, compared", "memory"),
    "05": ("An agent re-run\nin a loop,\nstep by step", "loop"),
    "06": ("What stops\nthe loop, and\nits settings", "loop"),
    "07": ("A loop held\nto the facts\n(both halves)", "both"),
}
"""Lesson number -> (short title, part of the course). Titles in a newcomer's words: the map is seen in lesson 00,
before any lesson has named the seed's programs (Demo150...) or a framework class (LoopAgent)."""

COLOURS = {"start": "#d9d9d9", "memory": "#cfe2f3", "loop": "#fce5cd", "both": "#d9ead3"}

COLUMNS = (0.95, 2.7, 4.45, 6.2, 7.95)
TOP, BOTTOM = 3.05, 1.2
POSITIONS = {
    "00": (COLUMNS[0], (TOP + BOTTOM) / 2),
    "01": (COLUMNS[1], TOP),
    "02": (COLUMNS[2], TOP),
    "03": (COLUMNS[3], TOP),
    "04": (COLUMNS[4], TOP),
    "05": (COLUMNS[1], BOTTOM),
    "06": (COLUMNS[2], BOTTOM),
    "07": (COLUMNS[4], BOTTOM),
}
"""Two rows, memory above and loop below, so the map is 890 px wide: JupyterLab opens the PNG at full size when a
lesson links to it, and a 1300 px window must show it whole (the one-row map of 1250 px needed a horizontal scroll).
Lesson 07 sits under 04, at the end of the loop row: both halves lead into it."""

WIDTH, HEIGHT = 1.45, 1.25
"""A box, in the map's units (100 px each): three lines of a title and the lesson number."""


def draw(path: Path = HERE / "course_map.png") -> Path:
    """Draw the map to ``path`` (PNG, no timestamp in its metadata, so a redraw of the same map is the same file)."""
    fig, ax = plt.subplots(figsize=(8.9, 4.5))
    fig.subplots_adjust(left=0, right=1, bottom=0, top=1)
    ax.set_xlim(0, 8.9)
    ax.set_ylim(0, 4.5)
    ax.axis("off")
    for number, (title, part) in LESSONS.items():
        _box(ax, POSITIONS[number], number, title, COLOURS[part])
    for start, end in [
        ("00", "01"),
        ("01", "02"),
        ("02", "03"),
        ("03", "04"),
        ("04", "07"),
        ("05", "06"),
        ("06", "07"),
    ]:
        _arrow(ax, start, end)
    _arrow(ax, "00", "05", style="--")
    ax.text(
        (COLUMNS[1] + COLUMNS[4]) / 2,
        TOP + HEIGHT / 2 + 0.3,
        "Memory half: keeping a user's declared facts right in a long chat (French seed)",
        ha="center",
        fontsize=11,
    )
    ax.text(
        (COLUMNS[1] + COLUMNS[2]) / 2 + 0.4,
        BOTTOM - HEIGHT / 2 - 0.3,
        "Loop half: an agent re-run until a check says it is done (Chinese seed)",
        ha="center",
        fontsize=11,
    )
    ax.text(COLUMNS[3], BOTTOM + 0.12, "the halves meet in 07", ha="center", va="bottom", fontsize=10, style="italic")
    ax.text(
        COLUMNS[0],
        (TOP + BOTTOM) / 2 - HEIGHT / 2 - 0.35,
        "optional: skip it\nand start at 01\n(05 for the loop)",
        ha="center",
        va="top",
        fontsize=9,
        style="italic",
    )
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return path


def _box(ax: Axes, centre: tuple[float, float], number: str, title: str, colour: str) -> None:
    """One lesson: its number in bold above its title, on its part's colour."""
    x, y = centre
    ax.add_patch(
        FancyBboxPatch(
            (x - WIDTH / 2, y - HEIGHT / 2),
            WIDTH,
            HEIGHT,
            boxstyle="round,pad=0.05",
            facecolor=colour,
            edgecolor="#555555",
        )
    )
    ax.text(x, y + 0.38, number, ha="center", va="center", fontsize=14, fontweight="bold")
    ax.text(x, y - 0.15, title, ha="center", va="center", fontsize=10)


def _arrow(ax: Axes, start: str, end: str, style: str = "-") -> None:
    """An arrow from one lesson's box to the next one's: along a row, or down the column from 04 to 07."""
    (x0, y0), (x1, y1) = POSITIONS[start], POSITIONS[end]
    gap = 0.08
    if x0 == x1:  # straight down
        tail, head = (x0, y0 - HEIGHT / 2 - gap), (x1, y1 + HEIGHT / 2 + gap)
    else:
        tail, head = (x0 + WIDTH / 2 + gap, y0), (x1 - WIDTH / 2 - gap, y1)
    ax.add_patch(FancyArrowPatch(tail, head, arrowstyle="-|>", mutation_scale=12, linestyle=style, color="#444444"))


if __name__ == "__main__":
    print(draw())
