"""Loop runs several lesson tests replay exactly as a lesson's cell runs them."""

from __future__ import annotations

from course_lib.loop import DelegateLoopEvaluator, LoopAgent, LoopEvaluation
from course_lib.loop_demos import LoopTrace, seed_loop


async def stop_at_5_trace() -> LoopTrace:
    """Lesson 05's exercise 3: section 2's demo in a loop that stops once an answer carries ``[5]``; its trace."""

    def stop_at_5(context):
        if "[5]" in context.last_response.text:
            return LoopEvaluation.stop()
        return LoopEvaluation.continue_with("keep going")

    trace = LoopTrace()
    seeded, messages = seed_loop(trace=trace)
    await LoopAgent(inner_agent=seeded.inner_agent, evaluators=DelegateLoopEvaluator(stop_at_5)).run(messages)
    return trace
