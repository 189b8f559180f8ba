"""Lesson 05 and the loop stepper, walk 19 (issue 32).

1. The cell that drives a stepper of its own printed "Step 3 of 6: the model (LLM), call 2, answered [5] ...", the
   answer of exercise 3 (how many model calls before the first answer holding ``[5]``) in the exercise's own words.
   No line printed before the exercises states an exercise's answer in the words the exercise asks about; the
   answers are computed by running what each exercise cell runs, not copied.
2. Section 2 said "not MAF for Python, which has none" without saying which MAF has one: the lesson says
   "MAF for .NET (C#)" there and in the note after section 1.
3. The stepper's "Session: new (1 of 1)" left "(1 of 1)" unexplained: a run's only session is "the only one this run
   creates", and one of several is "session 1 of 3 this run creates" (lesson 06's fresh context).
4. The top cell links async/await to its glossary entry, and section 2 says a Jupyter cell may use ``await``
   directly.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_outputs, cell_source, stored_lesson
from support.loop_runs import stop_at_5_trace

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import LoopTrace, run_seed_demo
from course_lib.loop_panels import LoopStepper, session_words

# --- finding 1: nothing printed before the exercises answers one ---


async def lesson_05_answers() -> tuple[int, int, int]:
    """The three exercises' answers, computed as the exercise cells compute them."""
    trace_4, _ = await run_seed_demo(allowed=4)
    _, response_1 = await run_seed_demo(allowed=1)
    trace = await stop_at_5_trace()
    return len(trace_4.calls[-1]), len(response_1.messages), len(trace.calls)


def answer_patterns(answers: tuple[int, int, int]) -> dict[str, re.Pattern]:
    """Each exercise's answer as a printed line would state it, in the words its question uses.

    1. messages the model receives at a call: "9 messages"; 2. messages the response holds: "1 message";
    3. model calls until the answer holding [5]: a line naming "[5]" and "call 2" (or "2 calls", "called 2 times").
    """
    first, second, third = answers
    calls = rf"(?:\bcall {third}\b|\b{third} (?:model )?calls\b|\bcalled {third} times\b)"
    return {
        "Exercise 1": re.compile(rf"(?<![\[\d]){first} messages?\b"),
        "Exercise 2": re.compile(rf"(?<![\[\d]){second} message\b(?!s)"),
        "Exercise 3": re.compile(rf"\[5\].*{calls}|{calls}.*\[5\]"),
    }


def printed_before_the_exercises(number: str) -> list[str]:
    """Every line the code cells before the "## Exercises" heading print (streams and plain text)."""
    lines = []
    for cell in stored_lesson(number)["cells"]:
        if cell["cell_type"] == "markdown" and "".join(cell["source"]).startswith("## Exercises"):
            return lines
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            lines.extend(text.splitlines())
    raise AssertionError(f"lesson {number} has no '## Exercises' heading")


def answered(lines: list[str], patterns: dict[str, re.Pattern]) -> list[tuple[str, str]]:
    return [(label, line) for line in lines for label, pattern in patterns.items() if pattern.search(line)]


async def test_the_answers_are_the_instructors():
    assert await lesson_05_answers() == (9, 1, 2)


async def test_the_patterns_catch_an_answer_stated_in_the_exercises_words():
    patterns = answer_patterns(await lesson_05_answers())
    planted = [
        "Step 3 of 6: the model (LLM), call 2, answered [5] Response message from LLM.",
        "The model received 9 messages at its last call.",
        "The loop's response holds 1 message.",
        "[5] came after 2 model calls.",
    ]
    assert [label for label, _ in answered(planted, patterns)] == [f"Exercise {n}" for n in (3, 1, 2, 3)]
    harmless = [
        "Step 6 of 6: the evaluator, iteration 3 (after call 3), decided: stop.",
        "[5]Response message.",
        "they make 5 messages.",
        "Incoming messages (3 messages)",
    ]
    assert answered(harmless, patterns) == []


