"""Lesson 06 walked again (issue 32, walk 21, all polish): the hood names MAF without calling it a Python library
that has a C# edition, the stepper says "the same 1 message" (never a bare count that reads like a label),
exercise 1 answers the stepper's own count 2 with a hint of its own, the other options' table is read after the
lesson says what a non-streaming run is, and the hood's options paragraph says the clones in short sentences."""

from __future__ import annotations

import dataclasses
import html
import re

import pytest
from support.checker import said
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib import exercises
from course_lib.exercises import check, exercise
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import SEED_INPUT, run_seed_demo
from course_lib.loop_panels import LoopStepper


def _words(text: str) -> str:
    return " ".join(text.replace("*", "").split()).replace("`", "")


# region 1. The hood names MAF as a framework of two editions, and MAF Python as the course's library


def test_the_hood_says_maf_exists_for_c_sharp_and_python_and_which_edition_the_course_runs_on():
    head = _words(cell_source("06", "hood-head"))
    assert "the Python library the course's agents run on) in its C# edition" not in head
    assert (
        "MAF (the Microsoft Agent Framework, which exists for C# and for Python) in its C# edition, MAF .NET, whose "
        "LoopAgent the course's loop re-creates; MAF Python is the library the course's agents run on." in head
    )


# region 2. The stepper: a section the same as at an earlier step is counted in messages, singular or plural


async def _stepper(inputs: int) -> LoopStepper:
    fresh = LoopAgentOptions(fresh_context_per_iteration=True)
    trace, _ = await run_seed_demo(options=fresh, inputs=SEED_INPUT[:inputs])
    return LoopStepper(trace)


def _view_at(stepper: LoopStepper, step: int) -> str:
    stepper.slider.value = step
    stepper.render()
    return stepper.view.value


@pytest.mark.parametrize(("inputs", "words"), [(1, "1 message"), (2, "2 messages"), (3, "3 messages")])
async def test_the_stepper_counts_the_unchanged_initial_messages_as_messages(inputs, words):
    stepper = await _stepper(inputs)
    assert stepper.slider.max == 6
    for step in (4, 6):  # the evaluator's second and third steps: its initial messages are those of step 2
        view = _view_at(stepper, step)
        assert f"<b>Initial messages</b>: the same {words} as at step 2</div>" in view, view
        assert not re.search(r"the same \d+ as at step", view)
    assert "the same" not in _view_at(stepper, 2)  # listed in full the first time


async def test_lesson_06s_stepper_says_the_same_1_message_at_steps_4_and_6():
    stepper = await _stepper(1)  # section 8's run: the caller sends only the first input message
    said_at = {step: _view_at(stepper, step) for step in (4, 6)}
    assert all("the same 1 message as at step 2" in view for view in said_at.values())
    assert "LoopStepper(trace_one)" in cell_source("06", "cell-20") and "SEED_INPUT[:1]" in cell_source("06", "cell-20")


# region 3. Exercise 1: the stepper's count 2 gets a hint of its own; every other answer is said as before


async def test_what_the_hint_for_2_says_is_true_of_the_lessons_runs():
    fresh = LoopAgentOptions(fresh_context_per_iteration=True)
    stepper_trace, _ = await run_seed_demo(options=fresh, inputs=SEED_INPUT[:1])
    assert [len(call) for call in stepper_trace.calls] == [1, 2, 2]  # 2 at the stepper's second and third calls
    section_1, _ = await run_seed_demo(options=fresh)
    assert len(section_1.calls[0]) == len(SEED_INPUT) == 3  # section 1's demo sends 3
    assert "This run: 3 model calls" in cell_outputs("06", "cell-20") and "1, 2, 2." in cell_outputs("06", "cell-20")


def test_exercise_1_answers_2_with_its_own_hint_that_does_not_give_the_answer():
    miss = dict(exercise("06", "Exercise 1").misses)[2]
    assert miss.startswith("2 is the count the stepper shows at its second and third calls")
    assert "its caller sends 1 message" in miss and "How many does section 1's caller send" in miss
    assert "re-run" in miss and miss.endswith("?")
    assert not re.search(r"\b4\b|\bfour\b", miss, flags=re.I)
    shown = said("06", "Exercise 1", 2, 4)
    assert shown == f"Exercise 1: not quite. Hint: {miss}"  # the panel is not sent back to: the student read it right
    assert "Step through section 8's stepper" not in shown


