"""Interactive panels for the lessons (ipywidgets). The logic lives here and is tested without a browser.

Every panel goes through the same library calls as the lessons: the memory panel submits a message through
the writer and the host check (it cannot bypass the contract), the desk panel drives the two-desk console,
the loop stepper replays a :class:`~course_lib.loop_demos.LoopTrace`, the policy explorer runs the Demo170
comparison. Output is written as HTML values or through ``Output.append_*`` so nothing leaks into the cell.

A button's click schedules the panel's coroutine on the running event loop (Jupyter's, or a test's);
``await panel.idle()`` waits for it.
"""

from __future__ import annotations

import asyncio
import html
import io
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
from IPython.display import Image

from .extraction import ExtractionReport, MemoryExtraction
from .memory import facts_frame
from .policies import (
    RULES,
    Comparison,
    Timeline,
    compare_policies,
    correctness_table,
    offline_policies,
    plot_prompt_sizes,
)
from .providers import DeskEvent, ProviderDesks

if TYPE_CHECKING:  # the loop stepper only reads a trace; the loop half is not imported here
    from .loop_demos import LoopTrace


class _Async:
    """Runs a panel's coroutines from button clicks and lets callers wait for them."""

    def __init__(self) -> None:
        self._tasks: list[asyncio.Task] = []

    def schedule(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a plain script): run the action to completion now
            asyncio.run(coroutine)
            return
        self._tasks.append(loop.create_task(coroutine))

    async def idle(self) -> None:
        """Wait until every scheduled action has finished (and re-raise the first error)."""
        while self._tasks:
            await self._tasks.pop(0)


