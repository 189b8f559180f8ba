"""Lesson 05, walk 21 (issue 32): whose evaluator, and the options table's words.

1. "The seed's evaluator, `IterationCountEvaluator(allowed)`" right after "the seed's demo ... is the course's own
   code": a newcomer could not tell the seed's C# from the course's Python. It is "the course's copy of the seed's
   evaluator".
2. Section 1's second bullet spoke of "the demo's evaluator" two cells before the demo and its evaluator are introduced:
   it is "the evaluator of the demo in section 2".
3. The options table's "author name stamped on the messages the loop adds" was unexplained, and its two budget rows
   were in the first table a newcomer sees: the row says what the name is (the sender shown on the loop's feedback,
   checked on a run), and section 1 says the budgets are lesson 06's and that this lesson changes no option.
"""

from __future__ import annotations

from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import (
    OPTION_NOTES,
    options_rows,
    run_seed_demo,
)


def words(text: str) -> str:
    return " ".join(text.replace("*", "").split())


# --- finding 1: whose evaluator ---


def test_section_1_says_the_iteration_counting_evaluator_is_the_courses_copy_of_the_seeds():
    said = words(cell_source("05", "pieces-demo"))
    assert "The course's copy of the seed's evaluator, `IterationCountEvaluator(allowed)`," in said
    assert "The seed's evaluator, `IterationCountEvaluator" not in said


# --- finding 2: no "the demo's evaluator" before the demo is introduced ---


def test_section_1s_bullet_points_to_the_demo_of_section_2_before_the_demo_is_introduced():
    bullets = words(cell_source("05", "cell-02"))
    assert "the evaluator of the demo in section 2 reads four of its fields" in bullets
    assert "the demo's evaluator" not in bullets


# --- finding 3: the options table's words ---


def test_the_author_name_row_says_it_is_the_sender_shown_on_the_loops_feedback():
    note = OPTION_NOTES["on_behalf_of_author_name"]
    assert "the name shown as the sender of the messages the loop adds (its feedback)" in note
    assert "stamped" not in note
    assert note in cell_outputs("05", "options-table")


async def test_what_the_author_name_row_says_is_what_the_loop_does():
    _, named = await run_seed_demo(options=LoopAgentOptions(on_behalf_of_author_name="judge"))
    feedback = [m for m in named.messages if m.text.startswith("Feedback for iteration")]
    assert feedback and {m.author_name for m in feedback} == {"judge"}
    _, unnamed = await run_seed_demo()
    assert {m.author_name for m in unnamed.messages if m.role == "user"} == {None}  # "none leaves them unnamed"


def test_section_1_says_the_budgets_are_lesson_06s_and_this_lesson_changes_no_option():
    bullets = words(cell_source("05", "cell-02"))
    rows = [row["option"] for row in options_rows(LoopAgentOptions())]
    assert rows[-2:] == ["max_tokens", "max_duration"]  # "the last two rows"
    assert "The last two rows, `max_tokens` and `max_duration`, are budgets" in bullets
    assert "lesson 06 shows them at work" in bullets and "This lesson changes none of them" in bullets
    lesson = "\n".join("".join(c["source"]) for c in stored_lesson("05")["cells"] if c["cell_type"] == "code")
    assert "LoopAgentOptions(" not in lesson.replace("LoopAgentOptions())", "")  # only the defaults are built
