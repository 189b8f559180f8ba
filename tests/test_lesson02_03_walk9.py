"""Lessons 02 and 03, ninth walk (issue 32): section 5's careful row names what it replaced, a cell's console says
"the message", exercise 2 tells a database value from a module, the objectives use no word before it is defined,
and section 7's comma slip is said as the panel does it."""

import inspect
import json
from pathlib import Path

from agent_framework import Agent

from course_lib import providers
from course_lib.assertions import parse_assertions
from course_lib.clients import make_chat_client
from course_lib.exercises import _DATABASE_VALUE, _LESSON_02_DATABASES, _LESSON_02_DECLARATIONS, check, exercise
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.memory import WorkingMemory
from course_lib.memory_models import OfflineWriterClient
from course_lib.providers import ManualInjectionDesk
from tests.support.panels import memory_panel, said, submit

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LESSON_02 = NOTEBOOKS / "02_correct_then_forget.ipynb"


def _cell(path: Path, cell_id: str) -> dict:
    return next(c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c.get("id") == cell_id)


def _source(path: Path, cell_id: str) -> str:
    return "".join(_cell(path, cell_id)["source"])


def _output_text(path: Path, cell_id: str) -> str:
    parts = []
    for output in _cell(path, cell_id).get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def test_section_5s_careful_row_names_the_values_it_replaced() -> None:
    shown = _output_text(LESSON_02, "cell-19")
    assert "(module replaced 'Billing', database replaced 'SQL Server 2022')." in shown


async def _dropping_console(**kwargs: str) -> str:
    held = WorkingMemory()
    await MemoryExtraction(held, ChatFactWriter(OfflineWriterClient())).update("module=Billing; database=Oracle")
    dropping = MemoryExtraction(held, ChatFactWriter(OfflineWriterClient("drop")))
    console = ManualInjectionDesk(Agent(client=make_chat_client("assistant"), name="desk"), dropping, **kwargs)
    return (await console.handle("module=Payments; database=SQL Server 2022")).output


async def test_a_console_a_cell_types_into_says_the_message_and_a_students_says_your_message() -> None:
    assert "which the message declares" in await _dropping_console(message="the message")
    assert "which your message declares" in await _dropping_console()
    assert "your message" not in _output_text(LESSON_02, "mem-after-rejection")


def test_exercise_2_says_the_same_words_to_every_database_value_and_never_names_the_module() -> None:
    declared = [v for line in _LESSON_02_DECLARATIONS for k, v in parse_assertions(line).items() if k == "database"]
    assert list(_LESSON_02_DATABASES) == declared == ["PostgreSQL", "SQL Server 2022", "Oracle"]
    sources = "".join(_source(LESSON_02, c) for c in ("cell-05", "cell-08", "cell-19"))
    sources += inspect.getsource(providers._lesson_02_exercise_2)  # exercise 2's cell computes it there (walk 4)
    for line in _LESSON_02_DECLARATIONS:
        assert line.replace("\n", "\\n") in sources or line in sources
    hint = exercise("02", "Exercise 2").hint
    said_to = {value: check("Exercise 2", value, "Billing", hint, namespace={}) for value in declared}
    for value, text in said_to.items():
        assert " ".join(text.split()).startswith(f"Exercise 2: not quite. Hint: {_DATABASE_VALUE}"), value
        assert "Billing" not in text
    assert len({text for text in said_to.values()}) == 1


def test_lesson_02s_objectives_define_the_writer_and_the_host_check_where_they_use_them() -> None:
    # walk 23: the objectives say what the student will do and define nothing; the writer and the host check are
    # defined once, in the cell that introduces them
    intro = _source(LESSON_02, "cell-00")
    assert "writer model" not in intro
    assert "course's own check" not in intro
    assert "the *writer* (" not in intro and "the *host check* (" not in intro
    writer = " ".join(_source(LESSON_02, "cell-02").split())
    assert "The **writer** is a MAF agent too: it reads the user's message and proposes the facts it declares" in writer
    assert "*host check*: the **host** (" in writer


async def test_section_7s_comma_slip_is_said_as_the_panel_does_it() -> None:
    bullets = " ".join(_source(LESSON_02, "cell-24").split())
    assert "the store keeps one fact, `module` with the whole value `Billing, database=Oracle`, and no `database`" in (
        bullets
    )
    assert (
        "the line under the box says a comma does not separate declarations" in bullets.lower()
    )  # walk 24: a sentence
    panel = memory_panel()
    await submit(panel, "module=Billing, database=Oracle")
    assert [(f.key, f.value) for f in panel.memory.facts] == [("module", "Billing, database=Oracle")]
    assert "a comma does not separate declarations" in said(panel)


LESSON_03 = NOTEBOOKS / "03_provider_and_two_desks.ipynb"
GLOSSARY = NOTEBOOKS.parent / "docs" / "glossary.md"


def test_lesson_03_says_why_the_block_is_a_user_message_where_it_first_shows_it() -> None:
    shown = _output_text(LESSON_03, "correction-sources")
    assert any(line.split()[1:3] == ["user", "FactsContextProvider"] for line in shown.splitlines() if line.split())
    said = " ".join(_source(LESSON_03, "correction-sources-read").split())
    # walk 25: one point, the block is a user message on purpose
    assert "so it is sent as a user message, never as instructions" in said


def test_lesson_03s_first_epoch_links_to_the_glossarys_epoch_row() -> None:
    markdown = [
        "".join(c["source"])
        for c in json.loads(LESSON_03.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
    ]
    first = next(text for text in markdown if "epoch" in text)
    assert "*epoch* counts the forgets so far" in " ".join(first.split())
    assert "[glossary](../docs/glossary.md#epoch)" in first
    row = next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if '<a id="epoch"></a>' in line)
    assert row.startswith("| **ticket, epoch, turn** |")