def _escape(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


class MemoryPanel(widgets.VBox):
    """The facts as a table, a message box submitted through the contract, forget buttons, the ticket."""

    def __init__(
        self,
        extraction: MemoryExtraction,
        *,
        on_forget: Callable[[str | None], Any] | None = None,
        submit: Callable[[str], Awaitable[ExtractionReport | None]] | None = None,
    ) -> None:
        self.extraction = extraction
        self.memory = extraction.memory
        self._on_forget = on_forget
        self._submit = submit or extraction.update
        self._async = _Async()
        self.table = widgets.HTML()
        self.ticket = widgets.HTML()
        self.diagnostic = widgets.HTML()
        self.message = widgets.Textarea(placeholder="module=Billing; database=SQL Server 2022", description="Message")
        self.submit_button = widgets.Button(description="Submit", button_style="primary")
        self.key = widgets.Dropdown(description="Key", options=[])
        self.forget_key_button = widgets.Button(description="Forget key")
        self.forget_all_button = widgets.Button(description="Forget all", button_style="warning")
        self.submit_button.on_click(lambda _: self._async.schedule(self.submit()))
        self.forget_key_button.on_click(lambda _: self.forget(self.key.value))
        self.forget_all_button.on_click(lambda _: self.forget(None))
        for widget, name in ((self.table, "facts"), (self.message, "message"), (self.diagnostic, "diagnostic")):
            widget.add_class(f"memory-panel-{name}")
        super().__init__(
            [
                self.table,
                self.ticket,
                widgets.HBox([self.message, self.submit_button]),
                self.diagnostic,
                widgets.HBox([self.key, self.forget_key_button, self.forget_all_button]),
            ]
        )
        self.refresh()

    async def idle(self) -> None:
        await self._async.idle()

    async def submit(self) -> ExtractionReport | None:
        """Submit the message box as a user turn; show the outcome in place."""
        text = self.message.value
        if not text.strip():
            self.diagnostic.value = "<b>Nothing to submit:</b> the message is empty."
            return None
        report = await self._submit(text)
        self.show_report(report)
        self.refresh()
        return report

    def show_report(self, report: ExtractionReport | None) -> None:
        if report is None:
            self.diagnostic.value = "No extraction ran for this line."
            return
        color = "green" if report.status in ("accepted", "nothing_to_extract") else "crimson"
        self.diagnostic.value = (
            f'<span style="color:{color}"><b>{report.status}</b>: {_escape(report.diagnostic)}</span>'
        )

    def forget(self, key: str | None) -> None:
        """Forget one key or all (through ``on_forget`` when the panel belongs to a desk, so sessions go too)."""
        if key is not None and key not in {f.key for f in self.memory.facts}:
            self.diagnostic.value = "<b>Forget key:</b> choose a key that is in the store."
            return
        if self._on_forget is not None:
            self._on_forget(key)
        else:
            self.memory.forget(key)
        self.diagnostic.value = f"Forgot {'all facts' if key is None else _escape(repr(key))}."
        self.refresh()

    def refresh(self) -> None:
        facts = self.memory.facts
        frame = facts_frame(facts)
        frame["recorded_at"] = frame["recorded_at"].map(lambda t: t.isoformat(timespec="seconds"))
        self.table.value = frame.to_html(index=False, classes="memory-facts") if facts else "<i>No facts.</i>"
        self.ticket.value = f"Ticket: epoch {self.memory.epoch}, turn {self.memory.turn}"
        self.key.options = [f.key for f in facts]


class DeskPanel(widgets.HBox):
    """The two-desk conversation (provider path) with ``mem`` / ``forget``, and the memory panel beside it."""

    def __init__(self, desks: ProviderDesks) -> None:
        self.desks = desks
        self._async = _Async()
        self.chat = widgets.HTML(
            "<i>Type a message, <code>mem</code>, <code>forget KEY</code> or <code>forget</code>.</i>"
        )
        self.line = widgets.Text(placeholder="Where can I find logs?", description="You")
        self.send_button = widgets.Button(description="Send", button_style="primary")
        self.send_button.on_click(lambda _: self._async.schedule(self.send()))
        self.memory_panel = MemoryPanel(desks.extraction, on_forget=desks.forget, submit=self._submit_turn)
        self.transcript: list[str] = []
        self.events: list[DeskEvent] = []
        super().__init__([widgets.VBox([self.chat, widgets.HBox([self.line, self.send_button])]), self.memory_panel])

    async def idle(self) -> None:
        await self._async.idle()
        await self.memory_panel.idle()

    async def _submit_turn(self, text: str) -> ExtractionReport | None:
        return (await self._handle(text)).report

    async def send(self) -> None:
        line = self.line.value
        if line.strip():
            event = await self._handle(line)
            self.memory_panel.show_report(event.report)
            self.line.value = ""

    async def _handle(self, line: str) -> DeskEvent:
        event = await self.desks.handle(line)
        self.events.append(event)
        who = f"[{event.desk}] " if event.desk else ""
        answer = event.reply if event.kind == "turn" else event.output
        self.transcript.append(f"<b>you:</b> {_escape(line)}<br><b>{_escape(who)}</b>{_escape(answer or '')}")
        self.chat.value = "<hr>".join(self.transcript)
        self.memory_panel.refresh()
        return event


class LoopStepper(widgets.VBox):
    """Step or slide through a traced loop: what the model received and returned, what each evaluator saw."""

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
        row = self.trace.rows[self.slider.value - 1]
        saw = "".join(f"<li>{_escape(part)}</li>" for part in str(row["saw"]).split(" | "))
        feedback = [str(r["did"]) for r in self.trace.rows[: self.slider.value] if str(r["did"]).startswith("continue")]
        self.view.value = (
            f"<h4>Step {row['step']}: {row['actor']} (call {row['call']})</h4>"
            f"<b>Saw</b><ul>{saw}</ul><b>Did</b>: {_escape(str(row['did']))}"
            f"<br><b>Feedback so far</b>: {_escape(' / '.join(feedback) or '(none)')}"
        )


class PolicyExplorer(widgets.VBox):
    """Choose policies, rule, window and fact bound; the correctness table and the prompt-size plot update."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self._async = _Async()
        names = list(offline_policies())
        self.policies = widgets.SelectMultiple(options=names, value=tuple(names), description="Policies", rows=6)
        self.rule = widgets.Dropdown(options=list(RULES), value="latest", description="Rule")
        self.window = widgets.IntSlider(value=3, min=1, max=len(timeline.turns), description="Window")
        self.max_facts = widgets.IntSlider(value=5, min=1, max=10, description="Fact bound")
        self.run_button = widgets.Button(description="Run", button_style="primary")
        self.table = widgets.HTML()
        self.plot = widgets.Output()
        self.comparison: Comparison | None = None
        self.run_button.on_click(lambda _: self._async.schedule(self.run()))
        controls = widgets.VBox([self.policies, self.rule, self.window, self.max_facts, self.run_button])
        super().__init__([controls, self.table, self.plot])

    async def idle(self) -> None:
        await self._async.idle()

    async def run(self) -> None:
        factories = offline_policies(window=self.window.value, max_facts=self.max_facts.value)
        chosen = {
            name: factory
            for name, factory in factories.items()
            if _base(name) in {_base(p) for p in self.policies.value}
        }
        comparison = await compare_policies(self.timeline, chosen, rules=[self.rule.value])
        self.comparison = comparison
        self.table.value = correctness_table(comparison.answers).to_html(classes="policy-correctness")
        fig = plot_prompt_sizes(comparison.calls, rule=self.rule.value)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        plt.close(fig)
        self.plot.clear_output()
        self.plot.append_display_data(Image(buffer.getvalue()))


def _base(name: str) -> str:
    """A policy's kind without its parameters: ``last 3 turns`` and ``last 5 turns`` are both ``last``."""
    return name.split(" ")[0]
