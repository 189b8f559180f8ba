"""Lesson 03's desk panel, walk 24 (issue 32): the chat column keeps a fact's recorded time on one line.

The chat wraps anywhere in a long run (so a 400-character line never passes the column's edge), and that broke
``2026-12-04T19:35:52+00:00`` after ``mem`` across two lines. Every time the chat shows is now one unbreakable
span; the rest of the line still wraps."""

from __future__ import annotations

import re

from support.panels import send, two_desks

from course_lib.widgets import TRANSCRIPT_STYLE, chat_times_whole

ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[+-]\d{2}:\d{2}|Z)?")


async def test_mem_in_the_chat_keeps_each_recorded_time_on_one_line() -> None:
    panel = two_desks()
    await send(panel, "module=Billing; database=SQL Server 2022")
    await send(panel, "mem")
    shown = panel.transcript[-1]
    times = ISO_TIME.findall(re.sub(r"<[^>]+>", "", shown))
    assert len(times) == 2  # one per fact
    for time in times:
        assert f'<span style="white-space: nowrap">{time}</span>' in shown, time
    assert "overflow-wrap: anywhere" in TRANSCRIPT_STYLE  # the rest of a line still wraps within the column


def test_the_rule_holds_for_any_time_and_leaves_other_text_alone() -> None:
    said = "recorded 2026-01-02T03:04:05+00:00 and 1999-12-31T23:59:59Z; turn 3; 12:30"
    whole = chat_times_whole(said)
    assert whole.count("white-space: nowrap") == 2
    assert re.sub(r"<[^>]+>", "", whole) == said
    assert chat_times_whole("no time here: module=Billing") == "no time here: module=Billing"
