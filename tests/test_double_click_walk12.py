"""A double click starts one run (issue 32, the round-12 fix reports): lesson 07's Check answer and lesson 04's Run
scheduled a coroutine per click, and the second click arrived before the first run had turned the button off."""

from __future__ import annotations

import pytest

from course_lib import capstone_panel, widgets
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.policies import load_timeline
from course_lib.widgets import PolicyExplorer


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    async def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return await real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


async def test_a_double_click_on_check_answer_checks_once(monkeypatch):
    calls = _counting(monkeypatch, capstone_panel, "check_in_loop")
    p = CapstonePanel(make_extraction())
    p.message.value = "module=Billing"
    p.submit_button.click()
    await p.idle()
    p.answer.value = "We are on Billing."
    p.check_button.click()
    p.check_button.click()  # the second half, sent before the first check has begun
    await p.idle()
    assert len(calls) == 1 and p.verdict.value
    assert not p.check_button.disabled  # on again once the check ended: a later click checks again
    p.check_button.click()
    await p.idle()
    assert len(calls) == 2


async def test_a_double_click_on_the_policy_explorers_run_runs_once(monkeypatch):
    calls = _counting(monkeypatch, widgets, "compare_policies")
    explorer = PolicyExplorer(load_timeline())
    explorer.run_button.click()
    explorer.run_button.click()
    await explorer.idle()
    assert len(calls) == 1 and explorer.comparison is not None
    assert not explorer.run_button.disabled


async def test_lesson_02s_panel_says_a_value_declared_again_unchanged_only_moved_its_turn():
    """Lesson 07's walk found "Stored: module." alone for a value the store already held; lesson 07's panel got a
    note, and lessons 02 and 03's panels, whose Submit it extends, gave none: the note is now the memory panel's."""
    from course_lib.widgets import MemoryPanel

    p = MemoryPanel(make_extraction())
    for _ in range(2):
        p.message.value = "module=Billing"
        p.submit_button.click()
        await p.idle()
    said = p.diagnostic.value.replace("&quot;", '"')
    assert 'module: "Billing" is the same value as before: nothing was replaced, only its turn moved' in said
    assert "(from turn 1 to turn 2)" in said
