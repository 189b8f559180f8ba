"""The loop stepper's "Go to step" box in a real browser, lesson 05's second walk 23 (issue 32), finding 5.

Before the panel's cell had run, or after a restart, the box shrank to a sliver showing half a digit: the row of
controls wraps and squeezes what it holds. The box keeps a least width (``layout.min_width``); here, in Chromium, in
a row squeezed to 420 px. (Kept apart from the kernel-side tests: Playwright's sync API holds an event loop that the
async tests of a module run after it could not start.)
"""

from __future__ import annotations

import pytest
from test_stepper_walk23 import stepper_page  # noqa: F401  (the fixture: the stepper in Voila and Chromium)


@pytest.mark.timeout(240)
def test_the_real_box_keeps_room_for_a_number_in_a_narrow_cell(stepper_page):  # noqa: F811
    """In Chromium, the row squeezed to 420 px and the box's label in a font a fifth larger (as a page with a larger
    UI font draws it): the box still shows three digits, and the row cannot squeeze it below its width."""
    page = stepper_page
    page.set_viewport_size({"width": 420, "height": 900})
    widget = page.locator(".walk23-stepper .widget-text")
    box = widget.locator("input")
    label = widget.locator("label").first
    label.evaluate("element => { element.style.fontSize = '120%'; }")
    page.wait_for_timeout(500)
    style = widget.evaluate("element => [getComputedStyle(element).minWidth, getComputedStyle(element).width]")
    assert style[0] == style[1] and style[0] != "auto", style  # the least width is the width: no squeezing
    room = box.evaluate("element => element.getBoundingClientRect().width")
    three = box.evaluate(
        "element => { const c = document.createElement('canvas').getContext('2d');"
        " c.font = getComputedStyle(element).font; return c.measureText('000').width; }"
    )
    assert room >= three + 8, (room, three)  # three digits and the box's padding
    page.set_viewport_size({"width": 1200, "height": 900})  # as the fixture opened it
