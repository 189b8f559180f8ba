"""Forget while a loop is running: once ``forget`` returns, no model call starts with the forgotten fact.

A ``LoopAgent`` wraps a provider desk (``ProviderDesks``); the user declared ``module=Reporting`` a turn earlier, so
the desk's history, the loop's feedback (it quotes the desk's answers) and, with a fresh context, the session
snapshot the loop restores all carry it. ``forget module`` runs at every iteration of the loop, at each of two
moments (inside the model call, and inside the evaluator between two calls), with and without a fresh context. Every
desk call that starts after the forget returned must be sent no message that carries the forgotten fact, by the one
definition of a leak (:func:`course_lib.forgetting.carries_forgotten`: the value in any case, width, spacing or
compound, or beside its key).
"""

from collections.abc import Callable

import pytest
from agent_framework import AgentSession

from course_lib.extraction import make_extraction
from course_lib.forgetting import carries_forgotten
from course_lib.loop import DelegateLoopEvaluator, LoopAgent, LoopAgentOptions, LoopEvaluation
from course_lib.memory_models import OfflineAssistantClient
from course_lib.providers import DESK_INSTRUCTIONS, ProviderDesks

FORGOTTEN = "Reporting"
GONE = [("module", FORGOTTEN)]


def leaks(texts: list[str]) -> list[str]:
    return [t for t in texts if carries_forgotten(t, GONE)]


ITERATIONS = 4


class WatchedDesk(OfflineAssistantClient):
    """The desk model: records what each call was sent and whether it started after the forget returned."""

    def __init__(self) -> None:
        super().__init__("earliest", name="desk")
        self.calls: list[tuple[bool, list[str]]] = []
        self.forgotten = False
        self.during: dict[int, Callable[[], None]] = {}

    def answer(self, messages, options):
        self.calls.append((self.forgotten, [m.text for m in messages]))
        hook = self.during.pop(len(self.calls), None)
        if hook is not None:
            hook()
        return super().answer(messages, options)


async def desk_with_history() -> tuple[ProviderDesks, WatchedDesk]:
    client = WatchedDesk()
    console = ProviderDesks.build(make_extraction(), {"desk": client}, {"desk": DESK_INSTRUCTIONS})
    await console.handle("module=Reporting; database=PostgreSQL")
    assert {f.key for f in console.memory.facts} == {"module", "database"}
    return console, client


def echoing_evaluator(hooks: dict[int, Callable[[], None]]) -> DelegateLoopEvaluator:
    """Continues until the cap with feedback that quotes the desk's answer (so the feedback names the value)."""

    def evaluate(ctx):
        hook = hooks.pop(ctx.iteration, None)
        if hook is not None:
            hook()
        return LoopEvaluation.continue_with(f"You said: {ctx.last_response.text} Check it again.")

    return DelegateLoopEvaluator(evaluate)


MOMENTS = [("model-call", i) for i in range(1, ITERATIONS + 1)] + [("evaluator", i) for i in range(1, ITERATIONS)]
"""Inside each of the four model calls, and inside the evaluator after each of the first three (the loop does not
ask the evaluators after the last permitted iteration)."""


@pytest.mark.parametrize("fresh", [False, True], ids=["same-session", "fresh-context"])
@pytest.mark.parametrize(("moment", "iteration"), MOMENTS, ids=[f"{m}-{i}" for m, i in MOMENTS])
async def test_no_call_started_after_forget_is_sent_the_forgotten_value(fresh, moment, iteration):
    console, client = await desk_with_history()
    first_call = len(client.calls)  # the declaration turn's call

    def forget() -> None:
        event = console.forget("module")
        assert event.kind == "forget"
        client.forgotten = True

    evaluator_hooks: dict[int, Callable[[], None]] = {}
    if moment == "model-call":
        client.during[first_call + iteration] = forget
    else:
        evaluator_hooks[iteration] = forget
    options = LoopAgentOptions(max_iterations=ITERATIONS, fresh_context_per_iteration=fresh)
    loop = LoopAgent(console.agents["desk"], echoing_evaluator(evaluator_hooks), options)
    await loop.run("Which module and database am I on?", session=console.sessions["desk"])

    assert client.forgotten, "the forget never ran"
    loop_calls = client.calls[first_call:]
    assert len(loop_calls) == ITERATIONS
    before = [texts for after, texts in loop_calls if not after]
    after = [texts for after, texts in loop_calls if after]
    assert any(FORGOTTEN in t for texts in before for t in texts)  # the value was there to leak
    assert after or iteration == ITERATIONS
    for texts in after:
        assert leaks(texts) == [], f"a call started after the forget was sent {leaks(texts)!r}"
    assert "module" not in {f.key for f in console.memory.facts}


async def test_the_desk_still_sees_what_was_not_forgotten_and_a_new_declaration_counts_again():
    console, client = await desk_with_history()
    console.forget("module")
    client.forgotten = True
    loop = LoopAgent(console.agents["desk"], DelegateLoopEvaluator(lambda ctx: LoopEvaluation.stop()))
    response = await loop.run("Which module and database am I on?", session=console.sessions["desk"])
    assert "database=PostgreSQL" in response.text and not leaks([response.text])
    await console.handle("module=Reporting")  # the user says it again, after the forget: a new fact
    event = await console.handle("Which module and database am I on?")
    assert "module=Reporting" in event.reply


async def test_a_loop_on_a_session_of_its_own_is_held_to_the_forget_too():
    console, client = await desk_with_history()
    session = AgentSession()
    await console.agents["desk"].run("module=Reporting is what I use", session=session)
    hooks = {1: lambda: (console.forget("module"), setattr(client, "forgotten", True))}
    options = LoopAgentOptions(max_iterations=3)
    await LoopAgent(console.agents["desk"], echoing_evaluator(hooks), options).run("Which module?", session=session)
    assert all(leaks(texts) == [] for after, texts in client.calls if after)
