"""Lesson 04's walk 24, findings 1-4 (issue 32): what the student's path says is what the code does.

1. The cost table's *estimated tokens (chars / 4)* is summed per call (each call's characters // 4), as the
   recording's estimate is (its "reported / estimate" ratio compares per-call reported tokens with it), so it is a
   few tokens under the row's *chars sent (all calls)* / 4. The column list says so, and the numbers bear it out.
2. Section 6 says only that the replays always use the offline models; how many calls a live model would answer,
   and the timing repeats, are under the hood, where the printed sentence now is.
3. Section 2's compaction bullet says what the code sends: the last 3 user turns, the new question one of them.
4. Three sentences said as the walker asked.
"""

from __future__ import annotations

from test_lesson04_density_walk24 import HOOD, _student_path
from test_student_path import lesson

LESSON = "04_memory_policies_compared"


def _path_text() -> str:
    return "\n".join(c.source for c in _student_path() if c.cell_type == "markdown")


def _said(text: str) -> str:
    return " ".join(text.split())


def _hood() -> list:
    cells = lesson(LESSON).cells
    start = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.lstrip().startswith(HOOD))
    return cells[start:]


def _output(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


def test_the_column_list_says_the_estimate_is_summed_per_call_and_so_a_few_tokens_under():
    said = _said(_path_text())
    assert "summed per call: each call's characters ÷ 4, rounded down" in said
    assert "a few tokens under the row's total ÷ 4" in said


def test_the_stored_cost_table_is_per_call_sums_a_few_under_the_total_over_4():
    import asyncio

    from course_lib.policies import compare_policies, course_policies, load_timeline
    from course_lib.presentation import ALL_CHARS, cost_table
    from course_lib.tracing import EST_TOKENS

    comparison = asyncio.run(compare_policies(load_timeline(), course_policies(), rules=["latest"]))
    table = cost_table(comparison.calls, rule="latest")
    calls = comparison.calls[comparison.calls["rule"] == "latest"]
    for policy, row in table.iterrows():
        per_call = int((calls[calls["policy"] == policy]["chars_sent"] // 4).sum())
        assert row[EST_TOKENS] == per_call
        calls_made = int((calls["policy"] == policy).sum())
        assert row[ALL_CHARS] // 4 - calls_made < row[EST_TOKENS] <= row[ALL_CHARS] // 4  # "a few tokens under"
    facts = table.loc["facts"]
    assert (facts[ALL_CHARS], facts[EST_TOKENS]) == (18681, 4661)  # the walker's example, and the recording's


def test_section_6_no_longer_counts_live_calls_on_the_student_path():
    said = _said(_path_text())
    assert "2,880" not in said and "timing runs" not in said
    assert "These replays always use the offline models." in said
    path_outputs = " ".join(_output(c) for c in _student_path() if c.cell_type == "code")
    assert "2,880 model calls" not in path_outputs
    hood = _hood()
    assert any("replay_calls_sentence(replays)" in c.source for c in hood if c.cell_type == "code")
    assert any("2,880 model calls in all" in _output(c) for c in hood if c.cell_type == "code")


def test_the_compaction_bullet_says_what_the_code_sends():
    said = _said(_path_text())
    assert "count the new question" not in said
    assert (  # second walk 25: one bullet, what the numbers in the names count
        "send the 3 exchanges before the question, plus the question (4 user messages). **compaction (3 turns)** "
        "sends 3 user messages in all, the question included (2 exchanges plus the question)."
    ) in said
    # third walk 25: the compaction bullet says it keeps everything stored
    assert "keeps the whole conversation stored in the session" in said


def test_the_three_sentences_read_as_the_walker_asked():
    said = _said(_path_text())
    assert "never from its own earlier answers" in said and "never in its own earlier answers" not in said
    assert "when over budget, drops its oldest lines first, from the top" in said
    assert "drops the oldest lines when over budget" not in said
    assert "the window and the reducer send three earlier exchanges" in said
    assert "; they send three earlier exchanges" not in said
