"""Lesson 06 walked again (issue 32, this file's walk 19): what section 7 says of ``AgentLoopMiddleware`` without a
session is shown by a cell, exercise 1's miss for 5 is true of the trace it speaks of, each comment of a cell sits
next to the code it describes, and the budgets table shows the evaluator left unasked once a budget or the cap ends
the run."""

from __future__ import annotations

import re
import warnings

import pytest
from support.checker import said
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.exercises import exercise
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import SEED_INPUT, LoopTrace, run_middleware_demo, run_seed_demo, seed_loop

warnings.filterwarnings("ignore", message=".*AgentLoopMiddleware is experimental.*")

NUDGE = "Continue working on the task. If it is complete, say so."


def _words(text: str) -> str:
    return " ".join(text.split()).replace("`", "")


def _student_cells() -> list[dict]:
    cells = stored_lesson("06")["cells"]
    return cells[: next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))]


# region 1. Without a session the middleware sends the whole progress log, and the lesson shows it


async def test_without_a_session_the_third_input_is_the_whole_progress_log_and_the_nudge():
    trace, _ = await run_middleware_demo(with_session=False)
    third = trace.calls[2]
    assert len(third) == 2
    log, nudge = third
    assert log == "Progress so far:\n- [4]Response message from LLM.\n- [5]Response message from LLM."
    assert nudge == NUDGE
    assert not any(text in " ".join(third) for text, _ in SEED_INPUT)  # none of the caller's messages
    with_session, _ = await run_middleware_demo(with_session=True)
    assert with_session.calls[2][-2] == "Progress so far:\n- [5]Response message from LLM."  # the latest entry only


def test_section_7_shows_the_no_session_third_input_after_saying_what_to_look_for():
    cells = stored_lesson("06")["cells"]
    ids = [c.get("id") for c in cells]
    shown = ids.index("l06-middleware-no-session")
    assert ids.index("cell-16") < shown < ids.index("cell-17")  # after the run with a session, before the table
    source = cell_source("06", "l06-middleware-no-session")
    assert "run_middleware_demo(with_session=False)" in source and "mw_plain_trace.calls[2]" in source
    assert "run_middleware_demo(" not in cell_source("06", "cell-17")  # the table reuses that run
    html = cell_outputs("06", "l06-middleware-no-session")
    assert html.count("<tr>") == 3  # a header row and two messages
    assert "- [4] Response message from LLM.<br>- [5] Response message from LLM." in html
    assert NUDGE in html and "Original message from user." not in html
    before = _words("".join(cells[shown - 1]["source"]))
    assert cells[shown - 1]["cell_type"] == "markdown"
    assert "2 messages" in before and "both earlier answers, [4] and [5]" in before and "none of the" in before
    section_7 = _words(cell_source("06", "cell-15"))
    assert "without a session, the whole log" in section_7
    assert section_7.endswith("The model's third input, with a session:")


def test_the_hood_says_the_whole_log_where_the_lesson_shows_it():
    said_ = _words(cell_source("06", "hood-middleware"))
    assert "with the whole log each time (section 7's table of the third input without a session)" in said_


# region 2. Exercise 1: the miss for 5 is true of the fresh-context trace, and asks where to look


async def test_exercise_1_miss_for_5_is_true_of_the_fifth_call_and_asks_a_question_pointing_at_a_section():
    miss = dict(exercise("06", "Exercise 1").misses)[5]
    assert "does not see any of its earlier answers" not in miss
    trace, _ = await run_seed_demo(allowed=5, options=LoopAgentOptions(fresh_context_per_iteration=True))
    fifth = trace.calls[4]
    # what the miss says is sent again is sent again; what it says is not sent is not
    # walk 23: the miss names the likely slip (the default flow's second call), no longer message [2]
    assert "[2]Original response from LLM." in fifth and "the caller's three messages" in miss
    assert not any(f"[{n}]Response message from LLM." in fifth for n in range(4, 9))
    assert "answers the model wrote in this loop" in miss
    assert miss.endswith("?") and re.search(r"[Ss]ection \d", miss) and not re.search(r"\b4\b", miss)
    text = " ".join(said("06", "Exercise 1", 5, 4).split())
    assert text.startswith("Exercise 1: not quite. ") and " 4 " not in f" {text} " and "4 messages" not in text


