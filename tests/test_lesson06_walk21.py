"""Lesson 06 walked again (issue 32, walk 21, all polish): the hood names MAF without calling it a Python library
that has a C# edition, the stepper says "the same 1 message" (never a bare count that reads like a label),
exercise 1 answers the stepper's own count 2 with a hint of its own, the other options' table is read after the
lesson says what a non-streaming run is, and the hood's options paragraph says the clones in short sentences."""

from __future__ import annotations

import re

import pytest
from support.lesson_cells import cell_source

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import SEED_INPUT, run_seed_demo
from course_lib.loop_panels import LoopStepper


def _words(text: str) -> str:
    return " ".join(text.replace("*", "").split()).replace("`", "")


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
