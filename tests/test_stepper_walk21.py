"""The loop stepper and lesson 05's words, second walk 21 (issue 32).

1. The stepper's line on typed steps was a Label (one line that never wraps) 1062 px wide in an 864 px cell, cut at
   "... becomes 1, ar". It is one short sentence, computed from the slider's range, in an HTML widget whose text
   wraps; every Label left in the stepper holds a few words, and the row of controls moves what does not fit onto
   the next line rather than cut it.
2. Section 1 said "lesson 06 compares the loop it does offer" without naming it: it names `AgentLoopMiddleware`.
3. Under the hood said "so lesson 05 also runs the demo streamed" to a student reading lesson 05: it says "this lesson
   (section 4)", the section that runs it.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets
import pytest
from support.lesson_cells import cell_source, stored_lesson

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import SEED_INPUT, run_seed_demo
from course_lib.loop_panels import LoopStepper, steps_help, steps_words

SHORT_LABEL = 20
"""The most characters a Label of the stepper may hold: a Label never wraps, and its text past the edge is cut."""


def words(text: str) -> str:
    return " ".join(text.replace("*", "").split())


def shown_text(markup: str) -> str:
    """The text an HTML widget shows: its tags removed, its entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def every_widget(widget: widgets.Widget) -> list[widgets.Widget]:
    return [widget, *(w for child in getattr(widget, "children", ()) for w in every_widget(child))]


# --- finding 1: the line on typed steps is short and wraps ---


@pytest.mark.parametrize(("first", "last"), [(1, 6), (1, 2), (1, 19), (3, 40)])
def test_the_typed_steps_line_is_one_short_sentence_read_from_the_slider(first, last):
    line = steps_help(widgets.IntSlider(min=first, max=last))
    # walk 23: the stepper's own box takes digits from the first step to the last (tests/test_stepper_walk23.py)
    assert line.startswith("Go to step: ") and f"digits, {first} to {last}," in line
    assert len(line) <= 150  # the note wraps (an HTML widget); walk 22: what typed text counts (test_stepper_walk22)


@pytest.mark.parametrize(
    ("allowed", "options", "inputs"),
    [(3, None, None), (1, None, None), (12, None, None), (3, LoopAgentOptions(fresh_context_per_iteration=True), 1)],
)
async def test_the_stepper_shows_the_line_in_a_widget_that_wraps_and_keeps_its_labels_short(allowed, options, inputs):
    trace, _ = await run_seed_demo(allowed, options=options, inputs=SEED_INPUT[:inputs] if inputs else SEED_INPUT)
    stepper = LoopStepper(trace)
    note = stepper.help_note
    assert isinstance(note, widgets.HTML) and note in stepper.children
    assert "white-space: normal" in note.value  # wraps, as the other panels' notes do
    assert shown_text(note.value) == steps_help(stepper.slider)
    labels = [w for w in every_widget(stepper) if isinstance(w, widgets.Label)]
    assert [label.value for label in labels] == [steps_words(stepper.slider)]  # only the range beside the slider
    assert all(len(label.value) <= SHORT_LABEL for label in labels)
    [controls] = [child for child in stepper.children if isinstance(child, widgets.HBox)]
    assert controls.layout.flex_flow == "row wrap"  # a narrow cell moves "steps 1 to 6" down, never cuts it
    for value in range(1, stepper.slider.max + 1):  # the same note at every step
        stepper.slider.value = value
        assert shown_text(note.value) == steps_help(stepper.slider)


def test_lesson_05s_saved_stepper_shows_the_short_line_in_a_wrapping_widget_and_no_long_label():
    state = stored_lesson("05")["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    models = [m for m in state.values() if m["model_name"] in ("LabelModel", "HTMLModel")]
    line = steps_help(widgets.IntSlider(min=1, max=6))
    notes = [m for m in models if m["model_name"] == "HTMLModel" and shown_text(m["state"]["value"]) == line]
    assert notes and all("white-space: normal" in m["state"]["value"] for m in notes)
    labels = [m["state"].get("value", "") for m in models if m["model_name"] == "LabelModel"]
    assert labels and all(len(label) <= SHORT_LABEL for label in labels)


# --- finding 2: the loop MAF for Python offers, named ---


def test_section_1_names_the_loop_maf_for_python_offers():
    said = words(cell_source("05", "pieces-demo"))
    # walk 22: the middleware's name was unexplained there; the sentence says what it is, lesson 06 names it
    # walk 25: that sentence is under the hood now (tests/test_lesson05_walk25.py)
    hood = words(cell_source("05", "hood-head"))
    assert "lesson 06 compares the loop helper MAF Python does offer" in hood and "Middleware" not in said + hood


# --- finding 3: "this lesson (section 4)", the section that streams the demo ---


def test_under_the_hood_points_to_the_section_of_this_lesson_that_streams_the_demo():
    said = words(cell_source("05", "136c9cdf"))
    assert "lesson 05 also" not in said
    [number] = re.findall(r"so this lesson \(section (\d+)\) also runs the demo streamed", said)
    headings = [
        line
        for cell in stored_lesson("05")["cells"]
        for line in "".join(cell["source"]).splitlines()
        if line.startswith(f"## {number}. ")
    ]
    assert headings == [f"## {number}. Streaming gives the same run"]
