"""Lesson 06's walk 25 (issue 32): every column of the flows table is explained above it (the count of messages a
loop added before call 2 is a column of its own, not an unexplained bracket), section 3 says in plain words what one
evaluator's stop does, `loop_exit_reason` is introduced once, in section 6, the student's path carries no
cross-reference bookkeeping and no note on what is newer than the seed (that provenance lives under the hood), and the
token budget's row says what it does on a live model, as the loop does it."""

from __future__ import annotations

import re

from agent_framework import AgentSession
from test_dotnet_conformance import InnerAgentCapture, While, response_with_tokens

from course_lib.loop import LoopAgent, LoopAgentOptions, LoopExitReason
from course_lib.loop_demos import flow_summary, run_middleware_demo, run_seed_demo, stop_sentence
from tests.support.lesson_cells import cell_outputs, cell_source, stored_lesson, student_path, words

HEADER = re.compile(r"<th[^>]*col_heading[^>]*>\s*([^<]+?)\s*</th>")
BRACKETED_COUNT = re.compile(r">\(\d+ messages?\)")


def _said() -> str:
    return words(" ".join(student_path("06")))


def _hood() -> str:
    cells = stored_lesson("06")["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).lstrip().startswith("## Under the hood"))
    return words(" ".join("".join(c["source"]) for c in cells[start:] if c["cell_type"] == "markdown"))


# 1. The flows table: the count of added messages is a column of its own, and every column is named above the table.


async def test_the_flow_summary_counts_the_added_messages_in_a_column_of_their_own():
    loop_trace, loop_response = await run_seed_demo()
    with_session = await run_middleware_demo(with_session=True)
    without = await run_middleware_demo(with_session=False)
    rows = [
        flow_summary("loop", loop_trace, loop_response),
        flow_summary("middleware", *with_session),
        flow_summary("middleware, no session", *without),
    ]
    assert [row["history kept"] for row in rows] == ["yes", "yes", "no"]
    assert [row["messages added before call 2"] for row in rows] == [1, 2, 2]
    for row in rows:
        listed = str(row["what was added"])
        assert not listed.startswith("("), listed  # no bracketed count the lesson never explains
        assert listed.count(")") >= row["messages added before call 2"]
    assert rows[0]["what was added"] == "1) Feedback for iteration 1"


def test_every_column_of_lesson_06s_tables_with_a_column_list_is_named_in_the_list_above_it():
    cells = stored_lesson("06")["cells"]
    ids = [c.get("id") for c in cells]
    for table in ("cell-03", "cell-17"):
        headers = [h for h in HEADER.findall(cell_outputs("06", table)) if h not in ("option", "loop")]
        above = words("".join(cells[ids.index(table) - 1]["source"]))
        missing = [h for h in headers if f"*{h}*" not in above]
        assert headers and not missing, f"{table}: columns not explained above the table: {missing}"


def test_no_table_on_lesson_06s_student_path_holds_an_unexplained_bracketed_count():
    cells = stored_lesson("06")["cells"]
    end = next(i for i, c in enumerate(cells) if "".join(c["source"]).lstrip().startswith("## Under the hood"))
    found = [
        c.get("id")
        for c in cells[:end]
        if c["cell_type"] == "code" and BRACKETED_COUNT.search(cell_outputs("06", c["id"]))
    ]
    assert not found


# 2. Section 3 in plain words.


def test_section_3_says_plainly_what_one_evaluators_stop_and_continue_do():
    section_3 = words(cell_source("06", "cell-09"))
    assert "So the loop ends only at an iteration where every evaluator says stop." in section_3  # third walk
    said = _said()
    assert "veto" not in said
    assert "asks to continue wins" not in said and "asks to continue decides" not in said


# 3. loop_exit_reason is introduced once, at the start of section 6.


def test_section_5_only_says_what_stop_sentence_does_and_section_6_introduces_the_code():
    section_5 = words(cell_source("06", "8f908dd8"))
    # the judge's cell prints "no loop_exit_reason is recorded": section 5 points to where it is explained
    # (tests/test_lesson06_walk4.py), and explains it no more
    assert "`stop_sentence` says in words why the loop stopped (section 6 explains `loop_exit_reason`)." in section_5
    assert (
        "short code" not in section_5 and "records none" not in section_5 and section_5.count("loop_exit_reason") == 1
    )
    section_6 = words(cell_source("06", "a5908b9f"))
    assert "A loop can record a short code on its response, `loop_exit_reason`" in section_6
    assert "`stop_sentence`" in section_6 and "records none" in section_6


# 4. and 5. No bookkeeping and no provenance on the student's path; the provenance is kept under the hood.


def test_the_student_path_has_no_cross_reference_bookkeeping_or_seed_provenance():
    said = _said()
    assert "Section 5 uses `on_behalf_of_author_name`" not in said
    assert "*Under the hood* runs" not in said
    assert "after the seed article" not in said and "newer than the seed" not in said
    hood = _hood()
    assert "added to MAF after the seed article was written" in hood
    assert "signal protocol" in hood.lower() and "budgets" in hood


# 6. The token budget's row: what it does on a live model, true to the loop.


def test_the_budgets_paragraph_says_what_max_tokens_does_on_a_live_model():
    budgets = words(cell_source("06", "899da325"))
    assert "on a live model it stops once 50 reported tokens are spent" in budgets
    assert "max_tokens=50, max_iterations=4" in cell_source("06", "239ee7f8")


async def test_max_tokens_50_stops_once_50_reported_tokens_are_spent_before_the_cap():
    inner = InnerAgentCapture(lambda _: response_with_tokens(20))
    options = LoopAgentOptions(max_tokens=50, max_iterations=4)  # the lesson's row, on a model reporting usage
    response = await LoopAgent(inner, While(lambda _: True), options).run("task", session=AgentSession())
    assert inner.call_count == 3  # 20, 40, then 60: the call that reaches 50 is the last
    key = LoopExitReason.ADDITIONAL_PROPERTIES_KEY
    assert response.additional_properties[key] == LoopExitReason.TOKEN_BUDGET_EXCEEDED
    assert "max_tokens" in stop_sentence(response) or "token" in stop_sentence(response)
