"""Issue 33's families on a quick sample (``make stress`` runs the same checks at scale): fold, match, redaction, races.

Each property is a plain check in ``support/forget_harness.py`` that returns the violations it found; hypothesis
feeds it input and the test demands none. The races push forgets through desk, writer and judge calls.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from support.forget_harness import FORGET_PROPERTIES, run_forget_races

QUICK = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", list(FORGET_PROPERTIES))
def test_the_property_holds_on_a_quick_sample(name):
    strategy, check = FORGET_PROPERTIES[name]

    @QUICK
    @given(strategy)
    def holds(value):
        assert check(value) == []

    holds()


async def test_forgets_racing_desk_writer_and_judge_calls_let_nothing_forgotten_through():
    ran, violations = await run_forget_races(count=8)
    assert ran == 8 and violations == []
