"""The library's structure keeps its promises: one home per convention and prompt format, one version."""

import ast
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import NamedTuple

import pytest
from agent_framework import Agent, InMemoryHistoryProvider, Message
from hypothesis import given
from hypothesis import strategies as st

import course_lib
from course_lib.assertions import ALLOWED_KEYS, find_declarations
from course_lib.clients import make_chat_client
from course_lib.conventions import EXTERNAL, attribution_source, message_source, stored_messages
from course_lib.extraction import WRITER_INSTRUCTIONS, ChatFactWriter, make_extraction, make_fact_writer
from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.memory_models import OfflineAssistantClient, OfflineSummarizerClient
from course_lib.prompts import read_summary_prompt, summary_prompt
from course_lib.tracing import CallLog

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_is_written_once_and_installed_as_written():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert importlib.metadata.version("course-lib") == course_lib.__version__


def test_writer_instructions_name_exactly_the_allowed_keys_in_order():
    line = next(line for line in WRITER_INSTRUCTIONS.splitlines() if "allowed keys:" in line)
    assert line.partition("allowed keys: ")[2].rstrip(".").split(", ") == list(ALLOWED_KEYS)


def test_attribution_is_read_as_maf_writes_it():
    plain = Message(role="user", contents=["module=A"])
    by_id = Message(role="user", contents=["x"], additional_properties={"_attribution": {"source_id": "loop"}})
    by_type = Message(
        role="user", contents=["x"], additional_properties={"_attribution": {"source_id": "a", "source_type": "B"}}
    )
    assert [attribution_source(m) for m in (plain, by_id, by_type)] == [None, "loop", "B"]
    assert [message_source(m) for m in (plain, by_id, by_type)] == [EXTERNAL, "loop", "B"]


async def test_stored_messages_reads_what_the_in_memory_history_provider_keeps():
    agent = Agent(client=OfflineAssistantClient(), context_providers=[InMemoryHistoryProvider()])
    session = agent.create_session()
    assert stored_messages(session) == []
    await agent.run("module=Billing", session=session)
    kept = session.state[InMemoryHistoryProvider.DEFAULT_SOURCE_ID]["messages"]
    assert stored_messages(session) == kept and kept[0].text == "module=Billing"


def test_no_file_spells_the_history_source_id_or_reads_attribution_outside_its_home():
    literal = '"' + InMemoryHistoryProvider.DEFAULT_SOURCE_ID + '"'
    files = [
        *(ROOT / "course_lib").glob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "notebooks").glob("*.ipynb"),
    ]
    spelled = [f.name for f in files if literal in f.read_text().replace('\\"', '"')]
    assert spelled == [], "use InMemoryHistoryProvider.DEFAULT_SOURCE_ID or conventions.stored_messages"
    readers = [f.name for f in (ROOT / "course_lib").glob("*.py") if '.get("_attribution")' in f.read_text()]
    assert sorted(readers) == ["conventions.py", "loop.py"]  # loop.py merges the attribution it writes


