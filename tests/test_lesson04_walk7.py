"""Lesson 04's seventh student walk (issue 32): the items that could mislead, each checked at its rule.

The prompt-size plot's title fits its figure under every rule and beside the panel's longest legend; a total that a
turn-by-turn plot contradicts says from which turn; the time sentence gives this run's range instead of prose guessing
it; exercise 1's "Why" shows the window is right only because of the latest rule; the lesson says what a generated
timeline's turns hold, what the offline summarizer and reader really do, and why MAF's sliding window leaves 8 messages
unflagged.
"""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest
from test_student_path import lesson

from course_lib.exercises import exercise
from course_lib.policies import (
    RULES,
    ScalingRow,
    compare_policies,
    course_policies,
    load_timeline,
    time_growth_sentence,
    time_range_sentence,
)
from course_lib.presentation import answers_by_rule, plot_prompt_sizes, where_the_characters_go

matplotlib.use("Agg")

LESSON = "04_memory_policies_compared"


def _cell(cell_id: str) -> str:
    return next(c.source for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _words(cell_id: str) -> str:
    return " ".join(_cell(cell_id).split())


@pytest.mark.parametrize("rule", RULES)
async def test_the_prompt_plots_title_and_legend_fit_the_figure_under_every_rule_with_the_longest_labels(rule):
    window = len(load_timeline().turns)  # the panel's widest window: every legend label says "same as full history"
    policies = course_policies(window=window, max_facts=10)
    calls = (await compare_policies(load_timeline(), policies, rules=[rule])).calls
    fig = plot_prompt_sizes(calls, rule=rule)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    ax = fig.axes[0]
    for part in (ax.title, ax.get_legend()):
        box = part.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= fig.bbox.width, f"{part} is cut at the figure's edge: {box}"


def test_a_total_the_plot_contradicts_says_from_which_turn_the_runner_up_sends_more():
    def calls(per_turn: dict[str, list[int]]) -> pd.DataFrame:
        rows = [
            {"rule": "latest", "call": "reader", "policy": policy, "turn": turn, "chars_sent": chars}
            for policy, sizes in per_turn.items()
            for turn, chars in enumerate(sizes, start=1)
        ]
        usage = {f"reported_{kind}_tokens": "unknown" for kind in ("input", "output", "total")}
        return pd.DataFrame(rows).assign(visible="", **{"estimated tokens (chars / 4)": 0}, **usage)

    def said(per_turn: dict[str, list[int]]) -> str:
        return where_the_characters_go(calls(per_turn))

    overtaken = said({"facts": [300, 800, 850, 860], "full history": [150, 500, 900, 1200]})
    assert (
        "then full history (2750): that is in total over these 4 turns; from turn 3 on, full history sends" in overtaken
    )
    assert "at turns 2 and 4, b sends the reader more" in said({"a": [9, 1, 9, 1], "b": [1, 2, 1, 2]})
    assert "; at turn 3, b sends the reader more" in said({"a": [9, 9, 1], "b": [1, 1, 2]})
    assert "then b (2); the a policy sends the reader more at each of these 2 turns too" in said(
        {"a": [5, 5], "b": [1, 1]}
    )


def test_the_time_range_is_said_from_the_run_and_no_prose_guesses_its_size():
    rows = [ScalingRow(10, "facts", 0, 0, 10, 0.0025), ScalingRow(200, "full history", 0, 0, 200, 0.44)]
    assert time_range_sentence(rows).startswith("In these replays, a turn took from 0.25 ms to 2.2 ms of CPU time")
    assert "took 1 ms of CPU" in time_range_sentence([ScalingRow(10, "facts", 0, 0, 10, 0.01)])
    with pytest.raises(ValueError, match="No replays"):
        time_range_sentence([])
    noisy = [ScalingRow(n, p, 0, 0, n, n / 1000) for n in (10, 200) for p in ("full history", "facts")]
    assert "few milliseconds" not in time_growth_sentence(noisy) and "times this short" in time_growth_sentence(noisy)


async def test_exercise_1s_why_says_the_wide_window_is_right_only_because_of_the_latest_rule():
    why = exercise("04", "Exercise 1").why
    assert "turn 1's superseded Reporting and PostgreSQL" in why and "right only because the latest rule" in why
    timeline = load_timeline()
    last_9 = {"last 9 turns": course_policies(window=9)["last 9 turns"]}
    wide = await compare_policies(timeline, last_9)
    visible = wide.calls[(wide.calls["turn"] == 10) & (wide.calls["call"] == "reader")]["visible"]
    assert all("module: Reporting, Billing; database: PostgreSQL, SQL Server 2022" in v for v in visible)
    lines = answers_by_rule(wide.answers, 10).split("\n")
    assert lines == [
        "The last 9 turns answer at turn 10, rule by rule:",
        "- latest: correct",
        "- earliest: wrong, it lacks Billing, SQL Server 2022; holds Reporting, PostgreSQL",
        "- most frequent: wrong, it lacks Billing, SQL Server 2022; holds Reporting, PostgreSQL",
    ]
    both = await compare_policies(timeline, course_policies(window=9), rules=["latest"])
    with pytest.raises(ValueError, match="one policy's answers"):
        answers_by_rule(both.answers, 10)
