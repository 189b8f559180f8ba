"""The loop stepper's typed step, walk 23 (lessons 05 and 06, issue 32).

A student typed ``0x10`` into the number beside the stepper's slider and landed on step 6: ipywidgets' slider box
reads typed text in the browser with JavaScript's ``parseInt``, which reads "0x10" as hexadecimal 16, then moves it
into range, without a word (and the line under the controls, "only its leading whole number counts", promised 0).
The rule is decided in the kernel now: the slider has no typed box (``readout=False``); the stepper's own box
("Go to step") takes a whole number in digits 0-9, from the first step to the last, and anything else (hexadecimal,
a decimal, "1e3", a sign, other scripts' digits, a step the run does not have) changes nothing and is answered with
a sentence that names what was typed and the rule it broke.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets
import pytest
from support.lesson_cells import stored_lesson

from course_lib.loop_demos import run_seed_demo
from course_lib.loop_panels import LoopStepper, steps_help, typed_step_problem

REFUSED = ["0x10", "0X1F", "1e3", "2abc", "1.7", "abc", ".5", "+3", "\uff13", "\u0663", "1 2", "", "  ", "0b11"]
"""Inputs that are not a whole number in digits 0-9 (a blank around the number is allowed); the last-but-four are
a fullwidth 3 and an Arabic-Indic 3, which Python's ``int`` would read. "-2" left the list in walk 24: it is a
whole number, answered "There is no step -2" as 0 and 7 are (tests/test_lesson05_06_second_walk24.py)."""


def shown_text(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


async def stepper_at(value: int) -> LoopStepper:
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    stepper.slider.value = value
    return stepper


def type_into(stepper: LoopStepper, typed: str) -> None:
    """What the browser sends once the student presses Enter in the box (continuous_update=False)."""
    stepper.step_box.value = typed


@pytest.mark.parametrize(("typed", "step"), [("5", 5), (" 5 ", 5), ("05", 5), ("1", 1), ("6", 6)])
async def test_a_whole_number_in_digits_within_the_run_goes_to_that_step(typed, step):
    stepper = await stepper_at(4)
    type_into(stepper, typed)
    assert stepper.slider.value == step and f"Step {step} of 6" in stepper.view.value
    assert stepper.step_box.value == str(step) and shown_text(stepper.typed_note.value) == ""


@pytest.mark.parametrize("typed", REFUSED)
async def test_what_is_not_a_whole_number_in_digits_changes_nothing_and_is_answered(typed):
    stepper = await stepper_at(4)
    type_into(stepper, typed)
    assert stepper.slider.value == 4 and "Step 4 of 6" in stepper.view.value  # rejected input changes nothing
    assert stepper.step_box.value == "4"  # the box shows the step again
    said = shown_text(stepper.typed_note.value)
    assert said == typed_step_problem(typed, 1, 6, now=4)
    assert "whole number in digits" in said and "1 to 6" in said and "step 4" in said


def test_the_student_s_hexadecimal_is_named_and_refused():
    assert typed_step_problem("0x10", 1, 6, now=4) == (
        "“0x10” is not a step number: type a whole number in digits, 1 to 6 (the stepper stays at step 4)."
    )
    assert typed_step_problem("5", 1, 6, now=4) is None


@pytest.mark.parametrize(("typed", "shown"), [("0", "0"), ("99", "99"), ("7", "7"), ("000", "000")])
async def test_a_step_the_run_does_not_have_changes_nothing_and_says_which_steps_there_are(typed, shown):
    stepper = await stepper_at(4)
    type_into(stepper, typed)
    assert stepper.slider.value == 4 and stepper.step_box.value == "4"
    said = shown_text(stepper.typed_note.value)
    assert said == f"There is no step {shown}: the steps are 1 to 6 (the stepper stays at step 4)."


@pytest.mark.parametrize("typed", ["5", "abc"])
async def test_moving_on_clears_the_answer_and_the_box_follows_the_step(typed):
    stepper = await stepper_at(4)
    type_into(stepper, "0x10")
    assert shown_text(stepper.typed_note.value)
    stepper.next_button.click()
    assert stepper.slider.value == 5 and stepper.step_box.value == "5"
    assert shown_text(stepper.typed_note.value) == ""
    stepper.slider.value = 2
    assert stepper.step_box.value == "2"


async def test_the_slider_has_no_box_of_its_own_that_reads_typed_text_in_the_browser():
    stepper = await stepper_at(1)
    assert stepper.slider.readout is False  # its box read "0x10" as 16 with parseInt
    assert stepper.step_box.continuous_update is False  # one answer when Enter is pressed, not one per key


@pytest.mark.parametrize(("first", "last"), [(1, 6), (1, 2), (1, 19), (3, 40)])
def test_the_line_under_the_controls_says_the_rule_and_only_the_rule(first, last):
    line = steps_help(widgets.IntSlider(min=first, max=last))
    assert line == f"Go to step: type a whole number in digits, {first} to {last}, then press Enter."
    assert "leading" not in line and "→" not in line  # the browser's parseInt rule is gone with the slider's box
    assert len(line) <= 150


@pytest.mark.parametrize("lesson", ["05", "06"])
def test_each_loop_lessons_saved_stepper_shows_the_rule_and_a_box_of_its_own(lesson):
    state = stored_lesson(lesson)["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    values = [m["state"].get("value", "") for m in state.values() if m["model_name"] == "HTMLModel"]
    assert any(html.escape(steps_help(widgets.IntSlider(min=1, max=6)), quote=False) in v for v in values)
    assert not any("leading whole number" in v for v in values)
    sliders = [m["state"] for m in state.values() if m["model_name"] == "IntSliderModel"]
    assert sliders and all(s.get("readout") is False for s in sliders)
    boxes = [m["state"] for m in state.values() if m["model_name"] == "TextModel"]
    assert boxes and all(b.get("description") == "Go to step" for b in boxes)


def test_lesson_05_says_where_to_type_a_step():
    said = " ".join(
        "".join(cell["source"]) for cell in stored_lesson("05")["cells"] if cell.get("id") == "cell-18"
    ).split()
    text = " ".join(said)
    assert "Go to step" in text and "number beside the slider" not in text


# region The rule, in a real browser

STEPPER_CELL = """\
from course_lib.loop_demos import run_seed_demo
from course_lib.loop_panels import LoopStepper

