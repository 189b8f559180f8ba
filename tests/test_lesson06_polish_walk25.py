"""Lesson 06's polish after walk 25 (issue 32): the sentence above the other options' table says what each row
does, computed from ``OTHER_OPTIONS``; section 1 defines a session before the option that makes new ones; section 4
says what the evaluator sees at iteration 2; the note above the stepper says its cell runs the one-message run
itself; section 6 says a spent budget still allows one model call, as the loop does it."""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta

from course_lib.loop import LoopAgentOptions, LoopExitReason
from course_lib.loop_demos import OTHER_OPTIONS, LoopTrace, seed_loop
from tests.support.lesson_cells import cell_source, words

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _changed(options: LoopAgentOptions) -> list[str]:
    default = LoopAgentOptions()
    return [f.name for f in dataclasses.fields(options) if getattr(options, f.name) != getattr(default, f.name)]


# 1. The other options: what each row does, as OTHER_OPTIONS builds it


def test_the_other_options_sentence_says_what_each_row_does():
    said = words(cell_source("06", "other-options"))
    assert "Each row changes one default; the last two also pass" not in said
    found = re.search(
        r"Rows 1-(\d) each change one default; rows (\d)-(\d) pass the caller's session, row (\d) with a fresh "
        r"context\.",
        said,
    )
    assert found, said
    last_alone, first_session, last_session, fresh_row = (int(n) for n in found.groups())
    rows = list(OTHER_OPTIONS.values())
    assert last_session == len(rows) and first_session == last_alone + 1
    for number, (options, with_session, _) in enumerate(rows, start=1):
        changed = _changed(options)
        assert with_session == (number >= first_session), number
        if number <= last_alone:
            assert len(changed) == 1, (number, changed)
        elif number == fresh_row:
            assert changed == ["fresh_context_per_iteration"], changed
        else:
            assert changed == [], (number, changed)


# 2. Section 1 defines a session before the option's bullet


def test_section_1_defines_a_session_before_the_fresh_context_bullet():
    said = words(cell_source("06", "cell-02"))
    definition = "A *session* is where an agent keeps one conversation's history."
    assert definition in said
    assert "`fresh_context_per_iteration`: a *session*" not in said
    assert said.index(definition) < said.index("* `fresh_context_per_iteration`: with `True`")


# 3. Section 4 says what the evaluator sees at iteration 2, in the table's words


def test_section_4_says_the_evaluator_sees_the_entry_at_iteration_2():
    said = words(cell_source("06", "cell-11"))
    assert (
        "The feedback log still gets an entry for that iteration, with no text, so at iteration 2 the evaluator "
        'sees that entry, shown as "(no feedback: explicit messages)".' in said
    )
    assert "(no feedback: explicit messages)" in "".join(
        "".join(output.get("data", {}).get("text/html", ""))
        for cell in _cells()
        if cell.get("id") == "cell-12"
        for output in cell.get("outputs", [])
    )


def _cells() -> list[dict]:
    from tests.support.lesson_cells import stored_lesson

    return stored_lesson("06")["cells"]


# 4. The stepper's note: its cell runs the one-message version itself


def test_the_stepper_note_says_its_cell_runs_the_one_message_version_itself():
    said = words(cell_source("06", "cell-19"))
    assert "runs section 1's fresh-context run again" not in said
    assert "The panel's cell runs this one-message version itself, so it works on its own." in said
    panel = cell_source("06", "cell-20")
    assert "run_seed_demo(options=fresh, inputs=SEED_INPUT[:1])" in panel


# 5. Section 6: a spent budget still allows one model call, because the check comes after the call


def test_section_6_says_a_spent_budget_still_allows_one_call():
    said = words(cell_source("06", "899da325"))
    assert (
        "The loop checks the budgets and the cap (`max_iterations`) right after each model call, so even a spent "
        "budget allows one call." in said
    )


async def test_a_spent_time_budget_allows_exactly_one_model_call_and_no_evaluation():
    trace = LoopTrace()
    spent = LoopAgentOptions(max_duration=timedelta(microseconds=1))
    seeded, messages = seed_loop(allowed=99, options=spent, trace=trace)
    response = await seeded.run(messages)
    assert len(trace.calls) == 1 and trace.evaluations == 0
    assert response.additional_properties.get(LoopExitReason.ADDITIONAL_PROPERTIES_KEY) == (
        LoopExitReason.TIME_BUDGET_EXCEEDED
    )
