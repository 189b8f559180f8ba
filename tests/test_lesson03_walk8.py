"""Lesson 03 as a newcomer met it on the eighth walk (issue 32): exercise 1's words on an empty message, and the
desk panel's notes said once and single-spaced."""

import re

import pytest

from course_lib.providers import try_smuggling


def words(html: str) -> str:
    return re.sub("<[^>]+>", "", html)


@pytest.mark.parametrize("message", ["", "   "])
async def test_exercise_1_says_what_to_write_for_an_empty_message(message):
    feedback = (await try_smuggling(message)).feedback.replace("\n", " ")
    assert feedback.startswith("Exercise 1: an empty line is not a turn")  # lower case after the colon, as elsewhere
    assert "in quotes, e.g. message_1 = " in feedback and "priority" not in feedback  # an example, not the answer


async def test_exercise_1_starts_every_refusal_in_lower_case_after_the_colon():
    feedback = (await try_smuggling("x" * 4097)).feedback
    assert feedback.startswith("Exercise 1: message refused")
