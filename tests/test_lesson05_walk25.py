"""Lesson 05, walk 25 (issue 32): 4/5, "four sentences on the student's path make you read twice or sound like notes
on porting".

1. Exercise 3's set-up says what `seed_loop(...)` sets up afresh and what the cell keeps from it, in two sentences.
2. Exercise 3's wrong-answer reminder says feedback messages get no number, rather than asking whether they got one.
3. Section 2's note on the tables' space after `[n]` is a display detail: it is said under the hood.
4. Section 1 says in one sentence where `LoopAgent` comes from; the rest (lesson 06's helper, the demo's code) is
   said under the hood.
5. A table's title is printed by the call that prints the table (`plain_table(..., title=...)`): after a kernel
   restart, a failing table cell prints only the "not defined in this kernel yet" message, no title without a table.
6. Call 2's table says that its `message` column numbers the rows and `[n]` is the counter's number.
7. The loop half's start links the course map, as lessons 00, 04 and 07 do.
"""

from __future__ import annotations

import asyncio
import itertools
import re

import pandas as pd
from support.checker import run_each_in_a_fresh_shell
from support.lesson_cells import cell_outputs, cell_source, stored_lesson, student_path, words

from course_lib.loop_demos import NumberingChatClient, numbering_reminder, run_seed_demo, seed_loop
from course_lib.presentation import plain_table


def said() -> str:
    return words(" ".join(student_path("05")))


def hood() -> str:
    cells = stored_lesson("05")["cells"]
    start = next(i for i, c in enumerate(cells) if c.get("id") == "hood-head")
    return words(" ".join("".join(c["source"]) for c in cells[start:] if c["cell_type"] == "markdown"))


# region 1. Exercise 3 says what seed_loop sets up and what the cell keeps


def test_exercise_3_says_what_seed_loop_sets_up_afresh_and_what_the_cell_keeps():
    setup = words(cell_source("05", "cell-25"))
    assert (
        "`seed_loop(...)` sets up section 2's demo afresh: a new counter, the numbering model and the three input "
        "messages `[1]`\u2013`[3]`." in setup
    )
    assert (
        "We keep its inner agent (`seeded.inner_agent`, the agent around the numbering model) and its messages, "
        "and put them in a new `LoopAgent` whose "
        "evaluator is `stop_at_5`." in setup
    )
    assert "Why call it" not in setup and "We reuse only" not in setup


def test_what_exercise_3_says_of_seed_loop_is_true_of_the_code():
    first, first_messages = seed_loop()
    second, second_messages = seed_loop()
    # a new counter each call: both number their three input messages [1] to [3]
    for messages in (first_messages, second_messages):
        assert [m.text[:3] for m in messages] == ["[1]", "[2]", "[3]"]
    assert isinstance(first.inner_agent.client, NumberingChatClient)  # the numbering model
    assert first.inner_agent.client.numberer is not second.inner_agent.client.numberer
    code = "".join(cell_source("05", "cell-26").split())
    assert "seeded,ex_messages=seed_loop(" in code and "awaitex_loop.run(ex_messages)" in code
    assert "LoopAgent(inner_agent=seeded.inner_agent,evaluators=evaluator)" in code
    assert "DelegateLoopEvaluator(stop_at_5)" in code


# endregion

# region 2. The reminder states that feedback messages get no number


def test_the_reminder_says_feedback_messages_get_no_number():
    trace, _ = asyncio.run(run_seed_demo())
    reminder = words(numbering_reminder(trace))
    assert reminder.endswith("shows the number of each answer the model gave; feedback messages get no number.")
    assert "whether the feedback got one" not in reminder
    # true of the run it is read from: every feedback the model received carries no [n]
    feedback = [text for call in trace.calls for text in call if text.startswith("Feedback")]
    assert feedback and not any(re.match(r"\[\d+\]", text) for text in feedback)


# endregion

# region 3. The tables' spacing is said under the hood


def test_the_tables_space_after_a_number_is_said_under_the_hood():
    note = "The lesson's tables put a space after a message's number, for reading only"
    assert note not in said() and note not in words(cell_source("05", "cell-08"))
    assert note in hood()
    assert "`[4]Response message from LLM.` is `[4] Response message from LLM.` there" in hood()


# endregion

# region 4. Section 1 says where LoopAgent comes from in one sentence


def test_section_1_says_where_loop_agent_comes_from_in_one_sentence():
    # second walk 25: said once, in the intro (tests/test_lesson05_second_walk25.py)
    assert "re-creates the seed's `LoopAgent` (MAF for Python has none)" in words(cell_source("05", "cell-00"))
    assert "built to behave like the seed's" not in said()
    assert "lesson 06 compares the loop helper MAF Python does offer" not in said()
    assert "The demo's fake model and its evaluator are the course's own code" not in said()
    # the facts the cut sentences held stay, under the hood
    assert "lesson 06 compares the loop helper MAF Python does offer" in hood()
    assert "The demo's fake model and its evaluator are the course's own code, in `course_lib.loop_demos`." in hood()


# endregion

# region 5. A table's title is printed by the call that prints the table


def test_plain_table_prints_its_title_and_returns_the_table(capsys):
    frame = pd.DataFrame({"message": [1], "text": ["[1] a"]})
    shown = plain_table(frame, title="A title:")
    assert capsys.readouterr().out == "A title:\n"
    assert shown.to_html() == plain_table(frame).to_html()
    plain_table(frame)
    assert capsys.readouterr().out == ""


def _prints_a_title_before_its_table(source: str) -> list[str]:
    lines = source.splitlines()
    return [
        line
        for line, after in itertools.pairwise(lines)
        if re.fullmatch(r'print\("[^"]*:"\)', line) and re.search(r"_table\(", after)
    ]


def test_no_cell_of_lesson_05_prints_a_table_title_on_its_own():
    cells = [c for c in stored_lesson("05")["cells"] if c["cell_type"] == "code"]
    found = [line for c in cells for line in _prints_a_title_before_its_table("".join(c["source"]))]
    assert not found, found
    for cell_id in ("cell-13", "call-2-roles"):
        assert "title=" in cell_source("05", cell_id)
    assert "The run of section 2, one row per step:" in cell_outputs("05", "cell-13")


def test_after_a_restart_a_table_cell_prints_only_the_not_defined_message():
    load = "get_ipython().extension_manager.load_extension('course_lib.exercises')\n"  # as every course kernel
    sources = [load + cell_source("05", cell_id) for cell_id in ("cell-13", "call-2-roles")]
    for printed in run_each_in_a_fresh_shell(sources):
        assert "is not defined in this kernel yet" in printed, printed
        assert "one row per step" not in printed and "What call 2 received" not in printed, printed


# endregion

# region 6. Call 2's table says what its two numberings are


def test_call_2s_table_says_its_message_column_is_the_row_and_n_the_counter():
    shown = cell_outputs("05", "call-2-roles")
    assert "What call 2 received, one message per row, with its role:" in shown
    assert "(the message column numbers the rows; [n] is the counter's number)" in shown


# endregion

# region 7. The course map where the loop half starts


def test_the_loop_half_starts_with_a_link_to_the_course_map():
    intro = words(cell_source("05", "cell-00"))
    assert "The loop half starts here ([course map](../docs/course_map.png))." in intro


# endregion
