"""Lesson 04 after its twenty-first walk (issue 32): the glossary's "policy stopped" names the seed's 700-character
limit (a summary's budget stops nothing), the explorer's typing line says what a slider's box does with each kind of
input, and the recorded table says why the facts policy's tokens are the furthest from the estimate.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import ipywidgets as widgets
import pytest

from course_lib.policies import MAX_SUMMARY_CHARS, course_policies, generate_timeline, load_timeline, run_policy
from course_lib.recordings import (
    FactsTokenCount,
    count_facts_tokens,
    facts_gap_note,
    load_facts_tokens,
    load_policy_costs,
)
from course_lib.tracing import CallLog, ModelCall, SeenMessage
from course_lib.widgets import PolicyExplorer, slider_reads, slider_takes, slider_typing_hint
from tests.support.lesson_cells import cell_outputs, cell_source

ROOT = Path(__file__).resolve().parent.parent


def _words(text: str) -> str:
    return " ".join(text.split())


# region Finding 1: the glossary says what stops the summary policy, and that the budget does not


def _glossary_row(term: str) -> str:
    rows = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines()
    return next(row for row in rows if row.startswith(f"| **{term}**"))


def test_policy_stopped_names_the_seeds_limit_not_the_budget():
    row = _glossary_row("policy stopped")
    assert f"over the seed's {MAX_SUMMARY_CHARS}-character limit" in row
    assert "budget" not in row


def test_the_budget_entry_says_it_stops_nothing_and_names_the_limit_apart():
    row = _glossary_row("budget")
    assert "the offline summarizer keeps its summary under" in row
    assert f"it stops nothing: a summary over the seed's {MAX_SUMMARY_CHARS}-character limit" in row


def test_the_lesson_shows_a_stop_over_the_limit_under_a_larger_budget():
    """What the glossary now says, as section 3c prints it: budget 5000, stopped over 700."""
    assert "(generate_timeline(40), 5000)" in cell_source("04", "b1ea4043")
    assert f"over the {MAX_SUMMARY_CHARS}-character limit" in cell_outputs("04", "b1ea4043")


# endregion

# region Finding 2: the typing line says what each kind of input becomes, read from the sliders


def _explorer_sliders(timeline=None) -> list[widgets.IntSlider]:
    explorer = PolicyExplorer(timeline or load_timeline())
    return [explorer.window, explorer.max_facts]


def test_the_line_names_the_ends_a_cut_decimal_and_text_that_changes_nothing():
    hint = slider_typing_hint(_explorer_sliders())
    assert hint == (
        "A slider's number box reads a whole number in digits, up to the first other character (so 1.7 and 1e3 are "
        "read as 1); below 1 becomes 1, above 10 becomes 10; text with no whole number first (-5, .5, abc) changes "
        "nothing."
    )
    assert "ignored or changed" not in hint and "under Run shows" not in hint


def _claims(hint: str) -> list[tuple[str, int | None]]:
    """Each (typed, becomes) the line states, read back from its words; None: the slider keeps its value."""
    claims = []
    decimal = re.search(r"(\d+)\.7 and (\d+)e3 are read as (\d+)", hint)
    assert decimal
    claims += [(f"{decimal.group(1)}.7", int(decimal.group(3))), (f"{decimal.group(2)}e3", int(decimal.group(3)))]
    for side, end in re.findall(r"(below|above) (\d+) becomes \2", hint):
        claims.append((str(int(end) - 1 if side == "below" else int(end) + 1), int(end)))
        # walk 24: the box reads no sign, so the furthest below an end is 0 ("-99" is text with no number first)
        claims.append(("0" if side == "below" else str(int(end) + 100), int(end)))
    nothing = re.search(r"no whole number first \(([^)]*)\) changes nothing", hint)
    assert nothing
    claims += [(typed.strip(), None) for typed in nothing.group(1).split(",")]
    return claims


@pytest.mark.parametrize("start", [1, 4, 10])
def test_every_example_the_line_gives_is_what_the_box_does(start):
    sliders = _explorer_sliders()
    hint = slider_typing_hint(sliders)
    claims = _claims(hint)
    assert len(claims) == 9
    for slider in sliders:
        slider.value = start
        for typed, becomes in claims:
            assert slider_takes(slider, typed) == (start if becomes is None else becomes), (typed, becomes)
        assert slider_typing_hint(sliders) == hint  # said the same way whatever the slider holds


def test_a_decimal_is_cut_not_rounded():
    slider = widgets.IntSlider(value=5, min=1, max=10)
    assert slider_takes(slider, "3.7") == 3 and slider_takes(slider, "3.2") == 3 and slider_takes(slider, "9.99") == 9


def test_sliders_of_different_ranges_each_name_their_end_and_the_example_fits_both():
    explorer = PolicyExplorer(generate_timeline(7))
    hint = explorer.typing_hint.value
    assert "above a slider's highest (Window 7, Fact bound 10) becomes that highest" in hint
    assert "below 1 becomes 1" in hint and "1.7 and 1e3 are read as 1" in hint  # walk 22: 1e3; walk 24: "read as"
    explorer = PolicyExplorer(load_timeline())
    explorer.window.min = explorer.window.max = 10
    hint = explorer.typing_hint.value
    assert "below a slider's lowest (Window 10, Fact bound 1) becomes that lowest" in hint
    assert "10.7 and 10e3 are read as 10" in hint  # the only value Window can take, so true of both


def test_the_installed_frontend_reads_with_parseint_so_the_explorer_hides_the_sliders_own_box():
    """The browser side, read from the installed ipywidgets bundle: an IntSlider's box parses with ``parseInt``, which
    reads "0x5" as 5 and "-5" as -5. Walk 24: the explorer hides that box (``readout=False``) and reads its own box
    in the kernel, by the rule its line states (:func:`slider_reads`, digits 0-9 only).
    """
    explorer = PolicyExplorer(load_timeline())
    assert explorer.window.readout is False and explorer.max_facts.readout is False
    static = ROOT / ".venv" / "share" / "jupyter" / "labextensions" / "@jupyter-widgets" / "jupyterlab-manager"
    bundles = [p.read_text(encoding="utf-8", errors="replace") for p in (static / "static").glob("*.js")]
    if not bundles:
        pytest.skip("the JupyterLab widgets extension is not installed in .venv")
    code = next(b for b in bundles if "handleTextChange" in b)
    assert "this._parse_value=parseInt" in code
    int_view = re.search(r"stringToValue\(e\)\{return this\._parse_value\(e\)\}handleTextChange\(\)\{(.{0,400})", code)
    assert int_view, "the IntSlider view's text handler was not found"
    body = int_view.group(1)
    assert re.search(
        r"isNaN\((\w)\)\?this\.readout\.textContent=this\.valueToString\(this\.model\.get\(\"value\"\)\)", body
    )
    assert re.search(r"Math\.max\(Math\.min\((\w),(\w)\),(\w)\)", body)
    for typed, read in (("3.7", 3), ("3e2", 3), (".5", None), ("abc", None), ("-5", None), (" 7", 7), ("0x5", 0)):
        assert slider_reads(typed) == read  # parseInt differs on "-5" (-5) and "0x5" (5): its box is hidden


# endregion

# region Finding 3: why the facts policy's reported tokens are the furthest from the estimate


def _facts_calls() -> list[ModelCall]:
    log = CallLog()
    asyncio.run(run_policy(load_timeline(), course_policies()["facts"]("latest", log), log, "latest"))
    return log.calls


def test_the_count_is_of_the_text_the_facts_policy_sends_today_and_totals_what_was_reported():
    counted = load_facts_tokens()
    calls = _facts_calls()
    assert [(c.client, c.chars) for c in counted.calls] == [(c.client, c.chars_sent) for c in calls]
    run = next(r for r in load_policy_costs().runs if r.policy == "facts")
    assert sum(c.chars for c in counted.calls) == run.chars_sent
    assert counted.total == run.input_tokens == 7007
    assert counted.timestamp_tokens == len(counted.timestamp) == 25  # a token for each digit and sign


def test_count_facts_tokens_counts_each_text_and_the_laid_out_call():
    call = ModelCall(
        client="writer",
        instructions="one two",
        messages=(SeenMessage("user", "three"), SeenMessage("assistant", "four five")),
        reply="",
    )
    [counted] = count_facts_tokens(
        [call], lambda text: len(text.split()), lambda ms: " ".join(f"<{m['role']}> {m['content']} <end>" for m in ms)
    )
    assert (counted.client, counted.messages, counted.chars) == ("writer", 3, len("one two") + 5 + 9)
    assert counted.text_tokens == 5 and counted.prompt_tokens == 5 + 3 * 2


def test_the_note_is_computed_from_the_count_and_adds_up():
    recording, counted = load_policy_costs(), load_facts_tokens()
    note = facts_gap_note(recording, counted)
    reader = counted.part("reader")
    writer = counted.part("writer")
    assert reader[1] + writer[1] + reader[2] + writer[2] == counted.total
    assert note.startswith("Why the facts policy is the furthest off (1.50):")
    assert f"its 20 calls come to {counted.total} tokens, the number its server reported" in note
    assert f"({reader[1]} tokens for {reader[0]} characters)" in note
    assert f"{counted.reader_times} times, {counted.reader_time_tokens} tokens" in note
    assert f"add {reader[2] + writer[2]} tokens, {writer[2]} of them" in note
    ratios = [float(x) for x in re.findall(r"run (\d\.\d)", note)]
    assert ratios == [round(reader[0] / reader[1], 1), round(writer[0] / writer[1], 1)]
    assert all(ratio < 4 for ratio in ratios)


def test_a_count_that_does_not_match_the_recording_explains_nothing():
    recording, counted = load_policy_costs(), load_facts_tokens()
    other = FactsTokenCount.model_validate(counted.model_dump() | {"calls": counted.calls[:-1]})
    note = facts_gap_note(recording, other)
    assert note.endswith("so the course does not explain that gap here.")
    assert "because" not in note


def test_lesson_04_prints_the_note_under_the_hood():
    """Walk 22's second walk: one sentence under the recorded table, the arithmetic under the hood."""
    source = cell_source("04", "hood-facts-tokens-code")
    assert "facts_gap_note(recorded_costs, load_facts_tokens())" in source
    note = _words(facts_gap_note(load_policy_costs(), load_facts_tokens()))
    assert note in _words(cell_outputs("04", "hood-facts-tokens-code"))
    bullet = _words(cell_source("04", "28c1a801"))
    assert "Yet its reported tokens are the furthest from the estimate: the fold under the table says why" in bullet


# endregion
