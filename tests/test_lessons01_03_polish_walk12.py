"""Issue 32, the sixth walks of lessons 01-03: the case note said with one colon wherever it is said, the desk chat's
echo of a long line kept inside its column, and an exercise cell's first comment true of the cell."""

import html
import json
import re
from pathlib import Path

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store
from support.checker import exercise_cells, run_each_in_a_fresh_shell
from support.panels import last_in_chat, memory_panel, said, send, submit, two_desks

from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction
from course_lib.providers import case_note, course_provider_desks
from course_lib.tracing import CallLog
from course_lib.widgets import (
    SHOWN_INPUT_CHARS,
    TRANSCRIPT_LINES_STYLE,
    TRANSCRIPT_STYLE,
    command_guidance,
    declaration_notes,
    forget_case_note,
)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
TWO_COLONS = re.compile(r"is not a key: keys are case-sensitive")


# --- finding 6: one case note, one colon, everywhere ---


@pytest.mark.parametrize(
    ("typed", "allowed"), [("Module", "module"), ("DATABASE", "database"), ("cUsToMeR", "customer")]
)
def test_the_case_note_has_one_colon_and_names_the_key_meant(typed, allowed):
    note = case_note(typed, allowed)
    assert note == f"'{typed}' is not an allowed key (keys are case-sensitive): write '{allowed}'."
    assert note.count(":") == 1


@pytest.mark.parametrize("typed", ["Module", "PRIORITY", "Log"])
async def test_every_place_that_tells_a_key_s_case_says_the_same_note(typed):
    allowed = typed.lower()
    note = case_note(typed, allowed)
    assert note in declaration_notes(f"{typed}=Billing")
    assert forget_case_note(typed) == note
    assert note in command_guidance(f"forget {typed}", stored=())
    console = course_provider_desks(CallLog())
    event = await console.handle(f"forget {typed}")
    assert event.kind == "refused" and f"Cannot forget: {note}" in event.output
    panel = memory_panel()
    await submit(panel, f"{typed}=Billing")
    assert note in said(panel)
    capstone = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)  # lesson 07's panel
    await submit(capstone, f"{typed}=Billing")
    assert note in said(capstone)
    for text in (said(panel), said(capstone), event.output, command_guidance(f"forget {typed}", stored=())):
        assert not TWO_COLONS.search(text)


# --- finding 4: a long line's echo stays inside the chat's column ---


@pytest.mark.parametrize("line", ["module=" + "x" * 400, "x" * 500, "You asked " + "y" * 300 + "?"])
async def test_the_chat_echo_of_a_long_line_is_shortened_and_wraps_within_its_column(line):
    panel = two_desks()
    await send(panel, line)
    chat = last_in_chat(panel)
    echo = chat.splitlines()[0]
    assert echo.startswith("you:") and "characters)" in echo
    longest = max(len(run) for run in re.findall(r"\S+", echo))
    assert longest <= SHOWN_INPUT_CHARS + len("module=") + 2  # a recognisable start, never the whole run
    # and what is left wraps: the box and its lines break anywhere, no wider than the column
    for style in (TRANSCRIPT_STYLE, TRANSCRIPT_LINES_STYLE):
        assert "overflow-wrap: anywhere" in style and "max-width: 100%" in style and "min-width: 0" in style
    assert panel.chat.layout.min_width == "0" and panel.chat.layout.max_width == "100%"
    assert f'style="{TRANSCRIPT_LINES_STYLE}"' in html.unescape(panel.chat.value)


# --- finding 7: an exercise cell's first comment is true of it ---

WORKS_ALONE = "# this cell works on its own, even after a restart"
NEEDS_ABOVE = "# after a restart, this import lets the cell say which cells to run first"


def _answered(source: str) -> str:
    """The cell with its answers filled in: a prediction and a message a student might write."""
    source = re.sub(r"^(answer_\d+) = \.\.\.", r"\1 = 2", source, flags=re.M)
    return re.sub(r"^(message_\d+) = \.\.\.", r'\1 = "Please note priority=P0"', source, flags=re.M)


def test_an_exercise_cell_says_it_works_on_its_own_exactly_when_it_does_in_a_fresh_kernel():
    cells = exercise_cells(("01", "02", "03"))
    assert len(cells) == 9
    runs = run_each_in_a_fresh_shell([_answered(source) for _, _, source in cells] + [source for _, _, source in cells])
    alone = []
    for index, (lesson, label, source) in enumerate(cells):
        first = source.splitlines()[0]
        assert first in (WORKS_ALONE, NEEDS_ABOVE), (lesson, label, first)
        said_ = " ".join((runs[index] + runs[index + len(cells)]).split())
        assert "Traceback" not in said_, (lesson, label, said_[:300])
        works = "is not defined in this kernel yet" not in said_
        assert works == (first == WORKS_ALONE), (lesson, label, first, said_[:300])
        alone.append(works)
    assert any(alone) and not all(alone)  # both comments are in use: the test can tell them apart


# --- findings 5, 8 and 9: what the lessons' cells say ---


def _cells_of(lesson: str) -> list[dict]:
    path = next(NOTEBOOKS.glob(f"{lesson}_*.ipynb"))
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def test_lesson_02s_exercise_2_applies_a_row_the_cell_before_it_does_not_show():
    cells = _cells_of("02")
    console = next(_source(c) for c in cells if "ManualInjectionDesk(checked_desk" in _source(c))
    exercise = next(_source(c) for c in cells if _source(c).startswith("**Exercise 2.**"))
    assert "drops a declaration" in exercise and 'OfflineWriterClient("drop")' not in console
    assert 'OfflineWriterClient("paraphrase")' in console


def test_lesson_01_names_contoso_a_product_only():
    sources = [_source(c) for c in _cells_of("01")]
    hood = sources.index(next(s for s in sources if s.startswith("## Under the hood")))
    assert any("product=Contoso" in s for s in sources[:hood])
    assert not any("customer=Contoso" in s or 'value="Contoso' in s for s in sources)


def test_lesson_03_names_the_python_counterpart_of_the_loop_agent():
    import agent_framework

    hood = next(_source(c) for c in _cells_of("03") if "has no `LoopAgent`" in _source(c))
    assert "`AgentLoopMiddleware`, a middleware" in hood and hasattr(agent_framework, "AgentLoopMiddleware")
    assert any("AgentLoopMiddleware" in _source(c) for c in _cells_of("06"))  # the lesson said to compare them
