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
    assert feedback.startswith(
        "Exercise 1: an empty message gives the desk nothing to answer"
    )  # lower case after the colon, as elsewhere
    assert "in quotes, e.g. message_1 = " in feedback and "priority" not in feedback  # an example, not the answer


async def test_exercise_1_starts_every_refusal_in_lower_case_after_the_colon():
    feedback = (await try_smuggling("x" * 4097)).feedback
    assert feedback.startswith("Exercise 1: message refused")


# --- the desk panel ---


async def test_sends_note_is_single_spaced_like_submits():
    from course_lib.widgets import SEND_DISABLED_NOTE, SINGLE_SPACED
    from tests.support.panels import two_desks

    panel = two_desks()
    # a widget's HTML is laid out at an input row's height (28 px): a note of two lines needs its own block spacing
    assert SEND_DISABLED_NOTE in panel.send_note.value and panel.send_note.value.startswith(
        f"<section style='{SINGLE_SPACED}'>"
    )


async def test_a_refusal_is_said_in_full_once_in_the_chat_and_only_pointed_to_under_the_box():
    from course_lib.widgets import REFUSAL_IN_CHAT
    from tests.support.panels import send, two_desks

    panel = two_desks()
    await send(panel, "forget color")
    assert "Cannot forget 'color'" in words(panel.transcript[-1])
    under_the_box = words(panel.error.value)
    assert "Cannot forget" not in under_the_box and REFUSAL_IN_CHAT in under_the_box
    assert len(under_the_box) < 80  # a short line, not the rule again
    assert panel.line.value == "forget color"  # kept to correct


def test_the_chat_takes_more_of_the_spare_width_than_the_store():
    from tests.support.panels import two_desks

    panel = two_desks()
    chat, store = panel.children
    assert int(chat.layout.flex.split()[0]) > int(store.layout.flex.split()[0])
