"""The loop lessons' panel (ipywidgets): step through a traced loop. Tested without a browser.

The stepper replays a :class:`~course_lib.loop_demos.LoopTrace`: what the model received and returned at
each call, what each evaluator saw and decided. It is kept apart from the memory lessons' panels
(:mod:`course_lib.widgets`), so a loop lesson loads nothing of the memory half.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

import ipywidgets as widgets

from .presentation import PanelText, html_lines

VERBATIM_STYLE = "white-space: pre-wrap; font-family: monospace; margin: 0"
"""How the stepper shows a message: its text as written (no Markdown, line breaks and blank lines kept)."""

if TYPE_CHECKING:  # the stepper only reads a trace
    from .loop_demos import LoopTrace


__all__ = [
    "VERBATIM_STYLE",
    "LoopStepper",
    "verbatim",
]


class LoopStepper(PanelText, widgets.VBox):
    """Step or slide through a traced loop: what the model received and returned, what each evaluator saw.

    A new stepper starts at step 1 and its heading says where it is in the run ("Step 3 of 6").
    """

    title = "Loop stepper"

    def __init__(self, trace: LoopTrace) -> None:
        if not trace.rows:
            raise ValueError("The trace is empty: run a traced loop first.")
        self.trace = trace
        self.slider = widgets.IntSlider(value=1, min=1, max=len(trace.rows), description="Step")
        self.previous_button = widgets.Button(description="Previous")
        self.next_button = widgets.Button(description="Next")
        self.view = widgets.HTML()
        self.previous_button.on_click(lambda _: self.step(-1))
        self.next_button.on_click(lambda _: self.step(+1))
        self.slider.observe(lambda _: self.render(), names="value")
        super().__init__([widgets.HBox([self.previous_button, self.slider, self.next_button]), self.view])
        self.render()

    def step(self, delta: int) -> None:
        self.slider.value = min(max(self.slider.value + delta, 1), self.slider.max)

    def render(self) -> None:
        step = self.slider.value
        row = self.trace.rows[step - 1]
        saw = "".join(f"<b>{html_lines(title)}</b><ul>{_list_items(items)}</ul>" for title, items in row.shown)
        feedback = [r.did for r in self.trace.rows[:step] if r.continues]
        self.view.value = (
            f"<h4>Step {step} of {self.slider.max}: {row.actor} (call {row.call})</h4>"
            f"{saw}<b>Did</b>:{verbatim(row.did)}"
            f"<b>Feedback so far</b>:{verbatim(' / '.join(feedback) or '(none)')}"
        )
        self.previous_button.disabled = step == 1
        self.next_button.disabled = step == self.slider.max


def verbatim(text: str) -> str:
    """A message as HTML that shows it verbatim: monospace, its line breaks kept, a ``## Feedback`` line as typed.

    A message the model receives is plain text, often Markdown-like; shown through ``<br>`` in a proportional
    font its blank lines look like gaps between separate items, and its end cannot be told from the next one.
    """
    return f'<pre style="{VERBATIM_STYLE}">{html.escape(text, quote=False)}</pre>'


def _list_items(items: Sequence[str]) -> str:
    return "".join(f"<li>{verbatim(item)}</li>" for item in items) or "<li>-</li>"
