"""Lesson 07's walk 22 in real headless Chromium: the Answer box shows a Markdown answer in rows, not a line and a
half, and the panel stays tidy (the box no wider than the panel). Its screenshot is kept in ``tests/artifacts/``."""

import re

import pytest
from test_browser_capstone import CHROMIUM, choose, page, screenshot

__all__ = ["page"]  # the lesson served by Voila, opened once (test_browser_capstone's fixture)

if CHROMIUM is None:
    pytestmark = pytest.mark.skip(reason="no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)")


@pytest.mark.timeout(300)
def test_the_answer_box_shows_the_markdown_answer_s_title_and_table(page):

    from playwright.sync_api import expect

    panel = page.locator(".capstone-panel")
    choose(panel, "task", "Which module and database are we on?")  # the walk's task, *ask*
    choose(panel, "examples", "Markdown and a table")
    box = panel.locator(".capstone-panel-answer textarea")
    expect(box).to_have_value(re.compile(r"^\*\*Where we are\*\*"), timeout=30_000)
    size = box.evaluate(
        "b => ({rows: b.rows, height: b.clientHeight, line: parseFloat(getComputedStyle(b).lineHeight) || 16,"
        " right: b.getBoundingClientRect().right})"
    )
    assert size["rows"] == 5 and size["height"] >= 4 * size["line"], size
    assert size["right"] <= panel.bounding_box()["x"] + panel.bounding_box()["width"] + 1, size
    screenshot(page, panel, "capstone_panel_markdown_answer.png")
