"""Lesson 06's fourth student walk (issue 32): the first options table shows what its sentence says the caller
gets back, the exercise checker breaks its lines between words, the completion-marker run says why it stopped,
the explicit-messages detail counts the messages the model received, and the lesson says why its tables put a space
after a message number."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_student_path import hood_index, lesson

from course_lib.exercises import FEEDBACK_WIDTH, check, exercise, readable_lines
from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import options_frame

LESSON = "06_loop_options_compared"


def _cell(cell_id: str) -> dict:
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")


async def test_the_first_options_table_counts_the_messages_the_caller_gets_back():
    frame = await options_frame(
        {
            "defaults": LoopAgentOptions(),
            "max_iterations=2": LoopAgentOptions(max_iterations=2),
            "fresh": LoopAgentOptions(fresh_context_per_iteration=True),
        }
    )
    assert list(frame.columns) == [
        "option",
        "model calls",
        "messages sent per call",
        "messages returned",
        "sessions created",
    ]
    assert list(frame["messages returned"]) == [5, 3, 5]


def test_the_lessons_sentence_on_max_iterations_points_at_the_column_that_shows_it():
    reading = _cell("cell-04").source
    assert '"messages returned"' in reading and "3 messages" in reading
    shown = _cell("cell-03")["outputs"][0]["data"]["text/html"]
    assert ">messages returned</th>" in shown


# words: text without line breaks or quotes, as most of the checker's sentences are
_WORDS = st.text(st.sampled_from("ab =.:"), max_size=300)


@given(_WORDS, st.integers(min_value=10, max_value=120))
def test_readable_lines_only_turn_single_spaces_between_words_into_line_breaks(text, width):
    wrapped = readable_lines(text, width)
    assert wrapped.replace("\n", " ") == text
    for line in wrapped.split("\n"):
        breaks = [m.start() for m in re.finditer(r"(?<=[^\s=]) (?=[^\s=])", line)]  # "=": an operator
        assert len(line) <= width or not breaks or breaks[0] > width, f"{line!r} could have been broken"


@pytest.mark.parametrize(
    "quoted",
    ["('   Billing   ')", '"## Feedback"', "'SQL Server 2022'", '"database=SQL Server 2022"'],
)
def test_a_short_quoted_text_stays_on_one_line(quoted):
    for lead in range(0, 30):
        text = "x" * lead + " word" * 5 + " " + quoted + " and more words after it"
        wrapped = readable_lines(text, 40)
        assert any(quoted in line for line in wrapped.split("\n")), wrapped
        assert wrapped.replace("\n", " ") == text


def test_a_sum_stays_on_one_line():
    text = "Three input messages, then a response and a feedback message per iteration: 3 + 2 * 3 at the 4th call."
    assert "3 + 2 * 3" in readable_lines(text, 70).split("\n")[1]


def test_an_apostrophe_opens_no_quote_so_prose_still_breaks():
    text = "the caller's own words and the seed's demo and the loop's feedback, read in the caller's order"
    assert max(len(line) for line in readable_lines(text, 30).split("\n")) <= 30


def test_the_spaces_inside_a_quoted_answer_are_never_where_a_line_breaks():
    said = check("Exercise 9", "   Billing   ", "Billing", "x" * 60)
    assert "('   Billing   ')" in said


def test_every_line_the_checker_prints_fits_the_width_and_breaks_between_words():
    entry = exercise("06", "Exercise 3")
    for answer in (2, 0, 3, 7, "2", 1):
        said = check("Exercise 3", answer, 1, entry.hint)
        assert all(len(line) <= FEEDBACK_WIDTH for line in said.split("\n")), said
        words = re.findall(r"\S+", said)
        assert words == re.findall(r"\S+", " ".join(said.split("\n"))), said
    assert check("Exercise 3", 1, 1, entry.hint).startswith("Exercise 3: correct.\nWhy: ")


def test_every_exercise_message_is_wrapped_between_words():
    for entry in exercise("06", "Exercise 1"), exercise("07", "Exercise 3"), exercise("00", "Exercise 3"):
        for answer in (..., 10**6, "wrong", entry.misses[0][0] if entry.misses else None):
            said = check(entry.label, answer, 4, entry.hint)
            assert max(len(line) for line in said.split("\n")) <= FEEDBACK_WIDTH, said


def test_the_completion_marker_run_prints_why_it_stopped():
    printed = _printed(_cell("839735e2"))
    assert "Stopped because it reached max_iterations" in printed
    assert "stop_sentence(" in _cell("839735e2").source


def test_loop_exit_reason_is_explained_before_the_first_stop_sentence_shows_it():
    cells = lesson(LESSON).cells[: hood_index(lesson(LESSON).cells)]
    first_shown = next(i for i, c in enumerate(cells) if "loop_exit_reason" in _printed(c))
    explained = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and "loop_exit_reason" in c.source)
    assert explained < first_shown


def test_the_explicit_messages_detail_says_why_the_model_received_five():
    detail = _cell("hood-explicit").source
    assert "5 messages" in detail and "history" in detail


def test_the_lesson_says_why_its_tables_space_the_message_numbers():
    # walk 23 (tests/test_lesson06_second_walk23.py): a detail the student's path does not need; lesson 05, which
    # lesson 06 requires, says it before its first spaced table, and lesson 06's Under the hood says it again
    said = " ".join(_cell("hood-fresh").source.split())
    assert "number glued to the text" in said and "the tables add a space" in said


async def test_the_other_options_widths_apply_to_that_table_only():
    """Every course table's cells had the ids ``T_course_rowN_colM``: the other-options table's least widths
    (``#T_course_row0_col1 { min-width: 12em }``) widened column 1 of every table of the lesson, and the first
    options table no longer fit a laptop's notebook width."""
    from course_lib.loop_demos import OTHER_OPTIONS
    from course_lib.loop_panels import options_table
    from course_lib.presentation import plain_table

    widened = options_table(await options_frame(OTHER_OPTIONS)).to_html()
    style = widened.split("</style>")[0]
    selected = set(re.findall(r"#(T_\w+?_row\d+_col\d+)", style))
    assert selected, "the other-options table sets no least width"
    first = plain_table(await options_frame({"defaults": LoopAgentOptions()})).to_html()
    assert not selected & set(re.findall(r'id="(T_\w+?_row\d+_col\d+)"', first))
