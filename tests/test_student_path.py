"""The lesson rules of the student's path (issue 32), checked mechanically on every lesson in STUDENT_PATH_LESSONS.

A lesson has two layers: the student's path first, then at most one section headed ``## Under the hood`` with the
original's exact rules, the .NET names, edge cases and porting notes. Before that heading:

* no cell names .NET or C#, prints internals with ``inspect.getsource``, or counts UTF-16 code units, surrogates or
  bidi controls, and no .NET identifier appears (``...Async`` methods, ``CallerTurnGate``, ``AsChatReducer``, a
  ``*.cs`` file);
* no stored output is a raw repr: a dict, list or tuple printed as Python writes it, an object's
  ``Name(field=...)`` repr, a pydantic error dump, a bare ``<Figure ...>`` or ``<object at 0x...>``;
* no cell says "a hidden cell" (JupyterLab shows every cell; only presenter mode hides some), and no output is a
  long log: a ``[3/18]`` progress line, or 60 printed lines or more (a trace excepted).

Anywhere in a lesson, no code cell holds a ``# NBVAL`` comment: nbval's markers go in the cell's tags. Every lesson
of ``HOOD_LESSONS`` has exactly one "Under the hood" section.

These are the union of the rules lessons 04-06 were first checked by (tests/test_student_path_04_06.py held a
second copy with broader patterns): where two patterns differed, the broader one is here, for every lesson.

To check another lesson, add its notebook name to ``STUDENT_PATH_LESSONS``; the rest follows.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

STUDENT_PATH_LESSONS = (
    "00_setup_and_backends",
    "01_contract_and_store",
    "02_correct_then_forget",
    "03_provider_and_two_desks",
    "04_memory_policies_compared",
    "05_loop_agent_traced",
    "06_loop_options_compared",
    "07_loop_held_to_the_facts",
)
"""Every lesson, each in the two-layer form: every rule below holds for each of them."""

HOOD_LESSONS = STUDENT_PATH_LESSONS
"""The lessons that have their "Under the hood" section, exactly one each: every lesson (02's: the seed's names)."""

HOOD_HEADING = "## Under the hood"

FORBIDDEN_BEFORE_HOOD = {
    ".NET": re.compile(r"\.NET\b"),
    "C#": re.compile(r"(?<![\w&])C#"),
    "inspect.getsource": re.compile(r"inspect\.getsource"),
    "UTF-16": re.compile(r"UTF-16", re.IGNORECASE),
    "code unit": re.compile(r"code units?\b", re.IGNORECASE),
    "surrogate": re.compile(r"surrogate", re.IGNORECASE),
    "bidi": re.compile(r"\bbidi\b", re.IGNORECASE),
    "a .NET Async method": re.compile(r"\b[A-Z][A-Za-z0-9]*Async\b"),
    "CallerTurnGate": re.compile(r"CallerTurnGate"),
    "AsChatReducer": re.compile(r"AsChatReducer"),
    "TurnsExceed": re.compile(r"TurnsExceed"),
    "a .cs file": re.compile(r"\b\w+\.cs\b"),
    "a # NBVAL comment": re.compile(r"#\s*NBVAL", re.IGNORECASE),
}
"""What the student's path never shows, by name: each is the "Under the hood" section's business."""

PLATFORM_NAMED = "MAF for .NET (C#)"
"""The one phrase the path may use to say which MAF has the seed's ``LoopAgent`` (lesson 05, walk 19): a student
told "MAF for Python has none" asked which one has; the platform named in words is no port detail, and its names,
rules and source stay under the hood."""

EDITIONS_NAMED = "which exists for C# and for Python"
"""How a lesson that names MAF says it has two editions, where it first names it (lesson 03, walk 21): words, not a
port detail, so "the course runs on MAF Python" and the hood's "MAF for .NET (C#)" read as no contradiction."""

