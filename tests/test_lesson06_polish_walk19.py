"""Lesson 06 walked again (issue 32, walk 19, second round, all polish): the comment on ``stop_sentence`` is true of
the lesson's loops, section 1 says the first run of a fresh context starts on a new session too and exercise 2's miss
for 1 asks about it, no lesson variable is named like a number word, section 7 says where a ``should_continue``
feedback goes as MAF Python's source does, and the stepper's cell works on its own under the short note."""

from __future__ import annotations

import ast
import json
import re
import warnings

from agent_framework import Agent
from agent_framework._harness._loop import AgentLoopMiddleware
from support.checker import run_each_in_a_fresh_shell, run_in_shell, said
from support.lesson_cells import cell_outputs, cell_source, stored_lesson
from test_reading import PANEL_CONTROLS, WORKS_ALONE, panel_note

from course_lib.exercises import _NUMBER_WORDS, exercise
from course_lib.loop import DelegateLoopEvaluator, LoopAgent, LoopAgentOptions, LoopEvaluation
from course_lib.loop_demos import (
    SEED_INPUT,
    LoopTrace,
    MessageNumberer,
    NumberingChatClient,
    calls_sentence,
    profile_options,
    run_seed_demo,
    seed_loop,
)

warnings.filterwarnings("ignore", message=".*AgentLoopMiddleware is experimental.*")


def _words(text: str) -> str:
    return " ".join(text.replace("*", "").split()).replace("`", "")


def _code_cells() -> list[tuple[str, str]]:
    """Lesson 06's code cells as (id, source), IPython's magics left out so that Python can parse them."""
    return [
        (c.get("id", ""), "".join(c["source"]))
        for c in stored_lesson("06")["cells"]
        if c["cell_type"] == "code" and c.get("id") != "colab-setup"
    ]


def _tree(source: str) -> ast.Module:
    """A cell's code as Python reads it; top-level ``await`` is allowed, as in a notebook."""
    return ast.parse(source)


# region 1. The comment on stop_sentence is true: the loops it is used on have one evaluator, not every loop


def test_the_stop_sentence_comment_speaks_of_the_loops_it_is_used_on_and_they_have_one_evaluator():
    lines = cell_source("06", "cell-14").splitlines()
    comment = _words(" ".join(line.removeprefix("#") for line in lines if line.startswith("#")))
    assert "each loop of this lesson has one evaluator" not in comment
    assert "each loop whose response this lesson passes to it has one evaluator" in comment
    assert 'for a loop of several, add evaluators=N: "all N evaluators said stop"' in comment
    # the lesson has loops of two evaluators (section 3, exercise 3): "each loop of this lesson" was false
    several = [cid for cid, source in _code_cells() if re.search(r"LoopAgent\([^()]*, \[", source)]
    assert {"cell-10", "cell-26"} <= set(several)
    # every loop whose response reaches stop_sentence has one evaluator: never a list, and seed_loop's has one
    used = [(cid, source) for cid, source in _code_cells() if "stop_sentence(" in source]
    assert len(used) >= 6
    for cid, source in used:
        assert cid not in several
        for node in ast.walk(_tree(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "LoopAgent":
                assert not isinstance(node.args[1], ast.List), cid
    assert len(seed_loop(allowed=99)[0].evaluators) == 1
