"""One table for every benchmark figure: the median, spread and repetitions of each, against its target.

A benchmark module exposes ``figures(repeats) -> list[Figure]``; ``benchmarks/run.py`` collects them
all and prints one table. Seconds are CPU seconds of this process (``time.process_time``): the machine
may be shared, so a figure is only as steady as its spread says, and ratios measured side by side in
one repetition are steadier than absolute times.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Figure:
    """One measured quantity: every repetition's value, its unit, and the target it is held to."""

    name: str
    unit: str
    samples: list[float] = field(default_factory=list)
    target: float | None = None
    at_most: bool = True

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def met(self) -> str:
        if self.target is None:
            return ""
        ok = self.median <= self.target if self.at_most else self.median >= self.target
        return "yes" if ok else "NO"

    def row(self) -> list[str]:
        bound = "" if self.target is None else f"{'<=' if self.at_most else '>='} {_fmt(self.target)}"
        spread = [_fmt(self.median), _fmt(min(self.samples)), _fmt(max(self.samples))]
        return [self.name, self.unit, *spread, str(len(self.samples)), bound, self.met]


HEADER = ["figure", "unit", "median", "min", "max", "repetitions", "target", "met"]


def table(figures: list[Figure]) -> str:
    """A Markdown table (the README carries it as printed)."""
    rows = [HEADER, ["---"] * len(HEADER), *(f.row() for f in figures)]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in rows)


def repeat(repeats: int, once: Callable[[], dict[str, float]], figures: dict[str, Figure]) -> list[Figure]:
    """Run ``once`` ``repeats`` times; each run returns a value per figure name, appended to its samples."""
    for _ in range(repeats):
        for name, value in once().items():
            figures[name].samples.append(value)
    return list(figures.values())


def _fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:#.3g}" if value < 10 else f"{value:.1f}"  # "1.00", not "1": a median just over 1 shows it
