"""Lesson 04's exercise 3 on a live model (issue 32): the cell must not crash when the summary policy stopped.

A 135M summarizer cut at its 256-token cap after turn 1 raised ``SummaryRejected`` out of the exercise cell, and the
cell replayed the same turns twice (once for the summary, once for why it is that long). One replay now returns the
summary, the trim sentence and the stop; a stopped policy's "Why" says the stop in words, as the comparison does.
"""

from __future__ import annotations

from support.lesson_cells import cell_source

from course_lib.memory_models import OfflineAssistantClient, OfflineSummarizerClient
from course_lib.policies import (
    PolicyFactory,
    SummaryPolicy,
    Timeline,
    TimelineTurn,
    compare_policies,
    course_policies,
    load_timeline,
    replay_summary,
    summary_shown,
)
from course_lib.tracing import CallLog

WHY = "An extractive summary over budget drops its oldest lines first."


def _stopping_factory() -> PolicyFactory:
    """A summary policy whose summarizer writes nothing: its own rule stops it after the first turn."""

    def build(rule, log: CallLog) -> SummaryPolicy:
        return SummaryPolicy(OfflineAssistantClient(), log, OfflineSummarizerClient(240, mode="abstractive"))

    return PolicyFactory(SummaryPolicy, "summary", build)


QUESTION_LAST = Timeline(
    name="opens with a question",
    turns=[
        TimelineTurn(user="Where can I find logs?"),
        TimelineTurn(user="module=A"),
        TimelineTurn(user="Which module?", expect={"must_contain": ["A"]}),
    ],
)


async def test_one_replay_gives_the_summary_and_why_it_is_that_long():
    timeline = load_timeline()
    replay = await replay_summary(timeline, course_policies(summary_budget=200, summary_mode="extractive")["summary"])
    assert replay.stop is None and 0 < len(replay.summary) <= 200 and replay.question == timeline.questions[-1]
    tight = course_policies(summary_budget=200, summary_mode="extractive")
    comparison = await compare_policies(timeline, {"summary": tight["summary"]}, rules=["latest"])
    final = comparison.answers[comparison.answers["turn"] == replay.question]
    assert replay.correct == bool(final["correct"].iloc[0])  # graded as the comparison grades it
    assert replay.trim.startswith(f"Why {len(replay.summary)} characters: a line goes whole or not at all.")
    why = replay.why(budget=200, answer_why=WHY)
    assert why == f"{WHY}\n{summary_shown(replay.summary, budget=200)}\n{replay.trim}"


async def test_no_trim_sentence_leaves_no_empty_line():
    replay = await replay_summary(load_timeline(), course_policies(summary_budget=200)["summary"])
    assert replay.stop is None and replay.trim == ""  # one merged line: not the whole-line kind
    assert not replay.why(budget=200, answer_why=WHY).endswith("\n")


async def test_a_stopped_summary_policy_is_said_in_words_not_raised():
    replay = await replay_summary(QUESTION_LAST, _stopping_factory())
    assert replay.stop is not None and replay.stop.turn == 1 and replay.summary == replay.trim == ""
    assert replay.correct is False and replay.question == 3
    why = replay.why(budget=240, answer_why=WHY)
    assert WHY not in why  # the offline reason would be false of a run that stopped
    assert why.startswith("The summary policy stopped: ")
    assert why.endswith(
        "So the final question (turn 3) got no answer: the comparison counts it as not answered, which is wrong."
    )
    comparison = await compare_policies(QUESTION_LAST, {"summary": _stopping_factory()}, rules=["latest"])
    [stop] = comparison.stopped
    assert stop.in_words() in why  # the same words the comparison's stop says
    assert not bool(comparison.answers["correct"].iloc[0])  # so False is the right prediction


def test_the_exercise_cell_replays_once_and_never_raises_on_a_stop():
    source = cell_source("04", "cell-25")
    assert source.count("await replay_summary(") == 1 and "replay.why(" in source and "right = replay.correct" in source
    assert "compare_policies" not in source  # one replay answers and explains
    assert "summary_before_last_question" not in source and "summary_trim_sentence" not in source
