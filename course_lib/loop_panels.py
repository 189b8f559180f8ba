"""The loop lessons' panel (ipywidgets): step through a traced loop; and the options table's layout. Tested without
a browser.

The stepper replays a :class:`~course_lib.loop_demos.LoopTrace`: what the model received and returned at
each call, what each evaluator saw and decided. It is kept apart from the memory lessons' panels
(:mod:`course_lib.widgets`), so a loop lesson loads nothing of the memory half.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import ipywidgets as widgets

from .frames import shorten_at_word
from .loop_demos import spaced
from .presentation import PanelText, html_lines, plain_table

VERBATIM_STYLE = "white-space: pre-wrap; font-family: monospace; margin: 0"
"""How the stepper shows a message: its text as written (no Markdown, line breaks and blank lines kept)."""
REFUSED_STYLE = "color: #a35200; font-size: 85%; line-height: 1.3; white-space: normal; overflow-wrap: anywhere"
"""How the stepper answers a typed step it did not take: small and wrapping as the note above it, in the memory
panels' warning colour so it is not read as the note itself."""
HELP_STYLE = "color: dimgray; font-size: 85%; line-height: 1.3; white-space: normal; overflow-wrap: anywhere"
"""How the stepper shows its note under the controls: grey and small like the memory panels' notes, and wrapping at
the cell's edge (a Label never wraps: the note's end was cut in a cell beside JupyterLab's file browser)."""

BOX_WIDTH = "11em"
"""The width of the "Go to step" box, its label included, and its least width: in a row that wraps, a box of 9em and
no least width shrank to a sliver showing half a digit (the saved panel before its cell had run, after a restart)."""
ECHO_CHARS = 40
"""The most characters of a typed step the stepper quotes back: a 300-digit value was echoed whole."""
ROLE_STYLE = "color: gray; font-size: 85%"
"""How the stepper names an incoming message's role, above the message: small and grey, a label, not the text."""

if TYPE_CHECKING:  # the stepper only reads a trace; pandas loads when a table is built
    import pandas as pd
    from pandas.io.formats.style import Styler

    from .loop_demos import LoopTrace, TraceStep


__all__ = [
    "BOX_WIDTH",
    "DIGITS",
    "ECHO_CHARS",
    "HELP_STYLE",
    "REFUSED_STYLE",
    "ROLE_STYLE",
    "VERBATIM_STYLE",
    "WORDS_WIDTHS",
    "LoopStepper",
    "options_table",
    "session_words",
    "steps_help",
    "steps_words",
    "typed_echo",
    "typed_step_problem",
    "verbatim",
]


