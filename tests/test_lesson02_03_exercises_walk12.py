"""Issue 32, walk 4 of lessons 02 and 03 (tests named for walk 12's round): exercise cells that show only what the
student fills in, a deleted message line that runs no desk, the chat quoting a command as typed, and the refusal
of a stale extraction said as what is true (nothing said before a forget is written after it)."""

import asyncio
import json
from pathlib import Path

import pytest
from support.panels import last_in_chat, send, two_desks

from course_lib.exercises import check, exercise
from course_lib.extraction import GatedWriter, MemoryExtraction, make_fact_writer
from course_lib.memory import WorkingMemory
from course_lib.providers import try_smuggling, worked_out
from course_lib.widgets import command_guidance

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSON_02 = next(NOTEBOOKS.glob("02_*.ipynb"))
LESSON_03 = next(NOTEBOOKS.glob("03_*.ipynb"))


def _source(lesson: Path, cell_id: str) -> str:
    cell = next(c for c in json.loads(lesson.read_text())["cells"] if c.get("id") == cell_id)
    return "".join(cell["source"])


def words(text: str) -> str:
    return " ".join(text.split())


EXERCISE_CELLS = [
    (LESSON_02, "cell-28", "02", "Exercise 1", "answer_1", "accepted"),
    (LESSON_02, "cell-30", "02", "Exercise 2", "answer_2", "Payments"),
    (LESSON_02, "cell-32", "02", "Exercise 3", "answer_3", 4),
    (LESSON_03, "cell-29", "03", "Exercise 2", "answer_2", "triage"),
    (LESSON_03, "cell-31", "03", "Exercise 3", "answer_3", 2),
]


@pytest.mark.parametrize("lesson, cell_id, number, label, name, answer", EXERCISE_CELLS)
def test_an_exercise_cell_shows_only_the_students_line_and_the_check(lesson, cell_id, number, label, name, answer):
    """Walk 4: the cell computed its expected value in view (route_by_topic(...), len(log)...): the answer to read."""
    code = [line for line in _source(lesson, cell_id).splitlines() if line.strip() and not line.startswith("#")]
    assert f"{name} = ..." in code
    computing = ("route_by_topic(", "stored_messages(", "len(", ".update(", ".handle(", "for line in")
    assert not [line for line in code if any(step in line for step in computing)]
    assert f'await worked_out("{number}", "{label}")' in _source(lesson, cell_id)
    expected = asyncio.run(worked_out(number, label))
    hint = exercise(number, label).hint
    assert words(check(label, answer, expected, hint, namespace={})).startswith(f"{label}: correct.")


async def test_a_deleted_message_line_runs_no_desk_and_says_so_first():
    """Walk 4: with ``message_1 = ...`` deleted, the desk answered the earlier run's message before the note."""
    cell = "answer_1 = 1\nattempt = await try_smuggling(message_1)\nprint(attempt.feedback)"
    earlier = "module=Billing and priority=P0"  # smuggled, had it run
    attempt = await try_smuggling(earlier, namespace={"In": ["", cell], "message_1": earlier})
    said = words(attempt.feedback)
    assert said.startswith("Exercise 1: not checked yet. This cell no longer sets message_1")
    assert not attempt.smuggled and "desk replied" not in said
    kept = await try_smuggling(earlier, namespace={"In": ["", f"message_1 = {earlier!r}\n{cell}"]})
    assert kept.smuggled and "desk replied" in kept.feedback


async def test_the_chat_quotes_a_command_as_the_student_typed_it():
    """Walk 4: a typed "Forget" showed as "forget" in the chat."""
    panel = two_desks()
    await send(panel, "module=Billing")
    for typed in ("Forget module", "MEM", "Forget"):
        await send(panel, typed)
        assert last_in_chat(panel).startswith(f"you: {typed}\n")
    assert [e.line for e in panel.events[1:]] == ["Forget module", "MEM", "Forget"]
    assert command_guidance("MEM").startswith("'MEM' is a command")


