"""Lesson 05, a new student's walk after walk 23's first round (issue 32): score 4/5, all minor.

1. Section 1's ``StopAtOnce`` example had no import: pasted into a cell it was a NameError. It runs as shown
   (the test in ``test_lesson05_walk23.py`` runs it in an empty namespace).
2. Section 2 never said ``MessageNumberer`` is the counter, nor what ``numberer.message(text, role)`` makes.
3. "The loop itself sends only the latest feedback as a new user-role message": no output showed a role. A table
   right after the rule lists what call 2 received with each message's role, and the stepper names each message's
   role.
4. The stepper's "Go to step" box: empty input answered ``“” is not a step number``; a very long value was echoed
   whole (and one of more than 4300 digits would have crashed ``int``).
5. The box shrank to a sliver in a narrow row: it has a least width, in the panel and in the lesson's saved state.
6. An LLM step's "The model answered:" was a plain line beside two bulleted lists: all three are lists.
7. The intro named the seed without a link to where it comes from.
8. The glossary's "feedback" and the lesson's said it two ways: one wording, true to ``LoopAgent._prepare_next``.
9. "one a row" is "one per row".
"""

from __future__ import annotations

import html
import json
import re

import pytest
from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words
from test_stepper_walk23 import shown_text, stepper_at, type_into

from course_lib.environment import course_file
from course_lib.loop import LoopAgent, LoopEvaluation
from course_lib.loop_demos import (
    IterationCountEvaluator,
    LoopTrace,
    MessageNumberer,
    NumberingChatClient,
    call_input_frame,
    run_seed_demo,
)
from course_lib.loop_panels import LoopStepper, typed_step_problem

# region 2. The counter, named where it is made


def test_section_2_says_the_numberer_is_the_counter_and_what_its_message_makes():
    said = words(cell_source("05", "cell-06"))
    assert "`MessageNumberer()` is the counter" in said
    assert "`numberer.message(text, role)` makes a chat message with the counter's next number and that role" in said
    assert "numberer, trace = MessageNumberer(), LoopTrace()" in cell_source("05", "cell-07")
    numberer = MessageNumberer()
    first, second = numberer.message("a", "user"), numberer.message("b", "assistant")
    assert (first.text, first.role, second.text, second.role) == ("[1]a", "user", "[2]b", "assistant")


# endregion

# region 3. The feedback's role, shown at the rule


async def test_the_trace_records_each_received_messages_role():
    trace, _ = await run_seed_demo()
    assert trace.roles[0] == ["user", "assistant", "user"]
    assert trace.roles[1] == ["user", "assistant", "user", "assistant", "user"]
    assert [len(r) for r in trace.roles] == [len(c) for c in trace.calls]
    assert trace.calls[1][-1] == "Feedback for iteration 1" and trace.roles[1][-1] == "user"


async def test_a_call_input_table_shows_the_roles_when_given_and_is_unchanged_without():
    trace, _ = await run_seed_demo()
    frame = call_input_frame(trace.calls[1], trace.roles[1])
    assert list(frame.columns) == ["message", "role", "text"]
    assert frame.iloc[-1].to_dict() == {"message": 5, "role": "user", "text": "Feedback for iteration 1"}
    assert list(call_input_frame(trace.calls[1]).columns) == ["message", "text"]  # lesson 06's tables
    with pytest.raises(ValueError, match="one role per message"):
        call_input_frame(trace.calls[1], trace.roles[0])


def test_a_trace_whose_calls_recorded_no_roles_has_none():
    trace = LoopTrace()
    trace.llm(["[1]a"], "[2]b")
    assert trace.roles == [[]] and trace.rows[0].roles == ()


def cell_index(number: str, cell_id: str) -> int:
    return next(i for i, c in enumerate(stored_lesson(number)["cells"]) if c.get("id") == cell_id)


def test_the_roles_table_follows_the_rule_and_shows_the_feedback_as_user():
    rule = words(cell_source("05", "cell-08"))
    assert "The loop itself adds only the latest feedback, as a new `user` message" in rule  # second walk 25's words
    assert "the table below shows each message call 2 received, with its role" in rule
    assert cell_index("05", "call-2-roles") == cell_index("05", "cell-08") + 1
    code = cell_source("05", "call-2-roles")
    assert "call_input_frame(trace.calls[1], trace.roles[1])" in code
    shown = cell_outputs("05", "call-2-roles")
    assert "What call 2 received, one message per row, with its role:" in shown
    cells = re.findall(r"<td[^>]*>(.*?)</td>", shown, re.DOTALL)
    rows = [cells[i : i + 3] for i in range(0, len(cells), 3)]
    assert [r[1] for r in rows] == ["user", "assistant", "user", "assistant", "user"]
    assert html.unescape(rows[-1][2]) == "Feedback for iteration 1"
    # the printout that the rule's paragraph led to still follows its own lead-in
    assert cell_index("05", "response-intro") == cell_index("05", "call-2-roles") + 1
    assert cell_index("05", "cell-09") == cell_index("05", "response-intro") + 1


async def test_the_stepper_names_each_incoming_messages_role():
    stepper = await stepper_at(3)  # call 2
    incoming = stepper.view.value.split("<b>Incoming messages")[1].split("<b>The model answered")[0]
    items = re.findall(r"<li>(.*?)</li>", incoming, re.DOTALL)
    heads = [re.match(r'<div style="[^"]*">role: (\w+)</div><pre', item) for item in items]
    assert [h.group(1) for h in heads if h] == ["user", "assistant", "user", "assistant", "user"]
    assert shown_text(items[-1]) == "role: userFeedback for iteration 1"  # a line each: a div, then the message


