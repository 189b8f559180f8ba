"""Lesson 02's walk 23 in real headless Chromium: the memory panel's Message box holds a whole declaration.

The walk found the box 155 px wide in JupyterLab (a 1300 px window, the file browser open): while the box was empty,
the greyed-out Submit's note shared the box's row and squeezed it to its smallest, and
``module=Billing; database=SQL Server 2022``, the lesson's own correction, did not fit on one line. At every cell
width from JupyterLab's narrowest to a full 1300 px window, empty or filled, the box now holds that declaration,
keeps one width (it does not jump when the note goes), and the panel stays tidy: nothing past its right edge, no
button cut. Screenshots are kept in ``tests/artifacts/``.
"""

import pytest
from test_browser import CHROMIUM, OVERFLOW, VIEWPORT, page, screenshot, voila_url

__all__ = ["page", "voila_url"]  # the panels served by Voila, opened once (test_browser's fixtures)

if CHROMIUM is None:
    pytestmark = pytest.mark.skip(reason="no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)")

DECLARATION = "module=Billing; database=SQL Server 2022"
WINDOW = 1300
"""The walk's window; the cell widths tried run from 600 px (JupyterLab's cell beside the file browser in a 1000 px
window) to the panel's own width in this window, every 40 px (the squeeze showed between 840 and 1040 px)."""

ROOM = """(box, text) => {
    const style = getComputedStyle(box);
    const context = document.createElement('canvas').getContext('2d');
    context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    return {text: Math.ceil(context.measureText(text).width), room: box.clientWidth - padding};
}"""
"""How wide ``text`` is in the box's font, and how much room the box has for it (its inner width, padding off)."""


@pytest.mark.timeout(300)
def test_the_message_box_holds_the_lesson_s_correction_at_every_cell_width(page):
    panel = page.locator(".browser-memory")
    box = panel.locator(".memory-panel-message textarea")
    page.set_viewport_size({"width": WINDOW, "height": VIEWPORT["height"]})
    squeezed, jumped, untidy = [], [], []
    try:
        widest = int(panel.evaluate("p => p.getBoundingClientRect().width"))
        for width in [*range(600, widest, 40), widest]:
            panel.evaluate(f"p => p.style.width = '{width}px'")
            rooms = {}
            for value in ("", DECLARATION):  # empty: the greyed-out Submit's note shows beside the box
                box.fill(value)
                page.wait_for_timeout(100)
                rooms[value] = room = box.evaluate(ROOM, DECLARATION)
                if room["room"] < room["text"]:
                    squeezed.append((width, value or "(empty)", room))
                overflow = panel.evaluate(OVERFLOW)
                if overflow != {"scroll": 0, "past": [], "cut": []}:
                    untidy.append((width, value or "(empty)", overflow))
            if rooms[""]["room"] != rooms[DECLARATION]["room"]:
                jumped.append((width, rooms[""]["room"], rooms[DECLARATION]["room"]))
        panel.evaluate("p => p.style.width = ''")
        box.fill(DECLARATION)
        screenshot(page, panel, "memory_panel_message_box_1300.png")
        box.fill("")
    finally:
        panel.evaluate("p => p.style.width = ''")
        page.set_viewport_size(VIEWPORT)
    assert not squeezed, f"{DECLARATION!r} does not fit the Message box at these cell widths: {squeezed}"
    assert not jumped, f"the box changes width when its first letter hides Submit's note: {jumped}"
    assert not untidy, f"the memory panel overflows: {untidy}"
