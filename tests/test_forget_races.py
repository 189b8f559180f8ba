"""Issue 33's forget races on a quick sample (``make stress`` runs 1,000): forgets during desk, writer and judge calls.

The forget properties (folding, matching, redaction) run with the others in ``test_trust_properties.py``.
"""

from support.forget_harness import run_forget_races


async def test_forgets_racing_desk_writer_and_judge_calls_let_nothing_forgotten_through():
    ran, violations = await run_forget_races(count=8)
    assert ran == 8 and violations == []
