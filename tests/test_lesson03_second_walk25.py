"""Lesson 03's second walk 25 (issue 32): sections 5 and 6 handed the student machinery (gate, ticket, epoch,
``stale``) before the story needed it, and section 5's filter line went unexplained.

1. Section 5 says middleware in one sentence, true of the cell it shows; the gate and the ticket are under the hood.
2. Section 5 says why both values of the filter's line are ``[forgotten]``; the hood's loop example agrees with it.
3. Section 1 says which user messages are the caller's own without a bracket mid-phrase.
4. Section 8 says why the logs question goes to the same desk (unlike section 3).
5. Section 6 no longer names ``stale``, a status the student never sees there.
6. The desk verdict's eviction sentence: tests/test_lesson03_verdict_walk25.py.
"""

from __future__ import annotations

from support.lesson_cells import cell_outputs, cell_source, words

from course_lib.providers import (
    compare_injection,
)


def _hood() -> str:
    from support.lesson_cells import stored_lesson

    cells = stored_lesson("03")["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))
    return " ".join(words("".join(c["source"])) for c in cells[start:] if c["cell_type"] == "markdown")


# --- 3. section 1's caller messages ---


def test_section_1_says_the_callers_own_user_messages_without_a_bracket_mid_phrase() -> None:
    said = words(cell_source("03", "cell-02"))
    assert "the caller's own user messages (the ones with no label, see below)" in said
    assert "(unlabelled)" not in said


# --- 4. section 8: one desk per path ---


async def test_section_8_says_the_logs_question_goes_to_the_same_desk() -> None:
    said = words(cell_source("03", "cell-19"))
    assert "Unlike section 3, each path here has one desk, so `Where can I find logs?` goes to the same desk." in said
    comparison = await compare_injection()
    assert set(comparison["line"]) >= {"Where can I find logs?"}
    assert "one desk" in cell_outputs("03", "cell-20")  # the printed note says it too
