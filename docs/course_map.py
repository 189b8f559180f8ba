"""Draw the course map (docs/course_map.png): lesson 00, the two halves, and where they meet in lesson 07.

Run ``.venv/bin/python docs/course_map.py`` after a lesson is added or renamed; the picture is committed, and
``tests/test_reading.py`` checks that :data:`LESSONS` names every lesson notebook, so the map cannot drift silently.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

HERE = Path(__file__).resolve().parent

LESSONS: dict[str, tuple[str, str]] = {
    "00": ("Set-up and\nmodel backends", "start"),
    "01": ("Which words become\na fact; the store", "memory"),
    "02": ("Correct, then forget\nfacts, by hand", "memory"),
    "03": ("Facts added to each\nrequest; two assistants", "memory"),
    "04": ("Ways to remember a\nlong chat, compared", "memory"),
    "05": ("An agent re-run in a\nloop, step by step", "loop"),
    "06": ("What stops the loop,\nand its settings", "loop"),
    "07": ("A loop held to the\nfacts (both halves)", "both"),
}
"""Lesson number -> (short title, part of the course). Titles in a newcomer's words: the map is seen in lesson 00,
before any lesson has named the seed's programs (Demo150...) or a framework class (LoopAgent)."""

COLOURS = {"start": "#d9d9d9", "memory": "#cfe2f3", "loop": "#fce5cd", "both": "#d9ead3"}

POSITIONS = {
    "00": (0.6, 2.0),
    "01": (2.6, 3.0),
    "02": (4.6, 3.0),
    "03": (6.6, 3.0),
    "04": (8.6, 3.0),
    "05": (2.6, 1.0),
    "06": (4.6, 1.0),
    "07": (10.8, 2.0),
}


def draw(path: Path = HERE / "course_map.png") -> Path:
    """Draw the map to ``path`` (PNG, no timestamp in its metadata, so a redraw of the same map is the same file)."""
    fig, ax = plt.subplots(figsize=(12.5, 4.2))
    ax.set_xlim(-0.4, 12.0)
    ax.set_ylim(0.1, 4.0)
    ax.axis("off")
    width, height = 1.8, 0.9
    for number, (title, part) in LESSONS.items():
        x, y = POSITIONS[number]
        ax.add_patch(
            FancyBboxPatch(
                (x - width / 2, y - height / 2),
                width,
                height,
                boxstyle="round,pad=0.05",
                facecolor=COLOURS[part],
                edgecolor="#555555",
            )
        )
        ax.text(x, y + 0.2, number, ha="center", va="center", fontsize=14, fontweight="bold")
        ax.text(x, y - 0.14, title, ha="center", va="center", fontsize=10)

    def arrow(start: str, end: str, style: str = "-") -> None:
        (x0, y0), (x1, y1) = POSITIONS[start], POSITIONS[end]
        ax.add_patch(
            FancyArrowPatch(
                (x0 + width / 2 + 0.05, y0),
                (x1 - width / 2 - 0.05, y1),
                arrowstyle="-|>",
                mutation_scale=12,
                linestyle=style,
                color="#444444",
            )
        )

    for start, end in [("00", "01"), ("01", "02"), ("02", "03"), ("03", "04"), ("04", "07"), ("05", "06")]:
        arrow(start, end)
    arrow("06", "07")
    arrow("00", "05", style="--")
    ax.text(
        5.6,
        3.75,
        "Memory half: keeping the facts a user declared right in a long conversation (French seed)",
        ha="center",
        fontsize=11,
    )
    ax.text(
        3.6, 0.3, "Loop half: an agent re-run until a check says it is done (Chinese seed)", ha="center", fontsize=11
    )
    ax.text(10.8, 2.75, "the halves meet", ha="center", fontsize=10, style="italic")
    ax.text(
        0.6,
        1.3,
        "optional: skip it and start\nat 01 (or at 05 for the loop)",
        ha="center",
        va="center",
        fontsize=9,
        style="italic",
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return path


if __name__ == "__main__":
    print(draw())
