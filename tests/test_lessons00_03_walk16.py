"""Issue 32, the eighth walks of lessons 00 and 03: lesson 03 says the gate's job where the gate first appears and
titles section 6 as its text reads; every lesson's first glossary link opens at its own section; lesson 00 spells
MAF out where it first appears, says why the dead endpoint refuses at once, and splits its densest sentences; the
glossary's forget row names lesson 01; a refused connection is said in words wherever it is printed."""

import re
from pathlib import Path

import httpx2
import openai
from support.lesson_cells import cell_outputs, cell_source, stored_lesson

from course_lib.live import LiveSettings
from course_lib.live_client import explain

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary.md"


def said(number: str, cell_id: str) -> str:
    return " ".join(cell_source(number, cell_id).split())


def markdown(number: str) -> list[str]:
    return ["".join(c["source"]) for c in stored_lesson(number)["cells"] if c["cell_type"] == "markdown"]


def glossary_row(term: str) -> str:
    return next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith(f"| **{term}**"))


# --- lesson 03, finding 1: the gate's job is said where the gate first appears ---


def test_the_gate_is_said_to_take_the_ticket_so_a_forget_during_the_run_wins():
    text = said("03", "hood-gate")  # lesson 03's second walk 25: the gate and the ticket moved under the hood
    assert "so it sees exactly what the caller passed to `run`" in text
    assert "it takes the store's *ticket* for the caller's messages" in text
    # the ticket is defined in a clause where it first appears, and section 5 is named as the place that shows it
    # walk 23: the gate and the ticket moved into section 5 itself, so the race below is named, not section 5
    assert text.index("*ticket*") < text.index("a `forget` during the run still wins (section 6's race shows it)")
    # walk 23 (second round): the ticket is defined by a sentence of its own, not in brackets
    assert "The ticket is lesson 01's stamp that every write to the store must carry." in text
    before = " ".join(said("03", c) for c in ("cell-00", "cell-02", "live-writer-limit", "da89f784"))
    assert "ticket" not in before, "the ticket appears before the place that defines it"


# --- lesson 03, finding 2: section 7's heading (section 6 until walk 23) says what its text says ---


def test_section_6_heading_says_the_programs_words_must_never_be_read_as_the_users():
    heading = cell_source("03", "72291c68").splitlines()[0]
    assert heading == "## 7. Words the program adds must never be read as the user's"
    assert not any("are never the user's words" in text for text in markdown("03"))


# --- finding 3: each lesson's first glossary link opens at the lesson's own section ---

SECTIONS = {
    "00": "words-every-lesson-uses",
    "01": "the-memory-half",
    "02": "the-memory-half",
    "03": "the-agent-frameworks-words",
    "04": "the-memory-half",
    "05": "the-loop-half",
    "06": "the-loop-half",
    "07": "the-loop-half",
}


def test_each_lessons_first_glossary_link_names_its_section_of_the_glossary():
    for number, anchor in SECTIONS.items():
        intro = markdown(number)[0]
        # the seed's provenance (lesson 05 links it where it names the seed) is no section of words
        first = re.search(r"\]\((\.\./docs/glossary\.md(?!#where-this-comes-from)[^)]*)\)", intro)
        assert first, f"lesson {number}: no glossary link in the first cell"
        assert first.group(1) == f"../docs/glossary.md#{anchor}", f"lesson {number}: {first.group(1)}"


def test_each_section_anchor_stands_right_above_its_heading_in_the_glossary():
    lines = GLOSSARY.read_text(encoding="utf-8").splitlines()
    headings = {
        "words-every-lesson-uses": "## Words every lesson uses",
        "the-memory-half": "## The memory half (lessons 01-04)",
        "the-agent-frameworks-words": "## The agent framework's words (MAF, lessons 02-03)",
        "the-loop-half": "## The loop half (lessons 05-07)",
    }
    for anchor, heading in headings.items():
        at = lines.index(f'<a id="{anchor}"></a>')
        assert lines[at + 1 : at + 3] == ["", heading], anchor


