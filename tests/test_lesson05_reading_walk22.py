"""Lesson 05, a new student's second walk 22 (issue 32): reading load.

1. The course's copy of the seed's demo is "not part of MAF either"; no MAF Python name left unexplained there.
2. Section 2 says why the caller's input holds a model's answer: it replays an earlier exchange.
3. The seed's contradictions are announced under the hood only, not in section 2.
4. With no session given, the loop asks the inner agent for a new session (what ``course_lib.loop`` does).
5. Section 1 opens with a bullet for ``LoopAgent``; section 2 says ``evaluators=`` takes one evaluator or a list.
6. The exercise cells' first comment: "# needs the cells above; after a restart it tells you to run them first".
7. Exercise 3's hint for 3 asks what the evaluator decides after [5]; it counts no rows and gives no number.
8. The glossary's "role" row names lesson 05, where user and assistant are defined.
9. No cell on the student's path that the lesson says to skip: the demo stepper's cell is under the hood.
Also: no sentence of the student's path over 30 words, none with two semicolons.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from support.lesson_cells import cell_source, stored_lesson
from support.lesson_cells import plain_words as words
from test_lesson05_walk22 import PANEL_NOTE, _markdown_of_path, _prose, _sentences

from course_lib import loop
from course_lib.exercises import exercise
from course_lib.loop import DelegateLoopEvaluator, LoopAgent, LoopEvaluation
from course_lib.loop_demos import IterationCountEvaluator, seed_loop

ROOT = Path(__file__).resolve().parent.parent


def _path_ids() -> list[str]:
    cells = stored_lesson("05")["cells"]
    hood = next(i for i, c in enumerate(cells) if c.get("id") == "hood-head")
    return [c.get("id") for c in cells[:hood]]


# --- 1 ---


def test_the_demo_is_the_courses_copy_and_no_middleware_name_is_left_unexplained():
    said = words(cell_source("05", "pieces-demo"))
    # walk 24 (tests/test_lesson05_06_second_walk24.py): "The course's copy of the seed's demo... The course's
    # copy of the seed's evaluator" is said once, plainly; walk 25 (tests/test_lesson05_walk25.py) says it under the
    # hood, with the pointer to lesson 06
    hood = words(cell_source("05", "hood-code")) + " " + words(cell_source("05", "hood-head"))
    assert "The demo's fake model and its evaluator are the course's own code, in `course_lib.loop_demos`." in hood
    assert "The seed's demo is not part of MAF at all" not in said
    assert "AgentLoopMiddleware" not in said + hood and "middleware" not in (said + hood).lower()
    assert "lesson 06 compares" in hood


# --- 2, 3, 4 ---


def test_section_2_says_the_input_replays_an_earlier_exchange():
    said = words(cell_source("05", "cell-06"))
    assert "replays an earlier exchange, as if the conversation were already under way" in said


def test_the_contradictions_are_announced_under_the_hood_only():
    for text in _markdown_of_path():
        assert "contradicts itself" not in text and "seed-contradictions" not in text, text[:120]
    hood = words(cell_source("05", "hood-head"))
    assert "the course follows that source code" in hood and "#seed-contradictions" in hood


def test_the_loop_asks_the_inner_agent_for_a_new_session_as_the_code_does():
    assert "self.loop.inner_agent.create_session()" in inspect.getsource(loop)
    said = words(cell_source("05", "cell-06"))
    assert "asks the inner agent for a new session" in said
    assert "creates one from the" not in said
    assert "created from the inner agent" not in words(cell_source("05", "cell-08"))


# --- 5 ---


def test_section_1_opens_with_a_loop_agent_bullet():
    bullets = [b for b in cell_source("05", "cell-02").split("\n* ") if b.strip()]
    assert bullets[1].startswith("`LoopAgent`"), bullets[1][:80]
    assert "inner agent" in bullets[1]


async def test_section_2_says_one_evaluator_or_a_list_and_the_loop_takes_both():
    said = words(cell_source("05", "cell-06"))
    assert "`evaluators=` takes one evaluator, as here, or a list of them" in said
    one = LoopAgent(seed_loop()[0].inner_agent, IterationCountEvaluator(1))
    stop = DelegateLoopEvaluator(lambda context: LoopEvaluation.stop())
    several = LoopAgent(seed_loop()[0].inner_agent, [IterationCountEvaluator(1), stop])
    assert len(one.evaluators) == 1 and len(several.evaluators) == 2


# --- 6 ---

COMMENT = "# needs the cells above; after a restart it tells you to run them first"


def test_the_exercise_cells_first_comment():
    for cell_id in ("cell-22", "cell-24", "cell-26"):
        assert cell_source("05", cell_id).splitlines()[0] == COMMENT
    for cell in stored_lesson("05")["cells"]:
        assert "this import makes the cell say" not in "".join(cell["source"])


# --- 7 ---


def test_exercise_3s_hint_for_3_asks_about_the_evaluator_and_gives_no_number():
    hint = dict(exercise("05", "Exercise 3").misses)[3]
    assert "evaluator" in hint or "stop_at_5" in hint
    assert "?" in hint
    for recipe in ("count", "row", "table"):
        assert recipe not in hint.lower(), hint
    assert not re.search(r"\d", hint.replace("[5]", "").replace("stop_at_5", "")), hint


# --- 8 ---


def test_the_glossarys_role_row_names_lesson_05():
    row = next(line for line in (ROOT / "docs" / "glossary.md").read_text().splitlines() if "| **role** |" in line)
    assert "lesson 05, section 2" in row
    assert row.rstrip().endswith("| lessons 00, 05, 06 |"), row[-40:]


# --- 9 ---


def test_no_cell_on_the_path_is_one_to_skip_and_the_demo_stepper_is_under_the_hood():
    for text in _markdown_of_path():
        assert "you may skip" not in text.lower()
    ids = _path_ids()
    assert "cell-19" in ids and "cell-20" not in ids
    assert "demo_stepper.summary()" in cell_source("05", "cell-20")


# --- also ---


def test_no_long_or_twice_semicoloned_sentence_on_the_path():
    for text in _markdown_of_path():
        for sentence in _sentences(_prose(text.split(PANEL_NOTE)[0])):
            assert len(sentence.split()) <= 30, sentence
            assert sentence.count(";") <= 1, sentence
