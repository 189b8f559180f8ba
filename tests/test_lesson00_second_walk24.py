"""Lesson 00, the second new-student walk of round 24 (issue 32, score 4/5): the seven findings.

1. Section 5's usage cell builds ``WorkingMemory()``, ``ChatFactWriter`` and ``MemoryExtraction`` with no word on
   them on the path: every class a student-path cell builds is named in the path's words before that cell.
2. ``declares: environment=staging.`` read as a sentence's end: :func:`course_lib.qualify.misses_in_words` says,
   computed, that a value's final mark is part of it.
3. Under the hood printed the last run's misses a second time and listed them a third: the table stays, with one
   note pointing back to section 6.
4. The comparison's rows (1 of 15, 9 cut, 6 rejected) add up to 16: :func:`course_lib.recordings.rows_overlap_note`
   says the rows overlap and that a cut reply is ``writer_failed``.
5. The load row shows each run's load at its start: its name says so, as the times note does.
6. The hood's first block, the memo, was one the lesson never mentions: it comes after the failures, and opens on
   where the lesson meets it.
7. The intro names the French seed as the glossary does.
"""

from __future__ import annotations

import ast
import re

from course_lib.qualify import Case, misses_in_words
from course_lib.recordings import (
    LOAD_ROW,
    compare_qualifications,
    load_qualification,
    qualification_steps,
    rows_overlap_note,
    times_note,
)
from tests.support.lesson_cells import cell_outputs, cell_source, stored_lesson, words

# --- helpers ---


