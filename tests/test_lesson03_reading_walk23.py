"""Lesson 03 read by a newcomer (issue 32, walk 23, second round): "the writing is heavy for a newcomer".

* The opening lists the script as numbered steps (it was one run-on line), and says nothing of a "provider path"
  before paths mean anything.
* The goals are short instructions; each term they use is defined by a short sentence of its own, and no term on the
  student's path is defined in brackets in the middle of a sentence.
* Attaching the provider is section 5 of its own; the race is section 6, and every "section N" follows.
* The forget filter note says in one clause why a desk that forgets still needs it after section 4.
* Section 7 shows, computed, what the same note becomes when sent as a plain user ``Message``.
* After a restart, every cell needs the cells above it (a restart left a bare NameError): the restart line at the top
  says so once (walk 24 dropped the per-cell "needs section 2's cell" comments), each name a cell reads is made above.
"""

from __future__ import annotations

import ast
import re

from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words

from course_lib.exercises import exercise
from course_lib.providers import SEED_SCRIPT, SMUGGLE_HINT, notes_compared


def _cells() -> list[dict]:
    return stored_lesson("03")["cells"]


def _text(cell: dict) -> str:
    return words("".join(cell["source"]))


def _hood_index() -> int:
    return next(i for i, c in enumerate(_cells()) if "".join(c["source"]).startswith("## Under the hood"))


def _student_path() -> list[dict]:
    return _cells()[: _hood_index()]


def _markdown(cells: list[dict]) -> str:
    return " ".join(_text(c) for c in cells if c["cell_type"] == "markdown")


# --- finding 1: the script as numbered steps ---

LESSON_SCRIPT = [*SEED_SCRIPT[:7], "mem", *SEED_SCRIPT[7:], "mem"]
"""The seed's script as lesson 03 runs it: ``mem`` after each change, so also after ``forget module`` and at the end."""


def test_the_opening_lists_the_script_as_numbered_steps() -> None:
    opening = "".join(_cells()[0]["source"])
    steps = re.findall(r"^(\d+)\. (.*)$", opening, flags=re.MULTILINE)
    assert [int(n) for n, _ in steps] == list(range(1, len(LESSON_SCRIPT) + 1))
    assert [re.findall(r"`([^`]*)`", step)[0] for _, step in steps] == LESSON_SCRIPT
    assert "provider path" not in words(opening)


# --- finding 2: goals without definitions; no bracketed definition on the student's path ---


def _goals() -> list[str]:
    opening = "".join(_cells()[0]["source"])
    listed = opening.split("**You will be able to**", 1)[1].split("\n\n", 2)[1]
    return [words(item) for item in re.split(r"^- ", listed, flags=re.MULTILINE) if item.strip()]


def test_the_goals_are_short_instructions_with_no_definition() -> None:
    goals = _goals()
    assert len(goals) == 4
    for goal in goals:
        assert "(" not in goal and len(goal.split()) <= 25, goal


TERMS = ("controlled facts", "context provider", "caller", "desk", "session", "manual injection")


def test_each_term_of_the_goals_is_defined_by_a_short_sentence_of_its_own() -> None:
    opening = words("".join(_cells()[0]["source"]))
    sentences = re.split(r"(?<=[.!?])\s+|\s-\s", opening)  # a list item is a sentence too
    for term in TERMS:
        defining = [s for s in sentences if re.search(rf"\*{term}s?\* (is|are)\b", s, flags=re.IGNORECASE)]
        assert len(defining) == 1, term
        assert "(" not in defining[0] and len(defining[0].split()) <= 25, defining[0]


BRACKETED = (
    "(the Microsoft Agent Framework;",
    "(the store's facts written as text",
    "(a function that picks",
    "(the words it cites)",
    "(the rules the desk follows)",
    "(who a message speaks as",
    "(lesson 01: the stamp",
    "(it replaces each value",
    "(lesson 05: code that",
    "(each a MAF agent",
    "(code MAF calls around",
    "(your code that passes",
    "(your own code pasting",
)


def test_no_term_on_the_student_s_path_is_defined_in_brackets_mid_sentence() -> None:
    said = _markdown(_student_path())
    assert re.findall(r"\*[A-Za-z][^*]{0,40}\* \(", said) == []  # an italic new term, then its bracket
    for phrase in BRACKETED:
        assert phrase not in said, phrase


def test_the_role_and_the_instructions_each_get_a_sentence_of_their_own() -> None:
    said = _text(next(c for c in _cells() if c.get("id") == "correction-sources-read"))
    assert "The desk's *instructions* are the rules the desk follows." in said
    # walk 24: the role is defined just above the first table with a role column, all three roles named
    above = _text(next(c for c in _cells() if c.get("id") == "cell-09"))
    assert "A message's *role* says who it speaks as: `user` (the person at the desk), `assistant`" in above


# --- finding 3: attaching the provider is section 5; the race is section 6 ---

HEADINGS = [
    "## 1. The provider",
    "## 2. Two desks, one store",
    "## 3. The script",
    "## 4. Forget",
    "## 5. Attaching the provider yourself",
    "## 6. A slow extraction racing `forget`",
    "## 7. Words the program adds must never be read as the user's",
    "## 8. Manual injection vs the provider, measured",
    "## 9. Try it: the desk panel",
    "## Key takeaways",
]


