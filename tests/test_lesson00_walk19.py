"""Lesson 00, walk 19 of issue 32: every cell brings its own imports, section 5 says which roles its table shows,
section 6 says what is printed under the battery table one thing at a time, and the host check is taught in one
lesson, named the same way in sections 4 and 6.

* Section 6's battery cell imported ``CallLog`` and never used it; the scorecard cell used ``CallLog`` and
  ``student_table`` without importing them, so run alone after a restart it stopped on a NameError.
* Section 5 said its table "has one row per role"; it has two, the roles its cell called.
* The paragraph above the battery table packed four things into one sentence.
* Section 4 said the host check is lesson 02's, section 6 "lessons 01 and 02"; lesson 01 only names it.
"""

import ast
import builtins
import json
import re
from pathlib import Path

from support.checker import run_each_in_a_fresh_shell

ROOT = Path(__file__).resolve().parent.parent
LESSON = next((ROOT / "notebooks").glob("00_*.ipynb"))
NOTEBOOK_NAMES = {"display", "get_ipython"}
"""Names IPython gives every cell without an import."""
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def cells(path: Path = LESSON) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def words(text: str) -> str:
    return " ".join(text.split())


def printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def code_cells() -> list[dict]:
    """The lesson's code cells a student runs (the Colab cell does nothing elsewhere)."""
    return [c for c in cells() if c["cell_type"] == "code" and c.get("id") != "colab-setup"]


def parse(code: str) -> ast.AST:
    return compile(code, "cell", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def imported(code: str) -> set[str]:
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(parse(code))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def read_and_assigned(code: str) -> tuple[set[str], set[str]]:
    """The names a cell reads, and those it sets other than by an import."""
    read, assigned = set(), set()
    for node in ast.walk(parse(code)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else assigned).add(node.id)
        elif isinstance(node, ast.arg):
            assigned.add(node.arg)
        elif isinstance(node, ast.ExceptHandler | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name:
            assigned.add(node.name)
    return read, assigned


# --- finding 2: every cell imports what it uses, and uses what it imports ---


def test_every_cell_imports_each_imported_name_it_reads_and_reads_each_name_it_imports():
    by_import = set().union(*(imported(source(c)) for c in code_cells()))
    borrowed, unused = {}, {}
    for cell in code_cells():
        code = source(cell)
        read, assigned = read_and_assigned(code)
        own = imported(code)
        if lacking := (read & by_import) - own - assigned:
            borrowed[cell["id"]] = sorted(lacking)
        if idle := own - read:
            unused[cell["id"]] = sorted(idle)
    assert not borrowed, f"cells read names only another cell imports: {borrowed}"
    assert not unused, f"cells import names they never use: {unused}"


def test_each_cell_that_needs_no_value_of_another_cell_runs_alone_in_a_fresh_kernel():
    """The scorecard cell needs no value of the battery cell above it, only imports: run alone, it must work."""
    values = set()
    for cell in code_cells():
        values |= read_and_assigned(source(cell))[1]
    alone = []
    for cell in code_cells():
        read, assigned = read_and_assigned(source(cell))
        if not (read - assigned - set(dir(builtins)) - NOTEBOOK_NAMES) & values:
            alone.append(cell)
    ids = [cell["id"] for cell in alone]
    assert "4e735d68" in ids and "4cbb642b" in ids, ids  # the scorecard cell and the battery cell above it
    said = run_each_in_a_fresh_shell([source(cell) for cell in alone])
    ansi = re.compile(r"\x1b\[[0-9;]*m")
    failed = [
        f"{i}: {ansi.sub('', out).strip().splitlines()[-1]}"
        for i, out in zip(ids, said, strict=True)
        if "Traceback" in out
    ]
    assert not failed, "\n".join(failed)


# --- finding 1: section 5's sentence names the rows its table shows ---


def test_section_5_says_how_many_roles_its_table_shows_and_which_as_its_output_shows_them():
    all_cells = cells()
    at = next(i for i, c in enumerate(all_cells) if "## 5. Usage" in source(c))
    table_cell = next(c for c in all_cells[at:] if c["cell_type"] == "code")
    assert "usage_by_role()" in source(table_cell)
    tables = [o["data"]["text/plain"] for o in table_cell["outputs"] if "text/plain" in o.get("data", {})]
    shown = "".join("".join(table) for table in tables)
    roles = re.findall(r"^\d+ +(\S+) +\d+", shown, flags=re.M)
    assert roles == ["assistant", "writer"], shown
    text = words(source(all_cells[at]))
    named = ", ".join(f"`{role}`" for role in roles[:-1]) + f" and `{roles[-1]}`"
    assert f"one row per role the cell called: here {NUMBER_WORDS[len(roles)]}, {named}" in text
    assert "lessons 04 and 06 show it for theirs" not in text
    # the other lesson it points to shows the same table, per role, for its worker and judge (walk 23: the pointer
    # moved under the hood)
    hood_00 = " ".join(source(c) for c in all_cells if source(c).startswith("## Under the hood"))
    assert "lesson 06's *Under the hood* shows it" in words(hood_00)
    lesson_06 = cells(next((ROOT / "notebooks").glob("06_*.ipynb")))
    hood = next(i for i, c in enumerate(lesson_06) if source(c).startswith("## Under the hood"))
    usage = [source(c) for c in lesson_06[hood:] if "usage_by_role()" in source(c)]
    assert any("worker" in code and "judge" in code for code in usage)


# --- finding 3: what is printed under the battery table, one item each, in the order printed ---


def test_the_battery_paragraph_lists_what_is_printed_under_the_table_in_order_in_short_sentences():
    all_cells = cells()
    at = next(i for i, c in enumerate(all_cells) if "case_declares(" in source(c))
    intro = source(all_cells[at - 1])
    battery = intro[intro.index("The battery, case by case") :]
    sentences = re.split(r"(?<=[.:;])\s+(?=[A-Z`*\-])", words(re.sub(r"^- ", "", battery, flags=re.M)))
    assert max(len(s.split()) for s in sentences) <= 30, max(sentences, key=lambda s: len(s.split()))
    items = re.findall(r"^- (.+)$", battery, flags=re.M)
    out = printed(all_cells[at])
    assert out.index("The messages cut in the table, in full:") < out.index("too long to print")
    assert out.index("too long to print") < out.index("declares 1 fact")
    assert len(items) == 2
    assert "in full" in items[0] and "length" in items[0]
    assert "declares" in items[1] and "*words before a key*" in items[1]
    assert "The table cuts the longest messages; the lines under it" not in words(intro)


# --- finding 4: one lesson for the host check, the same in sections 4 and 6 ---


def test_the_host_check_is_lesson_02s_in_both_sections_that_name_it():
    text = [source(c) for c in cells() if c["cell_type"] == "markdown"]
    section_4 = next(t for t in text if "`MemoryExtraction` runs the writer, then the *host check*" in t)
    assert "the *host check* (lesson 02)" in section_4
    section_6 = next(t for t in text if "### Section 6 in full" in t)  # walk 23: under the hood
    assert "- **host check** (lesson 02; the fact writer's cell above gave it in short):" in section_6
    assert not re.search(r"host check\W+\(lessons", words(" ".join(text)))
    # lesson 01 names it and says it comes in lesson 02; lesson 02 teaches it
    lesson_01 = words(" ".join(source(c) for c in cells(next((ROOT / "notebooks").glob("01_*.ipynb")))))
    assert "no host check yet: that comes in lesson 02" in lesson_01
    lesson_02 = words(" ".join(source(c) for c in cells(next((ROOT / "notebooks").glob("02_*.ipynb")))))
    assert "*host check*: the **host**" in lesson_02


# --- the rest of the student path: no other sentence packs several things into one ---

LONGEST_SENTENCE = 40
"""Words in one sentence of the student path; the packed ones the walk found ran to 50-80."""


def sentences(markdown: str) -> list[str]:
    """The sentences of a markdown cell, each list item on its own; headings, quotes and pictures left out."""
    found = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d\.) )", markdown):
        block = block.strip()
        if block and not block.startswith(("#", ">", "![")):
            block = re.sub(r"^(?:[-*]|\d\.)\s+", "", block)
            found += re.split(r"(?<=[.?!])\s+(?=[A-Z`*(])", words(block))
    return found


