"""Lesson 06 walked again (issue 32, walk 22), its exercise 1: answer 3 (the caller's three messages, the feedback
message forgotten) was asked "Does the count still grow after the second call?", which confirms it. 3, and 6 and 8,
the other counts a misreading of the lesson's own runs gives, each get a hint of their own that points at what was
missed without the number.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from support.checker import said

from course_lib import exercises
from course_lib.exercises import exercise
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import SEED_INPUT, run_seed_demo

STILL_GROW = "Does the count still grow after the second call?"
THE_ANSWER = re.compile(r"\b4\b|\bfour\b|\bone more\b", flags=re.I)


# region 1. Exercise 1: 3, 6 and 8 each get a hint that fits the mistake behind it


async def _misreadings() -> dict[int, str]:
    """The counts a misreading of the lesson's own runs gives for exercise 1's fifth call, computed from them."""
    fresh = LoopAgentOptions(fresh_context_per_iteration=True)
    section_1, _ = await run_seed_demo(allowed=5, options=fresh)
    stepper, _ = await run_seed_demo(options=fresh, inputs=SEED_INPUT[:1])
    earlier_answers = 4  # one per call before the fifth
    return {
        len(section_1.calls[0]): "the caller's messages only, as the first call receives them",
        len(stepper.calls[1]) * len(SEED_INPUT): "the stepper's count times three",
        len(SEED_INPUT) + earlier_answers + 1: "the earlier answers sent again, with one feedback message",
    }


async def test_the_three_misreadings_are_3_6_and_8_and_none_is_the_right_count():
    misreadings = await _misreadings()
    fresh = LoopAgentOptions(fresh_context_per_iteration=True)
    right = len((await run_seed_demo(allowed=5, options=fresh))[0].calls[4])
    assert sorted(misreadings) == [3, 6, 8] and right not in misreadings


@pytest.mark.parametrize("answer", [3, 6, 8])
def test_each_misreading_has_its_own_hint_that_does_not_give_the_answer(answer):
    miss = dict(exercise("06", "Exercise 1").misses)[answer]
    assert not THE_ANSWER.search(miss), miss
    assert miss.rstrip().endswith("?")  # it asks, and the student counts


def test_the_hint_for_3_asks_what_else_is_sent_with_the_callers_three_messages_at_every_re_run():
    shown = said("06", "Exercise 1", 3, 4)
    assert "What else is sent with the caller's three messages at every re-run?" in shown
    assert STILL_GROW not in shown and "Step through section 8's stepper" not in shown
    assert not THE_ANSWER.search(shown.split("Hint: ", 1)[1])


def test_the_hint_for_6_says_only_the_callers_messages_are_three_times_as_many():
    shown = said("06", "Exercise 1", 6, 4)
    assert "stepper's count, 2, times three" in shown and "only the caller's messages" in shown
    assert STILL_GROW not in shown
    assert not THE_ANSWER.search(shown.split("Hint: ", 1)[1])


def test_the_hint_for_8_asks_whether_the_earlier_answers_are_sent_again():
    shown = said("06", "Exercise 1", 8, 4)
    assert "are the answers the model wrote in this loop sent again?" in shown
    assert not THE_ANSWER.search(shown.split("Hint: ", 1)[1])


@pytest.mark.parametrize("answer", [2, 3, 6])
def test_no_answer_whose_count_stops_growing_is_asked_whether_it_still_grows(answer):
    assert STILL_GROW not in said("06", "Exercise 1", answer, 4)


def test_every_other_answer_to_exercise_1_is_said_as_before(monkeypatch):
    now = {answer: said("06", "Exercise 1", answer, 4) for answer in range(13)}
    current = exercise("06", "Exercise 1")
    new = (3, 6, 8)
    before = dataclasses.replace(
        current,
        misses=tuple((wrong, words) for wrong, words in current.misses if wrong not in new),
        said_alone=tuple(value for value in current.said_alone if value not in new),
    )
    monkeypatch.setattr(exercises, "EXERCISES", tuple(before if e is current else e for e in exercises.EXERCISES))
    then = {answer: said("06", "Exercise 1", answer, 4) for answer in range(13)}
    assert {answer for answer in range(13) if now[answer] != then[answer]} == set(new)
    assert all(STILL_GROW in then[answer] for answer in new)  # before: the generic hint


# endregion
