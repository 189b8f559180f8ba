"""Lesson 05, second walk 25 (issue 32): 4/5, "section 1 introduces five class names and an eight-row options table
before the student sees a single run, and a few sentences have to be read twice".

1. The cell after the options table no longer says where `LoopAgent` comes from: the intro says it, once.
2. Section 1's `LoopAgentOptions` bullet says plainly that this lesson needs none of the options (lesson 06 does).
3. Section 3's intro names the trace table's `step` column: "the three messages of step 1", not "of row 1".
4. Exercise 3's set-up says it keeps the inner agent (the agent around the numbering model), not "its model".
5. Section 2's first bullet after the trace says in two sentences what the loop sends and where the rest comes from.
6. Exercise 3's wrong answers point at section 2's numbering once: in the reminder, not in the hint as well.
"""

from __future__ import annotations

import asyncio

from support.lesson_cells import cell_source, student_path, words
from support.loop_runs import stop_at_5_trace

from course_lib.exercises import check, exercise
from course_lib.loop_demos import numbering_reminder, reminder_if_wrong, run_seed_demo

WHERE_FROM = "(MAF for Python has none)"


def test_the_path_says_once_where_loop_agent_comes_from_in_the_intro():
    path = words(" ".join(student_path("05")))
    assert path.count(WHERE_FROM) == 1
    assert WHERE_FROM in words(cell_source("05", "cell-00"))
    assert "`LoopAgent` comes from the course's own `course_lib.loop`" not in path


def test_section_1_says_plainly_the_options_are_for_lesson_06():
    bullets = words(cell_source("05", "cell-02"))
    assert "You don't need these for this lesson; they are here for lesson 06." in bullets
    assert "This lesson changes none of them" not in bullets  # said once, plainly


def test_section_3_names_the_step_column():
    intro = words(cell_source("05", "cell-12"))
    assert "they are the three messages of step 1." in intro
    assert "of row 1" not in intro
    # the table's first column is `step`
    frame = asyncio.run(run_seed_demo())[0].to_frame()
    assert frame.columns[0] == "step" and frame.iloc[0]["step"] == 1


def test_exercise_3_keeps_the_inner_agent_in_words():
    setup = words(cell_source("05", "cell-25"))
    assert (
        "We keep its inner agent (`seeded.inner_agent`, the agent around the numbering model) and its messages" in setup
    )
    assert "We keep its model" not in setup


def test_section_2_says_what_the_loop_sends_and_where_the_rest_comes_from_in_two_sentences():
    bullet = words(cell_source("05", "cell-08"))
    assert "The loop itself adds only the latest feedback, as a new `user` message" in bullet
    assert (
        "Everything else the model sees comes from the session's history, which the loop asked the inner agent "
        "to create." in bullet
    )
    assert "(the session the loop asked the inner agent for)" not in bullet


def _exercise_3_help(answer: int) -> str:
    trace = asyncio.run(stop_at_5_trace())
    said = check("Exercise 3", answer, len(trace.calls), exercise("05", "Exercise 3").hint)
    return reminder_if_wrong(said, numbering_reminder(trace))


def test_exercise_3_wrong_answers_point_at_section_2_once():
    for answer in (1, 3, 4, 5):
        shown = " ".join(_exercise_3_help(answer).split())
        assert ": not quite." in shown
        assert shown.lower().count("section 2") == 1, shown
        assert "From section 2: the input messages were numbered [1] to [3]." in shown
        assert "which response first carries the number [5]" in shown.lower()
