"""Lesson 06, a new student's walk 23 (issue 32): "a handful of very dense sentences, a few display details on the
main path, small oddities in the feedback".

1. Section 4's sentence on the explicit re-run's entry in the feedback log is split in two, and quotes what the
   table prints at iteration 2.
2. Section 6 says in plain steps when the loop checks the budgets and the cap, with counts true of its table.
3. The number glued by the fake model is left to Under the hood (and lesson 05), off section 1's path.
4. Section 2 says, before its table, that a | separates the pieces.
5. Exercise 1's hint for 5 names its likely slip (the default flow's second call), computed, never the answer.
6. Exercise 2's hint for 1 keeps one misconception (one session for everything) and the "sessions created" column.
7. Near the top, one line says which cell to run first after a restart.
"""

from __future__ import annotations

import html
import re

from support.checker import said
from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, words

from course_lib.exercises import exercise
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import SEED_INPUT, run_seed_demo


def _rows(cell_id: str) -> list[list[str]]:
    """The rows of the first table a cell of lesson 06 shows, each cell as the student reads it."""
    table = re.search(r"<table.*?</table>", cell_outputs("06", cell_id), re.DOTALL)
    assert table, cell_id
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(0), re.DOTALL)
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.DOTALL) for row in rows]
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in row] for row in cells]


def _student_markdown() -> list[tuple[str, str]]:
    cells = stored_lesson("06")["cells"]
    end = next(i for i, c in enumerate(cells) if c.get("id") == "hood-head")
    return [(c.get("id"), words("".join(c["source"]))) for c in cells[:end] if c["cell_type"] == "markdown"]


# region 1. Section 4: two sentences, quoting the table


def test_section_4_says_the_explicit_re_runs_log_entry_in_two_sentences_quoting_the_table():
    said_ = words(cell_source("06", "cell-11"))
    assert "so the log's entry for that re-run holds no text" not in said_
    assert "At iteration 1 this evaluator sends messages instead of a feedback text." in said_
    quoted = re.search(
        r"The feedback log still gets an entry for that iteration, with no text, so at iteration 2 the evaluator "
        r'sees that entry, shown as "([^"]+)"\.',  # walk 25's polish
        said_,
    )
    assert quoted, said_
    rows = {row[0]: row[1] for row in _rows("cell-12")[1:]}
    assert rows["2"] == quoted.group(1)  # what the table really prints at iteration 2


# endregion

# region 2. Section 6: when the budgets and the cap are checked, in plain steps


def test_section_6_says_when_the_budgets_are_checked_with_counts_true_of_its_table():
    prose = words(cell_source("06", "899da325"))
    assert "checked at the same point" not in prose and "never after the call" not in prose
    assert "The loop checks the budgets and the cap (`max_iterations`) right after each model call" in prose
    found = re.search(
        r"If one is used up, it stops without asking the evaluator, so (\d+) calls give only (\d+) "
        r"evaluations",
        prose,
    )
    assert found, prose
    calls, evaluations = found.groups()
    header, *rows = _rows("239ee7f8")
    assert header[1:3] == ["model calls", "evaluator asked"] and "*evaluator asked*" in prose
    assert [calls, evaluations] in [row[1:3] for row in rows]
    # every run of the table is stopped by a budget or the cap: the evaluator is asked after every call but the last
    for row in rows:
        assert int(row[2]) == int(row[1]) - 1, row
        assert "loop_exit_reason" in row[3] and "evaluator said stop" not in row[3]


# endregion

# region 3. The glued number is off section 1's path


def test_section_1_leaves_the_glued_number_to_under_the_hood():
    before_table = words(cell_source("06", "ec162670"))
    assert before_table.startswith("**The third call with a fresh context.**")
    assert "glued" not in before_table and "[1]Original" not in before_table
    assert not any(re.search(r"\[\d\][A-Z]", text) for _, text in _student_markdown())
    hood = words(cell_source("06", "hood-fresh"))
    assert "the number glued to the text, as the fake model writes it (the tables add a space)" in hood
    # lesson 05, which lesson 06 requires, says it on its own path
    lesson_05 = [words("".join(c["source"])) for c in stored_lesson("05")["cells"] if c["cell_type"] == "markdown"]
    assert any(re.search(r"\[\d\][A-Z]", text) and "space" in text for text in lesson_05)


# endregion

# region 4. Section 2 says what separates the pieces


def test_section_2_says_a_bar_separates_the_pieces_before_its_table():
    said_ = plain_words(cell_source("06", "cell-06"))
    assert "In the column the pieces, as they arrived, a | separates one piece from the next." in said_
    header, first, *_ = _rows("cell-07")
    pieces = header.index("the pieces, as they arrived")
    assert first[pieces].split(" | ") == ["[4] Response", "message", "from", "LLM."]
    assert int(first[header.index("pieces")]) == len(first[pieces].split(" | "))


# endregion

# region 5. Exercise 1's hint for 5


async def test_exercise_1_hint_for_5_names_the_default_flows_second_call_computed_never_the_answer():
    miss = dict(exercise("06", "Exercise 1").misses)[5]
    assert "[2]" not in miss and "is not one of them" not in miss
    default, _ = await run_seed_demo(allowed=5)
    fresh, _ = await run_seed_demo(allowed=5, options=LoopAgentOptions(fresh_context_per_iteration=True))
    assert len(default.calls[1]) == 5 == len(SEED_INPUT) + 1 + 1  # the caller's 3, the first answer, one feedback
    assert miss.startswith(
        "5 is what the default flow's second call receives (section 1's table: 3, 5, 7): the caller's three "
        "messages, the model's latest answer and one feedback message."
    )
    assert not any("Response message from LLM." in text for text in fresh.calls[4])  # no answer is sent again
    assert miss.endswith("?") and not re.search(r"\b4\b", miss)
    text = said("06", "Exercise 1", 5, 4)
    assert text.startswith("Exercise 1: not quite. Hint: 5 is what") and " 4 " not in f" {text} "


# endregion

# region 6. Exercise 2's hint for 1


def test_exercise_2_hint_for_1_keeps_one_misconception_and_the_sessions_created_column():
    miss = dict(exercise("06", "Exercise 2").misses)[1]
    assert miss.startswith("One session for the whole loop is the default flow.")
    assert "per re-run" not in miss and "count the runs" not in miss and ";" not in miss
    assert miss.endswith("?") and not re.search(r"\b2\b|\btwo\b", miss, flags=re.I)
    text = said("06", "Exercise 2", 1, 2)
    assert text.startswith(f"Exercise 2: not quite. Hint: {miss} ")
    assert text.count('column "sessions created"') == 1  # the hint's pointer, named once
    assert text.count("new session") == 1 and " 2 " not in text.replace("max_iterations=2", "")


# endregion

# region 7. Which cell to run first after a restart


def test_the_intro_says_to_run_the_imports_cell_first_after_a_restart():
    cells = stored_lesson("06")["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code[0].get("id") == "colab-setup" and "import" in "".join(code[1]["source"])
    assert "run_seed_demo," in "".join(code[1]["source"])  # the name a middle cell run first would miss
    top = words(cell_source("06", "cell-00"))
    assert top.endswith(
        "*After a restart, run the imports cell (the first code cell after the Colab set-up) before any other, then "
        "the cells in order: each builds on the ones above it.*"
    )