class LoopStepper(PanelText, widgets.VBox):
    """Step or slide through a traced loop: what the model received and returned, what each evaluator saw.

    A new stepper starts at step 1 and its heading says where it is in the run ("Step 3 of 6"); a label beside the
    slider says which steps there are ("steps 1 to 6"), and a note under the controls says what its "Go to step" box
    takes (:func:`steps_help`). The slider has no typed box of its own (``readout=False``): ipywidgets' box read typed
    text in the browser with JavaScript's ``parseInt`` and moved it into range without a word ("0x10" is hexadecimal
    16 there, so step 6). The stepper's box is read in the kernel: a whole number in digits within the run goes to
    that step; anything else (a whole number out of the run, ``-1`` included, or text that is no whole number)
    changes nothing and is answered under the note (:func:`typed_step_problem`).
    The box has a row of its own, under the controls and above its note. The note is an HTML widget that wraps
    (:data:`HELP_STYLE`), and the row of controls moves what does not fit onto the next line: a Label never wraps,
    and a long one was cut at the cell's edge. It keeps no list of
    the feedback so far beside a step: a model call's feedback is in its incoming messages and an evaluator's in its
    "Previous feedback", so such a list only repeated them (at the last step, line for line).
    """

    title = "Loop stepper"

    def __init__(self, trace: LoopTrace) -> None:
        from .loop_demos import LoopTrace

        if not isinstance(trace, LoopTrace):
            raise TypeError(
                f"The stepper steps through a loop's trace (the `trace` a traced loop gives, as in lessons 05 and "
                f"06), not a {type(trace).__name__}. No stepper was made."
            )
        if not trace.rows:
            raise ValueError("The trace is empty: run a traced loop first. No stepper was made.")
        self.trace = trace
        self.slider = widgets.IntSlider(value=1, min=1, max=len(trace.rows), description="Step", readout=False)
        self.steps_label = widgets.Label(steps_words(self.slider))
        self.step_box = widgets.Text(
            value="1",
            description="Go to step",
            continuous_update=False,  # read once Enter is pressed (or the box is left), not at every key
            style={"description_width": "initial"},
            layout=widgets.Layout(width=BOX_WIDTH, min_width=BOX_WIDTH),  # never squeezed to a sliver
        )
        self.help_note = widgets.HTML(f'<div style="{HELP_STYLE}">{html.escape(steps_help(self.slider))}</div>')
        self.typed_note = widgets.HTML()
        self.previous_button = widgets.Button(description="Previous")
        self.next_button = widgets.Button(description="Next")
        self.view = widgets.HTML()
        self.previous_button.on_click(lambda _: self.step(-1))
        self.next_button.on_click(lambda _: self.step(+1))
        self.slider.observe(lambda _: self.render(), names="value")
        self.step_box.observe(lambda change: self.go_to(change["new"]), names="value")
        controls = [self.previous_button, self.slider, self.next_button, self.steps_label]
        row = widgets.HBox(controls, layout=widgets.Layout(flex_flow="row wrap", align_items="center"))
        # the box on a row of its own, before and after the cell runs: beside "steps 1 to 6" the two read as one
        # phrase, and the saved picture wrapped it onto a second row, so the panel changed shape (walk 24)
        super().__init__([row, self.step_box, self.help_note, self.typed_note, self.view])
        self.render()

    def go_to(self, typed: str) -> None:
        """Go to the step typed in the box, or, for anything but a step of the run in digits, stay and say why."""
        now = self.slider.value
        if typed == str(now):  # the box showing the step again (set below, or by render)
            return
        problem = typed_step_problem(typed, self.slider.min, self.slider.max, now=now)
        if problem is None:
            step = int(typed.strip())
            if step == now:  # "04" at step 4: no move, but the box shows "4" again and an old answer goes
                self.render()
            self.slider.value = step
            return
        self.step_box.value = str(now)  # rejected input changes nothing: the box shows the step again
        self.typed_note.value = f'<div style="{REFUSED_STYLE}">{html.escape(problem)}</div>'

    def step(self, delta: int) -> None:
        self.slider.value = min(max(self.slider.value + delta, 1), self.slider.max)

    def summary(self) -> str:
        """Where the stepper stands, in one sentence: the step, who acts, and what it did (a demo cell prints it)."""
        row = self.trace.rows[self.slider.value - 1]
        if row.actor == "LLM":
            did = f"answered {spaced(row.did)}"
        else:
            did = "decided: continue" if row.continues else "decided: stop"
        sentence = f"Step {self.slider.value} of {self.slider.max}: {_who(self.trace, self.slider.value)}, {did}"
        return sentence if sentence.endswith(".") else f"{sentence}."

    def render(self) -> None:
        step = self.slider.value
        row = self.trace.rows[step - 1]
        saw = "".join(self._section(step, title, items) for title, items in row.sections)
        self.view.value = (
            f"<h4>Step {step} of {self.slider.max}: {_who(self.trace, step)}</h4>"
            f"{session_words(self.trace, step)}{saw}{_outcome(row)}"
        )
        self.previous_button.disabled = step == 1
        self.next_button.disabled = step == self.slider.max
        self.step_box.value = str(step)
        self.typed_note.value = ""  # an answer to a typed step is about the step the student stood on

    def _section(self, step: int, title: str, items: Sequence[str]) -> str:
        """One titled list of what a step saw; a section the same at every evaluation is listed once, then named.

        The evaluator of the seed sees the same initial messages every time: listed at each step they would bury
        what changed, and left out they would contradict the lesson's "the evaluator receives the initial messages".
        """
        row = self.trace.rows[step - 1]
        if row.actor == "LLM":
            return _section(title, items, counted=True, roles=row.roles)
        first = next(
            r.step for r in self.trace.rows[:step] if r.actor == "Evaluator" and (title, tuple(items)) in r.sections
        )
        if title not in row.unchanged or first == step:
            return _section(title, items, counted=False)
        same = f"the same {len(items)} message{'s' * (len(items) != 1)} as at step {first}"
        return f"<div><b>{html_lines(title)}</b>: {same}</div>"


