"""Lesson 02's walk 24, second round (issue 32): a new student scored it 4/5; these make it a 5.

1. "Why ask a model at all?" gave the rule, not the reason: it says that real messages are free text only a model can
   read, and that this course keeps key=value text so plain code can check the model's every proposal exactly.
2. Before section 3's session table: a session stores both sides of each turn, so triage's two turns make 4
   messages, the number the table shows.
3. Section 5 shows its test message in the prose, line by line, not only as a Python string with ``\\n``.
4. Section 6's cell run after a restart (the log empty) says in one line to run sections 1 to 3 first.
5. The glossary's "where" column is true: every lesson a row names contains its term.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.lesson_cells import NOTEBOOKS, plain_words, stored_lesson

from course_lib.tracing import CallLog, RunCellsAboveFirst, calls_needed

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"


def _cells() -> list[dict]:
    return stored_lesson("02")["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _markdown_with(phrase: str) -> str:
    return next(plain_words(_source(c)) for c in _cells() if c["cell_type"] == "markdown" and phrase in _source(c))


# region 1. why a model, when plain code can parse key=value


def test_why_ask_a_model_gives_the_reason() -> None:
    said = _markdown_with("Why ask a model at all?")
    why = said[said.index("Why ask a model at all?") :]
    assert "free text" in why and "only a model" in why
    assert "plain code can check" in why and "exactly" in why
    assert "the thing under test" in why  # walk 25


# region 2. a session stores both sides of each turn


def test_the_session_note_counts_both_sides_of_each_turn() -> None:
    cells = _cells()
    at = next(i for i, c in enumerate(cells) if "Check `mem` after a question:" in _source(c))
    said = plain_words(_source(cells[at]))
    assert "both sides of each turn" in said
    assert "two turns make 4 messages" in said
    table = next(c for c in cells[at + 1 :] if c["cell_type"] == "code")
    shown = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in table["outputs"])
    triage = next(line for line in shown.splitlines() if "triage" in line)
    assert re.search(r"triage\s+4\b", triage), triage  # the count the prose states is the table's


# region 3. section 5's message, shown in the prose


def test_section_5_shows_its_message_line_by_line() -> None:
    cells = _cells()
    at = next(i for i, c in enumerate(cells) if _source(c).startswith("## 5. When the writer goes wrong"))
    prose = _source(cells[at])
    code = next(c for c in cells[at + 1 :] if c["cell_type"] == "code")
    message = re.search(r'message = "(.*)"', _source(code)).group(1).split("\\n")
    assert message == ["module=Payments", "database=Oracle", "Our priority is high."]
    block = re.search(r"```text\n(.*?)\n```", prose, flags=re.S)
    assert block is not None and block.group(1).splitlines() == message


# region 4. section 6 run on an empty log


def test_calls_needed_says_what_to_run_first() -> None:
    with pytest.raises(RunCellsAboveFirst) as raised:
        calls_needed(CallLog(), 3, "sections 1 to 3")
    said = raised.value._render_traceback_()
    assert len(said) == 1 and "sections 1 to 3" in said[0] and "Run" in said[0]
    assert "ValueError" not in said[0] and "unpack" not in said[0]


def test_section_6_checks_the_log_before_its_table() -> None:
    cell = next(c for c in _cells() if "calls = log.to_frame()" in _source(c))
    source = _source(cell)
    assert source.index("calls_needed(log, 3,") < source.index("log.to_frame()")


# region 5. the glossary's "where" column


def _lesson_words(number: str) -> str:
    path = next(NOTEBOOKS.glob(f"{number}_*.ipynb"))
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return plain_words(" ".join(_source(c) for c in cells)).lower()


def _lessons_named(where: str) -> list[str]:
    where = re.sub(r"\(lesson \d\d has none\)|\(sections? [^)]*\)", "", where)
    if "every lesson" in where:
        return [f"{n:02d}" for n in range(8)]
    named = []
    for first, last in re.findall(r"\b(\d\d)(?:-(\d\d))?\b", where):
        named += [f"{n:02d}" for n in range(int(first), int(last or first) + 1)]
    return named


def _rows() -> list[tuple[list[str], str]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| **"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        terms = re.findall(r"\*\*([^*]+)\*\*", cells[0])
        rows.append(([t.lower() for t in terms], cells[-1]))
    return rows


@pytest.mark.parametrize(("terms", "where"), [r for r in _rows() if "02" in _lessons_named(r[1])])
def test_every_glossary_row_naming_lesson_02_is_true(terms: list[str], where: str) -> None:
    text = _lesson_words("02")
    # a row like **ticket, epoch, turn** or **async / await** names several words: one of them is enough
    words = [w.strip("` ") for t in terms for w in re.split(r",|/|\(", t) if w.strip("` )")]
    assert any(w in text for w in words), (terms, where)
