"""Lessons 05 and 06 walked again (issue 32, walk 12): lesson 05's hood shows the options as a table (no repr), and
lesson 06's stepper runs another scenario than exercise 1's, its counts printed from the run."""

from __future__ import annotations

import re

import pytest
from support.lesson_cells import cell_outputs, cell_source

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import SEED_INPUT, calls_sentence, options_hood_rows, run_seed_demo

# --- 5. lesson 05's hood: the options as a table ---


def test_the_options_table_names_each_option_in_python_and_dotnet():
    rows = options_hood_rows(LoopAgentOptions())
    assert [r["Python name"] for r in rows] == list(LoopAgentOptions.__dataclass_fields__)
    by_name = {r["Python name"]: r for r in rows}
    assert by_name["max_iterations"][".NET name"] == "MaxIterations" and by_name["max_iterations"]["value"] == "10"
    assert by_name["non_streaming_returns_last_response_only"][".NET name"] == "NonStreamingReturnsLastResponseOnly"
    assert [r["in the seed"] == "yes" for r in rows] == [True] * 6 + [False] * 2


def test_lesson_05_hood_shows_no_options_repr():
    shown = cell_outputs("05", "hood-options")
    assert "LoopAgentOptions(" not in shown and "NonStreamingReturnsLastResponseOnly" in shown
    assert "print(LoopAgentOptions())" not in cell_source("05", "hood-options")


# --- 6. lesson 06's stepper does not print exercise 1's answer ---


async def test_lesson_06_section_8_runs_another_scenario_and_states_its_counts_from_the_run():
    fresh = LoopAgentOptions(fresh_context_per_iteration=True)
    exercise, _ = await run_seed_demo(allowed=5, options=fresh)
    answer = len(exercise.calls[4])  # what exercise 1 asks for
    shown, _ = await run_seed_demo(options=fresh, inputs=SEED_INPUT[:1])
    counts = [len(call) for call in shown.calls]
    assert answer not in counts
    printed = cell_outputs("06", "cell-20")
    assert calls_sentence(shown) in printed
    prose = " ".join(cell_source("06", "cell-19").split())
    assert not re.search(r"\b\d+ at the first call\b|still \d", prose)
    assert str(answer) not in re.sub(r"exercise \d", "", prose)


async def test_a_demo_with_no_input_message_is_refused():
    with pytest.raises(ValueError, match="at least one input message"):
        await run_seed_demo(inputs=())