RAW_REPR = {
    "a dict repr": re.compile(r"\{'[^'\n]*': "),
    "a dict or list of texts, opened": re.compile(r"\{'|\['"),
    "a list or tuple of texts": re.compile(r"[\[(]'[^'\n]*'(?:, '|[\])])"),
    "an empty tuple or list": re.compile(r"(?:^|: )(?:\(\)|\[\])\s*$", re.MULTILINE),
    "an object's repr": re.compile(r"\b[A-Z][A-Za-z]+\((?:[a-z_]+=)|\bLoopAgentOptions\("),
    "a pydantic error dump": re.compile(r"\bvalidation errors? for\b"),
    "a bare object": re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>|^<Figure size [^>]*>$", re.MULTILINE),
}
"""Patterns of a raw repr in a stored output: what Python prints for a value nobody turned into words."""

RICHER = ("text/html", "image/png", "application/vnd.jupyter.widget-view+json", "text/markdown")


def lesson(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)


def hood_index(cells: list) -> int:
    """The index of the "Under the hood" heading cell, or the number of cells when the lesson has none."""
    return next((i for i, c in enumerate(cells) if c.cell_type == "markdown" and is_hood(c.source)), len(cells))


def is_hood(source: str) -> bool:
    return any(re.match(r"#+\s*Under the hood", line) for line in source.splitlines())


def shown_text(output: nbformat.NotebookNode) -> list[str]:
    """What a student reads of one output: printed text, table cells, Markdown; text/plain only when it is all."""
    if output.get("output_type") == "stream":
        return [output.get("text", "")]
    data = output.get("data", {})
    texts = [data.get("text/markdown", "")]
    if "text/html" in data:
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", data["text/html"], flags=re.S)
        texts += [re.sub(r"<[^>]+>", "", cell) for cell in cells]
    if not any(kind in data for kind in RICHER):
        texts.append(data.get("text/plain", ""))
    if output.get("output_type") == "error":
        texts.append(f"{output.get('ename')}: {output.get('evalue')}")
    return [text for text in texts if text]


def forbidden_names(cells: list) -> list[tuple[int, str, str]]:
    """(cell index, rule, the words found) for every forbidden name on the student's path, source or output.

    The stored outputs count as much as the source: a library message printed on the path (a refusal naming
    the seed's unit) is read by the student just as a sentence of the lesson is.
    """
    found = []
    for index, cell in enumerate(cells[: hood_index(cells)]):
        shown = [text for output in cell.get("outputs", []) for text in shown_text(output)]
        for rule, pattern in FORBIDDEN_BEFORE_HOOD.items():
            for text in (cell.source, *shown):
                if match := pattern.search(text.replace(PLATFORM_NAMED, "").replace(EDITIONS_NAMED, "")):
                    found.append((index, rule, match.group(0)))
                    break
    return found


def raw_reprs(cells: list) -> list[tuple[int, str, str]]:
    """(cell index, pattern, the text found) for every raw repr in a stored output on the student's path."""
    found = []
    for index, cell in enumerate(cells[: hood_index(cells)]):
        for output in cell.get("outputs", []):
            for text in shown_text(output):
                for rule, pattern in RAW_REPR.items():
                    if match := pattern.search(text):
                        found.append((index, rule, match.group(0)))
    return found


LONG_LOG_LINES = 60
"""Printed lines from which an output is a log to scroll past, not something a student reads (a trace excepted)."""


def long_logs(cells: list) -> list[tuple[int, str, str]]:
    """(cell index, rule, what was found) for a "hidden cell" claim, a progress log or a long log on the path."""
    found = []
    for index, cell in enumerate(cells[: hood_index(cells)]):
        if "hidden cell" in cell.source:
            found.append((index, "a hidden cell", "hidden cell"))
        shown = "\n".join(text for output in cell.get("outputs", []) for text in shown_text(output))
        if progress := re.search(r"^\[\d+/\d+\]", shown, re.MULTILINE):
            found.append((index, "a progress log", progress.group(0)))
        printed = [o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stdout"]
        lines = sum(text.count("\n") for text in printed)
        if lines >= LONG_LOG_LINES and "trace" not in cell.source:
            found.append((index, "a long log", f"{lines} lines"))
    return found


@pytest.mark.parametrize("name", STUDENT_PATH_LESSONS)
def test_at_most_one_under_the_hood_section_and_it_comes_last(name):
    cells = lesson(name).cells
    hoods = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and is_hood(c.source)]
    assert len(hoods) <= 1, f"{name}: {len(hoods)} 'Under the hood' headings (cells {hoods}); one section per lesson"
    if hoods:
        heading = cells[hoods[0]].source.splitlines()[0]
        assert heading.startswith(HOOD_HEADING), f"{name}: the section's heading is {heading!r}, not {HOOD_HEADING!r}"
        after = [c.source.splitlines()[0] for c in cells[hoods[0] :] if c.cell_type == "markdown" and c.source]
        assert not [line for line in after if re.match(r"## (Exercises|Key takeaways)", line)], (
            f"{name}: the student's path (exercises, takeaways) continues after 'Under the hood'"
        )


