"""Walk 21's findings on lesson 07 (issue 32): no lesson variable is named like an answer a student may type."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from IPython.core.interactiveshell import InteractiveShell
from support.lesson_cells import cell_source, stored_lesson

from course_lib.exercises import check, exercise, explain_unquoted_names

# words a student may type unquoted as an answer: lesson 07's verdicts, its rules, right or wrong said in words
ANSWER_WORDS = {
    "right",
    "wrong",
    "correct",
    "incorrect",
    "yes",
    "no",
    "true",
    "false",
    "earliest",
    "latest",
    "repaired",
    "not_repaired",
    "partly_repaired",
    "right_first_time",
    "fixed",
    "missing",
    "stop",
}


def _cells() -> list[dict]:
    return stored_lesson("07")["cells"]


def test_no_lesson_07_variable_is_named_like_an_answer():
    stored = set()
    for cell in _cells():
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]).replace("await ", "")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stored.add(node.id)
    assert not {name.lower() for name in stored} & ANSWER_WORDS, sorted(stored & ANSWER_WORDS)
    assert "run6_correct" in cell_source("07", "99601245")


def _run_twice(capsys, first: str, second: str, **names) -> str:
    """What ``second`` prints in a shell where ``first`` ran before (a checking cell run again, as students do)."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, exercise=exercise, **names)
        shell.run_cell(first, store_history=True)
        capsys.readouterr()
        shell.run_cell(second, store_history=True)
        return " ".join(capsys.readouterr().out.split())
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def test_exercise_3_said_with_the_word_right_unquoted_gets_the_same_words_either_way(capsys):
    """``answer_3 = right`` is a word, not the lesson's result: the cell, run once before, names no lesson variable,
    and says the same whether the run's result is True or False."""
    stored = "\n".join(
        line
        for line in cell_source("07", "99601245").splitlines()
        if not line.startswith(("facts_6 =", "run6 ="))  # the run itself: given below, True or False
    )
    typed = stored.replace("answer_3 = ...", "answer_3 = right")
    told = {}
    for value in (True, False):
        told[value] = _run_twice(capsys, stored, typed, run6=SimpleNamespace(final_correct=value))
    assert told[True] == told[False]
    assert "variable of this lesson" not in told[True]
    assert "'right' is not a Python value" in told[True] and "write the one you mean" in told[True]
