"""Lesson 05, walk 19 (issue 32): the hood's exception names, exercise 3's set-up, and the note above the stepper.

1. The hood's "the seed's fake client cannot stream" cell catches Python's ``NotImplementedError`` but printed C#'s
   ``NotImplementedException`` as if it were what came: a printed exception name is Python's, and a .NET one is given
   as the seed's C# name, in every lesson.
2. Section 1 shows ``evaluate`` as ``async``; exercise 3 hands ``DelegateLoopEvaluator`` a plain function: the exercise
   says it takes either, and it does.
3. Exercise 3's set-up says plainly what ``seed_loop`` returns and what the cell reuses, as the cell does.
6. The note above the stepper was five if-this-then-that sentences: the stepper's cell now works on its own (it runs
   section 2's demo again), so the note is the shorter form ``tests/test_reading.py`` requires of such a cell, and
   nothing more.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_framework import AgentResponse, Message
from support.checker import run_each_in_a_fresh_shell
from support.lesson_cells import cell_outputs, cell_source, stored_lesson
from test_reading import PANEL_CONTROLS, WORKS_ALONE, panel_note

from course_lib.loop import DelegateLoopEvaluator, LoopAgent, LoopContext, LoopEvaluation
from course_lib.loop_demos import seed_loop

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def words(text: str) -> str:
    return " ".join(text.replace("*", "").split())


def printed_lines(number: str) -> list[str]:
    """Every line the stored outputs of lesson ``number``'s code cells print."""
    lines = []
    for cell in stored_lesson(number)["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            lines.extend(text.splitlines())
    return lines


# --- finding 1: Python's exception name is printed; the seed's C# name is said to be C#'s ---


def test_the_hood_prints_the_python_exception_it_caught_and_names_the_seeds_csharp_one_as_such():
    shown = words(cell_outputs("05", "62353460"))
    assert (
        "the seed's client, streamed: NotImplementedError (the seed's C# client throws NotImplementedException "
        "from GetStreamingResponseAsync)"
    ) in shown
    assert "streamed: NotImplementedException" not in shown
    assert "except NotImplementedError" in cell_source("05", "62353460")


def test_no_lesson_prints_a_dotnet_exception_name_without_saying_it_is_the_csharp_one():
    named = 0
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        for line in printed_lines(path.stem[:2]):
            for found in re.finditer(r"\b\w+Exception\b", line):
                named += 1
                assert "C#" in line[: found.start()], f"{path.stem}: {line!r} prints {found.group()} as Python's"
    assert named  # the hood's line names one: the rule is tested on a real line


# --- finding 2: the delegate takes a plain function or an async one, and the exercise says so ---


async def test_a_delegate_evaluator_takes_a_plain_function_or_an_async_one():
    agent, messages = seed_loop()
    context = LoopContext(agent.inner_agent, agent.create_session(), messages, AgentResponse(messages=[]))

    def plain(context: LoopContext) -> LoopEvaluation:
        return LoopEvaluation.continue_with("plain")

    async def awaited(context: LoopContext) -> LoopEvaluation:
        return LoopEvaluation.continue_with("async")

    assert (await DelegateLoopEvaluator(plain).evaluate(context)).feedback == "plain"
    assert (await DelegateLoopEvaluator(awaited).evaluate(context)).feedback == "async"


def exercise_3_setup() -> str:
    (cell,) = [c for c in stored_lesson("05")["cells"] if "".join(c["source"]).startswith("**Exercise 3.**")]
    return words("".join(cell["source"]))


def test_exercise_3_says_the_delegate_takes_a_plain_function_or_an_async_one():
    assert "a plain function, as here, or an `async` one" in exercise_3_setup()
    assert "def stop_at_5(context):" in cell_source("05", "cell-26")  # "as here": the exercise's is plain


# --- finding 3: the set-up says what seed_loop returns and what the cell reuses, as the cell does ---


def test_exercise_3_says_plainly_what_seed_loop_returns_and_what_the_cell_reuses():
    setup = exercise_3_setup()
    # walk 25's words (tests/test_lesson05_walk25.py): what seed_loop sets up, and what the cell keeps of it
    assert "`seed_loop(...)` sets up section 2's demo afresh" in setup
    assert (
        "We keep its inner agent (`seeded.inner_agent`, the agent around the numbering model) and its messages" in setup
    )
    assert "in a new `LoopAgent` whose evaluator is `stop_at_5`" in setup
    assert "We keep only its model agent" not in setup and "the cell runs that numbering model" not in setup
    # true of the code: a loop and three messages, and the new loop is built on the inner agent with stop_at_5
    loop, messages = seed_loop()
    assert isinstance(loop, LoopAgent) and len(messages) == 3 and all(isinstance(m, Message) for m in messages)
    code = cell_source("05", "cell-26")
    assert "seeded, ex_messages = seed_loop(" in code
    assert "LoopAgent(inner_agent=seeded.inner_agent,evaluators=evaluator)" in "".join(code.split())


# --- finding 6: the stepper's cell works on its own, so its note is the short required form and nothing more ---


def test_the_stepper_cell_works_alone_and_the_note_above_it_is_the_short_required_form_only():
    cells = stored_lesson("05")["cells"]
    (index,) = [i for i, c in enumerate(cells) if c.get("id") == "cell-19"]
    panel = "".join(cells[index]["source"])
    assert panel.startswith(WORKS_ALONE) and "LoopStepper(" in panel
    above = "".join(cells[index - 1]["source"])
    notes = re.findall(r"^\*(.+?)\*$", above, flags=re.M | re.S)
    assert [words(note) for note in notes] == [panel_note(PANEL_CONTROLS["LoopStepper"], alone=True)]


def test_the_stepper_cell_runs_in_a_fresh_kernel_and_shows_section_2s_run():
    (said,) = run_each_in_a_fresh_shell([cell_source("05", "cell-19") + "\nprint(stepper.summary())"])
    assert "Traceback" not in said and "Error" not in said, said[-2000:]
    assert "Step 1 of 6: the model (LLM), call 1, answered [4] Response message from LLM." in said
    shown = json.dumps(next(c for c in stored_lesson("05")["cells"] if c.get("id") == "cell-19")["outputs"])
    assert "Loop stepper" in shown
