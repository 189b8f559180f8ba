"""The loop stepper's line on typed steps, walk 22 (lessons 05 and 06, issue 32).

1. The line under the stepper's controls said "other text changes nothing", but a student typed ``1e3`` and landed
   on step 1: the box reads what is typed with JavaScript's ``parseInt`` (:func:`course_lib.widgets.slider_reads`),
   so only the whole number at the start counts ("1e3" is 1, "2abc" is 2). The line says so, short, with examples
   it computes from the slider, each of them true of the box's rule.
   Walk 23: the slider's parseInt box is gone (it read "0x10" as hexadecimal 16); the stepper's own "Go to step" box
   takes a whole number in digits and answers anything else (tests/test_stepper_walk23.py). The tests below keep
   walk 22's protection under the new rule: the line says what the box does, and the student's inputs ("1e3",
   "2abc") no longer land on a step the student did not mean.
2. Lesson 06 says nothing of its own about typing a step (the awkward "You can type a step number (1-6) in the box
   by the slider" is gone): the line under the controls says it, once.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import pytest
from support.lesson_cells import stored_lesson

from course_lib.loop_demos import run_seed_demo
from course_lib.loop_panels import LoopStepper, steps_help, typed_step_problem

RANGES = [(1, 6), (1, 2), (1, 19), (3, 40)]


def help_line(first: int, last: int) -> str:
    return steps_help(widgets.IntSlider(min=first, max=last))


# region Finding 1: the line says what the box takes (walk 23: a whole number in digits, within the run)


@pytest.mark.parametrize(("first", "last"), RANGES)
def test_the_line_says_what_the_box_takes_and_keeps_short(first, last):
    line = help_line(first, last)
    assert line == f"Go to step: type a whole number in digits, {first} to {last}, then press Enter."
    assert "other text changes nothing" not in line  # false of "1e3" and "2abc" under walk 22's box
    assert len(line) <= 150  # the note wraps, but stays a line or two in an 864 px cell


@pytest.mark.parametrize(("first", "last"), RANGES)
def test_every_kind_of_input_is_taken_or_refused_as_the_line_says(first, last):
    """Digits within the ends are taken; past an end, or anything but digits, refused in words, the step kept."""
    for step in range(first, last + 1):
        assert typed_step_problem(str(step), first, last, now=first) is None
    for typed in (first - 1, last + 1, last + 999):
        assert f"the steps are {first} to {last}" in typed_step_problem(str(typed), first, last, now=first)
    for typed in ("abc", ".5", "e3", "", " ", "→", "1e3", "2abc", "1.7", "0x10"):
        said = typed_step_problem(typed, first, last, now=first)
        assert said and f"whole number in digits, {first} to {last}" in said, typed


async def test_the_students_inputs_no_longer_land_on_a_step_they_did_not_mean():
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    for typed in ("1e3", "2abc", "1.7", "99", "0", "abc"):
        stepper.slider.value = 4
        stepper.step_box.value = typed
        assert stepper.slider.value == 4 and typed.strip() in stepper.typed_note.value, typed


@pytest.mark.parametrize("lesson", ["05", "06"])
def test_each_loop_lessons_saved_stepper_shows_the_new_line(lesson):
    state = stored_lesson(lesson)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    values = [m["state"].get("value", "") for m in state.values() if m["model_name"] == "HTMLModel"]
    line = html.escape(help_line(1, 6), quote=False)
    assert any(line in value for value in values)
    assert not any("other text changes nothing" in value for value in values)
    assert not any("leading whole number" in value for value in values)  # walk 23


# endregion

# region Finding 2: lesson 06 leaves what a typed step does to the line under the controls


def test_lesson_06s_words_do_not_repeat_the_line_on_typed_steps():
    markdown = " ".join(
        "".join(cell["source"]) for cell in stored_lesson("06")["cells"] if cell["cell_type"] == "markdown"
    )
    said = " ".join(markdown.split()).lower()
    assert "type a step" not in said and "step number" not in said and "by the slider" not in said


# endregion

# region Finding 1, in a real browser: the student's inputs typed into the stepper's box

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

    with browser.voila_cell_page(tmp_path_factory.mktemp("voila_walk22"), STEPPER_CELL, ".walk22-stepper h4") as page:
        yield page


@pytest.mark.timeout(240)
def test_the_real_box_reads_a_typed_step_as_the_line_says(stepper_page):
    """Typed into the stepper's box in Chromium: "1e3", "2abc", "1.7", "99", "0", "abc", ".5" keep step 4 and are
    answered; "6" goes to step 6. The note wraps within an 864 px cell."""
    import test_browser as browser
    from playwright.sync_api import expect

    panel = stepper_page.locator(".walk22-stepper")
    box = panel.locator(".widget-text input")
    expect(panel).to_contain_text(help_line(1, 6))
    stepper_page.set_viewport_size({"width": 900, "height": 900})  # a cell about 864 px wide
    note = panel.locator("div[style*='dimgray']")  # the note, in HELP_STYLE
    measure = "e => [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().height, getComputedStyle(e).lineHeight]"
    wide, room, high, line = note.evaluate(measure)
    line = float(line.removesuffix("px"))
    assert wide <= room and round(high / line) <= 2, (wide, room, high, line)  # whole (one line here)
    browser.screenshot(stepper_page, panel, "loop_stepper_typed_walk22.png")
    for start, typed, step in (
        ("4", "1e3", 4),
        ("4", "2abc", 4),
        ("4", "1.7", 4),
        ("4", "99", 4),
        ("4", "0", 4),
        ("4", "abc", 4),
        ("4", ".5", 4),
        ("4", "6", 6),
    ):
        for text in (start, typed):
            box.click()
            stepper_page.keyboard.press("Control+A")
            stepper_page.keyboard.type(text)
            stepper_page.keyboard.press("Enter")
        expect(panel.locator("h4")).to_contain_text(f"Step {step} of 6", timeout=30_000)
        expect(box).to_have_value(str(step))
        refused = typed_step_problem(typed, 1, 6, now=4)
        assert (refused is None) == (step != 4), typed
        if refused:
            expect(panel).to_contain_text(refused)


# endregion