def test_the_sections_are_numbered_with_attaching_the_provider_its_own() -> None:
    headings = [
        line
        for c in _student_path()
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("## ")
    ]
    assert headings == HEADINGS
    assert cell_source("03", "attach-md").startswith("## 5. Attaching the provider yourself")
    assert cell_source("03", "race-md").startswith("## 6. A slow extraction racing `forget`")


def test_every_section_named_is_the_one_meant() -> None:
    lesson = _markdown(_cells())
    assert "(section 7 shows how your program labels its own)" in lesson
    assert "Section 7's note, as the course's `LoopAgent` writes it." in lesson
    assert "Section 9's panel is a widget" in lesson and "so the one in section 9 stays yours" in lesson
    assert "(section 7's value rule)" in lesson  # fourth walk 25: one name, where the rule is stated
    for stale in ("section 8's rule", "Section 8's panel", "Section 6's note", "section 6 shows how"):
        assert stale not in lesson, stale
    assert "section 9's stays fresh" in cell_source("03", "cell-25")
    assert "section 7's value rule" in SMUGGLE_HINT and "section 8" not in SMUGGLE_HINT
    assert "section 7's value rule" in exercise("03", "Exercise 1").hint


# --- finding 4: why the filter is still needed ---


def test_the_filter_note_says_why_a_desk_that_forgets_still_needs_it() -> None:
    said = words(cell_source("03", "attach-filter-md"))
    assert "lesson 02's *forget filter*" in said
    assert "writes `[forgotten]` in place of a forgotten value in anything still about to be sent" in said
    # walk 24 (second): what a new session cannot clean, said plainly; walk 25 moved it under the hood, beside the
    # loop that shows it (tests/test_lesson03_walk25.py)
    hood = words(cell_source("03", "hood-filter-loop"))
    assert "section 4" in hood.lower() and "A new session can't clean a run that has already started" in hood


# --- finding 6: the same note sent as a plain user Message ---


async def test_a_plain_user_message_is_read_as_the_caller_s_and_a_program_note_is_not() -> None:
    table = await notes_compared("module=Billing", "Please also state the priority; priority=P0.", "reviewer")
    rows = table.to_dict("records")
    assert [r["the note sent as"] for r in rows] == ["program_note (labelled)", "a plain user Message (no label)"]
    assert [r["read for facts"] for r in rows] == ["no", "yes"]
    assert rows[0]["facts stored"] == 'module = "Billing"'
    assert rows[1]["facts stored"] == 'module = "Billing", priority = "P0."'


def test_section_7_shows_the_two_ways_side_by_side() -> None:
    said = words(cell_source("03", "program-note-both"))
    assert "notes_compared(" in said
    shown = cell_outputs("03", "program-note-both")
    assert "a plain user Message (no label)" in shown and 'priority = "P0."' in shown
    section = words(cell_source("03", "72291c68"))
    assert "a plain user `Message` has none, and would be read as the caller's words" in section


# --- finding 8: a cell that needs section 2's names says so first (walk 24: the restart line at the top says it for
# every cell, the comments went: each name a cell reads is made by a cell above it, run in order) ---


def _loaded_names(source: str) -> set[str]:
    tree = ast.parse(source)
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded - stored


def _made_names(source: str) -> set[str]:
    tree = ast.parse(source)
    made = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    made |= {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    made |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    return made


def test_the_restart_line_covers_every_cell_each_name_read_is_made_above_run_in_order() -> None:
    import builtins

    opening = words(cell_source("03", "cell-00"))
    assert "After a restart, run the imports cell" in opening and "then the cells in order" in opening
    made: set[str] = set(dir(builtins))
    needing = []
    for cell in _student_path():
        if cell["cell_type"] != "code" or "colab-setup" in cell.get("metadata", {}).get("tags", []):
            continue
        source = "".join(cell["source"])
        assert "# needs " not in source, cell.get("id")  # no comment per cell: the restart line says it once
        code = source.replace("await ", "")
        if _loaded_names(code) & {"desks", "log"}:
            needing.append(cell.get("id"))
        missing = _loaded_names(code) - made - _made_names(code)
        assert not missing, (cell.get("id"), missing)
        made |= _made_names(code)
    assert {"correction-sources", "cell-10"} <= set(needing)


def test_lesson_03_says_how_the_router_splits_words_and_it_is_so():
    # lesson 03's last walk 23: 'log-in' went to operations and 'deployments' to triage, neither said
    from course_lib.providers import route_by_topic

    said = words(cell_source("03", "da89f784"))
    # walk 25: whole words, said with a word that holds the letters log (not exercise 2's own words)
    assert "Only whole words count: `login` holds the letters `log` but is not the word `log`" in said
    assert "`log-in` is the two words `log` and `in`" in said
    assert "Only the exact forms on the list count (`deployments` is not `deployment`)" in said
    assert route_by_topic("log-in page broken") == "operations"
    assert route_by_topic("deployments failed") == "triage" and route_by_topic("deployment failed") == "operations"
