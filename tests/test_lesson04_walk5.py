"""Lesson 04's fifth student walk (issue 32): the defects the walker found, each checked at its rule.

Sentences that say what a run measured are computed and hold for any run; two lines that coincide in a plot are both
visible; the explorer says what a wrong answer lacked; a glossary link to an entry opens at that entry; the eviction
rule and the reason for a forbidden value are said where the lesson needs them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from test_student_path import hood_index, lesson

from course_lib.clients import make_chat_client
from course_lib.exercises import exercise
from course_lib.policies import LastTurnsPolicy, ScalingRow, replay_calls_sentence, time_growth_sentence
from course_lib.presentation import graded_view_frame, plot_prompt_sizes, what_was_wrong
from course_lib.recordings import load_policy_costs
from course_lib.tracing import CallLog

ROOT = Path(__file__).resolve().parent.parent
LESSON = "04_memory_policies_compared"


def _rows(per_turn_ms: dict[str, tuple[float, float]]) -> list[ScalingRow]:
    return [
        ScalingRow(turns, policy, 0, 0, turns, ms * turns / 1000)
        for policy, both in per_turn_ms.items()
        for turns, ms in zip((10, 200), both, strict=True)
    ]


def test_the_time_sentence_says_what_each_kind_stores_and_admits_a_run_too_noisy_to_tell_them_apart():
    clear = _rows({"full history": (1.0, 6.0), "last 3 turns": (0.3, 0.6), "compaction (3 turns)": (1.0, 4.0)})
    said = time_growth_sentence(clear)
    assert "compaction (3 turns), which store every message, and to 2.0 times as long for the others" in said
    assert "which store a capped amount at any length" in said and "too close" not in said
    noisy = _rows({"full history": (1.0, 2.0), "reducer (3 turns)": (0.2, 0.6)})  # the reducer "grew" 3-fold
    assert "too close to tell the two kinds apart" in time_growth_sentence(noisy)


def test_the_replays_calls_are_worked_out_from_the_rows():
    rows = [ScalingRow(n, p, 0, 0, n * (2 if p == "facts" else 1), 0.0) for n in (10, 50) for p in ("facts", "summary")]
    said = replay_calls_sentence(rows)
    assert (
        "timelines of 10 and 50 turns (60 turns in all), each under 2 policies: 60 \u00d7 2 = 120 reader calls" in said
    )
    assert "plus 60 writer and summarizer calls: 180 model calls in all" in said
    assert "plus" not in replay_calls_sentence([ScalingRow(10, "full history", 0, 0, 10, 0.0)])
    with pytest.raises(ValueError, match="No replays"):
        replay_calls_sentence([])


def test_a_line_lying_on_another_is_drawn_dashed_and_named_in_the_legend():
    calls = [
        {"rule": "latest", "call": "reader", "policy": policy, "turn": t, "chars_sent": size * t}
        for policy, size in (("last 1 turn", 100), ("compaction (1 turn)", 50), ("reducer (1 turn)", 100))
        for t in (1, 2, 3)
    ]
    ax = plot_prompt_sizes(pd.DataFrame(calls)).axes[0]
    solid = {line.get_label(): line.get_linestyle() == "-" for line in ax.get_lines()}
    assert solid == {"last 1 turn": True, "compaction (1 turn)": True, "reducer (1 turn), same as last 1 turn": False}


def test_a_wrong_answer_says_what_it_lacked_and_what_it_wrongly_held():
    assert what_was_wrong("", "") == "nothing"
    assert what_was_wrong("Billing; SQL Server 2022", "") == "missing Billing, SQL Server 2022"
    assert what_was_wrong("Billing; SQL Server 2022", "Reporting; PostgreSQL") == (
        "missing Billing, SQL Server 2022; names forbidden Reporting, PostgreSQL"
    )
    assert what_was_wrong("Billing", "Reporting") == "missing Billing; names forbidden Reporting"
    answers = pd.DataFrame(
        [{"policy": "facts", "rule": "latest", "turn": 5, "correct": False, "missing": "PostgreSQL"}]
    ).assign(**{"forbidden values named": "Billing"})
    calls = pd.DataFrame([{"policy": "facts", "rule": "latest", "turn": 5, "call": "reader", "visible": "module: x"}])
    row = graded_view_frame(answers, calls).iloc[0]
    assert (row["missing"], row["forbidden values named"]) == ("PostgreSQL", "Billing")  # two columns (walk 16)


async def test_the_window_keeps_only_the_turns_it_sends():
    policy = LastTurnsPolicy(make_chat_client("reader"), CallLog(), turns=2)
    for text in ("module=A", "module=B", "module=C"):
        await policy.turn(text)
    assert [user for user, _ in policy.history] == ["module=B", "module=C"]


def test_every_recordings_caption_says_which_settings_a_student_may_skip():
    assert load_policy_costs().caption().endswith("the load average is how busy the machine was.")
    assert "top_k" in load_policy_costs().caption()


def test_a_glossary_link_to_an_entry_names_an_anchor_the_glossary_has():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', glossary))
    links = []
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            links += [(path.name, a) for a in re.findall(r"glossary\.md#([^)\s]+)\)", "".join(cell["source"]))]
    assert (f"{LESSON}.ipynb", "ep013") in links
    assert not [link for link in links if link[1] not in anchors], "a glossary link names an anchor it lacks"
    for word in ("**reader**", "**window**"):
        assert word in glossary


def test_lesson_04_says_its_rules_where_a_student_needs_them_and_no_figure_a_run_can_contradict():
    cells = lesson(LESSON).cells
    path = cells[: hood_index(cells)]
    words = "\n".join(c.source for c in path if c.cell_type == "markdown")
    assert "2,160" not in words and "nearly flat" not in words  # computed, or not claimed
    assert "ties broken by key name" in words and "declares them only at turn 6" in " ".join(words.split())
    assert re.search(r"the\s+\*reader\*\s+is\s+the\s+model", words)
    ids = [c.get("id") for c in cells]
    plot, sentence = ids.index("aeab480f"), ids.index("l04-time-sentence")
    assert sentence == plot + 1 and "time_growth_sentence" in cells[sentence].source
    assert "under the plot" in cells[sentence + 1].source
    before = cells[ids.index("cell-10") - 1]
    assert before.cell_type == "markdown" and "dashed" in before.source
    assert "key name" in exercise("04", "Exercise 2").hint
    # the whole eviction rule where it is used: without the correction's move, turn 1's `database` would be evicted
    exercise_2 = next(c.source for c in path if c.source.startswith("**Exercise 2.**"))
    for text in (exercise_2, next(c.source for c in path if "Reading the two tables together" in c.source)):
        assert "a correction moves its fact to the correction's turn" in " ".join(text.split())
    assert "turn 2" not in exercise("04", "Exercise 3").hint  # it points where to look, it does not answer


def test_the_site_writes_a_link_to_a_glossary_row_as_html_that_myst_does_not_check(tmp_path, monkeypatch):
    """MyST resolves ``page.md#x`` against headings only and fails the build (``--warningiserror``) on a row's id."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import build_site

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "glossary.md").write_text('# Glossary\n\n## Words\n\n| **w** | <a id="w"></a>a word |\n')
    monkeypatch.setattr(build_site, "ROOT", tmp_path)
    pages = {"docs/glossary.md", "notebooks/04_x.ipynb"}
    rewrite = build_site.rewrite_links
    row = rewrite("[entry](../docs/glossary.md#w)", "notebooks/04_x.ipynb", pages, "https://x", set())
    assert row == '<a href="../docs/glossary.html#w">entry</a>'
    heading = rewrite("[words](../docs/glossary.md#words)", "notebooks/04_x.ipynb", pages, "https://x", set())
    assert heading == "[words](../docs/glossary.md#words)"  # a heading's anchor MyST resolves itself
    assert build_site.html_anchor_only(ROOT / "docs" / "glossary.md", "ep013")


def test_lesson_04_explains_the_cost_tables_columns_and_units_right_before_the_table():
    cells = lesson(LESSON).cells
    ids = [c.get("id") for c in cells]
    before = cells[ids.index("cell-09") - 1]
    assert before.cell_type == "markdown"
    for column in ("reader calls", "extra calls", "chars sent (all calls)", "estimated tokens (chars / 4)", "reported"):
        assert column in before.source
    assert "characters" in before.source and "`unknown`" in before.source
