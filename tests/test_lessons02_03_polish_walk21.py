"""Lessons 02 and 03, twenty-first walk, last polish (issue 32): exercise 1 of lesson 02 says where each status was
shown (only stale and forgotten are lesson 01's tickets), lesson 02 prints an event's kind in words rather than
glued to its output with a pipe, and lesson 03's Under the hood says where the blank check and the tickets of the
printed hooks live."""

import inspect
import json
import re
from pathlib import Path

from course_lib import providers
from course_lib.providers import CallerTurnGate, FactsContextProvider

ROOT = Path(__file__).resolve().parents[1]
LESSON_02 = ROOT / "notebooks" / "02_correct_then_forget.ipynb"
LESSON_03 = ROOT / "notebooks" / "03_provider_and_two_desks.ipynb"


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _output(cell: dict) -> str:
    printed = [o.get("text") or o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", [])]
    return "".join("".join(text) for text in printed)


def _words(text: str) -> str:
    return " ".join(text.split())


def _cell(path: Path, cell_id: str) -> dict:
    return next(c for c in _cells(path) if c.get("id") == cell_id)


def _section_outputs(path: Path, number: int) -> str:
    """What the code cells of section ``number`` ("## N. ...") print, up to the next "## " heading."""
    printed, inside = [], False
    for cell in _cells(path):
        source = _source(cell)
        headings = re.findall(r"^## .*$", source, re.MULTILINE) if cell["cell_type"] == "markdown" else []
        if headings:  # a heading may sit below a paragraph of the previous section
            inside = headings[-1].startswith(f"## {number}. ")
        elif inside and cell["cell_type"] == "code":
            printed.append(_output(cell))
    return "\n".join(printed)


# --- finding 1: exercise 1 says where each status was shown ---


def _status_rows() -> dict[str, str]:
    """Exercise 1's table (walk 24: a table, not a Python list): each status and when it comes, with where it was."""
    source = _source(_cell(LESSON_02, "cell-27"))
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \|(.*)\|\s*$", source, re.MULTILINE)}


def test_exercise_1_ties_only_stale_and_forgotten_to_lesson_01s_tickets() -> None:
    prompt = _words(_source(_cell(LESSON_02, "cell-27")))
    assert "the last four are" not in prompt
    tied = {status for status, when in _status_rows().items() if "lesson 01's tickets" in when}
    assert tied == {"stale", "forgotten"}


def test_exercise_1_cites_sections_that_print_what_it_says() -> None:
    prompt = _words(_source(_cell(LESSON_02, "cell-27")))
    cited = {int(n) for n in re.findall(r"section (\d+)", prompt, re.IGNORECASE)}
    assert cited == {3, 5}
    table = _section_outputs(LESSON_02, 5)
    for status in ("accepted", "rejected", "writer_failed"):
        assert re.search(rf"^\d+\s+{status}\s*$", table, re.MULTILINE), status
    rows = _status_rows()
    assert {s for s, when in rows.items() if "(section 5)" in when} == {"accepted", "rejected", "writer_failed"}
    # nothing_to_extract is never printed by name: the prompt ties it to the line section 3 prints
    assert "nothing_to_extract" not in "".join(_output(c) for c in _cells(LESSON_02))
    assert "[memory] Nothing stored:" in _section_outputs(LESSON_02, 3)
    assert 'section 3\'s "Nothing stored" line' in rows["nothing_to_extract"]


# --- finding 2: an event's kind is printed as words, never glued to the output with a pipe ---

KIND_GLUED = re.compile(r"\{event\.kind\}\s*\|")
KIND_LINE = re.compile(r"^(turn|mem|forget|refused) \|", re.MULTILINE)


def test_no_cell_of_lessons_02_and_03_glues_the_kind_to_the_output() -> None:
    for path in (LESSON_02, LESSON_03):
        for cell in _cells(path):
            if cell["cell_type"] == "code":
                assert not KIND_GLUED.search(_source(cell)), cell.get("id")
                assert not KIND_LINE.search(_output(cell)), cell.get("id")


def test_the_refused_line_prints_its_kind_on_a_line_of_its_own() -> None:
    lines = _output(_cell(LESSON_02, "2c56431b")).splitlines()
    assert lines[0] == "event.kind: refused"
    assert lines[1].startswith("Cannot forget 'about the old module, module=Payments'")


# --- finding 3: Under the hood says where the blank check and the tickets live ---


def test_under_the_hood_says_where_the_blank_check_and_tickets_live() -> None:
    said = _words(_source(_cell(LESSON_03, "cell-04")))
    for name in ("`CallerTurnGate`", "`course_lib/providers.py`", "`_begin_run`", "`self._run_ticket(...)`"):
        assert name in said, name
    assert "`m.text.strip()`" in said and "`string.IsNullOrWhiteSpace`" in said
    assert "`Begun`" in said
    # true of the code: the gate calls _begin_run, which holds the blank check and takes the tickets
    assert "self.provider._begin_run(" in inspect.getsource(CallerTurnGate.process)
    begin = inspect.getsource(FactsContextProvider._begin_run)
    assert "m.text.strip()" in begin and "_begin_messages" in begin
    assert "begin_turns" in inspect.getsource(FactsContextProvider._begin_messages)
    hooks = inspect.getsource(FactsContextProvider.before_run) + inspect.getsource(FactsContextProvider.after_run)
    assert "self._run_ticket(" in hooks and "begun: Begun" in hooks
    assert "Begun" in providers.__all__
    # the hooks printed above (cell-03) are the ones the sentence explains
    printed = _output(_cell(LESSON_03, "cell-03"))
    assert "self._run_ticket(agent, session, context)" in printed and "begun: Begun" in printed