async def test_the_stepper_names_no_role_for_a_trace_that_recorded_none():
    trace = LoopTrace()
    trace.llm(["[1]a"], "[2]b")
    assert "role:" not in LoopStepper(trace).view.value


# endregion

# region 4. The box: empty input, and a long one echoed short


@pytest.mark.parametrize("typed", ["", " ", "   \t "])
async def test_an_empty_box_is_said_to_be_empty(typed):
    stepper = await stepper_at(4)
    type_into(stepper, typed)
    said = shown_text(stepper.typed_note.value)
    assert said == "The box is empty: type a whole number in digits, 1 to 6 (the stepper stays at step 4)."
    assert stepper.slider.value == 4 and stepper.step_box.value == "4"


@pytest.mark.parametrize("typed", ["7" * 300, "x" * 300, "1" * 5000, "0" * 400 + "5"])
def test_a_long_typed_value_is_echoed_short_and_never_crashes(typed):
    said = typed_step_problem(typed, 1, 6, now=4)
    if typed.lstrip("0") == "5":  # 400 zeros and a 5 is step 5, in digits
        assert said is None
        return
    assert said is not None and len(said) < 200, said
    assert f"({len(typed)} characters)" in said and typed not in said
    assert said.endswith("(the stepper stays at step 4).")


def test_a_short_value_is_still_echoed_whole():
    assert typed_step_problem("0x10", 1, 6, now=4) == (
        "“0x10” is not a step number: type a whole number in digits, 1 to 6 (the stepper stays at step 4)."
    )
    no_step = "There is no step 99: the steps are 1 to 6 (the stepper stays at step 4)."
    assert typed_step_problem("99", 1, 6, now=4) == no_step


# endregion

# region 5. The box keeps a least width


async def test_the_box_has_a_least_width():
    stepper = await stepper_at(1)
    assert stepper.step_box.layout.min_width == stepper.step_box.layout.width == "11em"


def test_the_lessons_saved_box_has_its_least_width():
    """Before the panel's cell has run, the saved state is what is shown: its box keeps the same least width."""
    state = stored_lesson("05")["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    boxes = [m["state"] for m in state.values() if m["state"].get("description") == "Go to step"]
    assert boxes
    for box in boxes:
        layout = state[box["layout"].removeprefix("IPY_MODEL_")]["state"]
        assert layout.get("min_width") == "11em", layout


# endregion

# region 6. One style for what a step saw and what it did


async def test_what_a_step_did_is_a_list_as_what_it_saw():
    stepper = await stepper_at(1)
    answered = stepper.view.value.split("<b>The model answered</b>:")[1]
    assert answered.startswith("<ul><li>") and "[4] Response message from LLM." in answered
    stepper.slider.value = 2
    sent = stepper.view.value.split("continue, with this feedback:")[1]
    assert sent.startswith("<ul><li>") and "Feedback for iteration 1" in sent


# endregion

# region 7. The seed, linked where it is first named


def test_the_intro_links_the_seed_where_it_is_first_named():
    """The objectives' list says "the demo of the seed"; the sentence right under it says what the seed is, with the
    link lesson 06 gives (its words too)."""
    intro = words(cell_source("05", "cell-00"))
    link = "([where it comes from](../docs/glossary.md#where-this-comes-from))"
    assert f"The *seed* is the article the loop lessons re-create {link}" in intro
    assert link in words(cell_source("06", "cell-00"))
    assert '<a id="where-this-comes-from"></a>' in course_file("docs", "glossary.md").read_text(encoding="utf-8")


# endregion

# region 8. Feedback: one wording, in the glossary and the lesson, true to the code

FEEDBACK = "a user-role message the loop adds for the next iteration, carrying the evaluator's text"


def test_the_glossary_and_the_lesson_say_feedback_one_way():
    glossary = course_file("docs", "glossary.md").read_text(encoding="utf-8")
    [row] = [line for line in glossary.splitlines() if line.startswith("| **feedback** |")]
    assert FEEDBACK in row and "the message an evaluator adds" not in row
    lesson = words(cell_source("05", "cell-08"))
    # walk 24: the lesson's bullet on unnumbered feedback gives its reason now; the role is said in the first bullet
    assert "adds only the latest feedback, as a new `user` message" in lesson  # second walk 25's words
    assert "wrapping the evaluator's text" not in lesson


async def test_the_feedback_message_is_what_the_wording_says():
    from agent_framework import Agent

    numberer = MessageNumberer()
    loop = LoopAgent(Agent(client=NumberingChatClient(numberer)), IterationCountEvaluator(2))
    response = await loop.run([numberer.message("Original message from user.")])
    feedback = [m for m in response.messages if m.role != "assistant"]
    assert [(m.role, m.text) for m in feedback] == [("user", "Feedback for iteration 1")]  # the evaluator's text
    assert feedback[0].additional_properties["_attribution"]["source_type"] == "LoopAgent"  # the loop's own
    assert LoopEvaluation.continue_with("x").feedback == "x"


# endregion

# region 9. "one per row"


def test_no_one_a_row_in_lessons_05_06_or_the_loop_modules():
    texts = {f"lesson {n}": json.dumps(stored_lesson(n)) for n in ("05", "06")}
    for module in ("loop", "loop_demos", "loop_panels", "tracing"):
        texts[module] = course_file("course_lib", f"{module}.py").read_text(encoding="utf-8")
    for name, text in texts.items():
        assert not re.search(r"(?<!which )\bone an? (row|line|column|step|call|message)\b", text), name
    assert "The options, one per row:" in words(cell_source("05", "hood-pieces"))


# endregion


def test_section_5_says_the_stepper_heads_each_message_with_its_role():
    said = words(cell_source("05", "cell-18"))
    assert "At a model call, each message it received is headed by its role (`role: user`)" in said