@pytest.mark.parametrize("name", HOOD_LESSONS)
def test_a_lesson_with_an_under_the_hood_section_has_exactly_one(name):
    cells = lesson(name).cells
    heads = [c for c in cells if c.cell_type == "markdown" and c.source.startswith(HOOD_HEADING)]
    assert len(heads) == 1, f"{name}: one markdown cell must start with {HOOD_HEADING!r}; found {len(heads)}"


@pytest.mark.parametrize("name", STUDENT_PATH_LESSONS)
def test_no_cell_says_hidden_below_and_no_output_is_a_log(name):
    found = long_logs(lesson(name).cells)
    assert not found, f"{name}: before 'Under the hood' (cell, rule, found): {found}"


@pytest.mark.parametrize("name", STUDENT_PATH_LESSONS)
def test_the_students_path_names_no_port_detail(name):
    found = forbidden_names(lesson(name).cells)
    assert not found, f"{name}: before 'Under the hood' (cell, rule, found): {found}"


@pytest.mark.parametrize("name", STUDENT_PATH_LESSONS)
def test_no_code_cell_holds_an_nbval_comment(name):
    marked = [
        i for i, c in enumerate(lesson(name).cells) if c.cell_type == "code" and re.search(r"#\s*NBVAL", c.source)
    ]
    assert not marked, f"{name}: cells {marked} hold a # NBVAL comment; use the cell tag (e.g. nbval-ignore-output)"


@pytest.mark.parametrize("name", STUDENT_PATH_LESSONS)
def test_the_students_path_prints_no_raw_repr(name):
    found = raw_reprs(lesson(name).cells)
    assert not found, f"{name}: raw reprs in stored outputs before 'Under the hood' (cell, kind, text): {found}"


