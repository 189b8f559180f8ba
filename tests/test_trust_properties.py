"""The three promises as properties, on a quick sample (``make stress`` runs the same checks at scale).

Each property is a plain check in ``trust_harness`` that returns the violations it found; here
hypothesis feeds it hostile input and the test demands none. The interleaving tests push random
schedules of turns and forgets through each real path.
"""

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trust_harness import (
    PATHS,
    contract_violations,
    extraction_operation,
    extraction_violations,
    facts_strategy,
    fence_violations,
    message_text,
    run_interleavings,
    store_operation,
    store_violations,
)

QUICK = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(message_text)
def test_the_contract_reads_every_line_break_alike_and_names_its_refusals(text):
    assert contract_violations(text) == []


@QUICK
@given(facts_strategy)
def test_the_block_fences_whatever_a_fact_holds(facts):
    assert fence_violations(facts) == []


@QUICK
@given(st.lists(store_operation, max_size=20))
def test_the_store_keeps_every_promise_over_operation_sequences(operations):
    assert store_violations(operations) == []


@QUICK
@given(st.lists(extraction_operation, max_size=16))
def test_concurrent_extractions_keep_every_promise(operations):
    assert asyncio.run(extraction_violations(operations)) == []


@pytest.mark.parametrize("path", list(PATHS))
async def test_random_interleavings_of_turns_and_forgets_keep_every_promise(path):
    ran, violations = await run_interleavings(path, count=6)
    assert ran == 6 and violations == []
