"""Lesson 07, walk 19 (issue 32): the panel's "This answer stands" reason says what is true of the answer, and the
source the hood prints never wraps at a common screen width.

* An answer about a key the store no longer holds gets "no longer in the store", whether it names the key or only a
  value that key held ("We are on Reporting." after Forget key module); "leaves a fact out" only when the answer
  really states nothing for a stored fact.
* The words of a stored constraint quoted in an answer are not the answer planning an action.
* Every line a getsource cell of lesson 07 prints fits in 100 characters.
"""

import inspect
import json
import re
from pathlib import Path

from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.answer_reader import check_answer, planner
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction

LESSON = next(Path(__file__).resolve().parents[1].glob("notebooks/07_*.ipynb"))
RULE = "never restart the production database during business hours"


def panel(task: int = 1) -> CapstonePanel:
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = task
    return p


async def run(p: CapstonePanel, *, answer: str = "", forget: str | None = None) -> str:
    if forget:
        p.key.value = forget
        p.forget_key_button.click()
    await p.idle()
    p.answer.value = answer
    p.check_button.click()
    await p.idle()
    return p.verdict.value


async def test_a_value_a_forgotten_key_held_is_named_no_longer_in_the_store():
    for answer in ("We are on Reporting.", "We are on Billing.", "The module is Reporting."):
        said = await run(panel(), forget="module", answer=answer)
        assert "No violation" in said, answer
        assert "module is no longer in the store, so there is nothing to hold that part" in said, answer
        assert "leaves a fact out" not in said, answer


async def test_leaves_a_fact_out_only_when_the_answer_states_nothing_for_a_stored_fact():
    p = panel()
    said = await run(p, answer="We are on Billing.")
    assert "No violation" in said and "leaves a fact out" in said
    held = p.extraction.memory.facts
    every = "; ".join(f"{f.key}={f.value}" for f in held) + "."
    said = await run(p, answer=every)
    assert "No violation" in said and "leaves a fact out" not in said
    assert "states every stored fact" in said


def test_a_quoted_constraint_is_not_the_answer_planning_an_action():
    store = lesson_store()
    facts = store.facts
    assert planner("Plan the fix.", f"Billing, SQL Server 2022; {RULE}.", facts) == "the task"
    assert planner("Which module?", f"Billing; {RULE}.", facts) is None
    close = "Billing; do not restart the production database in business hours."
    assert planner("Which module?", close, facts) is None  # the constraint in close words: still its own words
    # an action of the answer's own still counts, beside the constraint or in the same clause
    assert planner("Which module?", f"Patch Billing, but {RULE}.", facts) == "your answer"
    assert planner("Which module?", "Restart the production database during business hours.", facts) == "your answer"
    (missing,) = check_answer(facts, "Restart the production database tonight.", "Which module?")
    assert missing.planned_by == "your answer"


async def test_the_panel_does_not_say_the_answer_plans_when_it_quotes_the_constraint():
    said = await run(panel(0), answer=f"Billing, SQL Server 2022; {RULE}.")
    assert "No violation" in said
    assert "(the task plans an action)" in said and "your answer plan" not in said


def _getsource_lines(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    printed = []
    for cell in cells:
        if cell["cell_type"] == "code" and "getsource" in "".join(cell["source"]):
            for out in cell.get("outputs", []):
                printed += "".join(out.get("text", "")).splitlines()
    return printed


def test_every_line_a_getsource_cell_prints_fits_in_100_characters():
    from course_lib.capstone import FactsConsistencyEvaluator

    source = inspect.getsource(FactsConsistencyEvaluator.evaluate).splitlines()
    assert max(len(line) for line in source) <= 100
    printed = _getsource_lines(LESSON)
    assert printed and max(len(line) for line in printed) <= 100
    assert any(re.search(r"feedback=feedback,?$", line) for line in printed)


async def test_wrapping_panel_text_is_single_spaced_not_at_an_input_rows_height():
    """A widget's HTML is laid out at an input row's height (28 px): a wrapped line needs a block's line height."""
    from course_lib.widgets import MemoryPanel

    p = panel()
    p.answer.value = ""
    notes = [p.submit_note.value, MemoryPanel(make_extraction(lesson_store())).submit_note.value]
    for note in notes:
        assert "Submit stays off" in note and re.match(r"<div style=\"[^\"]*line-height", note)
    headings = [w.value for w in p.children if "1. The store" in str(getattr(w, "value", ""))]
    headings += [w.value for w in p.children if "2. An answer to check" in str(getattr(w, "value", ""))]
    assert len(headings) == 2 and all("line-height" in h for h in headings)


def test_the_hood_says_a_quoted_constraint_plans_nothing():
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = " ".join(" ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").split())
    assert "The constraint's own words are not an action planned" in text
    store = lesson_store()
    assert check_answer(store.facts, f"Billing; {RULE}.", "Which module?") == []
    assert planner("Which module?", f"Patch Billing, but {RULE}.", store.facts) == "your answer"


async def test_the_verdict_and_the_feedback_are_single_spaced_when_they_wrap():
    p = panel()
    said = await run(p, answer="We are on Billing.")
    assert "This answer stands" in said and said.startswith("<section style='line-height")
    await run(p, answer="module=Reporting")
    assert p.feedback.value.startswith("<section style='line-height") and "What the loop sends back" in p.feedback.value