async def test_a_stale_extraction_is_refused_in_words_that_are_true():
    """Walk 4: "nothing said before a forget is ever written" is false (it was written before the forget)."""
    memory = WorkingMemory()
    slow = GatedWriter(make_fact_writer())
    extraction = MemoryExtraction(memory, slow)
    update = asyncio.create_task(extraction.update("module=Billing"))
    await slow.started.wait()
    memory.forget()
    slow.release()
    report = await update
    assert report.status == "forgotten"
    assert "ever written" not in report.diagnostic
    assert "nothing said before a forget is written after it" in report.diagnostic


async def test_the_store_caption_says_in_one_sentence_what_the_table_shows():
    """Walk 4: the sentence above the store's table did not say what its columns are. Walk 21: the caption is one
    short line (a row per fact), and the table's own header names the columns."""
    from support.panels import submit, two_desks

    from course_lib.widgets import DESK_MEMORY_CAPTION

    assert "one row per fact" in DESK_MEMORY_CAPTION
    store = two_desks().memory_panel
    await submit(store, "module=Billing")
    for column in ("key", "value", "evidence", "turn", "recorded (UTC)"):
        assert f">{column}</th>" in store.table.value


def test_lesson_03_says_what_await_does_where_it_first_appears():
    """Walk 4: ``await`` was used from section 2 and explained only in section 5."""
    cells = json.loads(LESSON_03.read_text())["cells"]
    first = next(i for i, c in enumerate(cells) if c["cell_type"] == "code" and "await " in "".join(c["source"]))
    before = " ".join("".join(cells[first - 1]["source"]).split())
    assert "`await` waits there until the desk's reply has come back" in before


def test_lesson_03_under_the_hood_gives_each_seed_name_its_python_counterpart():
    """Walk 4: the seed's C# names (StoreAIContextAsync, UpdateAsync...) came unexplained."""
    cells = json.loads(LESSON_03.read_text())["cells"]
    hood = next(i for i, c in enumerate(cells) if c.get("id") == "under-the-hood")
    table = "".join(cells[hood]["source"])
    later = json.dumps(cells[hood + 1 :])  # the section's prose, code and what it prints
    for name in ("StoreAIContextAsync", "UpdateAsync", "IsNullOrWhiteSpace", "InvokeException", "foreach"):
        assert name in later and name in table


def test_lesson_02_opens_with_short_bullets_and_a_numbered_script():
    """Walk 4: lesson 02's opening and section 1 were dense paragraphs."""
    intro, section_1 = _source(LESSON_02, "cell-00"), _source(LESSON_02, "cell-04")
    for text in (intro, section_1):
        paragraphs = [p for p in text.split("\n\n") if not p.lstrip().startswith(("-", "1.", "#", "*About"))]
        assert all(len(" ".join(p.split())) < 400 for p in paragraphs), paragraphs
    assert "1. `module=Reporting; database=PostgreSQL`, then `mem` (`mem` prints the store's facts);" in intro
    assert "1. take a ticket from the store" in section_1  # walks 24 and 25 (second round)


def test_in_a_real_shell_the_deleted_message_line_is_read_from_the_cell(capsys):
    """The cell's own variables are found without being passed: ``try_smuggling`` reads its caller's, as ``check``."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        shell.user_ns.update(try_smuggling=try_smuggling)
        cell = "answer_1 = 1\nattempt = await try_smuggling(message_1)\nprint(attempt.feedback)"
        shell.run_cell(f"message_1 = 'module=Billing and priority=P0'\n{cell}", store_history=True)
        assert "desk replied" in capsys.readouterr().out
        shell.run_cell(cell, store_history=True)  # the message_1 line deleted
        said = words(capsys.readouterr().out)
        assert said.startswith("Exercise 1: not checked yet. This cell no longer sets message_1")
        assert "desk replied" not in said
    finally:
        InteractiveShell.clear_instance()
