"""Lesson 04's eighth walk (issue 32): each polish item checked at its rule.

The window and the reducer are told apart where they first appear, and whether they send the same is computed from
the calls (never asserted); the plot's words match its picture (hollow rings); a table's characters are said to
include the reader's instructions, and a summary call is shown as the sum of its parts; a stopped policy's estimate
says what it counts; the superseded values are read from the timeline; section 7 names the table it shows; the
seed's settings wrap after a bracket, a dot or a comma, not mid-name.
"""

from __future__ import annotations

import asyncio
import re

import matplotlib
import pandas as pd
from test_student_path import hood_index, lesson

from course_lib.policies import (
    SUMMARY_HEADING,
    Timeline,
    TimelineTurn,
    load_timeline,
    measure_scaling,
    summary_call_sum,
    superseded_sentence,
    superseded_values,
)
from course_lib.presentation import (
    TWIN_LINE_WORDS,
    breakable_code,
    plain_table,
    plot_prompt_sizes,
    same_lines_sentence,
    twin_policies,
)
from course_lib.recordings import load_policy_costs

matplotlib.use("Agg")

LESSON = "04_memory_policies_compared"


def _path_words() -> str:
    cells = lesson(LESSON).cells
    return "\n".join(c.source for c in cells[: hood_index(cells)] if c.cell_type == "markdown")


def _calls(sizes: dict[str, list[int]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"rule": "latest", "call": "reader", "policy": policy, "turn": turn, "chars_sent": chars}
            for policy, per_turn in sizes.items()
            for turn, chars in enumerate(per_turn, start=1)
        ]
    )


def test_the_same_lines_are_found_from_the_calls_and_said_as_the_plot_draws_them():
    calls = _calls({"last 3 turns": [10, 20], "compaction (3 turns)": [5, 6], "reducer (3 turns)": [10, 20]})
    assert twin_policies(calls, "turn", "chars_sent") == {"reducer (3 turns)": "last 3 turns"}
    said = same_lines_sentence(calls)
    assert "reducer (3 turns) and last 3 turns sent the reader the same number of characters at every turn" in said
    assert f"the line of reducer (3 turns) as {TWIN_LINE_WORDS}" in said and '"same as last 3 turns"' in said
    ax = plot_prompt_sizes(calls).axes[0]
    twin = next(line for line in ax.get_lines() if "same as" in str(line.get_label()))
    assert twin.get_markerfacecolor() == "none"  # hollow rings, as the words say
    apart = _calls({"last 3 turns": [10, 20], "reducer (3 turns)": [10, 21]})
    assert "No two policies" in same_lines_sentence(apart)


def test_the_lesson_tells_the_window_from_the_reducer_and_lets_the_calls_say_whether_they_coincide():
    words = _path_words()
    assert "hand" in words and "session" in words.split("## 2.")[1].split("The next cell")[0]
    assert "hollow rings" in words and "drawn dashed over" not in words
    source = "\n".join(c.source for c in lesson(LESSON).cells if c.cell_type == "code")
    assert "same_lines_sentence(calls" in source


def test_characters_are_said_to_include_the_instructions_and_a_summary_call_adds_up():
    said = asyncio.run(summary_call_sum(10))
    numbers = [int(n) for n in re.findall(r"(\d+) (?:characters|of)", said)]
    total, parts = numbers[0], numbers[1:]
    assert len(parts) == 4 and sum(parts) == total and SUMMARY_HEADING in said
    table = asyncio.run(measure_scaling([10]))
    assert total == next(row.last_reader_chars for row in table if row.policy == "summary")
    words = _path_words()
    assert "instructions included" in words
    source = "\n".join(c.source for c in lesson(LESSON).cells if c.cell_type == "code")
    assert "summary_call_sum(" in source


def test_a_stopped_policys_estimate_says_what_it_counts():
    recording = load_policy_costs()
    for run in recording.runs:
        if run.stopped:
            calls = run.reader_calls + run.extra_calls
            assert f"Its estimate ({run.est_tokens} tokens) counts only its {calls} model call" in (
                recording.stop_notes()
            )


def test_the_superseded_values_are_read_from_the_timeline():
    timeline = load_timeline()
    replaced = [(s.key, s.value, s.replaced_at) for s in superseded_values(timeline)]
    assert replaced == [("module", "Reporting", 6), ("database", "PostgreSQL", 6)]
    final = timeline.turns[timeline.questions[-1] - 1].expect
    assert final is not None and {value for _, value, _ in replaced} == set(final.must_not_contain)
    assert "PostgreSQL (database, replaced at turn 6)" in superseded_sentence(timeline)
    same_again = Timeline(name="same", turns=[TimelineTurn(user="module=Billing"), TimelineTurn(user="module=Billing")])
    assert superseded_values(same_again) == [] and "No value is superseded" in superseded_sentence(same_again)
    source = "\n".join(c.source for c in lesson(LESSON).cells if c.cell_type == "code")
    assert "superseded_sentence(timeline)" in source


def test_section_7_names_the_table_it_shows():
    section = _path_words().split("## 7.")[1].split("## Exercises")[0]
    assert "second panel" not in section and "table" in section


def test_code_in_a_table_wraps_after_a_bracket_a_dot_or_a_comma_never_mid_name():
    text = "SlidingWindowCompactionStrategy(CompactionTriggers.TurnsExceed(3), minimumPreservedTurns: 3) <x>"
    assert breakable_code(text) == (
        "SlidingWindowCompactionStrategy(<wbr>CompactionTriggers.<wbr>TurnsExceed(<wbr>3), "
        "minimumPreservedTurns: 3) &lt;x&gt;"
    )
    shown = plain_table(pd.DataFrame([{"code": "a.b(c)", "words": "a.b"}]), code=["code"]).to_html()
    assert "a.<wbr>b(<wbr>c)" in shown and ">a.b<" in shown
    source = "\n".join(c.source for c in lesson(LESSON).cells if c.cell_type == "code")
    assert re.search(r"plain_table\([^\n]*code=", source)