def test_no_sentence_of_the_student_path_runs_past_forty_words():
    student_path = []
    for cell in cells():
        text = source(cell)
        if text.startswith("## Under the hood"):
            break
        if cell["cell_type"] == "markdown":
            student_path += sentences(text)
    long = [s for s in student_path if len(s.split()) > LONGEST_SENTENCE]
    assert not long, long
    # the splitter itself: a sentence packed with semicolons counts as one
    assert len(sentences("- one; two; three. Four.\n- five")) == 3


def test_the_times_note_gives_each_cause_its_own_short_line_with_or_without_token_counts():
    """Under section 6's comparison, one sentence held both causes of the seconds and their numbers."""
    from course_lib.recordings import qualification_steps, times_note

    steps = qualification_steps()
    first = steps["the rules alone"]
    unreported = [case.model_copy(update={"output_tokens": None}) for case in first.cases]
    without_counts = {**steps, "the rules alone": first.model_copy(update={"cases": unreported})}
    for note in (times_note(steps), times_note(without_counts)):
        lines = note.splitlines()
        assert lines[0] == "The seconds are not comparable. They mix two causes:"
        assert lines[1].startswith("  how busy the machine was at the start: load 1.0, 10.3, then 7.9")
        assert lines[2].startswith("  how much the model wrote")
        assert lines[-1].startswith("So judge each change by the rows of cases")
        assert max(len(line.split()) for line in lines) <= 20, note
    assert "2954, 247, then 318 output tokens" in times_note(steps).splitlines()[2]
    assert "output tokens" not in times_note(without_counts).splitlines()[2]
    recording = next(c for c in cells() if "print(times_note(steps))" in source(c))
    assert printed(recording).rstrip().endswith(times_note(steps))