def test_every_other_answer_to_exercise_1_is_said_as_before(monkeypatch):
    now = {answer: said("06", "Exercise 1", answer, 4) for answer in range(13)}
    current = exercise("06", "Exercise 1")
    before = dataclasses.replace(
        current,
        misses=tuple((wrong, words) for wrong, words in current.misses if wrong != 2),
        said_alone=tuple(value for value in current.said_alone if value != 2),
    )
    monkeypatch.setattr(exercises, "EXERCISES", tuple(before if e is current else e for e in exercises.EXERCISES))
    then = {answer: said("06", "Exercise 1", answer, 4) for answer in range(13)}
    assert {answer for answer in range(13) if now[answer] != then[answer]} == {2}
    assert now[4].startswith("Exercise 1: correct.")
    assert then[2] == then[1]  # before: the generic hint, as for any answer foreseen by no miss


def test_the_hint_for_2_has_the_shape_of_every_wrong_answers():
    shown = check("Exercise 1", 2, 4, exercise("06", "Exercise 1").hint, namespace={"In": ["", "answer_1 = 2"]})
    other = check("Exercise 1", 7, 4, exercise("06", "Exercise 1").hint, namespace={"In": ["", "answer_1 = 7"]})
    assert shown.split("\n")[0] == other.split("\n")[0] == "Exercise 1: not quite."
    assert shown.split("\n")[1].startswith("Hint: ") and other.split("\n")[1].startswith("Hint: ")


# region 4. The other options' table: a non-streaming run is said before the table's row names it


def test_the_other_options_say_what_a_non_streaming_run_is_before_the_table():
    cells = stored_lesson("06")["cells"]
    ids = [c.get("id") for c in cells]
    above = _words(cell_source("06", "other-options"))
    assert ids.index("other-options") + 1 == ids.index("other-options-table")
    assert (  # walk 22: what a non-streaming run is, then what the option does, in short sentences
        "A non-streaming run is one called without stream=True. Every run so far is one; section 2 shows a run with "
        "stream=True. The option non_streaming_returns_last_response_only changes only such runs" in above
    )
    assert ids.index("other-options") < ids.index("cell-06")  # section 2, where streaming is explained
    table = html.unescape(cell_outputs("06", "other-options-table"))
    assert "non_streaming_returns_last_response_only=True" in table
    earlier = " ".join("".join(c["source"]) for c in cells[: ids.index("other-options")] if c["cell_type"] == "code")
    assert "stream=True" not in earlier  # "every run so far" is without it


# region 5. The hood's options paragraph: short sentences, each true of what the cells print


def _last_options_row() -> list[str]:
    table = cell_outputs("06", "other-options-table")
    rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", rows[-1])]


def test_the_options_paragraph_says_the_clones_in_short_sentences_true_of_the_outputs():
    detail = _words(cell_source("06", "hood-options"))
    assert "(section 1's table of the other options runs this" not in detail
    parentheses = re.findall(r"\(([^)]*)\)", detail)
    assert all(len(inside.split()) <= 8 for inside in parentheses), parentheses
    sentences = re.split(r"(?<=[.;])\s+", detail)
    assert max(len(s.split()) for s in sentences) <= 32, max(sentences, key=len)
    assert (
        "With fresh_context_per_iteration and a caller's session, the caller's session is serialized once into a "
        "snapshot, and each re-invocation (each iteration after the first) runs on a clone restored from it." in detail
    )
    assert (
        "Section 1's table of the other options runs this in its last row: 3 iterations, so 2 re-invocations and 2 "
        "sessions created, the 2 clones." in detail
    )
    assert (
        "The first iteration runs on the caller's session itself, which the loop did not create; the last part of "
        "this section shows it." in detail
    )
    row = _last_options_row()
    assert row[0] == "fresh_context_per_iteration=True + the caller's session"
    assert row[2].startswith("5 messages: 3 answers") and row[3] == "2"  # 3 answers, so 3 iterations; 2 clones
    assert re.search(r"and (\d+) sessions created", detail).group(1) == row[3]
    last = cell_outputs("06", "5b60f168")
    assert "iteration 1: the caller's own session" in last
    assert last.count("a session rebuilt from the snapshot") == 2
    cells = stored_lesson("06")["cells"]
    assert cells[-1].get("id") == "5b60f168"  # "the last part of this section"
