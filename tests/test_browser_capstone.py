"""Lesson 07's panel in real headless Chromium, in the lesson itself as `make present` serves it (Voila).

Voila runs the whole lesson (its code hidden, as in presenter mode), so the test sees the panel where a student
meets it, after everything above it has run. Each step clicks as a student would and keeps a screenshot in
``tests/artifacts/``. Chromium and the helpers are those of ``tests/test_browser.py``.
"""

import os
from pathlib import Path

import pytest
from test_browser import CHROMIUM, chromium_page, screenshot, voila

ROOT = Path(__file__).resolve().parent.parent
LESSON = "07_loop_held_to_the_facts.ipynb"

if CHROMIUM is None:
    pytestmark = pytest.mark.skip(reason="no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)")


@pytest.fixture(scope="module")
def page():
    """`make present`'s command (voila notebooks --strip_sources=True), offline; the lesson open once it has run."""
    offline = {**os.environ, "COURSE_LLM": "offline"}
    with voila(ROOT, "notebooks", "--strip_sources=True", env=offline) as url:
        lesson = f"{url}voila/render/{LESSON}"
        with chromium_page(lesson, ".capstone-panel .capstone-panel-examples select", seconds=180) as page:
            yield page


def choose(panel, name: str, label: str) -> None:
    panel.locator(f".capstone-panel-{name} select").select_option(label=label)


@pytest.mark.timeout(300)
def test_the_lesson_in_presenter_mode_shows_the_panel_and_a_stale_answer_gets_its_violations(page):
    from playwright.sync_api import expect

    panel = page.locator(".capstone-panel")
    expect(panel.locator(".memory-panel-facts")).to_contain_text("SQL Server 2022")
    expect(panel.locator(".capstone-panel-replaced")).to_contain_text('module: "Reporting"')
    expect(panel.locator(".capstone-panel-replaced")).to_contain_text('database: "PostgreSQL"')
    check = panel.get_by_role("button", name="Check answer")
    expect(check).to_be_disabled()
    expect(panel.locator(".capstone-panel-verdict")).to_contain_text(
        "Check answer is off while the Answer box is empty"
    )
    expect(page.get_by_text("The same panel driven from code")).to_have_count(0)  # no text over a hidden cell
    choose(panel, "examples", "a stale one")
    expect(panel.locator(".capstone-panel-answer textarea")).to_have_value(
        "The module is Reporting and the database is PostgreSQL: restart it tonight."
    )
    check.click()
    verdict = panel.locator(".capstone-panel-verdict")
    expect(verdict).to_contain_text("3 violations", timeout=60_000)
    expect(verdict.locator("table")).to_contain_text("a correction replaced")
    expect(verdict.locator("table")).to_contain_text("the task and your answer plan an action")
    feedback = panel.locator(".capstone-panel-feedback")
    expect(feedback).to_contain_text("[facts check] Your answer disagrees with the controlled facts")
    expect(feedback).to_contain_text("LoopAgent")
    screenshot(page, panel, "capstone_panel_stale.png")


@pytest.mark.timeout(300)
def test_a_correction_clears_the_verdict_and_makes_the_old_value_stale(page):
    from playwright.sync_api import expect

    panel = page.locator(".capstone-panel")
    choose(panel, "task", "Which module and database are we on?")
    picked = panel.locator(".capstone-panel-examples select option:checked")
    expect(picked).to_have_text("(pick an answer to fill the box)")  # other answers to try: none picked yet
    choose(panel, "examples", "a stale one")  # under a question, an answer that plans nothing
    box = panel.locator(".capstone-panel-answer textarea")
    expect(box).to_have_value("The module is Reporting and the database is PostgreSQL.")
    box.fill("module=Billing")  # typed over the example: the menu no longer names it
    expect(picked).to_have_text("(pick an answer to fill the box)")
    panel.get_by_role("button", name="Check answer").click()
    verdict = panel.locator(".capstone-panel-verdict")
    expect(verdict).to_contain_text("No violation", timeout=60_000)
    panel.locator(".memory-panel-message textarea").fill("module=Payroll")
    panel.get_by_role("button", name="Submit").click()
    expect(panel.locator(".memory-panel-facts")).to_contain_text("Payroll", timeout=60_000)
    expect(verdict).to_contain_text("Press Check answer")  # the verdict answered the store before
    replaced = panel.locator(".capstone-panel-replaced")
    expect(replaced).to_contain_text('module: "Reporting" (replaced at turn 6), "Billing" (replaced at turn 10)')
    panel.get_by_role("button", name="Check answer").click()
    expect(verdict).to_contain_text("1 violation", timeout=60_000)
    expect(verdict.locator("table")).to_contain_text('the user said "module=Payroll" at turn 10')
    panel.locator(".memory-panel-facts").scroll_into_view_if_needed()
    panel.locator("select").first.select_option("module")
    panel.get_by_role("button", name="Forget key").click()
    expect(panel.locator(".memory-panel-facts")).not_to_contain_text("Payroll", timeout=60_000)
    panel.get_by_role("button", name="Check answer").click()
    expect(verdict).to_contain_text("No violation", timeout=60_000)  # a forgotten key is held against nothing
    screenshot(page, panel, "capstone_panel_corrected.png")


@pytest.mark.timeout(300)
def test_odd_answers_stay_inside_the_panel_and_a_refusal_names_its_rule(page):
    from playwright.sync_api import expect

    panel = page.locator(".capstone-panel")
    box = panel.locator(".capstone-panel-answer textarea")
    verdict = panel.locator(".capstone-panel-verdict")
    check = panel.get_by_role("button", name="Check answer")
    odd = "| key | value |\n|---|---|\n| database | <b>PostgreSQL</b> |\n\n# Datenbank \u2014 " + "\U0001f680" * 50
    box.fill(odd + " database=" + "Reporting" * 200)
    check.click()
    expect(verdict).to_contain_text("violation", timeout=60_000)
    expect(verdict.locator("b", has_text="PostgreSQL")).to_have_count(0)  # the answer's HTML is shown as typed
    assert verdict.evaluate("v => v.scrollWidth <= v.clientWidth + 1"), "the verdict runs off the panel's edge"
    feedback = panel.locator(".capstone-panel-feedback")
    assert feedback.evaluate("f => f.scrollWidth <= f.clientWidth + 1"), "the feedback runs off the panel's edge"
    screenshot(page, panel, "capstone_panel_odd.png")
    box.fill("x" * 20_001)
    check.click()
    expect(verdict).to_contain_text("Refused:", timeout=60_000)
    expect(verdict).to_contain_text("at most 20,000 characters")
    box.fill("   ")
    expect(check).to_be_disabled()