# region 3. A comment sits next to the code it describes


def _described(comment: str) -> str | None:
    """The name a comment describes, written ``# name(...): ...`` or ``# name: ...``, or None."""
    found = re.match(r"#\s*([A-Za-z_][\w.]*)(?:\([^)]*\))?:\s", comment)
    return found.group(1) if found else None


def test_the_described_name_finder_reads_both_forms():
    assert _described("# stop_sentence(response): why the loop stopped") == "stop_sentence"
    assert _described("# seeded.inner_agent: the agent the loop wraps") == "seeded.inner_agent"
    assert _described("# the feedback's template: {x}") is None


@pytest.mark.parametrize("cell", _student_cells(), ids=lambda c: c.get("id"))
def test_each_comment_naming_a_name_sits_above_the_code_that_has_it(cell):
    if cell["cell_type"] != "code":
        return
    lines = "".join(cell["source"]).splitlines()
    for number, line in enumerate(lines):
        name = _described(line.strip())
        if name is None or (number and lines[number - 1].strip().startswith("#")):
            continue
        following = next((text for text in lines[number + 1 :] if not text.strip().startswith("#")), "")
        short = name.split(".")[-1]
        assert short in following, f"{cell.get('id')}: '{line.strip()}' sits above '{following.strip()}'"


def test_cell_14_names_stop_sentence_above_its_import():
    source = cell_source("06", "cell-14")
    lines = source.splitlines()
    comment = next(i for i, line in enumerate(lines) if line.startswith("# stop_sentence(response)"))
    after = next(line for line in lines[comment + 1 :] if not line.startswith("#"))
    assert after.startswith("from course_lib.loop_demos import") and "stop_sentence" in after


# region 4. The budgets table shows the evaluator left unasked after the call that spent a budget or the cap


async def test_a_trace_counts_the_evaluations():
    trace = LoopTrace()
    agent, messages = seed_loop(allowed=99, options=LoopAgentOptions(max_iterations=4), trace=trace)
    await agent.run(messages)
    assert len(trace.calls) == 4 and trace.evaluations == 3


def test_the_budgets_table_counts_the_evaluators_turns_and_the_prose_says_what_it_shows():
    html = cell_outputs("06", "239ee7f8")
    assert "evaluator asked" in html
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)[1:]
    cells = [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]
    asked = {row[0]: (row[1], row[2]) for row in cells}
    assert asked["max_duration=1 µs"] == ("1", "0")
    assert asked["max_iterations=4"] == ("4", "3")
    prose = _words(cell_source("06", "899da325"))
    # walk 23 (tests/test_lesson06_second_walk23.py): said in plain steps, with counts true of this table
    assert "The loop checks the budgets and the cap (max_iterations) right after each model call" in prose
    assert "it stops without asking the evaluator" in prose and "evaluator asked" in prose


def test_section_1_says_of_max_iterations_2_only_what_its_table_shows():
    bullets = _words(cell_source("06", "cell-04"))
    assert "without asking the evaluator" not in bullets
    assert "although the evaluator allows 3" in bullets


def test_the_marker_template_prose_is_true_of_the_fresh_input_it_shows():
    prose = _words(cell_source("06", "marker-template"))
    assert "does not see its own earlier drafts" not in prose
    assert "does not see the answers it wrote in earlier iterations" in prose
    shown = cell_outputs("06", "839735e2")
    assert "[2] Original response from LLM." in shown  # one of the caller's messages, sent again