def steps_words(slider: widgets.IntSlider) -> str:
    """The steps a slider takes, for a label beside it ("steps 1 to 6"), read from the slider itself: the range is
    said before one types, the same at every step.
    """
    return f"steps {slider.min} to {slider.max}"


def steps_help(slider: widgets.IntSlider) -> str:
    """What the stepper's "Go to step" box takes, in one short sentence under the controls, its ends read from the
    slider (never a step it does not have). The same at every step; short, as a longer line was 1062 px wide in an
    864 px cell (it wraps now, in an HTML widget).
    """
    return f"Go to step: type a whole number in digits, {slider.min} to {slider.max}, then press Enter."


DIGITS = re.compile(r"\s*(-?[0-9]+)\s*")
"""A typed whole number: an optional minus sign (ASCII ``-``) then digits 0-9 only (blanks around them allowed). Not
a plus sign, a decimal point, an exponent, a "0x" prefix (hexadecimal, which JavaScript's ``parseInt`` would read) or
another script's digits (Python's ``int`` would read a fullwidth 3 as 3). ``-1`` is a whole number, only not a step:
it is answered as 0 and 7 are (walk 24), not as text that is no number."""


def typed_step_problem(typed: str, first: int, last: int, *, now: int) -> str | None:
    """Why ``typed`` is not a step of a run whose steps are ``first`` to ``last``, in one sentence, or ``None`` when it
    is one: a whole number in digits (:data:`DIGITS`) from ``first`` to ``last``. A whole number out of the
    run, a negative one included, is "no step"; anything else is "not a step number". The sentence says the rule it
    broke and that the stepper stays at step ``now``; it quotes what was typed (:func:`typed_echo`), or, for a box
    left empty or blank, says so (quoting nothing read as ``“”``, a typo).
    """
    stays = f"(the stepper stays at step {now})."
    rule = f"type a whole number in digits, {first} to {last} {stays}"
    if not typed.strip():
        return f"The box is empty: {rule}"
    match = DIGITS.fullmatch(typed)
    if match is None:
        return f"“{typed_echo(typed.strip())}” is not a step number: {rule}"
    number = match.group(1)
    digits = number.removeprefix("-")
    # compared as text first: int() refuses more than 4300 digits, and no step has that many
    longest = max(len(str(abs(first))), len(str(abs(last))))
    if len(digits.lstrip("0")) > longest or not first <= int(number) <= last:
        return f"There is no step {typed_echo(number)}: the steps are {first} to {last} {stays}"
    return None


def typed_echo(typed: str) -> str:
    """What was typed, as the stepper quotes it back: whole, or, past :data:`ECHO_CHARS`, shortened
    (:func:`~course_lib.frames.shorten_at_word`) and followed by its length, as the exercises' checker echoes a long
    answer."""
    if len(typed) <= ECHO_CHARS:
        return typed
    return f"{shorten_at_word(typed, ECHO_CHARS)} ({len(typed)} characters)"


def _who(trace: LoopTrace, step: int) -> str:
    """Who acts at ``step``, in words: the model at its call; an evaluator at its iteration, after the latest call.

    An evaluator acts after a call, not at one; "after call 1" alone hid the iteration it reads (``context.iteration``,
    the number its feedback names, "Feedback for iteration 1"). The call is counted from the trace, not assumed.
    """
    row = trace.rows[step - 1]
    if row.actor == "LLM":
        return f"the model (LLM), call {row.call}"
    after = sum(1 for earlier in trace.rows[:step] if earlier.actor == "LLM")
    return f"the evaluator, iteration {row.call} (after call {after})"


