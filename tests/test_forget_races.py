"""Issue 33's forget races on a quick sample (``make stress`` runs 1,000): forgets during desk, writer and judge calls.

The forget properties (folding, matching, redaction) run with the others in ``test_trust_properties.py``.
"""

from collections import Counter

from support.forget_harness import run_forget_races


async def test_forgets_racing_desk_writer_and_judge_calls_let_nothing_forgotten_through():
    seen: Counter[str] = Counter()
    _, violations = await run_forget_races(count=8, seen=seen)
    assert violations == []
    # the sample raced what it claims: every role was called and checked, and forgets removed facts mid-race
    roles = ("desk", "writer", "judge")
    assert all(seen[f"{role} calls checked"] > 0 for role in roles), seen
    assert seen["forgets that removed a fact"] > 0, seen
