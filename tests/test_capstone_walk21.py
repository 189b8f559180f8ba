"""Walk 21's findings on lesson 07 (issue 32): section 3 says only what its first table needs before it, the table's
columns are read under it, the eviction rule sits in section 4, and no lesson variable is named like an answer."""

from __future__ import annotations

import ast
import re
from types import SimpleNamespace

from IPython.core.interactiveshell import InteractiveShell
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.exercises import check, exercise, explain_unquoted_names

SECTION_3 = "10ead7db"  # "## 3. Every policy's final question, inside the loop"
FIRST_TABLE = "02f68a0d"  # the repairs table, one row per policy
WHY_TABLE = "a91d0c8d"  # the first output that prints "evicted"
SECTION_4_EVICTIONS = "5e87e929"
TIE_RULE = "among facts from the same turn, the key first in alphabetical order goes first"

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


def _cell(cell_id: str) -> dict:
    return next(c for c in _cells() if c["id"] == cell_id)


def _ids() -> list[str]:
    return [c["id"] for c in _cells()]


def _words(cell_id: str) -> str:
    return " ".join(cell_source("07", cell_id).split())


def _section(title: str) -> list[dict]:
    """The cells of the section whose heading starts with ``title``, up to the next ``## `` heading."""
    cells = _cells()
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith(title))
    end = next(
        (i for i in range(start + 1, len(cells)) if "".join(cells[i]["source"]).startswith("## ")),
        len(cells),
    )
    return cells[start:end]


def test_section_3_s_intro_keeps_the_eviction_rule_and_the_column_notes_out():
    intro = _words(SECTION_3)
    for later in (TIE_RULE, "alphabetical", "oldest turn", "evicted", "reader chars", "feedback chars"):
        assert later not in intro, later
    for needed in ("the store keeps at most 5 facts", "**replay**", "**host**", "* **stopped at the cap**"):
        assert needed in intro, needed


def test_the_first_table_is_read_in_a_list_right_above_it():
    ids = _ids()
    # walk 25 (fourth round): the list comes before the cell that prints the table, not after it
    above = _cells()[ids.index(FIRST_TABLE) - 1]
    assert above["cell_type"] == "markdown"
    said = "".join(above["source"])
    assert said.startswith("**How to read the table**")
    # walk 24 (second round): why each policy is shown once stays right under the table, in its own words
    under = "".join(_cells()[ids.index(FIRST_TABLE) + 1]["source"])
    assert under.startswith("Both drifting rules give the same rows.")
    headers = re.findall(r"<th [^>]*col_heading[^>]*>([^<]+)</th>", cell_outputs("07", FIRST_TABLE))
    columns = [name for name in headers if name != "policy"]
    assert len(columns) >= 6
    items = [line for line in said.splitlines() if line.startswith("* ")]
    for column in columns:
        assert any(f"**{column}**" in item or column.split()[0] in item for item in items), column
    assert "no run here needs more than 2" in " ".join(said.split())
    plain = "".join(next(o for o in _cell(FIRST_TABLE)["outputs"] if "data" in o)["data"]["text/plain"])
    iterations = [int(m) for m in re.findall(r"^\s*\d+\s+\S.*?\S\s{2,}(\d+)\s{2,}\d+", plain, re.M)]
    assert len(iterations) == 6 and max(iterations) <= 2


def test_evicted_is_defined_before_the_first_output_that_prints_it():
    cells, ids = _cells(), _ids()
    first_printed = next(
        i for i, c in enumerate(cells) if c["cell_type"] == "code" and "evicted" in cell_outputs("07", c["id"])
    )
    assert first_printed == ids.index(WHY_TABLE)
    defined = next(i for i, c in enumerate(cells) if "**evicted**" in "".join(c["source"]))
    assert defined < first_printed and cells[defined]["cell_type"] == "markdown"


def test_section_4_states_the_eviction_rule_before_its_walk_through():
    said = _words(SECTION_4_EVICTIONS)
    assert TIE_RULE in said
    assert "oldest turn" in said and "moves to the correction's turn" in said
    rule = said.index(TIE_RULE)
    assert rule < said.index("Turn 1 brought `product`")


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
    # walk 24: the expected answer is computed in course_lib, under a name that is not the student's answer
    assert "expected = await exercise_expected" in cell_source("07", "99601245")


def test_sections_3_and_4_say_one_thing_per_sentence():
    for title in ("## 3.", "## 4."):
        for cell in _section(title):
            if cell["cell_type"] != "markdown":
                continue
            lines = "".join(cell["source"]).splitlines()
            text = " ".join(" ".join(line for line in lines if not line.startswith("#")).split())
            for sentence in re.split(r"(?<=[.:;!?])\s+(?=[A-Z*-])", text):
                assert len(sentence.split()) <= 45, sentence


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
