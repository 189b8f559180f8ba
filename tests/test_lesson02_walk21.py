"""Lesson 02, twenty-first walk (issue 32): the objectives name the host as the program and the host check as its
comparison (as cell 4 and the glossary do), a list of the calls a cell makes sits right above that cell, and the
lesson says why a model is asked for facts the host reads from the message itself."""

import json
import re
from pathlib import Path

import pytest

from course_lib.assertions import find_declarations
from course_lib.extraction import ChatFactWriter, MemoryExtraction, counted, declared_count
from course_lib.memory import WorkingMemory
from course_lib.memory_models import OfflineWriterClient

ROOT = Path(__file__).resolve().parents[1]
LESSON_02 = ROOT / "notebooks" / "02_correct_then_forget.ipynb"
GLOSSARY = ROOT / "docs" / "glossary.md"

CALL_BULLET = re.compile(r"^\s*[-*] `((?:[A-Za-z_]\w*)?(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*)(\([^`]*\))?`")
"""A bullet that starts with a call or an attribute, such as `replay.ask(text)` or `.reply`."""


def _cells() -> list[dict]:
    return json.loads(LESSON_02.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _words(text: str) -> str:
    return " ".join(text.split())


def _cell(cell_id: str) -> dict:
    return next(c for c in _cells() if c.get("id") == cell_id)


# --- finding 3: the host is the program, the host check is its comparison ---


def test_the_objectives_say_the_host_is_the_program_and_the_check_its_comparison() -> None:
    intro = _words(_source(_cell("cell-00")))
    assert "*host check*" not in intro  # walk 23: the objectives define nothing; cell 4 defines it, once
    # the check is never named as the program itself, anywhere in the lesson
    said = _words(" ".join(_source(c) for c in _cells() if c["cell_type"] == "markdown"))
    assert not re.search(r"host check\*{0,2} \(the course's own program, which", said)
    assert "*host check*: the **host** (the course's own program" in said  # cell 4's definition stays


def test_the_glossary_says_the_same_host_and_host_check() -> None:
    rows = GLOSSARY.read_text(encoding="utf-8").splitlines()
    row = next(line for line in rows if "| **host**, **host check**" in line)
    assert "the host is the course's own program around the models" in row
    assert "the host check is its comparison of what the writer proposed with what the user literally declared" in row


# --- finding 2: a list of the calls a cell makes sits right above it ---


def _call_lists() -> list[tuple[int, list[str]]]:
    """Each markdown cell that lists calls (by position), with the names it lists."""
    found = []
    for index, cell in enumerate(_cells()):
        if cell["cell_type"] != "markdown":
            continue
        calls = [
            m.group(1)
            for line in _source(cell).splitlines()
            if (m := CALL_BULLET.match(line)) and (m.group(2) is not None or m.group(1).startswith("."))
        ]
        if calls:
            found.append((index, calls))
    return found


def test_the_replay_calls_are_listed_in_the_lesson() -> None:
    listed = [name for _, names in _call_lists() for name in names]
    assert listed == ["replay.ask", "replay.memory.forget", "replay.forget"]  # walk 23: no reply is shown


def test_each_list_of_calls_sits_right_above_the_cell_that_makes_them() -> None:
    cells = _cells()
    for index, names in _call_lists():
        following = cells[index + 1]
        assert following["cell_type"] == "code", index
        code = _source(following)
        missing = [name for name in names if name not in code]
        assert missing == [], (index, missing)


def test_no_sentence_about_the_replay_cells_is_read_before_the_wrong_cell() -> None:
    cells = _cells()
    first_replay = next(i for i, c in enumerate(cells) if c.get("id") == "cell-16")
    above = _words(_source(cells[first_replay - 1]))
    assert "The cell after it" not in above
    assert not any(name in above for name in ("replay.ask", "replay.forget", "replay.memory.forget", "`.reply`"))


# --- finding 1: why a model is asked for what the host reads itself ---


def test_the_writer_paragraph_says_why_a_model_is_asked_at_all() -> None:
    said = _words(_source(_cell("cell-02")))
    assert "Why ask a model" in said
    # walk 24: the reason, not only the seed's rule: real messages are free text only a model can read, and this
    # course keeps key=value text so that plain code can check the model (tests/test_lesson02_five_walk24.py)
    assert "only a model can read the facts in them" in said
    assert "so that plain code can check the model's every proposal exactly" in said


def test_the_side_note_says_the_count_is_the_hosts_own_and_decides_nothing() -> None:
    note = _words(_source(_cell("46669f8a")))
    assert "**how many** facts the message declares" in note
    assert "the host counts them anyway, to check the batch" in note
    # second walk 23: "how many, never which" was dense; the count is said to be a number only
    assert "The count is only a number: the model must still find each key and value in the message" in note


def test_the_count_the_request_gives_is_the_hosts_own_count_of_the_declarations() -> None:
    for text in ("module=Reporting; database=PostgreSQL", "priority=P3; priority=P2", "Which module?", "owner=dana"):
        assert declared_count(text) == len({d.key for d in find_declarations(text)})
        schema = counted(text).model_json_schema()
        facts = schema["properties"]["facts"]
        assert facts["minItems"] == facts["maxItems"] == declared_count(text)


@pytest.mark.parametrize("misbehaviour", ["infer", "paraphrase", "drop"])
async def test_a_writer_told_the_count_is_still_checked_fact_by_fact(misbehaviour: str) -> None:
    memory = WorkingMemory()
    await MemoryExtraction(memory, ChatFactWriter(OfflineWriterClient())).update("module=Billing")
    before = memory.facts
    writer = ChatFactWriter(OfflineWriterClient(misbehaviour), batch=counted)
    report = await MemoryExtraction(memory, writer).update("module=Payments\ndatabase=Oracle\nOur priority is high.")
    assert report.status == "rejected"
    assert memory.facts == before