async def test_no_line_printed_before_lesson_05s_exercises_states_an_answer():
    found = answered(printed_before_the_exercises("05"), answer_patterns(await lesson_05_answers()))
    assert not found, f"printed before the exercises, an answer in the exercise's words: {found}"


async def test_every_step_of_the_demo_steppers_summary_is_checked_and_the_cell_prints_a_harmless_one():
    """The cell may print any step that states no answer: the last one does not; the third did."""
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    patterns = answer_patterns(await lesson_05_answers())
    summaries = []
    for value in range(1, stepper.slider.max + 1):
        stepper.slider.value = value
        summaries.append(stepper.summary())
    assert [n for n, line in enumerate(summaries, 1) if answered([line], patterns)] == [3]
    assert "demo_stepper.summary()" in cell_source("05", "cell-20")
    # walk 22: the cell is under the hood now; what it prints is still the harmless last step
    assert [line for line in cell_outputs("05", "cell-20").splitlines() if line.startswith("Step ")] == [summaries[-1]]
    assert not [line for line in printed_before_the_exercises("05") if line.startswith("Step ")]


# --- finding 2: which MAF has a LoopAgent ---


def markdown(number: str, cell_id: str) -> str:
    return " ".join(cell_source(number, cell_id).split())


def test_lesson_05_says_which_maf_has_a_loop_agent_before_the_hood():
    # walk 22: the path says MAF Python has none and the course provides one; the C# original is under the hood
    # walk 25: in fewer words on the path, in full under the hood (tests/test_lesson05_walk25.py)
    assert "(MAF for Python has none)" in markdown("05", "cell-00")  # second walk 25: in the intro
    assert "MAF for Python has no `LoopAgent` class;" in markdown("05", "hood-head")
    section_2 = markdown("05", "cell-06")
    assert "which has none" not in section_2
    assert "contradicts" not in section_2 and "C#" not in section_2  # walk 22: said under the hood only
    assert "MAF for .NET, written in C#" in markdown("05", "hood-head")


# --- finding 3: the session line says what its count means ---


def session_line(trace: LoopTrace, step: int) -> str:
    return session_words(trace, step).removeprefix("<div><b>Session</b>: ").removesuffix("</div>")


def model_session_lines(trace: LoopTrace) -> list[str]:
    return [session_line(trace, row.step) for row in trace.rows if row.actor == "LLM"]


async def test_a_runs_only_session_is_said_to_be_the_only_one_it_creates():
    trace, _ = await run_seed_demo()
    assert model_session_lines(trace) == [
        "new (the only one this run creates)",
        "the same as the call before",
        "the same as the call before",
    ]
    stepper = LoopStepper(trace)
    assert "<b>Session</b>: new (the only one this run creates)" in stepper.view.value
    assert "1 of 1" not in stepper.view.value


async def test_one_of_several_sessions_is_counted_among_those_the_run_creates():
    fresh = LoopAgentOptions(fresh_context_per_iteration=True)
    trace, _ = await run_seed_demo(options=fresh)
    assert model_session_lines(trace) == [f"new (session {n} of 3 this run creates)" for n in (1, 2, 3)]
    with_callers, _ = await run_seed_demo(options=fresh, caller_session=True)
    assert model_session_lines(with_callers)[1:] == [f"new (session {n} of 2 this run creates)" for n in (1, 2)]
    once, _ = await run_seed_demo(allowed=2, options=fresh, caller_session=True)
    assert model_session_lines(once)[1:] == ["new (the only one this run creates)"]


def test_lesson_05s_saved_stepper_shows_the_new_words():
    state = stored_lesson("05")["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    values = [m["state"].get("value", "") for m in state.values() if m["model_name"] == "HTMLModel"]
    assert any("new (the only one this run creates)" in v for v in values)
    assert not any("1 of 1" in v for v in values)


# --- finding 4: async/await at its glossary entry, and await in a cell ---


def test_the_top_cell_links_async_await_and_section_2_says_a_cell_may_await():
    assert "[async and await](../docs/glossary.md#async-await)" in markdown("05", "cell-00")  # walk 22: plain words
    assert "Jupyter lets a cell use `await` directly" in markdown("05", "cell-06")
