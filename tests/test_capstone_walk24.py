"""Walk 24's findings on lesson 07 (issue 32): "density, not errors" (score 4/5 twice).

1. "contract" in section 1 is defined where it is used, with a link to lesson 01.
2. Section 2 asks the reader through a helper with a plain name (``reader_answer``); the ``Message``/``options``
   plumbing is shown under the hood.
3. The glossary names lesson 07 for a verdict only where lesson 07 says it ("policy stopped").
4. Section 5's figures (answers in the battery, and how many the evaluator reads right) are printed from the
   computed battery, and the prose follows them.
5. The panel does not show an old Submit error again after a forget changed the store.
6. The exercise cells do not compute the right answer in plain sight.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from agent_framework import Message
from support.capstone_battery import BATTERY, read
from support.lesson_cells import plain_words, stored_lesson
from support.panels import said, submit
from test_lesson07_walk23 import sections  # the lesson's sections, by number

from course_lib.capstone import (
    EXERCISE_2_ANSWER,
    DriftProneAssistantClient,
    battery_score,
    capstone_policy,
    check_answer,
    exercise_expected,
    reader_answer,
    run_capstone,
)
from course_lib.capstone_panel import NOT_STORED_IN_BOX, STILL_IN_BOX, CapstonePanel
from course_lib.policies import load_timeline

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _outputs(cell: dict) -> str:
    return "\n".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def _cells() -> list[dict]:
    return stored_lesson("07")["cells"]


def _hood() -> str:
    cells = _cells()
    start = next(i for i, c in enumerate(cells) if _source(c).startswith("## Under the hood"))
    return "\n".join(_source(c) + "\n" + _outputs(c) for c in cells[start:])


# region 1. "contract" defined and linked where section 1 first uses it


def test_section_1_defines_the_contract_and_links_lesson_01() -> None:
    text = "\n".join(_source(c) for c in sections()[1] if c["cell_type"] == "markdown")
    sentence = next(s for s in re.split(r"(?<=[.:;])\s", text) if "contract" in s)
    assert "01_contract_and_store.ipynb" in sentence
    assert "rules" in sentence  # what the contract is: the rules a fact must pass


# region 2. the reader asked through a plain helper


def test_reader_answer_is_the_clients_answer_to_user_messages() -> None:
    said_ = ["module=Reporting", "module=Billing", "Which module?"]
    reader = DriftProneAssistantClient("earliest")
    plumbing = reader.answer([Message(role="user", contents=[t]) for t in said_], options={})
    assert reader_answer(reader, said_) == plumbing
    assert "module=Reporting" in plumbing  # the drift section 2 shows


def test_section_2_shows_no_message_plumbing_and_the_hood_does() -> None:
    code = "\n".join(_source(c) for c in sections()[2] if c["cell_type"] == "code")
    assert "reader_answer" in code
    for plumbing in ("Message(", "role=", "options="):
        assert plumbing not in code
    hood = _hood()
    assert "reader_answer" in hood and 'Message(role="user"' in hood and "options={}" in hood


# region 3. the glossary names lesson 07 only for what lesson 07 says


def _glossary_rows() -> list[tuple[str, str]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("**"):
            rows.append((cells[0].strip("*").split("** (")[0], cells[-1]))
    return rows


def test_every_verdict_the_glossary_gives_lesson_07_is_said_in_lesson_07() -> None:
    lesson = plain_words("\n".join(_source(c) + "\n" + _outputs(c) for c in _cells()))
    verdicts = (
        "right first time",
        "repaired",
        "partly repaired",
        "not repaired",
        "stopped at the cap",
        "policy stopped",
    )
    rows = dict(_glossary_rows())
    for term in verdicts:
        if term in rows and "lesson 07" in rows[term]:
            assert term in lesson, f"the glossary says lesson 07 shows {term!r}"
    assert "policy stopped" in rows


# region 4. section 5's figures printed from the battery


def test_battery_score_counts_the_battery_as_the_tests_read_it() -> None:
    score = battery_score()
    assert score.answers == len(BATTERY)
    assert score.right == sum(read(case) == case.verdict for case in BATTERY)
    assert score.misread == score.answers - score.right


def test_section_5_prints_the_battery_figures_its_prose_states() -> None:
    score = battery_score()
    cells = sections()[5]
    printed = "\n".join(_outputs(c) for c in cells if c["cell_type"] == "code")
    assert str(score.answers) in printed and str(score.right) in printed
    markdown = "\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")
    prose = plain_words("\n".join(line for line in markdown.splitlines() if not line.startswith("#")))
    # the prose gives no count of its own: a figure it states (not a lesson or section number) is one the cells print
    for number in re.findall(r"(?<!lesson )(?<!section )(?<!Section )\b\d+\b(?!'s)", prose):
        assert number in printed, number


# region 5. a forget clears the old Submit error


@pytest.mark.parametrize("which", ["key", "all"])
@pytest.mark.parametrize("typed", ["colour=red", "Module=Billing", "priority:P1"])
async def test_a_forget_clears_the_old_submit_error(typed: str, which: str) -> None:
    p = await CapstonePanel.from_timeline(load_timeline())
    await submit(p, typed)
    error = said(p)
    if which == "key":
        p.key.value = "module"
        p.forget_key_button.click()
    else:
        p.forget_all_button.click()
    await p.idle()
    now = said(p)
    assert now.startswith("Forgot ")
    assert STILL_IN_BOX not in now
    first = error.splitlines()[0]
    assert first not in now, "the old Submit error is shown again after the store changed"
    assert NOT_STORED_IN_BOX in now and p.message.value == typed  # the box still holds it, said in one line


# region 6. the exercise cells compute no answer in plain sight


def _exercise_cells() -> list[str]:
    cells = _cells()
    start = next(i for i, c in enumerate(cells) if _source(c).startswith("## Exercises"))
    end = next(i for i, c in enumerate(cells) if _source(c).startswith("## Key takeaways"))
    return [_source(c) for c in cells[start:end] if c["cell_type"] == "code"]


def test_the_exercise_cells_compute_no_answer() -> None:
    cells = _exercise_cells()
    assert len(cells) == 3
    for source in cells:
        for computing in ("run_capstone", "check_answer", "capstone_policy", "facts_run", ".verdict"):
            assert computing not in source
        assert "exercise_expected(" in source


def test_exercise_expected_is_what_the_sections_compute() -> None:
    timeline = load_timeline()
    question = timeline.turns[-1].user

    async def direct() -> list[object]:
        latest = await run_capstone(timeline, capstone_policy("full_history"), "latest")
        facts_run = await run_capstone(timeline, capstone_policy("facts"), "earliest")
        six = await run_capstone(timeline, capstone_policy("facts", max_facts=6), "earliest", max_facts=6)
        found = check_answer(facts_run.checks[0].facts, EXERCISE_2_ANSWER, question)
        return [latest.verdict, len(found), six.final_correct]

    async def through_helper() -> list[object]:
        return [await exercise_expected(f"Exercise {n}", timeline) for n in (1, 2, 3)]

    assert asyncio.run(through_helper()) == asyncio.run(direct())
    with pytest.raises(ValueError, match="Exercise 1, 2 and 3"):
        asyncio.run(exercise_expected("Exercise 4"))


def test_exercise_2_quotes_the_answer_it_is_checked_on() -> None:
    text = plain_words("\n".join(_source(c) for c in _cells() if _source(c).startswith("**Exercise 2.**")))
    assert EXERCISE_2_ANSWER in text
