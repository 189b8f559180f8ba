"""Lesson 00, a new student's second walk 22 of issue 32 (score 4/5).

1. The ``local`` backend gets a switching step in section 3: ``make local``, then ``COURSE_LLM=local`` in ``.env``.
2. A connection failure is said in words: no library class name (``ConnectError``, ``LiveModelError``) is printed.
3. *the host* is defined where section 6 first uses it.
4. The intro says the seeds are two articles.
5. The intro names MAF.
6. Section 4 no longer names ``tests/test_wire.py`` (it stays under the hood).
7. Section 6 shows the start of one reply cut at the output cap, from the recording.
8. A refused ``COURSE_LLM`` with a look-alike or invisible character names that character.
9. Section 6 is its own part, after lesson 02, with a "skip on a first read" line.
"""

import re

import httpx
import pytest
from test_lessons00_05_walk12 import dead_backends

from course_lib.clients import make_chat_client
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.live import LiveSettingsError, load_course_settings
from course_lib.live_client import _described
from course_lib.memory import WorkingMemory
from course_lib.recordings import cut_reply_note, qualification_steps
from tests.support.lesson_cells import stored_lesson

CLASS_NAMES = re.compile(r"\b(ConnectError|LiveModelError|RemoteProtocolError|ReadError|APIConnectionError)\b")


def cells() -> list[dict]:
    return stored_lesson("00")["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


def markdown() -> list[str]:
    return [text(c) for c in cells() if c["cell_type"] == "markdown"]


def printed() -> str:
    out = []
    for cell in cells():
        for o in cell.get("outputs", []):
            out.append("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)


def section(number: str) -> str:
    """The markdown of one section, from its heading to the next section's."""
    parts = "\n".join(markdown())
    start = re.search(rf"^## {number}\. .*$", parts, re.M)
    assert start, number
    after = re.search(r"^## ", parts[start.end() :], re.M)
    return parts[start.start() : start.end() + (after.start() if after else len(parts))]


def test_section3_gives_the_local_models_switching_step(tmp_path):
    assert "`make local`, then `COURSE_LLM=local` in `.env`" in section("3")
    env = tmp_path / ".env"
    env.write_text("COURSE_LLM=offline\n")
    assert load_course_settings(env).backend == "offline"  # COURSE_LLM is read from .env


def test_a_connection_cause_is_said_in_words():
    said = _described(httpx.ConnectError("All connection attempts failed"))
    assert said == "all connection attempts failed"
    assert _described(httpx.ReadError("")) == "read error"


async def test_a_failed_live_writers_report_names_no_class():
    writer = ChatFactWriter(make_chat_client("writer", backends=dead_backends()))
    report = await MemoryExtraction(WorkingMemory(), writer).update("module=Billing")
    assert "cannot connect (all connection attempts failed; 1 attempt)" in report.diagnostic
    assert not CLASS_NAMES.search(report.diagnostic), report.diagnostic


def test_lesson00_prints_no_library_class_name():
    assert not CLASS_NAMES.search(printed())


def test_the_host_is_defined_where_first_used():
    prose = " ".join(("\n".join(markdown()) + "\n" + printed()).split())
    first = re.search(r"\bthe host\b", prose, re.I)
    assert first
    assert prose[first.start() :].startswith(
        prose[first.start() : first.end()] + " (the course's own code that runs the writer and checks what it proposes)"
    )


def test_the_intro_says_the_seeds_are_two_articles_and_names_maf():
    intro = markdown()[0]
    hood = next(t for t in markdown() if t.startswith("## Under the hood"))  # walk 25: the seeds moved there
    assert "articles are the *seeds*" in " ".join(hood.split()) and "*The seed* is" not in intro
    # a later walk 25: the map and section 2's table use *seed*, so the intro defines it in one clause
    assert "follows a *seed*: a published article the course rewrites in Python." in " ".join(intro.split())
    assert "MAF (the Microsoft Agent Framework)" in intro
    assert "MAF (the Microsoft Agent Framework)" not in section("4")


def test_section4_leaves_the_wire_tests_to_under_the_hood():
    assert "test_wire.py" not in section("4")
    hood = "\n".join(markdown()).split("## Under the hood")[1]
    assert "test_wire.py" in hood


def test_section6_shows_the_start_of_one_cut_reply():
    steps = qualification_steps()
    note = cut_reply_note(steps)
    first = steps["the rules alone"]
    case = next(c for c in first.cases if first.is_cut(c))
    assert f"“{case.case}”" in note
    shown = " ".join(case.proposal[0].split())[:150]
    assert shown in note
    assert note in printed()


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("\u043epenai", "U+043E CYRILLIC SMALL LETTER O"),
        ("open\u200bai", "U+200B ZERO WIDTH SPACE"),
        ("offlin\u0435", "U+0435 CYRILLIC SMALL LETTER IE"),
    ],
)
def test_a_refused_backend_names_its_look_alike_or_invisible_character(tmp_path, monkeypatch, value, named):
    monkeypatch.delenv("COURSE_LLM", raising=False)
    env = tmp_path / ".env"
    env.write_text(f"COURSE_LLM={value}\n", encoding="utf-8")
    with pytest.raises(LiveSettingsError) as refused:
        load_course_settings(env)
    assert named in str(refused.value)


def test_a_plain_refused_backend_names_no_character(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_LLM", raising=False)
    env = tmp_path / ".env"
    env.write_text("COURSE_LLM=ollama\n", encoding="utf-8")
    with pytest.raises(LiveSettingsError) as refused:
        load_course_settings(env)
    assert "U+" not in str(refused.value)


def test_section6_is_its_own_part_after_lesson_02():
    heading = "## 6. A real model, recorded"  # walk 23: the rest is under the hood; walk 25: for day 0 too
    assert heading in section("6")
    # walk 24: the heading says "after lesson 02"; the section no longer says it again in its first sentence
    assert re.search(r"best read after lesson 02", section("6"), re.I) is None
