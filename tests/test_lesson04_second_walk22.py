"""Lesson 04's second walk 22 (issue 32): a new student's findings, each held by its rule.

1. Run All time: section 6 times each replay twice (the faster kept) instead of three times (a median).
2. Section 6's bullets say a live model's 2,880 calls as a hypothetical: the replays never run on one.
3. Section 4's note on the facts policy's tokens is one sentence; its arithmetic is under the hood.
4. Section 2's facts bullet names the explorer's *facts (5)* without the *facts (4)* aside.
5. Exercise 1's "Why" names the policy as a name: "The 'last 9 turns' policy's answer at turn 10".
6. Exercise 3's "Why" says why its summary is so far under its budget, computed from the summarizer's rewrites.
7. Section 3b: "Section 4 shows how a small real model's attempt stopped at turn 1."
"""

from __future__ import annotations

import asyncio
import re

import pytest
from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words

from course_lib import policies
from course_lib.policies import (
    TIMINGS,
    ScalingRow,
    compare_policies,
    course_policies,
    load_timeline,
    measure_scaling,
    replay_summary,
    time_range_sentence,
)
from course_lib.presentation import answers_by_rule
from course_lib.recordings import facts_gap_note, facts_gap_sentence, load_facts_tokens, load_policy_costs


def _ids() -> list[str]:
    return [c.get("id", "") for c in stored_lesson("04")["cells"]]


# region Finding 1: two timings a replay, the faster kept


def test_section_6_times_each_replay_twice_and_keeps_the_faster(monkeypatch):
    assert TIMINGS == 2
    ticks = iter([0.0, 5.0, 10.0, 11.0])  # round 1 takes 5 s, round 2 takes 1 s
    monkeypatch.setattr(policies.time, "process_time", lambda: next(ticks))
    one = {"full history": course_policies()["full history"]}
    [row] = asyncio.run(measure_scaling([4], one, timings=2))
    assert (row.timings, row.cpu_seconds) == (2, 1.0)  # a busy spell only adds time: the faster run is kept


def test_the_time_range_and_the_markdown_say_the_faster_of_two():
    rows = [ScalingRow(10, "facts", 1, 1, 10, 0.01, 2), ScalingRow(200, "facts", 1, 1, 200, 0.2, 2)]
    assert "Each time is the fastest of 2 runs of the same replay." in time_range_sentence(rows)
    assert "median" not in time_range_sentence(rows)
    assert "Each point is the faster of two timings of one replay" in words(cell_source("04", "24cbe9cf"))
    printed = cell_outputs("04", "hood-replay-calls-code")  # walk 24: under the hood
    assert "Each replay ran 2 times" in printed


# endregion
# region Finding 2: the live model's calls, a hypothetical


def test_section_6_says_the_live_calls_as_a_hypothetical():
    # walk 24: the student's path says only that the replays use the offline models; the count is under the hood
    bullets = words(cell_source("04", "e5bb8ddc").split("## 6.")[1])
    assert "These replays always use the offline models." in bullets and "live model" not in bullets
    printed = cell_outputs("04", "hood-replay-calls-code")
    calls = re.search(r"([\d,]+) model calls in all", printed).group(1)
    assert f"a live model would answer each of the {calls} calls once" in printed


# endregion
# region Finding 3: one sentence on the path, the arithmetic under the hood


def test_the_facts_gap_is_one_sentence_on_the_path_and_counted_out_under_the_hood():
    recording, counted = load_policy_costs(), load_facts_tokens()
    sentence, note = facts_gap_sentence(recording, counted), facts_gap_note(recording, counted)
    assert sentence.count(". ") == 0 and "a token for each digit and sign" in sentence
    assert "under the hood at the end of the lesson" in sentence
    path = words(cell_outputs("04", "0dfdbc21"))
    assert words(sentence) in path and "1050 tokens" not in path and words(note) not in path
    ids = _ids()
    assert ids.index("hood-facts-tokens-code") > ids.index("hood-reducer")
    assert words(note) in words(cell_outputs("04", "hood-facts-tokens-code"))


def test_the_facts_gap_sentence_explains_nothing_for_another_count():
    recording, counted = load_policy_costs(), load_facts_tokens()
    other = counted.model_copy(update={"calls": counted.calls[1:]})
    assert facts_gap_sentence(recording, other) == facts_gap_note(recording, other)
    assert "does not explain that gap" in facts_gap_sentence(recording, other)


# endregion
# region Finding 4: section 2's facts bullet


def test_section_2_names_facts_5_without_an_aside():
    section_2 = words(cell_source("04", "cell-02").split("## 2.")[1])
    assert (
        "*facts* sends the bounded store of lessons 01-02, at most 5 facts; section 7's explorer lets you change "
        "the bound and names it *facts (5)*." in section_2
    )
    assert "*facts (4)*" not in section_2


# endregion
# region Finding 5: exercise 1's "Why" names the policy


async def test_answers_by_rule_names_the_policy_as_a_name():
    wide = await compare_policies(load_timeline(), {"last 9 turns": course_policies(window=9)["last 9 turns"]})
    assert answers_by_rule(wide.answers, 10).split("\n")[0] == (
        "The 'last 9 turns' policy's answer at turn 10, rule by rule:"
    )


# endregion
# region Finding 6: exercise 3's "Why" says why the summary is so far under its budget


async def test_the_trim_sentence_is_computed_from_the_summarizers_rewrites():
    timeline = load_timeline()
    tight = course_policies(summary_budget=200, summary_mode="extractive")["summary"]
    replay = await replay_summary(timeline, tight)
    summary, said = replay.summary, replay.trim
    prohibition = "constraint=never restart the production database during business hours"
    assert said.startswith(f"Why {len(summary)} characters: a line goes whole or not at all.")
    over, trimmed = map(int, re.search(r"took the summary to (\d+) characters.*took it to (\d+)", said).groups())
    cut = int(re.search(r"\((\d+) characters with the line breaks\)", said).group(1))
    assert over > 200 >= trimmed and over - cut == trimmed and prohibition in said
    assert said.endswith(f"added {len(summary) - trimmed}: {len(summary)}.")
    abstractive = course_policies(summary_budget=200)["summary"]
    assert (await replay_summary(timeline, abstractive)).trim == ""  # one merged line: not the whole-line kind
    with pytest.raises(TypeError, match="needs a summary policy"):
        await replay_summary(timeline, course_policies()["facts"])
    assert "replay_summary(timeline, budget_200[" in cell_source("04", "cell-25")


# endregion
# region Finding 7: section 3b's pointer to section 4


def test_section_3b_says_how_the_attempt_stopped():
    text = words(cell_source("04", "44536822"))
    assert "Section 4 shows how a small real model" not in text  # second walk 25 cut the pointer
    assert "attempt stop at turn" not in text


# endregion
