"""Lesson 07, third walk (issue 32): one word per thing (the *reader* answers, the evaluator's rules check), the
judge cell shows the answer it measures, the trace names the offline reader, and the panel's notes read as one
item each."""

import json
from pathlib import Path

from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.capstone import capstone_policy, judge_call_report, run_capstone
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.policies import load_timeline
from course_lib.widgets import SINGLE_SPACED

LESSON_07 = Path(__file__).resolve().parents[1] / "notebooks" / "07_loop_held_to_the_facts.ipynb"


def cells() -> list[dict]:
    return json.loads(LESSON_07.read_text(encoding="utf-8"))["cells"]


def html_outputs(cell: dict) -> str:
    return "".join("".join(o.get("data", {}).get("text/html", "")) for o in cell.get("outputs", []))


def test_the_replaced_values_line_is_single_spaced_like_the_other_notes() -> None:
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    assert "Values a correction replaced" in p.replaced.value
    assert SINGLE_SPACED in p.replaced.value  # one block: a two-line list read as two items when double-spaced


def by_id() -> dict[str, dict]:
    return {cell["id"]: cell for cell in cells()}


def test_reader_names_the_model_only_and_the_rules_are_the_evaluator_s() -> None:
    """ "Reader" is lesson 04's model that answers; lesson 07 also called the evaluator's rules a reader."""
    text = "\n".join("".join(c["source"]) for c in cells() if c["cell_type"] == "markdown")
    for mixed in ("rule-based reader", "The reader before this one", "change to the reader"):
        assert mixed not in text
    assert "## 5. Where the evaluator's rules still fail" in text  # its own section since walk 23
    assert "change to the answer check" in text


def test_the_judge_cell_shows_the_answer_it_measures_above_the_count() -> None:
    judge = by_id()["3f34b4e3"]
    printed = "".join("".join(o.get("text", "")) for o in judge["outputs"])
    answer = "The Billing module's worker runs against SQL Server 2022 in staging. Patch Billing"
    assert " ".join(printed.split()).index(answer) < printed.index("A judge checking this answer")


def test_the_trace_table_names_the_offline_reader_not_an_llm() -> None:
    table = html_outputs(by_id()["969cbddd"])
    assert "reader (offline model)" in table and ">LLM<" not in table
    section_5 = "".join(by_id()["2107000a"]["source"])
    assert "(the LLM)" not in section_5 and "reader (offline model)" in section_5


def test_replay_is_not_used_before_section_3_defines_it() -> None:
    section_3 = "".join(by_id()["10ead7db"]["source"])
    assert section_3.index("replay") == section_3.index("**replay**") + 2


def test_section_9_links_the_readme_and_lesson_00() -> None:
    live = "".join(by_id()["live-mode"]["source"])
    assert "](../README.md#live-models)" in live and "](00_setup_and_backends.ipynb)" in live


def test_section_1_s_first_table_keeps_each_task_on_one_line() -> None:
    table = html_outputs(by_id()["61c6898f"])
    # one per row's task (7 rows since walk 16 added Rule 1's sentence and replaced-value rows):
    # "Which module?" was one word per line
    assert table.count("white-space: nowrap") == 7


def test_the_judge_report_cuts_a_long_answer_and_says_its_length() -> None:
    store = lesson_store()
    long = "Billing on SQL Server 2022. " * 40
    report = judge_call_report(store.facts, "Plan the fix.", long)
    assert f"… ({len(long)} chars)" in report and report.count("Billing") < 40
    assert max(len(line) for line in report.splitlines()) <= 100


async def test_a_live_reader_is_named_live_in_the_trace_table() -> None:
    run = await run_capstone(load_timeline(), capstone_policy("full_history"), "earliest")
    assert set(run.trace().to_frame()["actor"]) == {"reader (offline model)", "Evaluator"}
    live = run.model_copy(update={"live": True})
    assert set(live.trace().to_frame()["actor"]) == {"reader (live model)", "Evaluator"}
    assert "-LLM-" in live.trace().text()  # the console text keeps the article's layout
