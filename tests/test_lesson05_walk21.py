"""Lesson 05, walk 21 (issue 32): whose evaluator, the options table's words, numbers kept with their words, the chart's
counts, and the stepper's number box.

1. "The seed's evaluator, `IterationCountEvaluator(allowed)`" right after "the seed's demo ... is the course's own
   code": a newcomer could not tell the seed's C# from the course's Python. It is "the course's copy of the seed's
   evaluator".
2. Section 1's second bullet spoke of "the demo's evaluator" two cells before the demo and its evaluator are introduced:
   it is "the evaluator of the demo in section 2".
3. The options table's "author name stamped on the messages the loop adds" was unexplained, and its two budget rows
   were in the first table a newcomer sees: the row says what the name is (the sender shown on the loop's feedback,
   checked on a run), and section 1 says the budgets are lesson 06's and that this lesson changes no option.
4. The trace table wrapped "continue: Feedback for iteration" and left the "1" alone on the next line: every number in
   the text a trace table shows for the seed's demo stays on the line of the word before it (a no-break space), for any
   number of iterations and any options, while the trace's own text keeps the seed's plain spaces.
5. The chart labelled its bars "iteration 1/2/3" beside a table and a stepper counting "call 1/2/3": each bar is
   labelled by its call and the iteration evaluated after it, read from the trace.
6. The stepper's number box moves a typed step into range with no message: a line under its controls says what it does,
   computed from the slider's range, and the widget does what the line says.
"""

from __future__ import annotations

import re

import ipywidgets as widgets
import pytest
import traitlets
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.loop import LoopAgentOptions
from course_lib.loop_demos import (
    NO_BREAK,
    OPTION_NOTES,
    call_labels,
    compare_with_seed,
    kept_with_numbers,
    options_rows,
    run_seed_demo,
    stream_seed_demo,
)
from course_lib.loop_panels import LoopStepper, steps_help, steps_words


def words(text: str) -> str:
    return " ".join(text.replace("*", "").split())


# --- finding 1: whose evaluator ---


def test_section_1_says_the_iteration_counting_evaluator_is_the_courses_copy_of_the_seeds():
    said = words(cell_source("05", "pieces-demo"))
    # walk 24 (tests/test_lesson05_06_second_walk24.py): the demo's model and evaluator, said once to be the course's
    # (under the hood since walk 25)
    assert "The demo's fake model and its evaluator are the course's own code" in words(cell_source("05", "hood-code"))
    assert "The evaluator, `IterationCountEvaluator(allowed)`," in said
    assert "The seed's evaluator, `IterationCountEvaluator" not in said


# --- finding 2: no "the demo's evaluator" before the demo is introduced ---


def test_section_1s_bullet_points_to_the_demo_of_section_2_before_the_demo_is_introduced():
    bullets = words(cell_source("05", "cell-02"))
    # walk 22: it decides from the iteration alone; its trace records the four fields
    assert "The evaluator of the demo in section 2 decides from `iteration` alone" in bullets
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
    # second walk 25: said plainly (tests/test_lesson05_second_walk25.py)
    assert "You don't need these for this lesson; they are here for lesson 06." in bullets
    lesson = "\n".join("".join(c["source"]) for c in stored_lesson("05")["cells"] if c["cell_type"] == "code")
    assert "LoopAgentOptions(" not in lesson.replace("LoopAgentOptions())", "")  # only the defaults are built


# --- finding 4: a number stays with the word before it in the trace table ---

WORD_SPACE_NUMBER = re.compile(r"[^\W\d_] \d")


def test_kept_with_numbers_joins_a_word_and_the_number_after_it_and_nothing_else():
    assert kept_with_numbers("continue: Feedback for iteration 12") == f"continue: Feedback for iteration{NO_BREAK}12"
    assert kept_with_numbers("the 3 initial messages") == f"the{NO_BREAK}3 initial messages"
    unchanged = "[4] Response message from LLM. | [5]Response | previous feedback: none | (2 earlier messages)"
    assert kept_with_numbers(unchanged) == unchanged
    assert kept_with_numbers("a\nb 1").split("\n") == ["a", f"b{NO_BREAK}1"]  # line breaks stay where they were