def session_words(trace: LoopTrace, step: int) -> str:
    """Which session a model call ran on, as a line for the stepper: new, the same, or the caller's.

    A new one is counted among the sessions the run creates, in words: "the only one this run creates", or "session 2
    of 3 this run creates" (a fresh context); a bare "(1 of 1)" read as a count nobody had explained.
    The caller's: the loop had created none yet (with a caller's session and a fresh context, the first call).

    A fresh context is a new session per re-run; counted from the trace, the student sees it happen, not only the
    smaller input. Empty for an evaluator's step.
    """
    row = trace.rows[step - 1]
    calls = [r for r in trace.rows if r.actor == "LLM"]
    if row.actor != "LLM" or calls[-1].session == 0:  # an evaluator's step, or a trace that counted no session
        return ""
    earlier = [r for r in calls if r.step < row.step]
    if row.session == 0:
        words = "the caller's (the loop created none)"
    elif earlier and earlier[-1].session == row.session:
        words = "the same as the call before"
    else:
        created = calls[-1].session
        which = "the only one" if created == 1 else f"session {row.session} of {created}"
        words = f"new ({which} this run creates)"
    return f"<div><b>Session</b>: {words}</div>"


def _outcome(row: TraceStep) -> str:
    """What the step did, in words: the model's reply, or the evaluator's decision and the feedback it sent.

    One word "Did" for both read as if the evaluator answered the task; a raw ``continue: ...`` is a code.
    """
    if row.actor == "LLM":
        return f"<b>The model answered</b>:{_listed([row.did])}"
    if not row.continues:
        return "<div><b>The evaluator decided</b>: stop.</div>"
    sent = row.feedback if row.feedback is not None else row.did.removeprefix("continue:").strip()
    return f"<b>The evaluator decided</b>: continue, with this feedback:{_listed([sent])}"


def _section(title: str, items: Sequence[str], *, counted: bool, roles: Sequence[str] = ()) -> str:
    """A titled list of what the step saw; ``counted`` adds how many messages (what the model received), ``roles``
    each message's role (the trace's, when it recorded them)."""
    count = f" ({len(items)} message{'s' * (len(items) != 1)})" if counted else ""
    return f"<b>{html_lines(title)}{count}</b>:{_listed(items, roles)}"


def verbatim(text: str) -> str:
    """A message as HTML that shows it verbatim: monospace, its line breaks kept, a ``## Feedback`` line as typed.

    A message the model receives is plain text, often Markdown-like; shown through ``<br>`` in a proportional
    font its blank lines look like gaps between separate items, and its end cannot be told from the next one.
    """
    return f'<pre style="{VERBATIM_STYLE}">{html.escape(text, quote=False)}</pre>'


def _listed(items: Sequence[str], roles: Sequence[str] = ()) -> str:
    """Items as a bulleted list, each verbatim with its message numbers spaced; ``(none)`` for no items.

    With ``roles`` (one per item), each item is headed by its role, ``role: user``: the lesson's "the loop sends the
    feedback as a user-role message" is then read off the step itself.
    """
    if not items:
        return verbatim("(none)")
    heads = [f'<div style="{ROLE_STYLE}">role: {html.escape(role)}</div>' for role in roles] or [""] * len(items)
    return (
        "<ul>"
        + "".join(f"<li>{head}{verbatim(spaced(item))}</li>" for head, item in zip(heads, items, strict=True))
        + "</ul>"
    )


WORDS_WIDTHS = {"what it does": "12em", "returned to the caller": "7em"}
"""The least widths of an options table's word columns: next to long option names, they would shrink to a few words
per line."""


def options_table(frame: pd.DataFrame) -> Styler:
    """An options table (:func:`~course_lib.loop_demos.options_frame`) for display: no row numbers, room for words.

    The option names are long words a browser cannot break, so without a least width the explanations beside them
    wrap to four or five lines a row. The table gets its own id: every course table's cells are named
    ``T_course_rowN_colM``, so widths set under the shared id would widen the same column of every table on the page.
    """
    table = plain_table(frame).set_uuid("course_options")
    for column, width in WORDS_WIDTHS.items():
        if column in frame.columns:
            table = table.set_properties(subset=[column], **{"min-width": width})
    return table
