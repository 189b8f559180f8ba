"""Lesson 04's policies run the way several walk tests need them: one replay's last reader call, and a prompt-size
frame built from made-up lines (so a note's rule is tried on data other than the lesson's)."""

from __future__ import annotations

import pandas as pd

from course_lib.policies import course_policies, load_timeline, run_policy
from course_lib.tracing import CallLog


async def last_reader_call(label: str) -> tuple[int, int]:
    """(user messages, earlier exchanges) in ``label``'s last reader call on the lesson's timeline, rule *latest*."""
    timeline, log = load_timeline(), CallLog()
    policy = course_policies()[label]("latest", log)
    await run_policy(timeline, policy, log, "latest")
    last = [call for call in log.calls if call.client == "reader"][-1]
    return sum(m.role == "user" for m in last.messages), sum(m.role == "assistant" for m in last.messages)


def sizes_frame(values: dict[str, list[int]]) -> pd.DataFrame:
    """The reader's characters sent per turn, one line per made-up policy, as ``compare_policies`` lays them out."""
    rows = [
        {"policy": policy, "rule": "latest", "call": "reader", "turn": turn, "chars_sent": value}
        for policy, line in values.items()
        for turn, value in enumerate(line, start=1)
    ]
    return pd.DataFrame(rows)