@pytest.mark.parametrize("allowed", [1, 2, 3, 4, 12])  # 12: feedback up to "iteration 11", two digits
@pytest.mark.parametrize("fresh", [False, True], ids=["default flow", "fresh context"])
async def test_no_cell_of_the_seed_demos_trace_table_can_part_a_number_from_its_word(allowed, fresh):
    options = LoopAgentOptions(max_iterations=max(allowed, 10), fresh_context_per_iteration=fresh)
    trace, response = await run_seed_demo(allowed, options)
    frame = trace.to_frame()
    cells = [value for column in ("saw", "did") for value in frame[column]]
    assert not [cell for cell in cells if WORD_SPACE_NUMBER.search(cell)]
    feedback = [did for did in frame["did"] if did.startswith("continue")]
    assert feedback == [f"continue: Feedback for iteration{NO_BREAK}{n}" for n in range(1, allowed)]
    assert NO_BREAK not in trace.text()  # the seed's console layout keeps its plain spaces
    assert all(NO_BREAK not in m.text for m in response.messages)


async def test_the_streamed_demos_table_keeps_numbers_with_their_words_and_both_runs_still_match_the_seed():
    trace, response, _ = await stream_seed_demo()
    assert all(compare_with_seed(trace, response).values())
    assert not any(WORD_SPACE_NUMBER.search(cell) for cell in trace.to_frame()["did"])
    plain, plain_response = await run_seed_demo()
    assert all(compare_with_seed(plain, plain_response).values())
    assert trace.text() == plain.text()


def test_lesson_05s_stored_trace_table_keeps_each_number_with_its_word():
    table = cell_outputs("05", "cell-13")
    cells = re.findall(r"<td[^>]*>(.*?)</td>", table, re.S)
    assert cells and not [cell for cell in cells if WORD_SPACE_NUMBER.search(cell)]
    assert f"continue: Feedback for iteration{NO_BREAK}1" in cells


# --- finding 5: the chart counts calls, as the table and the stepper do ---


@pytest.mark.parametrize("allowed", [1, 3, 5])
async def test_each_bar_is_labelled_by_its_call_and_the_iteration_evaluated_after_it(allowed):
    trace, _ = await run_seed_demo(allowed)
    assert call_labels(trace) == [f"call {n}\n(iteration {n})" for n in range(1, allowed + 1)]


async def test_a_call_no_evaluation_followed_is_labelled_by_its_call_alone():
    trace, _ = await run_seed_demo(5, LoopAgentOptions(max_iterations=2))  # the cap ends the run after call 2
    assert call_labels(trace) == ["call 1\n(iteration 1)", "call 2"]


def test_lesson_05s_chart_labels_its_bars_from_the_trace_and_titles_them_by_call():
    source = cell_source("05", "cell-14")
    assert "call_labels(trace)" in source
    assert 'f"iteration {i}"' not in source
    assert "grows with each call" in source


# --- finding 6: the stepper says what its number box does with a typed step ---


@pytest.mark.parametrize("allowed", [1, 2, 3])
async def test_the_stepper_says_under_its_controls_what_a_typed_step_becomes(allowed):
    trace, _ = await run_seed_demo(allowed)
    stepper = LoopStepper(trace)
    last = 2 * allowed
    line = steps_help(stepper.slider)
    # walk 23: the stepper's own box takes a whole number in digits, within the run (tests/test_stepper_walk23.py)
    assert line == f"Go to step: type a whole number in digits, 1 to {last}, then press Enter."
    assert stepper.children[2] is stepper.help_note and line in stepper.help_note.value  # walk 21 (2): wraps
    assert steps_words(stepper.slider) == f"steps 1 to {last}"  # the label beside the slider stays
    for value in range(1, last + 1):  # the same line at every step: it says nothing of where the student is
        stepper.slider.value = value
        assert line in stepper.help_note.value


async def test_the_widget_does_what_the_stepper_line_says():
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    slider = stepper.slider
    for typed, becomes in (("0", 4), ("-3", 4), ("99", 4), ("7", 4), ("1.7", 4), ("abc", 4), ("3", 3), ("6", 6)):
        slider.value = 4
        stepper.step_box.value = typed  # walk 23: the stepper's box, read in the kernel
        assert slider.value == becomes, typed
    slider.value = 4
    with pytest.raises(traitlets.TraitError):
        slider.value = "abc"
    assert slider.value == 4 and "Step 4 of 6" in stepper.view.value


def test_lesson_05s_saved_stepper_shows_the_line():
    state = stored_lesson("05")["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    notes = [m["state"].get("value", "") for m in state.values() if m["model_name"] == "HTMLModel"]
    assert any(steps_help(widgets.IntSlider(min=1, max=6)) in note for note in notes)
