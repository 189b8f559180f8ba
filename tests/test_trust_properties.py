"""The three promises as properties, on a quick sample (``make stress`` runs the same checks at scale).

Issue 33's forget families (``support/forget_harness.py``: folding, matching, redaction) run here beside them.

Each property is a plain check in ``trust_harness`` that returns the violations it found; here
hypothesis feeds it hostile input and the test demands none. The interleaving tests push random
schedules of turns and forgets through each real path.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from support.forget_harness import FORGET_PROPERTIES
from support.trust_harness import PATHS, PROPERTIES, run_interleavings

QUICK = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", [*PROPERTIES, *FORGET_PROPERTIES])
def test_the_property_holds_on_a_quick_sample(name):
    strategy, check = {**PROPERTIES, **FORGET_PROPERTIES}[name]

    @QUICK
    @given(strategy)
    def holds(value):
        assert check(value) == []

    holds()


@pytest.mark.parametrize("path", list(PATHS))
async def test_random_interleavings_of_turns_and_forgets_keep_every_promise(path):
    ran, violations = await run_interleavings(path, count=6)
    assert ran == 6 and violations == []
