"""Lesson 05's third walk (walk 21): a comment naming the answer a guess, the layout check said in words, and
exercise 3's LoopAgent built with the keywords section 2 taught."""

import re
from pathlib import Path

import nbformat
import pytest

from course_lib.exercises import check, exercise

LESSON = "05"


def said(value, line):
    namespace = {"In": ["", line]}
    return " ".join(check("Exercise 1", value, 9, exercise(LESSON, "Exercise 1").hint, namespace=namespace).split())


@pytest.mark.parametrize("comment", ["# my guess", "# guess", "# my prediction"])
@pytest.mark.parametrize("value", [9, 7])
def test_a_comment_calling_the_answer_a_guess_does_not_doubt_it(comment, value):
    text = said(value, f"answer_1 = {value}  {comment}")
    assert text == said(value, f"answer_1 = {value}"), text


@pytest.mark.parametrize("comment", ["# I guess", "# maybe", "# 9?"])
def test_words_of_doubt_still_doubt(comment):
    assert "doubts the answer" in said(9, f"answer_1 = 9  {comment}")


def _code(pattern):
    cells = nbformat.read(next(Path("notebooks").glob(f"{LESSON}_*.ipynb")), as_version=4).cells
    return next(c for c in cells if c.cell_type == "code" and re.search(pattern, c.source))


def test_the_layout_check_is_a_sentence_not_a_bare_true():
    cell = _code(r"loopagent_seed_layout")
    out = "".join(o.get("text", "") for o in cell.outputs)
    assert "True" not in out and "False" not in out, out
    assert re.search(r"matches data/loopagent_seed_layout\.txt line for line \(\d+ lines\)", out), out


def test_exercise_3_builds_its_loop_with_section_2s_keywords():
    source = _code(r"stop_at_5").source
    compact = "".join(source.split())
    assert "evaluator=DelegateLoopEvaluator(stop_at_5)" in compact, source
    assert "LoopAgent(inner_agent=seeded.inner_agent,evaluators=evaluator)" in compact, source
