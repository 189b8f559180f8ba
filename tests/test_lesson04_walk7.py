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
from test_student_path import hood_index, lesson

from course_lib.clients import make_chat_client
from course_lib.exercises import exercise
from course_lib.policies import (
    RULES,
    ScalingRow,
    compare_policies,
    course_policies,
    generate_timeline,
    load_timeline,
    time_growth_sentence,
    time_range_sentence,
)
from course_lib.presentation import answers_by_rule, plot_prompt_sizes, where_the_characters_go
from course_lib.tracing import CallLog

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
    assert "then full history (2750), in total over these 4 turns. From turn 3 on, full history sends" in overtaken
    assert "At turns 2 and 4, b sends the reader more." in said({"a": [9, 1, 9, 1], "b": [1, 2, 1, 2]})
    assert ". At turn 3, b sends the reader more." in said({"a": [9, 9, 1], "b": [1, 1, 2]})
    assert "then b (2), in total over these 2 turns. At none of these 2 turns does b send the reader more." in said(
        {"a": [5, 5], "b": [1, 1]}
    )


async def test_the_lessons_cost_sentence_says_when_full_history_overtakes_the_facts():
    comparison = await compare_policies(load_timeline(), rules=["latest"])
    reader = comparison.calls[comparison.calls["call"] == "reader"]
    sizes = reader.pivot_table(index="turn", columns="policy", values="chars_sent")
    larger = [int(turn) for turn in sizes.index if sizes.loc[turn, "full history"] > sizes.loc[turn, "facts"]]
    assert larger == list(range(larger[0], 11)) and larger[0] > 1  # overtaken once, for good
    sentence = where_the_characters_go(comparison.calls)
    assert f"in total over these 10 turns. From turn {larger[0]} on, full history sends the reader more" in sentence
    words = _words("cell-11")
    assert words.startswith("In total, the facts reader receives more characters") and "Not at every turn" in words


def test_the_time_range_is_said_from_the_run_and_no_prose_guesses_its_size():
    rows = [ScalingRow(10, "facts", 0, 0, 10, 0.0025), ScalingRow(200, "full history", 0, 0, 200, 0.44)]
    assert time_range_sentence(rows).startswith("In these replays, a turn took from 0.25 ms to 2.2 ms of CPU time")
    assert "took 1 ms of CPU" in time_range_sentence([ScalingRow(10, "facts", 0, 0, 10, 0.01)])
    with pytest.raises(ValueError, match="No replays"):
        time_range_sentence([])
    noisy = [ScalingRow(n, p, 0, 0, n, n / 1000) for n in (10, 200) for p in ("full history", "facts")]
    assert "few milliseconds" not in time_growth_sentence(noisy) and "times this short" in time_growth_sentence(noisy)
    cells = lesson(LESSON).cells
    words = "\n".join(c.source for c in cells[: hood_index(cells)])
    assert "few milliseconds" not in words and "time_range_sentence(replays)" in _cell("l04-time-sentence")


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
        "The 'last 9 turns' policy's answer at turn 10, rule by rule:",
        "- latest: correct",
        "- earliest: wrong: missing Billing, SQL Server 2022; names forbidden Reporting, PostgreSQL",
        "- most frequent: wrong: missing Billing, SQL Server 2022; names forbidden Reporting, PostgreSQL",
    ]
    both = await compare_policies(timeline, course_policies(window=9), rules=["latest"])
    with pytest.raises(ValueError, match="one policy's answers"):
        answers_by_rule(both.answers, 10)
    assert "answers_by_rule(wide.answers, final_turn)" in _cell("cell-21")


def test_the_lesson_says_what_a_generated_timelines_turns_hold():
    turns = [turn.user for turn in generate_timeline(40).turns]
    assert turns[0].splitlines() == ["product=Contoso Invoicing", "module=Reporting", "database=PostgreSQL"]
    assert turns[1].startswith("constraint=") and turns[19] == "module=Billing; database=SQL Server 2022"
    assert turns[2:4] == ["symptom=symptom value 3", "log=log value 4"] and turns[8] == "symptom=symptom value 9"
    assert turns[-1].startswith("Plan the fix")
    words = _words("l04-hood-summary-stop")  # walk 24: the stopped summary moved under the hood
    for said in ("turn 20 the correction", "turn 40 asks the final question", "`symptom=symptom value 3`"):
        assert said in words
    assert "`log=log value 4`" in words and "every six turns" in words


def test_the_summary_section_says_what_the_offline_summarizer_and_reader_really_do():
    words = _words("44536822")
    assert "imitates mistakes real summarizers can make" in words and "the way real summarizers do" not in words
    answer = _words("d28c1efa")
    assert "answer is plausible" not in answer
    assert "repeats the blended values as if they were facts" in answer
    assert "forget an old prohibition" in answer  # the claim map's F03 quote stays


async def test_maf_sliding_windows_unflagged_count_is_the_kept_groups_plus_the_exchange_saved_after_it():
    from agent_framework import Agent, CompactionProvider, InMemoryHistoryProvider, SlidingWindowStrategy

    counts = {}
    for order in ("history first", "compaction first"):
        log = CallLog()
        compaction = CompactionProvider(after_strategy=SlidingWindowStrategy(keep_last_groups=6))
        history = InMemoryHistoryProvider(skip_excluded=True)
        providers = [history, compaction] if order == "history first" else [compaction, history]
        agent = Agent(client=make_chat_client("reader", log=log), name="reader", context_providers=providers)
        session = agent.create_session()
        for turn in load_timeline().turns:
            await agent.run(turn.user, session=session)
        stored = session.to_dict()["state"][InMemoryHistoryProvider.DEFAULT_SOURCE_ID]["messages"]
        flagged = [bool(m["additional_properties"].get("_excluded")) for m in stored]
        counts[order] = (len(stored), sum(flagged), len(log.calls[-1].messages), any(flagged[-2:]))
    assert counts["history first"] == (20, 12, 9, False)  # the lesson's order: 6 kept + the 2 saved after
    assert counts["compaction first"][1] == 14  # the other order keeps only the 6 groups
    words = _words("hood-after-f37")
    assert "6 + 2 = 8 unflagged and 20 \u2212 8 = 12 flagged" in words and "reverse order of the list" in words
    assert "SlidingWindowStrategy(keep_last_groups=6)" in _cell("80dc9063")
