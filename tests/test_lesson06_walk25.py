"""Lesson 06's walk 25 (issue 32): every column of the flows table is explained above it (the count of messages a
loop added before call 2 is a column of its own, not an unexplained bracket), section 3 says in plain words what one
evaluator's stop does, `loop_exit_reason` is introduced once, in section 6, the student's path carries no
cross-reference bookkeeping and no note on what is newer than the seed (that provenance lives under the hood), and the
token budget's row says what it does on a live model, as the loop does it."""

from __future__ import annotations

import re

from course_lib.loop_demos import flow_summary, run_middleware_demo, run_seed_demo
from tests.support.lesson_cells import cell_outputs, stored_lesson, words

HEADER = re.compile(r"<th[^>]*col_heading[^>]*>\s*([^<]+?)\s*</th>")
BRACKETED_COUNT = re.compile(r">\(\d+ messages?\)")


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
