"""The loop stepper, walk 19 (issue 32).

3. The stepper's "Session: new (1 of 1)" left "(1 of 1)" unexplained: a run's only session is "the only one this run
   creates", and one of several is "session 1 of 3 this run creates" (lesson 06's fresh context).
"""

from __future__ import annotations

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import LoopTrace, run_seed_demo
from course_lib.loop_panels import LoopStepper, session_words

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