def test_the_checks_catch_what_they_are_for():
    """Planted violations: each rule fires on its own kind, and stays quiet after the 'Under the hood' heading."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

    def printed(text: str) -> nbformat.NotebookNode:
        cell = code("print(x)")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        return cell

    path = [
        md("The seed's `StoreAIContextAsync` in .NET counts UTF-16 code units."),
        code("# NBVAL_IGNORE_OUTPUT\nx = 1"),
        printed("facts: ()\n"),
        printed("{'module': 'Billing'}\n"),
        printed("LoopAgentOptions(max_iterations=3)\n"),
        printed("1 validation error for FactBatch\n"),
        printed("providers: ['InMemoryHistoryProvider', 'FactsContextProvider']\n"),
        printed("LoopAgentOptions()\n"),
        md("The policy compacts after `TurnsExceed(3)`; a hidden cell below drives the panel."),
        printed("[1/18] full history\n"),
        printed("a line\n" * LONG_LOG_LINES),
    ]
    rules = {rule for _, rule, _ in forbidden_names(path)}
    assert {".NET", "UTF-16", "code unit", "a .NET Async method", "a # NBVAL comment", "TurnsExceed"} <= rules
    named = [md("MAF for .NET (C#) has one."), md("MAF for .NET, written in C#"), md("MAF .NET has one.")]
    assert [(i, rule) for i, rule, _ in forbidden_names(named)] == [(1, ".NET"), (1, "C#"), (2, ".NET")]
    refusal = printed("refused: value longer than 256 characters (300 UTF-16 code units, as .NET counts)\n")
    assert {rule for _, rule, _ in forbidden_names([refusal])} == {".NET", "UTF-16", "code unit"}
    kinds = {kind for _, kind, _ in raw_reprs(path)}
    assert kinds == {
        "an empty tuple or list",
        "a dict repr",
        "a dict or list of texts, opened",
        "an object's repr",
        "a pydantic error dump",
        "a list or tuple of texts",
    }
    assert [rule for _, rule, _ in raw_reprs([printed("LoopAgentOptions()\n")])] == ["an object's repr"]
    assert [rule for _, rule, _ in raw_reprs([printed("Invalid: validation error for FactBatch\n")])] == [
        "a pydantic error dump"
    ]
    assert {rule for _, rule, _ in long_logs(path)} == {"a hidden cell", "a progress log", "a long log"}
    traced = code("print(trace.text())")
    traced.outputs = path[-1].outputs
    assert long_logs([traced]) == [], "a trace may be long"
    hooded = [md("## Under the hood"), *path]
    assert forbidden_names(hooded) == [] and raw_reprs(hooded) == [] and long_logs(hooded) == []
    fine = [md("A context provider adds the facts."), printed("facts: module=Billing, database=SQL Server 2022\n")]
    assert forbidden_names(fine) == [] and raw_reprs(fine) == [] and long_logs(fine) == []


@pytest.mark.parametrize("name", STUDENT_PATH_LESSONS)
def test_a_freshly_opened_lesson_is_not_marked_changed_by_jupyterlab(name):
    """JupyterLab writes the running kernel's spec into a notebook when the kernel connects: a stored kernelspec
    that differs (lesson 00 said "Python 3" where ipykernel's spec says "Python 3 (ipykernel)") shows the lesson's
    tab as unsaved the moment it opens. Cells without ids (nbformat before 4.5) get ids on open, the same way."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    notebook = lesson(name)
    expected = {"display_name": spec.display_name, "language": spec.language, "name": "python3"}
    assert dict(notebook.metadata.kernelspec) == expected, f"{name}: stored kernelspec differs from the kernel's"
    assert (notebook.nbformat, notebook.nbformat_minor) >= (4, 5), f"{name}: nbformat before 4.5 (no cell ids)"
    assert all(cell.get("id") for cell in notebook.cells), f"{name}: a cell has no id"


RAW_CELL = re.compile(r"<td[^>]*>\s*(True|False|None)\s*</td>")
ROW_NUMBERS = re.compile(r"<tbody>\s*<tr>\s*<th[^>]*>\s*0\s*</th>")
OPTIONS_TABLE = re.compile(r"<th[^>]*>\s*option\s*</th>")
"""An options table shows each value as it is written in code (``max_iterations=None``): its cells may be ``None``."""


def table_defects(cells: list) -> list[tuple[int, str]]:
    """(cell, what) for each table before "Under the hood" that shows Python's True/False/None or pandas' row numbers.

    A student reads ``yes``/``no`` and a table whose own first column names each row
    (``presentation.student_table``); ``0, 1, 2`` beside a "turn" or "policy" column reads as one more piece of data.
    """
    found = []
    for index, cell in enumerate(cells[: hood_index(cells)]):
        for output in cell.get("outputs", []):
            table = output.get("data", {}).get("text/html", "")
            if RAW_CELL.search(table) and not OPTIONS_TABLE.search(table):
                found.append((index, "a True/False/None cell"))
            if ROW_NUMBERS.search(table):
                found.append((index, "pandas' row numbers"))
    return found


@pytest.mark.parametrize("name", STUDENT_PATH_LESSONS)
def test_the_students_tables_say_yes_or_no_and_number_no_rows(name):
    found = table_defects(lesson(name).cells)
    assert not found, f"{name}: tables before 'Under the hood' (cell, defect): {found}; use student_table"


def test_the_table_check_catches_raw_booleans_and_row_numbers():
    import pandas as pd

    from course_lib.presentation import html_with_line_breaks, student_table

    def shown(frame: pd.DataFrame) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_code_cell("frame")
        html = html_with_line_breaks(frame) or ""
        cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/html": html}, execution_count=1)]
        return cell

    frame = pd.DataFrame({"turn": [1, 2], "kept": [True, False]})
    assert table_defects([shown(frame)]) == [(0, "a True/False/None cell"), (0, "pandas' row numbers")]
    assert table_defects([shown(student_table(frame))]) == []
