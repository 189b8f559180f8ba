"""Lesson 03's desk panel in Chromium, walk 24 (issue 32): after ``mem`` the chat keeps each fact's recorded time
(``2026-12-04T19:35:52+00:00``) on one line, in a cell as narrow as JupyterLab's beside the file browser, and the
panel still overflows nothing."""

from __future__ import annotations

import pytest
from test_browser import LAB_CELL_WIDTH, OVERFLOW, voila_cell_page

CELL = """from course_lib.providers import course_provider_desks
from course_lib.tracing import CallLog
from course_lib.widgets import DeskPanel

desk = DeskPanel(course_provider_desks(CallLog(), ("triage", "operations")))
desk.add_class("browser-desk")
desk"""

TIME_LINES = r"""box => {
    const times = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[+-]\d{2}:\d{2}|Z)?/g;
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.data.matchAll(times)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
            found.push([match[0], tops.size]);
        }
    }
    return found;
}"""
"""Each time the transcript shows, with the number of lines it is drawn on."""


@pytest.mark.timeout(240)
def test_each_recorded_time_in_the_chat_stays_on_one_line_in_a_narrow_cell(tmp_path):
    from playwright.sync_api import expect

    with voila_cell_page(tmp_path, CELL, ".browser-desk") as page:
        panel = page.locator(".browser-desk")
        panel.evaluate(f"panel => panel.style.width = '{LAB_CELL_WIDTH}px'")
        line = panel.locator(".widget-text input")
        for text in ("module=Billing; database=SQL Server 2022; customer=Fabrikam; priority=P1", "mem"):
            line.fill(text)
            line.press("Enter")
            expect(line).to_have_value("", timeout=60_000)
        box = panel.locator(".desk-transcript")
        expect(box).to_contain_text("recorded", timeout=60_000)
        times = box.evaluate(TIME_LINES)
        assert len(times) == 4, times  # one per fact
        assert all(lines == 1 for _, lines in times), f"a time broke across lines: {times}"
        assert panel.evaluate(OVERFLOW) == {"scroll": 0, "past": [], "cut": []}
