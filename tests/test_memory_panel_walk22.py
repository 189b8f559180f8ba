"""The memory panel's correction note after lessons 02 and 03's walk 22 (issue 32).

After a refused message, a value declared again unchanged was told "nothing was replaced, only its turn moved (from
turn 1 to turn 3)": the student did not know why the turn jumped by two. A refused message still counts as a turn.
When the two turns are not consecutive, the same note now says so, short; consecutive turns keep the note as it was.
"""

from datetime import UTC, datetime

import pytest
from support.panels import memory_panel, submit

from course_lib.extraction import ExtractionReport
from course_lib.memory import Fact
from course_lib.widgets import TURNS_SKIPPED, correction_notes

COUNTED = TURNS_SKIPPED
MOVED = 'module: "Billing" is the same value as before: nothing was replaced, only its turn moved'


def _said(panel) -> str:
    return panel.diagnostic.value.replace("&quot;", '"')


async def test_after_a_refused_message_the_turn_jump_is_explained():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    await submit(panel, "module=" + "x" * 300)  # refused: over the value limit, still a turn
    assert "Not stored" in _said(panel)
    await submit(panel, "module=Billing")
    assert f"{MOVED} (from turn 1 to turn 3). {COUNTED}" in _said(panel)


async def test_consecutive_turns_need_no_explanation():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    await submit(panel, "module=Billing")
    said = _said(panel)
    assert f"{MOVED} (from turn 1 to turn 2)." in said
    assert "counts as a turn" not in said


@pytest.mark.parametrize(("was", "now", "explained"), [(1, 2, False), (1, 3, True), (2, 4, True), (4, 9, True)])
def test_the_rule_is_read_from_the_two_turns(was, now, explained):
    """The walk's own turns, 2 then 4, and others: the note adds the sentence exactly when the turns skip one."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    before = Fact(key="module", value="Billing", evidence="module=Billing", turn=was, recorded_at=at)
    after = before.model_copy(update={"turn": now})
    report = ExtractionReport(status="accepted", facts=(after,), diagnostic="", turn=now)
    (note,) = correction_notes([before], report)
    assert note.startswith(f"{MOVED} (from turn {was} to turn {now}).")
    assert (COUNTED in note) is explained
