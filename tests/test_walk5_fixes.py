"""Fixes after the fifth walks (issue 32): each says what to change before "run the cell again"."""

import pytest
from support.panels import memory_panel, said, submit

from course_lib.exercises import EXERCISES, check, exercise


def words(text: str) -> str:
    return " ".join(text.split())


NAMED = [e for e in EXERCISES if e.choices and e.choice_noun]


@pytest.mark.parametrize("named", NAMED, ids=lambda e: f"{e.lesson} {e.label}")
def test_a_text_that_is_no_listed_name_is_told_what_to_write_before_running_again(named):
    """Walk 4, lesson 03: "'triag' is not a desk name: the two desks are ... Then run the cell again" said what was
    wrong and never what to change. Said alike for every choice exercise, whichever choice is right."""
    for expected in named.choices:
        said = words(check(named.label, "zzqx", expected, named.hint))
        assert "is not a" in said, said
        assert "Write one of them, in quotes, in place of 'zzqx'. Then run the cell again." in said, said


async def test_lesson02s_panel_puts_each_refused_part_of_a_stored_message_on_its_own_line():
    """Walk 4 (lesson 07, then lesson 02's panel): a message storing one line and refusing another showed a "Why:"
    under "Stored:", read as the stored fact's reason. Lesson 02's panel now says it as lesson 07's does."""
    panel = memory_panel()
    await submit(panel, "module=Billing\ncolour=red")
    lines = said(panel).splitlines()
    stored = next(i for i, line in enumerate(lines) if line.startswith("Stored"))
    refused = next(
        i for i, line in enumerate(lines) if line.startswith("Not read: 'colour=red' (declares nothing). Why:")
    )
    assert stored < refused and not any(line.startswith("Why:") for line in lines), lines
    assert [f.key for f in panel.memory.facts] == ["module"]


@pytest.mark.parametrize(
    ("message", "box_says"),
    [
        ("module=Billing", "The Message box is empty again: the message was stored."),
        ("module=Billing\ncolour=red", "A part that declares nothing is not kept there"),
        ("colour=red", "Your message is still in the Message box: correct it there and press Submit again."),
    ],
)
async def test_lesson02s_panel_says_what_the_message_box_holds_after_submit(message, box_says):
    """Walk 4: lesson 02's panel emptied the box after a stored message and kept a refused one, and said neither."""
    panel = memory_panel()
    await submit(panel, message)
    assert box_says in said(panel)
    assert panel.message.value == ("" if "stored" in box_says or "declares nothing" in box_says else message)


async def test_a_message_a_cell_submits_says_nothing_of_the_box():
    """A cell's own ``submit(text)`` never went through the box: the note about it would be news of nothing."""
    panel = memory_panel()
    await panel.submit("module=Billing")
    assert "Message box" not in said(panel)


@pytest.mark.parametrize("wrong", [2, 4])
def test_lesson05_exercise2_misses_do_not_give_the_answer_by_subtraction(wrong):
    """Walk 5: "That counts the caller's three input messages too" (for 4) and "That counts a feedback message too"
    (for 2) each left one subtraction to the answer. Walk 22 gives each a pointer of its own again, as a question
    that says where to look and no count (tests/test_lesson05_walk22.py)."""
    named = exercise("05", "Exercise 2")
    said = words(check(named.label, wrong, 1, named.hint))
    miss = dict(named.misses)[wrong]
    assert miss.endswith("?") or "?" in miss
    assert "too" not in said and "three" not in miss and "3" not in miss


def test_lesson05_exercise2_why_keeps_section_2s_words():
    """Section 2: the loop's response carries every response and every feedback; "only the responses come back"
    read as if feedback never did. The why says this run sent none."""
    why = exercise("05", "Exercise 2").why
    assert "only the responses" not in why and "sends no feedback" in why