_line = st.text(st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"]), min_size=1).filter(str.strip)


@given(previous=st.lists(_line, max_size=4), user_text=_line, answer=_line)
def test_the_summarizer_reads_back_the_prompt_the_policy_writes(previous, user_text, answer):
    lines, read_user = read_summary_prompt(summary_prompt("\n".join(previous), user_text, answer))
    assert lines == previous and read_user == user_text


async def test_the_offline_summarizer_keeps_the_previous_summary_and_adds_the_new_declaration():
    agent = Agent(client=OfflineSummarizerClient(budget=200))
    reply = await agent.run(summary_prompt("module=Reporting", "database=SQL Server 2022", "Noted."))
    assert reply.text == "module=Reporting\ndatabase=SQL Server 2022"


def test_a_declaration_becomes_the_candidate_that_cites_it():
    [declaration] = find_declarations("  priority =  P1  ")
    candidate = FactCandidate.from_declaration(declaration)
    assert candidate == FactCandidate(key="priority", value="P1", evidence="priority =  P1")


async def test_the_extraction_builder_uses_the_factory_writer_and_the_given_store():
    log, memory = CallLog(), WorkingMemory()
    extraction = make_extraction(memory, log=log)
    assert extraction.memory is memory and isinstance(extraction.writer, ChatFactWriter)
    report = await extraction.update("module=Billing")
    assert report.status == "accepted" and [c.client for c in log.calls] == ["writer"]
    assert type(make_fact_writer().agent.client).__name__ == type(make_chat_client("writer")).__name__


# region The module map: where each module belongs, said once in course_lib's docstring and shown in the README


def module_map(text: str, indent: str) -> dict[str, list[str]]:
    """The floors of a map: a ``Floor -- why:`` line opens a floor, an ``<indent>name  what`` line adds a module."""
    groups: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        header = re.fullmatch(r"\s*([A-Z][\w ]*) -- .*:", line)
        module = re.match(rf"{indent}(\w+)(?:\.py)?\s", line)
        if header:
            current = groups.setdefault(header[1], [])
        elif module and current is not None:
            current.append(module[1])
        elif line and not line.startswith(" "):
            current = None  # the map ends where unindented text resumes
    return groups


MAP = module_map(course_lib.__doc__ or "", indent="    ")
ORDER = [m for floor in MAP.values() for m in floor]
"""Every module, floor by floor from the ground up: a module imports only those before it."""
HALF_OF = dict(re.findall(r"^    (\w+) +\((memory half|loop half|both halves)\)", course_lib.__doc__ or "", re.M))
"""The half a module belongs to, as its map line says; a line that names none is shared."""
MODULES = sorted(p.stem for p in (ROOT / "course_lib").glob("*.py") if p.stem != "__init__")

MEMORY_HALF = {m for m, half in HALF_OF.items() if half == "memory half"}
LOOP_HALF = {m for m, half in HALF_OF.items() if half == "loop half"}
JOINERS = {m for m, half in HALF_OF.items() if half == "both halves"}
"""The capstone: the only module that may load both halves."""
SHARED = set(ORDER) - MEMORY_HALF - LOOP_HALF - JOINERS
"""Used by both halves, so they load neither."""


def test_the_module_map_lists_every_module_once():
    assert sorted(ORDER) == MODULES and len(ORDER) == len(set(ORDER))


def test_the_readme_shows_the_same_map():
    readme = (ROOT / "README.md").read_text().partition("## What is where")[2].partition("\n## ")[0]
    assert module_map(readme, indent="  ") == MAP


# region Import direction: every import runs down the floors, and the two halves stand alone


class Import(NamedTuple):
    """One import of a course_lib module, and where it is made: at the top, in ``function``, or for types only."""

    module: str
    function: str | None
    type_only: bool

    def where(self) -> str:
        return "for types only" if self.type_only else f"in {self.function}()" if self.function else "at the top"


def imports_in(source: str) -> list[Import]:
    """Every course_lib module ``source`` imports, anywhere in it: the whole tree is walked, nothing is skipped."""
    found: list[Import] = []

    def visit(node: ast.AST, function: str | None, type_only: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name if function is None else function
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib."):
            names = [(node.module or "").split(".")[1]]
        elif isinstance(node, ast.Import):
            names = [a.name.split(".")[1] for a in node.names if a.name.startswith("course_lib.")]
        found.extend(Import(name, function, type_only) for name in names)
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:  # read by the type checker only; an ``else:`` branch runs
                visit(child, function, True)
            children = node.orelse
        for child in children:
            visit(child, function, type_only)

    visit(ast.parse(source), None, False)
    return found


def _imports(name: str) -> list[Import]:
    return [i for i in imports_in((ROOT / "course_lib" / f"{name}.py").read_text()) if i.module != name]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of an import graph: each group of two or more modules that import each other, directly or not."""
    reaches = {name: _reached(graph, name) for name in graph}
    looped = {name for name in graph if name in reaches[name]}  # a module in a circle leads back to itself
    found = {tuple(sorted(m for m in reaches[name] if m in looped and name in reaches[m])) for name in looped}
    return sorted(list(circle) for circle in found)


def _reached(graph: dict[str, set[str]], name: str) -> set[str]:
    """Every module ``name`` leads to through its imports (``name`` itself only through a circle)."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for module in graph.get(todo.pop(), set()) - seen:
            seen.add(module)
            todo.append(module)
    return seen


GRAPH = {name: {i.module for i in _imports(name)} for name in MODULES}
"""course_lib's import graph, every import counted: at the top, in a function and under ``TYPE_CHECKING``."""


def test_the_import_reader_counts_imports_in_functions_and_for_types_and_finds_their_circle():
    """The rule below can fail: a circle closed by a deferred and a type-only import is one, and is found."""
    sources = {
        "a": "from .b import x\n",
        "b": "def f():\n    from course_lib.c import y\n",
        "c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import z\nelse:\n    from .d import w\n",
        "d": "import course_lib.assertions\n",  # the else branch runs: c imports d, which closes no circle
    }
    graph = {name: {i.module for i in imports_in(source)} for name, source in sources.items()}
    kinds = [i.where() for source in sources.values() for i in imports_in(source)]
    assert kinds == ["at the top", "in f()", "for types only", "at the top", "at the top"]
    assert circles(graph) == [["a", "b", "c"]]


def test_no_import_runs_in_a_circle():
    """Counting every import, deferred and type-only ones included: a circle makes a module need what needs it."""
    found = circles(GRAPH)
    assert found == [], f"course_lib's imports run in a circle: {' | '.join(', '.join(c) for c in found)}"


@pytest.mark.parametrize("name", MODULES)
def test_each_module_imports_only_the_floors_below_it(name):
    """The map's order is the import direction: each import goes to a module listed before the importer."""
    below = set(ORDER[: ORDER.index(name)]) if name in ORDER else set()
    upward = sorted(f"{i.module} ({i.where()})" for i in _imports(name) if i.module not in below)
    assert upward == [], f"course_lib.{name} imports modules not listed above it in the map: {upward}"


DEFERRED = {
    ("clients", "_offline_client"): "the factory imports a role's offline model only when it builds that role",
    ("presentation", "presence_frame"): "a display helper reads the allowed keys only when it draws that table",
    ("presentation", "declarations_frame"): "a display helper marks line breaks as the contract does, when it draws",
}
"""The imports made inside a function that the halves' rule does not count, each with its reason (the floors' rule
above counts them all). Any other import in a function counts as if the module made it when it loads: it runs as
soon as that function is called."""


def _module_imports(name: str) -> set[str]:
    """The course_lib modules ``name`` loads when it runs: at the top or in a function (``DEFERRED`` aside)."""
    return {i.module for i in _imports(name) if not i.type_only and (name, i.function) not in DEFERRED}


RUN_GRAPH = {name: _module_imports(name) for name in MODULES}
"""What each module loads when it runs: the graph the halves' rule reads."""


def test_every_deferred_import_is_still_there():
    """A stale entry would excuse a future import in a function of the same name without anyone noticing."""
    for module, function in DEFERRED:
        assert any(i.function == function and not i.type_only for i in _imports(module)), (module, function)


def _loaded_by(name: str) -> set[str]:
    """Every course_lib module that importing ``name`` loads when it runs, transitively."""
    return _reached(RUN_GRAPH, name)


def _rule_broken(name: str) -> str | None:
    loaded = _loaded_by(name)
    if name in MEMORY_HALF:
        wrong = loaded & (LOOP_HALF | JOINERS)
    elif name in LOOP_HALF:
        wrong = loaded & (MEMORY_HALF | JOINERS)
    elif name in SHARED:
        wrong = loaded & (MEMORY_HALF | LOOP_HALF | JOINERS)
    else:
        return None if name in JOINERS else "not in the module map of course_lib/__init__.py"
    return f"loads {sorted(wrong)}" if wrong else None


@pytest.mark.parametrize("name", MODULES)
def test_each_module_loads_only_what_its_half_allows(name):
    assert _rule_broken(name) is None, f"course_lib.{name} {_rule_broken(name)}"


def _lesson_imports(lesson: Path) -> set[str]:
    """The course_lib modules a lesson's code cells import (IPython magics and shell lines left out)."""
    found: set[str] = set()
    for cell in json.loads(lesson.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
        tree = compile(code, lesson.name, "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        for node in ast.walk(tree):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found.update(name.split(".")[1] for name in names if name.startswith("course_lib."))
    return found


LESSONS = sorted((ROOT / "notebooks").glob("0[1-6]_*.ipynb"))
"""The lessons of one half: 01-04 memory, 05-06 loop (00 sets up, 07 is the capstone that joins them)."""
CROSSINGS = {"03_provider_and_two_desks": {"loop"}}
"""A lesson that reaches into the other half on purpose: lesson 03's Under the hood wraps the desk in a LoopAgent to
show that the loop's attributed feedback never becomes a fact (the trust boundary, before lessons 05-06)."""


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda path: path.stem)
def test_a_lesson_of_one_half_loads_of_the_other_only_its_stated_crossing(lesson):
    imported = _lesson_imports(lesson)
    loaded = imported.union(*(_loaded_by(m) for m in imported))
    other = LOOP_HALF if lesson.name < "05" else MEMORY_HALF
    assert imported and loaded & other == CROSSINGS.get(lesson.stem, set())


def _loaded_by_running(code: str) -> set[str]:
    """Every module loaded after running ``code`` in a fresh interpreter (course_lib's without their prefix)."""
    probe = f"{code}\nimport sys\nprint(' '.join(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    return {m.removeprefix("course_lib.") for m in loaded}


HEAVY = {"openai", "pandas", "matplotlib"}
"""Libraries that cost most of a second each to import: loaded when a live client, a table or a plot is built."""


def test_the_loop_half_with_its_models_and_panel_loads_neither_the_memory_half_nor_a_heavy_library():
    """The static rule above, seen live; the factory imports each role's model when it builds the role."""
    code = "import asyncio, course_lib.loop_demos, course_lib.loop_panels\n"
    code += "from course_lib.clients import make_chat_client\n"
    code += "make_chat_client('worker'); make_chat_client('judge')\n"
    code += "asyncio.run(course_lib.loop_demos.run_seed_demo())"  # a whole loop run, not only the imports
    loaded = _loaded_by_running(code)
    assert {"loop_demos", "loop_panels"} <= loaded and not loaded & (MEMORY_HALF | HEAVY)


def test_the_memory_half_with_its_models_and_panels_loads_neither_the_loop_half_nor_a_heavy_library():
    code = "import course_lib.widgets\nfrom course_lib.clients import make_chat_client\n"  # the panels load the rest
    code += "for role in ('assistant', 'writer', 'reader', 'summarizer'): make_chat_client(role)"
    loaded = _loaded_by_running(code)
    assert {"providers", "policies", "memory_models"} <= loaded and not loaded & (LOOP_HALF | HEAVY)


def test_the_loop_library_loads_no_other_course_module_at_run_time():
    assert _loaded_by_running("import course_lib.loop") & set(MODULES) == {"loop"}


# region Each module's public face: no private name crosses a module boundary


def _private_imports(name: str) -> list[str]:
    """The underscore names ``name`` imports from another course_lib module (``from .x import _y``), anywhere in it."""
    tree = ast.parse((ROOT / "course_lib" / f"{name}.py").read_text())
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("course_lib"))
        for alias in node.names
        if alias.name.startswith("_")
    ]


@pytest.mark.parametrize("name", MODULES)
def test_no_module_imports_another_modules_private_name(name):
    """A name with a leading underscore is its module's own; what another module needs gets a public name there."""
    assert _private_imports(name) == [], f"course_lib.{name} imports private names"


# region Tables in two homes: rows become a table on the ground floor (frames.py), tables and figures are shown on top


def _display_libraries(name: str) -> set[str]:
    """pandas or matplotlib where ``name`` imports them to run (type-only imports under TYPE_CHECKING aside)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        names += [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        found.update(n.split(".")[0] for n in names if n.split(".")[0] in {"pandas", "matplotlib"})
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse((ROOT / "course_lib" / f"{name}.py").read_text()))
    return found


TABLE_HOMES = {"frames": {"pandas"}, "presentation": {"pandas", "matplotlib"}}
"""The only modules that load a display library: frames turns rows into a table, presentation shows tables and
figures. Every other module hands its rows to ``frames.rows_frame`` or returns them for presentation to show."""


@pytest.mark.parametrize("name", MODULES)
def test_only_frames_and_presentation_make_tables_and_figures(name):
    """The domain modules stay free of pandas and matplotlib; frames.py makes tables, not figures."""
    found = _display_libraries(name)
    assert found <= TABLE_HOMES.get(name, set()), f"course_lib.{name} imports {found}"


# region __all__ in every module: each module says which of its names are its public face


NOT_API = {"logger"}
"""Public-looking names that are no module's API: a module's logger is configured through ``logging`` by its name."""


def _declared_all(name: str) -> list[str] | None:
    """The names of ``name``'s ``__all__`` as written (None when the module has none)."""
    tree = ast.parse((ROOT / "course_lib" / f"{name}.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return None


def _defined_public(name: str) -> set[str]:
    """The public names ``name`` defines at its top level: classes, functions, constants and aliases."""
    found: set[str] = set()
    for node in ast.parse((ROOT / "course_lib" / f"{name}.py").read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
    return {n for n in found if not n.startswith("_")} - NOT_API


def _public_imports() -> dict[str, set[str]]:
    """module -> the names the lessons and instructor/solutions import from it (``from course_lib.m import n``)."""
    found: dict[str, set[str]] = {}
    sources = [
        "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        for lesson in sorted((ROOT / "notebooks").glob("*.ipynb"))
        for cell in json.loads(lesson.read_text())["cells"]
        if cell["cell_type"] == "code"
    ]
    sources += [path.read_text() for path in sorted((ROOT / "instructor" / "solutions").glob("*.py"))]
    for source in sources:
        tree = compile(source, "<lesson>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib."):
                found.setdefault((node.module or "").split(".")[1], set()).update(a.name for a in node.names)
    return found


PUBLIC_IMPORTS = _public_imports()


@pytest.mark.parametrize("name", MODULES)
def test_every_module_has_a_complete_all(name):
    """``__all__`` lists every public name the module defines (and what it re-exports on purpose), no more."""
    declared = _declared_all(name)
    assert declared is not None, f"course_lib.{name} has no __all__ (it defines {sorted(_defined_public(name))})"
    assert len(declared) == len(set(declared)), f"course_lib.{name}.__all__ repeats a name"
    module = importlib.import_module(f"course_lib.{name}")
    assert [n for n in declared if not hasattr(module, n)] == [], f"course_lib.{name}.__all__ names what it lacks"
    missing = sorted(_defined_public(name) - set(declared))
    assert missing == [], f"course_lib.{name} defines public names its __all__ leaves out: {missing}"


@pytest.mark.parametrize("name", sorted(PUBLIC_IMPORTS))
def test_what_a_lesson_or_solution_imports_is_in_the_modules_all(name):
    """A lesson imports only a module's public face: a name it needs is in that module's ``__all__``."""
    left_out = sorted(PUBLIC_IMPORTS[name] - set(_declared_all(name) or ()))
    assert left_out == [], f"lessons or solutions import {left_out} from course_lib.{name}, outside its __all__"
