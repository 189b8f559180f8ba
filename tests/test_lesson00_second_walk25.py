"""Lesson 00's second walk of round 25 (issue 32, 4/5: "section 5's code puts several names from lesson 02 in front
of a new student, and a few sentences on the student's path use words the lesson only explains in Under the hood").

1. Section 5's usage cell asked the fact writer through five lesson-02 names (``WorkingMemory``, ``ChatFactWriter``,
   ``MemoryExtraction``, ``logged_writer``, ``store``): one library call,
   :func:`course_lib.extraction.ask_fact_writer`, builds them, and the cell's comment says what it is.
2. Section 5's prose says what the writer's characters are in the printed line's words and numbers.
3. The intro's *seed* clause says what the course does with a seed in plain words (no "re-creates").
4. Section 6 says what *quoting* shows before the first cell that prints it.
"""

from __future__ import annotations

import re

from course_lib.clients import make_chat_client
from course_lib.extraction import ChatFactWriter, ExtractionReport, MemoryExtraction, ask_fact_writer
from course_lib.live import Backends
from course_lib.memory import WorkingMemory
from course_lib.tracing import CallLog
from tests.support.lesson_cells import cell_outputs, cell_source, student_path, words

OFFLINE = Backends(backend="offline")


# 1. One library call for the fact writer --------------------------------------------------------------------------


async def test_ask_fact_writer_sends_what_the_writer_and_extraction_send_and_reports_it():
    by_names = CallLog()
    writer = ChatFactWriter(make_chat_client("writer", log=by_names, backends=OFFLINE))
    expected = await MemoryExtraction(WorkingMemory(), writer).update("module=Billing")
    log = CallLog()
    report = await ask_fact_writer("module=Billing", log=log, backends=OFFLINE)
    assert isinstance(report, ExtractionReport)
    assert report.status == expected.status == "accepted"
    assert [f"{f.key}={f.value}" for f in report.facts] == ["module=Billing"]
    assert [c.chars_sent for c in log.calls] == [c.chars_sent for c in by_names.calls]
    assert log.calls[-1].chars_words() == by_names.calls[-1].chars_words()


async def test_ask_fact_writer_starts_from_an_empty_store_every_time():
    first = await ask_fact_writer("module=Billing", backends=OFFLINE)
    second = await ask_fact_writer("priority=P1", backends=OFFLINE)
    assert [f.key for f in first.facts] == ["module"]
    assert [f.key for f in second.facts] == ["priority"], "no fact carried over from the first call"
    nothing = await ask_fact_writer("Hello there.", backends=OFFLINE)
    assert nothing.status == "nothing_to_extract" and nothing.facts == ()


def test_section_5_cell_asks_the_fact_writer_with_one_plain_call_and_says_what_it_is():
    code = cell_source("00", "e9786665")
    for name in ("WorkingMemory", "ChatFactWriter", "MemoryExtraction", "logged_writer", "store ="):
        assert name not in code, name
    assert "# lesson 02's fact writer, asked once (an empty store)" in code
    assert 'await ask_fact_writer("module=Billing", log=log, backends=offline)' in code
    assert all(len(line) <= 90 for line in code.splitlines())


def test_section_5_cell_prints_the_same_lines():
    printed = cell_outputs("00", "e9786665")
    assert (
        "The writer was sent 1096 characters for its 14-character message 'module=Billing': "
        "502 of instructions and 580 of earlier messages sent with it." in printed
    )
    assert "The assistant's 29 = its instructions 'Answer briefly.' (15) + the message (14)." in printed


# 2. The writer's characters in the printed line's words -----------------------------------------------------------


def test_section_5_prose_says_the_writers_characters_as_the_cell_prints_them():
    section = words(next(t for t in student_path("00") if "## 5." in t))
    printed = cell_outputs("00", "e9786665")
    found = re.search(
        r"The writer was sent (\d+) characters .*?: (\d+) of instructions and (\d+) of earlier messages sent with it",
        printed,
    )
    assert found, printed
    total, told, earlier = found.groups()
    said = (  # third walk 25: the prose uses the printed words, then names them worked examples
        f"fact writer: {total} characters, {told} of instructions and {earlier} of earlier messages sent with it. "
        "Those are *worked examples*: sample"
    )
    assert said in section, section
    assert "mostly instructions and examples" not in section


# 3. The intro's seed clause ----------------------------------------------------------------------------------------


def test_the_intros_sample_new_words_are_this_lessons_own():
    """Third walk 25: *seed* was the intro's sample new word, yet the path never needs it; the samples are words
    the lesson uses (backend, role), and the seeds are said under the hood."""
    intro = words(student_path("00")[0])
    assert "New words, such as *backend* or *role*, are in" in intro
    assert "re-creates" not in intro
    # a later walk 25: the map, section 2's table and exercise 2 use *seed*: the intro defines it, once, in plain words
    assert " ".join(student_path("00")).count("*seed*") == 1 and "follows a *seed*: a published article" in intro


# 4. Section 6 says what quoting shows --------------------------------------------------------------------------


def test_section_6_says_what_quoting_shows_before_the_cell_that_prints_it():
    assert "quoting “" in cell_outputs("00", "section-6-run")
    section = words(next(t for t in student_path("00") if t.startswith("## 6.")))
    assert "For each missed case, *quoting* shows the words the writer cited as its evidence." in section
