"""Walk 25, fourth round, on lesson 07 (issue 32): the walk scored 5/5; its optional polish items.

1. Section 3 names a whole run's outcome the **run's verdict**, apart from section 1's verdict on one answer.
2. Section 3 defines **not fixed** as still stated wrongly, whether or not the loop could ask about it (the summary's
   constraint: the store had lost it, so the loop never asked).
3. Section 1 says the *ask* row with a wrong module *also* gets ``constraint missing``, as its verdict shows.
4. Section 9's third thing to try says what to look for: the answer passes under the ask task, and under the plan
   task the constraint is due too (checked against the panel, not only pinned).
5. Section 3's "How to read the table" list comes before the cell that prints the table.
6. Section 3 says whose evaluator the final question's ``LoopAgent`` has; the objectives cite sections in order.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words

from course_lib.capstone_panel import ASK_TASK, CapstonePanel, violation_rows
from course_lib.policies import load_timeline

SECTION_3 = "10ead7db"
FIRST_TABLE = "02f68a0d"
PROSE_TABLE = "7ee6c80a"
SUMMARY_KEYS = "summary-keys-code"  # the summary's run key by key


def _ids() -> list[str | None]:
    return [c.get("id") for c in stored_lesson("07")["cells"]]


def _cell_text(index: int) -> str:
    return words("".join(stored_lesson("07")["cells"][index]["source"]))


def test_section_3_calls_a_whole_runs_outcome_the_runs_verdict() -> None:
    text = words(cell_source("07", SECTION_3))
    assert "The **verdict**, graded" not in text
    assert "The **run's verdict** (not section 1's verdict on one answer), graded as in lesson 04:" in text


def test_not_fixed_covers_a_key_the_loop_could_not_ask_about() -> None:
    ids = _ids()
    before = _cell_text(ids.index(FIRST_TABLE) - 1)
    assert (
        "**not fixed** (still stated wrongly) or **still missing** (no value stated). "
        "For a key the store lost, the loop could not even ask." in before
    )
    # the summary's constraint is "not fixed" though the store had lost it: the loop never asked about it
    shown = cell_outputs("07", FIRST_TABLE)
    assert "constraint not fixed" in shown
    keys = cell_outputs("07", SUMMARY_KEYS)
    assert "nothing (evicted at turn 7)" in keys and "not fixed" in keys


def test_the_ask_row_with_a_wrong_module_also_gets_constraint_missing() -> None:
    text = words(cell_source("07", "prose-why-pass"))
    assert "One *ask* row also gets `constraint missing`" in text
    table = cell_outputs("07", PROSE_TABLE)
    assert re.search(r"module: Inventory; constraint missing", table), "the row shows both"


async def test_the_third_thing_to_try_says_what_to_look_for_and_it_is_so() -> None:
    text = words(cell_source("07", "capstone-panel-intro"))
    item = text.split("3. Write the store's values (`Payroll` after step 1)")[1]
    assert "It passes under *Which module and database are we on?*" in item
    assert "under the plan task the constraint is due too" in item
    panel = await CapstonePanel.from_timeline(load_timeline())
    answers = ["We are on Billing, with SQL Server 2022.", "Le module est Billing, la base SQL Server 2022."]
    for task in panel.task.options:
        panel.task.value = task
        for answer in answers:
            panel.answer.value = answer
            panel.check_button.click()
            await panel.idle()
            keys = [row["key"] for row in violation_rows(panel.result)]
            assert keys == ([] if task == ASK_TASK else ["constraint"]), (task, answer, keys)


def test_how_to_read_the_table_comes_before_the_cell_that_prints_it() -> None:
    ids = _ids()
    before = _cell_text(ids.index(FIRST_TABLE) - 1)
    assert before.startswith("**How to read the table**")
    assert "**How to read the table**" not in cell_source("07", "read-repairs-table")
    assert "runs = await compare_repairs(timeline)" in cell_source("07", FIRST_TABLE)


def test_section_3_says_whose_evaluator_and_the_objectives_cite_sections_in_order() -> None:
    text = words(cell_source("07", SECTION_3))
    assert "held by the evaluator" not in text
    assert "the reader answers inside a `LoopAgent` whose evaluator runs the facts check;" in text
    objectives = cell_source("07", "6ae511d1").split("**You will be able to**")[1].split("*About")[0]
    cited = [int(n) for n in re.findall(r"\(section (\d+)\)", objectives)]
    assert len(cited) >= 4 and cited == sorted(cited), cited


def test_the_answer_boxs_note_says_what_keeps_check_answer_off() -> None:
    """Final walk 25: an Answer box of only spaces keeps Check answer off, and its note said only "empty"; it says
    "empty or only spaces", as the Message box's note does, and it is true of both."""
    from support.capstone_battery import SUPERSEDED, lesson_store

    from course_lib.capstone_panel import CapstonePanel
    from course_lib.extraction import make_extraction

    panel = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    for typed in ("", "   \t "):
        panel.answer.value = typed
        assert panel.check_button.disabled
        assert "while the Answer box is empty or only spaces" in panel.verdict.value
    panel.answer.value = "Billing"
    assert not panel.check_button.disabled and "only spaces" not in panel.verdict.value