def cells() -> list[dict]:
    return stored_lesson("00")["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


def hood_index() -> int:
    return next(i for i, c in enumerate(cells()) if text(c).lstrip().startswith("## Under the hood"))


def printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


# --- 1. every class a student-path cell builds is named before it ---


def built_classes(code: str) -> set[str]:
    """The course's and MAF's classes a code cell calls (``Name(...)``), read from its syntax tree."""
    tree = compile(code, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in {"course_lib", "agent_framework"}
        for alias in node.names
    }
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return {name for name in called & imported if name[0].isupper()}


def test_every_class_a_student_path_cell_builds_is_named_in_the_words_before_it():
    """The rule, not the one cell: a course or MAF class a code cell of the path builds is named in the path's prose
    by then (pandas' ``DataFrame`` is Python the student brings), or, for a later lesson's class the prose must not
    need (walk 25: section 5's fact writer), said in a comment of the cell that builds it."""
    said = ""
    unnamed = []
    for cell in cells()[: hood_index()]:
        if cell["cell_type"] == "markdown":
            said += text(cell)
            continue
        lines = text(cell).splitlines()
        comments = " ".join(line.partition("#")[2] for line in lines if "#" in line)
        commented = {name for name in built_classes(text(cell)) for line in lines if f"{name}(" in line and "#" in line}
        unnamed += [
            (cell.get("id"), name)
            for name in sorted(built_classes(text(cell)))
            if f"`{name}" not in said and not re.search(rf"\b{name}\b", comments) and name not in commented
        ]
    assert not unnamed, unnamed


def test_the_rule_reads_every_class_a_cell_builds():
    code = cell_source("00", "e9786665")
    # walk 25's second walk: lesson 02's classes are built inside one call, ask_fact_writer
    assert built_classes(code) == {"Agent", "Backends", "CallLog"}


def test_section_5_says_what_each_memory_name_does_where_the_code_uses_it():
    # walk 25: the prose no longer needs lesson 01-02's names; the cell's comments say what each one does
    before_cell = words(cell_source("00", "787bc88b"))
    assert "WorkingMemory" not in before_cell and "You need none of these names" not in before_cell
    code = cell_source("00", "e9786665")
    # walk 25's second walk: one call, whose comment says what it is, in place of lesson 02's three names
    assert "# lesson 02's fact writer, asked once (an empty store)" in code
    assert 'await ask_fact_writer("module=Billing"' in code  # the call the comment names, by its name
    assert "WorkingMemory" not in code and "ChatFactWriter" not in code and "MemoryExtraction" not in code
    assert all(len(line) <= 90 for line in code.splitlines())


def test_the_word_store_is_not_used_on_the_path_before_section_5_defines_it():
    path = [words(text(c)) for c in cells()[: hood_index()] if c["cell_type"] == "markdown"]
    joined = " ".join(path)
    defined = joined.index("the course's fact store")  # walk 25: section 6 names it, where it is first needed
    assert " store " not in joined[:defined] and "the store" not in joined[:defined]


# --- 2. a value's final mark is part of it ---


def test_misses_in_words_says_a_final_full_stop_is_part_of_the_value():
    said = misses_in_words(load_qualification().cases)
    assert "declares: environment=“staging.”" in said  # third walk 25: values quoted
    last = said.splitlines()[-1]
    assert last == (
        "The “.” ending “environment=staging.” is part of the value: a value runs to the next “;” or line break."
    ), last


def test_the_note_is_computed_for_any_final_mark_and_absent_when_no_value_ends_in_one():
    recording = load_qualification()
    missed = next(c for c in recording.cases if c.case == "words before a key")
    battery = (Case("words before a key", "declaration", "module=Billing!; priority=P1?"),)
    said = misses_in_words([missed], battery)
    assert "“module=Billing!”" in said and "“priority=P1?”" in said
    assert "The “!” ending" in said and "the “?” ending" in said
    plain = (Case("words before a key", "declaration", "module=Billing"),)
    assert "part of the value" not in misses_in_words([missed], plain)
    assert "part of the value" not in misses_in_words([c for c in recording.cases if c.case != missed.case])


def test_section_6_prints_the_note_under_its_misses():
    assert "is part of the value: a value runs to the next “;” or line break." in cell_outputs("00", "section-6-run")


# --- 3. the last run's misses: the table, and one note back to section 6 ---


def test_the_last_runs_misses_are_printed_once_in_the_lesson():
    block = misses_in_words(load_qualification().cases)
    outputs = "\n".join(printed(c) for c in cells() if c["cell_type"] == "code")
    assert outputs.count(block) == 1
    assert block in printed(next(c for c in cells() if c.get("id") == "section-6-run"))


def test_under_the_wrong_proposals_table_one_note_points_back_to_section_6():
    code = cell_source("00", "b7d1e0a2")
    assert "misses_in_words" not in code and "wrong_proposals()" in code
    note = cell_source("00", "b7d1e0a3")
    assert "(#section-6)" in note or "section 6" in note
    assert not re.search(r"^\s*[-*] ", note, flags=re.M), "the note lists the cases a third time"
    for case in (c.case for c in load_qualification().cases if not c.as_contract):
        assert case not in note
    intro = words(cell_source("00", "proposals-markers"))
    assert "group the wrong ones" not in intro


# --- 4. the comparison's rows overlap; a cut reply is writer_failed ---


def row_counts(name: str) -> tuple[int, int, int, int]:
    """A run's cases, and its counts in the rows *as the contract says*, *cut* and *rejected*."""
    run = qualification_steps()[name]
    kept = sum(c.as_contract for c in run.cases)
    cut = sum(map(run.is_cut, run.cases))
    rejected = sum(c.outcome == "rejected" for c in run.cases)
    return len(run.cases), kept, cut, rejected


def test_the_recorded_rows_do_add_up_to_more_than_the_cases():
    cases, kept, cut, rejected = row_counts("the rules alone")
    assert (cases, kept, cut, rejected) == (15, 1, 9, 6)
    assert kept + cut + rejected == 16


def test_rows_overlap_note_says_the_rows_overlap_and_the_cut_replies_are_writer_failed():
    steps = qualification_steps()
    note = rows_overlap_note(steps)
    lines = note.splitlines()
    assert lines[0] == "The rows overlap, so their counts need not add up to 15: a case counts in every row it fits."
    assert "“over-long message” counts in every run both as the contract says and as rejected by the host" in note
    assert "the contract expects the host to reject it" in note
    assert "the 9 replies cut at the output cap in “the rules alone” are writer_failed" in note
    assert "the writer gave no proposal to check" in note
    for run in steps.values():
        assert all(c.outcome == "writer_failed" for c in run.cases if run.is_cut(c))


def test_rows_overlap_note_follows_the_recordings():
    steps = qualification_steps()
    last = steps["+ the declared count (now)"]
    without_overlap = last.model_copy(
        update={"cases": [c for c in last.cases if not (c.as_contract and c.outcome == "rejected")]}
    )
    assert rows_overlap_note({"only": without_overlap}) == ""  # nothing overlaps, nothing is cut
    rules = steps["the rules alone"]
    cut_only = rules.model_copy(update={"cases": [c for c in rules.cases if rules.is_cut(c)]})
    note = rows_overlap_note({"cut": cut_only})
    assert "overlap" not in note and "counts in every run both" not in note  # cut and rejected never overlap
    assert note.startswith("The 9 replies cut at the output cap in “cut” are writer_failed")


def test_the_lesson_prints_the_overlap_note_right_under_the_comparison():
    code = cell_source("00", "b7d1e0a1")
    table = code.index("compare_qualifications(steps)")
    assert table < code.index("print(rows_overlap_note(steps))") < code.index("print(unsent_note(steps))")
    assert rows_overlap_note(qualification_steps()) in cell_outputs("00", "b7d1e0a1")


# --- 5. the load row says its loads are at the start ---


def test_the_load_row_names_the_start_and_shows_each_runs_starting_load():
    assert "at the start" in LOAD_ROW
    steps = qualification_steps()
    row = compare_qualifications(steps).loc[LOAD_ROW]
    for name, run in steps.items():
        assert row[name] == f"{run.machine.load_average_start[0]:.1f}"
        assert run.load_words().startswith(row[name])  # the fold's "went from 1.0 to 1.7" starts on it
    assert "how busy the machine was at the start: load 1.0, 10.3, then 7.9" in times_note(steps)
    assert "at the start" in cell_outputs("00", "b7d1e0a1")


# --- 6. the memo comes after the failures, and says where the lesson meets it ---


def test_the_hood_opens_on_the_failures_and_the_memo_says_why_it_matters():
    hood = text(cells()[hood_index()])
    assert hood.index("**Every failure section 4 sums up.**") < hood.index("**The local model's memo.**")
    memo = words(hood[hood.index("**The local model's memo.**") :])
    first = re.split(r"(?<=[.!?])\s+", memo[len("**The local model's memo.** ") :])[0]
    assert "(section 3)" in first and "`COURSE_LLM=local`" in first, first


# --- 7. the French seed, in the glossary's words ---


def test_the_intro_names_the_french_seed_as_the_glossary_does():
    from pathlib import Path

    wording = "one in French on keeping the facts a user declared"
    glossary = (Path(__file__).resolve().parent.parent / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert wording in glossary
    intro = words(cell_source("00", "under-the-hood"))  # walk 25: the seeds' sentence is under the hood
    assert wording in intro and "controlled facts" not in intro
