"""docs/seed-claims.md maps every claim of both seeds to the lesson cell that shows it and the test that checks it.

Each row names a notebook, the text the cell must show, a test, and a piece of that test's source (the assertion that
exercises the claim). The cell is found by its tag, ``claim-<ID>``, in the cell's metadata. A code cell must show the
text in its **stored output** (what the run produced, not what the code says: a row whose ``shows`` starts with
``source:`` is a claim about how code is written and is looked for in the source); a markdown cell in its text. These
tests fail when a notebook, a tagged cell, the text it should show, a named test or its asserted piece disappears, and
when a tag names a claim the map does not hold.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "docs" / "seed-claims.md"
# one row a claim, two columns (narrow enough for JupyterLab's Markdown viewer at 1300 px): the id, then the claim
# and, one to a line, its lesson and what it shows, its test (file, then name) and what the test asserts
ROW = re.compile(
    r"^\| (?P<id>[FL]\d{2}) \| (?P<claim>[^|]+?)<br>lesson `(?P<notebook>\d\d_[a-z0-9_]+)`, shows `(?P<shows>[^`]+)`"
    r"<br>test `(?P<path>tests/test_[a-z0-9_]+\.py)`<br>`::(?P<name>(?:Test\w+::)?test_\w+)`"
    r"<br>test asserts `(?P<asserts>[^`]+)` \|$"
)
TAG = "claim-{}"
PENDING = "## Waiting on a lesson change"
SOURCE = "source: "


def claims() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The map's rows, and apart the rows waiting on a lesson change; a row that does not parse is an error."""
    rows: list[dict[str, str]] = []
    pending: list[dict[str, str]] = []
    target = rows
    for number, line in enumerate(CLAIMS.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith(PENDING):
            target = pending
        if re.match(r"^\| [FL]\d", line):
            match = ROW.match(line)
            assert match, f"docs/seed-claims.md line {number} does not follow the row format: {line}"
            row = match.groupdict()
            row["test"] = f"{row.pop('path')}::{row.pop('name')}"
            target.append(row)
    return rows, pending


@cache
def notebook(stem: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)


def stored_output(cell: nbformat.NotebookNode) -> str:
    """What a code cell's run left for a reader: its printed text (one stream, however split) and its data."""
    outputs = cell.get("outputs", [])
    parts = ["".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")]
    for output in outputs:
        data = output.get("data", {})
        parts += [data.get(kind, "") for kind in ("text/plain", "text/markdown", "text/html")]
    parts += [str(o.get("evalue", "")) for o in outputs if o.get("output_type") == "error"]
    return "\n".join(part if isinstance(part, str) else "".join(part) for part in parts)


def shown_text(cell: nbformat.NotebookNode, shows: str) -> tuple[str, str]:
    """Where the row's text must be found in the cell, and that text: a code cell's output, unless ``source:``."""
    if shows.startswith(SOURCE):
        return cell.source, shows[len(SOURCE) :]
    if cell.cell_type == "code":  # a printed line may be broken at a space for reading (wrapped_block): compared
        return " ".join(stored_output(cell).split()), " ".join(shows.split())  # with its whitespace as one space
    return cell.source, shows


@cache
def defined_tests(path: str) -> dict[str, str]:
    """The test functions of a file, and its test classes' methods as ``Class::method``, with their source."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    text = (ROOT / path).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for node in ast.parse(text).body:
        if isinstance(node, functions):
            found[node.name] = ast.get_source_segment(text, node) or ""
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, functions):
                    found[f"{node.name}::{item.name}"] = ast.get_source_segment(text, item) or ""
    return found


def source_of_test(row: dict[str, str]) -> str:
    """The named test's own source, decorators and parameters included (they hold cases), or a failure."""
    path, _, name = row["test"].partition("::")
    tests = defined_tests(path)
    assert name in tests, f"{row['test']} (named for {row['id']}) does not exist"
    text = (ROOT / path).read_text(encoding="utf-8")
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name.split("::")[-1]:
            decorators = "".join(ast.get_source_segment(text, d) or "" for d in node.decorator_list)
            return decorators + tests[name] + _parameters(text, tree, node)
    return tests[name]


def _parameters(text: str, tree: ast.Module, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The module-level tables a parametrized test reads its cases from (``BAD_BATCHES``, ``MALFORMED_BATCHES``)."""
    names = {n.id for d in node.decorator_list for n in ast.walk(d) if isinstance(n, ast.Name)}
    names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id.isupper()}
    tables = [
        ast.get_source_segment(text, item) or ""
        for item in tree.body
        if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in item.targets)
    ]
    return "\n".join(tables)


COLLECT = """
import json, sys
import pytest

class Seen:
    items = {}

    def pytest_collection_finish(self, session):
        for item in session.items:
            skip = [m.name for m in item.iter_markers() if m.name in ("skip", "xfail")]
            skip += [m.name for m in item.iter_markers("skipif") if any(m.args) or m.kwargs.get("condition")]
            self.items.setdefault(item.nodeid.split("[")[0], []).append(skip)

code = pytest.main(["--collect-only", "-q", "-p", "no:randomly", *sys.argv[1:]], plugins=[Seen()])
print("COLLECTED " + json.dumps(Seen.items))
"""
"""Collects test files as ``make test`` does (pyproject's addopts: its ``-m`` leaves out the excluded markers) and
prints each collected test with the skip or xfail marks its cases carry."""


@cache
def collected(paths: tuple[str, ...]) -> dict[str, list[list[str]]]:
    """The tests ``make test`` would run in ``paths``, by node id (cases folded), each case's skip marks."""
    run = subprocess.run(
        [sys.executable, "-c", COLLECT, *paths], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    line = next((x for x in run.stdout.splitlines() if x.startswith("COLLECTED ")), None)
    assert line, f"pytest could not collect {paths}:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
    return json.loads(line.removeprefix("COLLECTED "))


def named_paths() -> tuple[str, ...]:
    return tuple(sorted({row["test"].partition("::")[0] for row in CLAIM_ROWS + PENDING_ROWS}))


def skips_at_run_time(row: dict[str, str]) -> bool:
    """Whether the named test's own body can skip or xfail itself (``pytest.skip``, ``importorskip``, ``xfail``)."""
    calls = {"skip", "importorskip", "xfail"}
    path, _, name = row["test"].partition("::")
    tree = ast.parse(textwrap.dedent(defined_tests(path)[name]))
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in calls for n in ast.walk(tree)
    )


def why_not_run(row: dict[str, str], tests: dict[str, list[list[str]]]) -> str | None:
    """Why ``make test`` would not run the row's test as an assertion of its claim, or None when it does."""
    cases = tests.get(row["test"])
    if cases is None:
        return f"{row['test']} (named for {row['id']}) is not collected by make test (missing, or an excluded marker)"
    marked = sorted({mark for case in cases for mark in case})
    if marked:
        return f"{row['test']} (named for {row['id']}) is marked {', '.join(marked)} in make test"
    if skips_at_run_time(row):
        return f"{row['test']} (named for {row['id']}) can skip itself at run time"
    return None


CLAIM_ROWS, PENDING_ROWS = claims()


def test_the_map_holds_both_seeds_with_unique_ids():
    ids = [row["id"] for row in CLAIM_ROWS + PENDING_ROWS]
    assert len(ids) == len(set(ids)), "a claim id is used twice"
    assert sum(i.startswith("F") for i in ids) >= 40 and sum(i.startswith("L") for i in ids) >= 20
    text = " ".join(row["claim"] for row in CLAIM_ROWS)
    for anchor in ("700", "256", "512", "4096", "EP013", "TurnsExceed(3)", "AsChatReducer", "MaxIterations", "UTF-16"):
        assert anchor in text, f"no claim mentions {anchor}"


@pytest.mark.parametrize("row", CLAIM_ROWS, ids=[row["id"] for row in CLAIM_ROWS])
def test_each_claim_has_a_tagged_cell_that_shows_it_and_an_existing_test(row):
    tag = TAG.format(row["id"])
    cells = [c for c in notebook(row["notebook"]).cells if tag in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{row['notebook']} should have exactly one cell tagged {tag}; found {len(cells)}"
    where, text = shown_text(cells[0], row["shows"])
    kind = "source" if row["shows"].startswith(SOURCE) or cells[0].cell_type != "code" else "stored output"
    assert text in where, f"the {kind} of the cell tagged {tag} no longer shows {text!r}"
    assert row["asserts"] in source_of_test(row), f"{row['test']} no longer holds {row['asserts']!r} ({row['id']})"


def test_a_claim_waiting_on_a_lesson_is_not_tagged_yet():
    """One test over every waiting row (none may be waiting: an empty parameter list would be a skipped test)."""
    for row in PENDING_ROWS:
        tag = TAG.format(row["id"])
        tagged = [c for c in notebook(row["notebook"]).cells if tag in c.metadata.get("tags", [])]
        assert not tagged, f"{row['notebook']} now tags {tag}: move {row['id']} up into its table"
        assert row["asserts"] in source_of_test(row)


@pytest.mark.timeout(300)
def test_every_named_test_runs_in_make_test():
    """A row's test must be collected by ``make test``, not skipped: a test that never runs checks nothing."""
    tests = collected(named_paths())
    broken = [why for row in CLAIM_ROWS + PENDING_ROWS if (why := why_not_run(row, tests))]
    assert not broken, "\n".join(broken)


@pytest.mark.timeout(300)
def test_a_skipped_or_excluded_or_missing_test_is_caught():
    """The check above on tests that do not run: a skip mark, a marker ``make test`` excludes, a run-time skip."""
    cases = {
        "tests/test_dotnet_conformance.py::TestDelegateLoopEvaluatorTests::"
        "test_EvaluateAsync_ForwardsCancellationTokenToDelegateAsync": "marked skip",
        "tests/test_local_live.py::test_the_server_stops_when_its_process_ends": "not collected",
        "tests/test_loop.py::test_golden_file_is_a_verbatim_excerpt_of_the_seed": "skip itself",
        "tests/test_loop.py::test_no_such_test": "not collected",
    }
    tests = collected(tuple(sorted({name.partition("::")[0] for name in cases})))
    for name, why in cases.items():
        assert why in str(why_not_run({"id": "X00", "test": name, "asserts": ""}, tests)), name


def test_every_claim_tag_in_the_lessons_is_in_the_map():
    known = {TAG.format(row["id"]) for row in CLAIM_ROWS}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in notebook(path.stem).cells:
            stray = {t for t in cell.metadata.get("tags", []) if t.startswith("claim-")} - known
            assert not stray, f"{path.name} has claim tags the map does not hold: {sorted(stray)}"


def test_a_row_whose_cell_or_test_does_not_show_it_fails():
    """The checks above catch a text only in a code cell's source, and a test that does not assert the claim."""
    row = next(r for r in CLAIM_ROWS if r["id"] == "F38")
    cell = next(c for c in notebook(row["notebook"]).cells if "claim-F38" in c.metadata.get("tags", []))
    in_source_only = "make(make_chat_client"
    assert in_source_only in cell.source and in_source_only not in shown_text(cell, in_source_only)[0]
    elsewhere = {**row, "test": "tests/test_policies.py::test_full_history_sends_every_earlier_turn"}
    assert row["asserts"] not in source_of_test(elsewhere)


def test_loop_agent_options_are_the_seeds_six_with_their_defaults():
    """L07: the six options of the seed's LoopAgentOptions, under their Python names, with the .NET defaults."""
    from dataclasses import fields

    from course_lib.loop import LoopAgentOptions

    seed = {
        "max_iterations": 10,  # MaxIterations: null in the declaration, DefaultMaxIterations (10) in the source (L08)
        "fresh_context_per_iteration": False,
        "on_behalf_of_author_name": None,
        "exclude_on_behalf_of_messages": False,
        "non_streaming_returns_last_response_only": False,
        "session_created_callback": None,
    }
    options = LoopAgentOptions()
    assert set(seed) <= {f.name for f in fields(options)}
    assert {name: getattr(options, name) for name in seed} == seed
