"""The library's structure keeps its promises: one home per convention and prompt format, one version."""

import ast
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

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
    """The groups of a map: a ``Group -- why:`` line opens a group, an ``<indent>name  what`` line adds a module."""
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
HALF_OF = dict(re.findall(r"^    (\w+) +\((memory half|loop half|both halves)\)", course_lib.__doc__ or "", re.M))
"""Scenario code and panels sit with a half (or both): the module's map line says which."""
MODULES = sorted(p.stem for p in (ROOT / "course_lib").glob("*.py") if p.stem != "__init__")

MEMORY_LIBRARY = MAP["Memory half"]
"""In lesson order: a module may load only those above it."""
MEMORY_HALF = set(MEMORY_LIBRARY) | {m for m, half in HALF_OF.items() if half == "memory half"}
LOOP_HALF = set(MAP["Loop half"]) | {m for m, half in HALF_OF.items() if half == "loop half"}
SHARED = set(MAP["Shared infrastructure"])
"""Used by both halves, so they load neither."""
JOINERS = {m for m, half in HALF_OF.items() if half == "both halves"}
"""The capstone: the only module that may load both halves."""


def test_the_module_map_puts_every_module_in_exactly_one_group():
    assert sorted(m for group in MAP.values() for m in group) == MODULES
    assert sorted(HALF_OF) == sorted(MAP["Scenario code"] + MAP["Panels"])  # each says which half it serves


def test_the_readme_shows_the_same_map():
    readme = (ROOT / "README.md").read_text().partition("## What is where")[2].partition("\n## ")[0]
    assert module_map(readme, indent="  ") == MAP


# region Import direction: two halves that stand alone, in lesson order


DEFERRED = {
    ("clients", "_offline_client"): "the factory imports a role's offline model only when it builds that role",
    ("live", "_local_settings"): "the local backend's server (and xllamacpp) loads only when COURSE_LLM=local",
    ("presentation", "presence_frame"): "a display helper reads the allowed keys only when it draws that table",
    ("tracing", "to_frame"): "a call log's table is made by presentation, which reads the log's column names",
    ("tracing", "usage_by_role"): "the same: logging a call loads no display helper",
}
"""The only imports made inside a function that the rules do not count, each with its reason. Any other import in
a function counts as if the module made it when it loads: it runs as soon as that function is called."""


def _module_imports(name: str) -> set[str]:
    """The course_lib modules ``name`` imports: at module level or in a function (``DEFERRED`` aside), not for types."""
    found: set[str] = set()

    def visit(node: ast.AST, function: str | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name if function is None else function
            if (name, function) in DEFERRED:
                return
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib."):
            found.add((node.module or "").split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("course_lib."))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(ast.parse((ROOT / "course_lib" / f"{name}.py").read_text()), None)
    return found - {name}


def test_every_deferred_import_is_still_there():
    """A stale entry would excuse a future import in a function of the same name without anyone noticing."""
    for module, function in DEFERRED:
        tree = ast.parse((ROOT / "course_lib" / f"{module}.py").read_text())
        defs = [
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function
        ]
        assert any(isinstance(n, ast.ImportFrom) for d in defs for n in ast.walk(d)), (module, function)


def _loaded_by(name: str) -> set[str]:
    """Every course_lib module that importing ``name`` loads, transitively (``name`` itself only through a cycle)."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for module in _module_imports(todo.pop()) - seen:
            seen.add(module)
            todo.append(module)
    return seen


def _rule_broken(name: str) -> str | None:
    loaded = _loaded_by(name)
    if name in loaded:
        return "imports itself through a cycle"
    if name in MEMORY_LIBRARY:
        above = set(MEMORY_LIBRARY[: MEMORY_LIBRARY.index(name)])
        wrong = loaded & (LOOP_HALF | JOINERS | (set(MEMORY_LIBRARY) - above))
    elif name in MEMORY_HALF:
        wrong = loaded & (LOOP_HALF | JOINERS)
    elif name in LOOP_HALF:
        wrong = loaded & (MEMORY_HALF | JOINERS)
    elif name in SHARED:
        wrong = loaded & (MEMORY_HALF | LOOP_HALF | JOINERS)
    else:
        return None if name in JOINERS else "not in the module map of course_lib/__init__.py"
    return f"loads {sorted(wrong)}" if wrong else None


@pytest.mark.parametrize("name", MODULES)
def test_each_module_loads_only_what_its_place_allows(name):
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
"""A lesson that reaches into the other half on purpose: lesson 03's section 6 wraps the desk in a LoopAgent to
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


# region Tables in one home: presentation.py makes every table and figure


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


@pytest.mark.parametrize("name", [m for m in MODULES if m != "presentation"])
def test_only_presentation_makes_tables_and_figures(name):
    """presentation.py's promise: domain modules stay free of pandas and matplotlib (tables in one home): they hand
    their rows to ``presentation.rows_frame`` or to a table of presentation's own."""
    assert _display_libraries(name) == set(), f"course_lib.{name} imports {_display_libraries(name)}"


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
