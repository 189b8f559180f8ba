"""The loop stepper's line on typed steps, walk 22 (lessons 05 and 06, issue 32).

1. The line under the stepper's controls said "other text changes nothing", but a student typed ``1e3`` and landed
   on step 1: the box reads what is typed with JavaScript's ``parseInt`` (:func:`course_lib.widgets.slider_reads`),
   so only the whole number at the start counts ("1e3" is 1, "2abc" is 2). The line says so, short, with examples
   it computes from the slider, each of them true of the box's rule.
2. Lesson 06 says nothing of its own about typing a step (the awkward "You can type a step number (1-6) in the box
   by the slider" is gone): the line under the controls says it, once.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets
import pytest
from support.lesson_cells import stored_lesson

from course_lib.loop_panels import steps_help
from course_lib.widgets import slider_reads, slider_takes

RANGES = [(1, 6), (1, 2), (1, 19), (3, 40)]


def help_line(first: int, last: int) -> str:
    return steps_help(widgets.IntSlider(min=first, max=last))


# region Finding 1: the line says that only the whole number at the start counts


@pytest.mark.parametrize(("first", "last"), RANGES)
def test_the_line_says_only_the_leading_whole_number_counts_and_keeps_short(first, last):
    line = help_line(first, last)
    assert line == (
        f"Typed in the box: only its leading whole number counts ({first}.7 or {first}e3 → {first}), "
        f"below {first} → {first}, above {last} → {last}; text with no leading number changes nothing."
    )
    assert "other text changes nothing" not in line  # false of "1e3" and "2abc", which start with a number
    assert len(line) <= 150  # the note wraps, but stays a line or two in an 864 px cell


@pytest.mark.parametrize(("first", "last"), RANGES)
def test_every_example_the_line_gives_is_what_the_box_does(first, last):
    """Each "typed → step" of the line, and each kind of input it names, checked against the box's own rule."""
    line = help_line(first, last)
    slider = widgets.IntSlider(min=first, max=last, value=last)
    examples = re.search(r"\((\S+) or (\S+) → (\d+)\)", line)
    assert examples
    for typed in examples.group(1, 2):
        assert slider_takes(slider, typed) == int(examples.group(3)), typed
    for side, end in re.findall(r"(below|above) \d+ → (\d+)", line):
        past = [first - 1, first - 50, -5] if side == "below" else [last + 1, last + 999, 10**6]
        assert all(slider_takes(slider, str(typed)) == int(end) for typed in past), side
    for typed in ("abc", ".5", "e3", "", " ", "→"):  # no leading number: the step stays where it was
        slider.value = first + 1 if first < last else first
        assert slider_reads(typed) is None and slider_takes(slider, typed) == slider.value, typed


def test_the_students_inputs_read_as_the_line_says():
    slider = widgets.IntSlider(min=1, max=6, value=4)
    assert [slider_takes(slider, typed) for typed in ("1e3", "2abc", "1.7", "99", "0", "abc")] == [1, 2, 1, 6, 1, 4]


@pytest.mark.parametrize("lesson", ["05", "06"])
def test_each_loop_lessons_saved_stepper_shows_the_new_line(lesson):
    state = stored_lesson(lesson)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    values = [m["state"].get("value", "") for m in state.values() if m["model_name"] == "HTMLModel"]
    line = html.escape(help_line(1, 6), quote=False)
    assert any(line in value for value in values)
    assert not any("other text changes nothing" in value for value in values)


# endregion

# region Finding 2: lesson 06 leaves what a typed step does to the line under the controls


def test_lesson_06s_words_do_not_repeat_the_line_on_typed_steps():
    markdown = " ".join(
        "".join(cell["source"]) for cell in stored_lesson("06")["cells"] if cell["cell_type"] == "markdown"
    )
    said = " ".join(markdown.split()).lower()
    assert "type a step" not in said and "step number" not in said and "by the slider" not in said


# endregion

# region Finding 1, in a real browser: what the stepper's box does with what a student types

STEPPER_CELL = """\
from course_lib.loop_demos import run_seed_demo
from course_lib.loop_panels import LoopStepper

trace, _ = await run_seed_demo()
stepper = LoopStepper(trace)
stepper.add_class("walk22-stepper")
stepper"""


@pytest.fixture(scope="module")
def stepper_page(tmp_path_factory):
    import test_browser as browser

    if browser.CHROMIUM is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)")
    import nbformat

    folder = tmp_path_factory.mktemp("voila_walk22")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(STEPPER_CELL)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "stepper.ipynb")
    with browser.voila(folder, "stepper.ipynb") as url, browser.chromium_page(url, ".walk22-stepper h4") as page:
        yield page


@pytest.mark.timeout(240)
def test_the_real_box_reads_a_typed_step_as_the_line_says(stepper_page):
    """Typed into the slider's box in Chromium: "1e3" is step 1, "2abc" step 2, "abc" leaves the step, 99 is 6."""
    import test_browser as browser
    from playwright.sync_api import expect

    panel = stepper_page.locator(".walk22-stepper")
    readout = panel.locator(".widget-readout")
    expect(panel).to_contain_text(help_line(1, 6))
    stepper_page.set_viewport_size({"width": 900, "height": 900})  # a cell about 864 px wide
    note = panel.locator("div[style*='dimgray']")  # the note, in HELP_STYLE
    measure = "e => [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().height, getComputedStyle(e).lineHeight]"
    wide, room, high, line = note.evaluate(measure)
    line = float(line.removesuffix("px"))
    assert wide <= room and round(high / line) <= 2, (wide, room, high, line)  # whole (one line here)
    browser.screenshot(stepper_page, panel, "loop_stepper_typed_walk22.png")
    for start, typed, step in (
        ("4", "1e3", 1),
        ("4", "2abc", 2),
        ("4", "1.7", 1),
        ("4", "99", 6),
        ("4", "0", 1),
        ("4", "abc", 4),
        ("4", ".5", 4),
    ):
        for text in (start, typed):
            readout.click()
            stepper_page.keyboard.press("Control+A")
            stepper_page.keyboard.type(text)
            stepper_page.keyboard.press("Enter")
        expect(panel.locator("h4")).to_contain_text(f"Step {step} of 6", timeout=30_000)
        expect(readout).to_have_text(str(step))
        assert slider_takes(widgets.IntSlider(min=1, max=6, value=int(start)), typed) == step, typed


# endregion