# --- lesson 00, finding 4: MAF is spelled out where it first appears, and once ---


def test_lesson_00_spells_maf_out_at_its_first_use_and_only_there():
    texts = markdown("00")
    first = next(text for text in texts if "MAF" in text)
    sentence = next(line for line in " ".join(first.split()).split(". ") if "MAF" in line)
    assert "MAF (the Microsoft Agent Framework" in sentence
    assert sum(text.count("Microsoft Agent Framework") for text in texts) == 1


# --- lesson 00, finding 5: the refusal comes at once; the timeout is for a silent server ---


def test_lesson_00_says_why_the_closed_port_refuses_at_once():
    text = said("00", "7be02f73")
    assert "Nothing listens there, so the connection is refused at once and the cell's `timeout=2` never acts" in text
    assert "a timeout bounds a silent endpoint, not a closed port" in text  # walk 21: one word for each case


def test_a_refused_connection_is_said_in_words_wherever_it_is_printed():
    settings = LiveSettings(model="m", api_key="sk-example", base_url="http://127.0.0.1:9/v1", max_retries=0)
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    for detail in ("All connection attempts failed", "[Errno 111] Connection refused", "Name or service not known"):
        error = openai.APIConnectionError(request=request)
        error.__cause__ = httpx2.ConnectError(detail)
        cause, hint, kind = explain(error, settings)
        # in words, no class name (walk 22): "ConnectError" meant nothing to a student
        said = detail if detail[1].isupper() else detail[0].lower() + detail[1:]
        assert cause == f"cannot connect ({said}; 1 attempt)"
        assert hint.startswith("No connection to the endpoint could be opened, so no request was sent. Is the server")
        assert kind == "unreachable"
    # another cause of the same failure class keeps its own words: it may have opened the connection
    error = openai.APIConnectionError(request=request)
    error.__cause__ = httpx2.WriteError("broken pipe")
    assert "no request was sent" not in " ".join(explain(error, settings)[:2])
    for cell in ("ac6bee08", "8d383239"):
        assert "No connection to the endpoint could be opened, so no request was sent." in cell_outputs("00", cell)


# --- lesson 00, finding 6: the dense sentences are split, every claim kept ---


def test_what_make_test_proves_is_a_list_with_no_colon_inside_a_bracket():
    text = cell_source("00", "5a743185")
    proves = text[text.index("`make test` runs the offline models") : text.index("`make qualify` measures that")]
    proves = "\n".join(" ".join(line.split()) for line in proves.replace("\n  ", " ").splitlines())
    assert "- the host check refuses what is not declared;" in proves
    assert "- each stored fact keeps the user's exact words it came from;" in proves
    assert "- *forgetting* is final:" in proves and "no writer's answer still on its way can store it again" in proves
    assert "It does not prove that *your* model proposes exactly the declared facts." in " ".join(text.split())
    assert not re.search(r"\([^()]*:[^()]*\)", proves.replace("(lesson 01)", ""))


def test_writer_failed_is_said_in_sentences_of_its_own():
    text = said("00", "31b3deef")
    assert "`writer_failed`, on a live run only: the writer gave no proposal to check, so nothing is stored." in text
    assert "Either its call failed (section 4), or its reply was cut at the output cap (below)." in text
    assert "(the writer gave no proposal to check: its call failed" not in text


# --- finding 7: the glossary's forget row names lesson 01, which teaches the store's forget ---


def test_the_forget_row_names_lessons_01_02_and_03():
    row = glossary_row("forget")
    assert row.endswith("| lessons 01, 02, 03 |")
    assert "the store's `forget(key)` and `forget()` (lesson 01)" in row


def test_lesson_01_teaches_the_stores_forget():
    cells = stored_lesson("01")["cells"]
    assert any("tickets.forget()" in "".join(c["source"]) for c in cells if c["cell_type"] == "code")