trace, _ = await run_seed_demo()
stepper = LoopStepper(trace)
stepper.add_class("walk23-stepper")
stepper"""


@pytest.fixture(scope="module")
def stepper_page(tmp_path_factory):
    import test_browser as browser

    with browser.voila_cell_page(tmp_path_factory.mktemp("voila_walk23"), STEPPER_CELL, ".walk23-stepper h4") as page:
        yield page


@pytest.mark.timeout(240)
def test_the_real_box_takes_only_digits_and_says_why_it_refused(stepper_page):
    """Typed into the stepper's box in Chromium, Enter pressed: "0x10" is refused in words, "5" goes to step 5."""
    import test_browser as browser
    from playwright.sync_api import expect

    panel = stepper_page.locator(".walk23-stepper")
    box = panel.locator(".widget-text input")
    expect(panel).to_contain_text(steps_help(widgets.IntSlider(min=1, max=6)))
    assert panel.locator(".widget-readout").count() == 0 or not panel.locator(".widget-readout").first.is_visible()

    def enter(text: str) -> None:
        box.click()
        stepper_page.keyboard.press("Control+A")
        stepper_page.keyboard.type(text)
        stepper_page.keyboard.press("Enter")

    enter("4")
    expect(panel.locator("h4")).to_contain_text("Step 4 of 6", timeout=30_000)
    for typed in ("0x10", "1e3", "99"):
        enter(typed)
        expect(panel).to_contain_text(f"“{typed}”" if typed != "99" else "There is no step 99", timeout=30_000)
        expect(panel.locator("h4")).to_contain_text("Step 4 of 6")
        expect(box).to_have_value("4")
    browser.screenshot(stepper_page, panel, "loop_stepper_typed_walk23.png")
    enter("5")
    expect(panel.locator("h4")).to_contain_text("Step 5 of 6", timeout=30_000)
    expect(panel).not_to_contain_text("is not a step number")


# endregion
