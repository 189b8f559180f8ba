"""Lesson 02's walk 24 (issue 32): two new students scored it 4/5, both for "density".

1. The set-up cell had no lead-in and imported about 25 names: a sentence above it says what it makes, and it imports
   only what the lesson needs up to section 2; each later section imports what it needs itself.
2. The writer's paragraph brought four terms at once ("structured output" never used again): it keeps the terms the
   story uses, each defined where it first appears, and a definition is said once.
3. Exercise 1 listed its statuses as a Python list: a table says each status and when it comes.
4. The memory panel's Forget-key hint read like an error before any click: it is an instruction.
5. The facts block writes a full date and time, the tables only the time of day: the lesson says why two.
"""

import ast
import re
from typing import get_args

from support.lesson_cells import cell_source, plain_words, stored_lesson

from course_lib.extraction import ExtractionStatus
from course_lib.widgets import FORGET_KEY_NOTE, KEY_PLACEHOLDER, MemoryPanel


def _cells() -> list[dict]:
    return stored_lesson("02")["cells"]


def _student_cells() -> list[dict]:
    cells = _cells()
    hood = next(i for i, c in enumerate(cells) if "".join(c["source"]).lstrip().startswith("## Under the hood"))
    return cells[:hood]


def _student_markdown() -> str:
    return plain_words(" ".join("".join(c["source"]) for c in _student_cells() if c["cell_type"] == "markdown"))


def _imported(source: str) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(source.replace("await ", ""))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names += [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return names


def _setup_index() -> int:
    """The first code cell a student runs: the one after the Colab set-up."""
    tags = [c["metadata"].get("tags", []) if c["cell_type"] == "code" else None for c in _cells()]
    return next(i for i, these in enumerate(tags) if these is not None and "colab-setup" not in these)


# --- finding 1: the set-up cell says what it makes, and makes only what is needed before section 2 ---


def test_a_sentence_before_the_set_up_cell_says_what_it_makes():
    cells = _cells()
    lead = plain_words("".join(cells[_setup_index() - 1]["source"]))
    said = lead.split("The next cell makes")[1]
    for piece in ("desks", "writer", "store", "console"):
        assert piece in said.split(".")[0], piece


def test_the_set_up_cell_imports_only_what_is_used_before_section_2():
    cells = _cells()
    start = _setup_index()
    section_2 = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## 2."))
    names = _imported("".join(cells[start]["source"]))
    assert len(names) <= 15, names
    used_later = "\n".join("".join(c["source"]) for c in cells[start + 1 : section_2] if c["cell_type"] == "code")
    setup_body = "".join(cells[start]["source"]).split("setup_display()")[1]
    unused = [n for n in names if n != "setup_display" and not re.search(rf"\b{n}\b", used_later + setup_body)]
    assert unused == [], f"the set-up cell imports names no cell before section 2 uses: {unused}"


def test_each_later_import_is_used_in_the_cell_that_makes_it():
    """A section makes what it needs where it needs it: a name imported past the set-up cell is used in that cell."""
    for cell in _student_cells()[_setup_index() + 1 :]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        body = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("from ", "import ")))
        for name in _imported(source):
            assert re.search(rf"\b{name}\b", body), (cell.get("id"), name)


# --- finding 2: the writer's paragraph keeps only the terms the story uses ---


def test_the_writer_section_defines_only_terms_the_lesson_uses_again():
    writer = plain_words(cell_source("02", "cell-02"))
    assert "structured output" not in _student_markdown() and "schema" not in _student_markdown()
    rest = _student_markdown().split(writer)[1]
    for term in ("batch", "host check", "evidence"):
        assert term in writer and term in rest, term


def test_the_host_check_is_defined_once():
    defined = re.findall(r"host check(?:\*\*)? (?:compares|is|:)|makes the \*host check\*", _student_markdown())
    assert len(defined) <= 1, defined


# --- finding 3: exercise 1's statuses as a table, not a Python list ---


def test_exercise_1_says_its_statuses_in_a_table_with_when_each_comes():
    source = cell_source("02", "cell-27")
    assert not re.search(r'`"\w+"`,\s*`"\w+"`', source), "a Python list of quoted statuses"
    rows = {m.group(1): m.group(2).strip() for m in re.finditer(r"^\| `(\w+)` \|(.*)\|\s*$", source, re.M)}
    assert set(rows) == set(get_args(ExtractionStatus)), rows
    assert all(rows.values())


# --- finding 4: the Forget-key hint is an instruction ---


def test_the_forget_key_hint_before_any_click_is_an_instruction():
    assert FORGET_KEY_NOTE.startswith("Pick a key") and FORGET_KEY_NOTE.index("Key list") < FORGET_KEY_NOTE.index(
        "Forget key"
    )
    assert not re.search(r"\b(waits|no|not|cannot|error)\b", FORGET_KEY_NOTE, re.I)


async def test_a_panel_with_facts_and_no_key_chosen_shows_the_instruction():
    from course_lib.extraction import make_extraction

    panel = MemoryPanel(make_extraction())
    panel.message.value = "module=Billing"
    panel.submit_button.click()
    await panel.idle()
    assert panel.key.label == KEY_PLACEHOLDER and FORGET_KEY_NOTE in panel.forget_note.value
    assert panel.forget_key_button.tooltip == FORGET_KEY_NOTE


# --- finding 5: two time formats, and why ---


def test_the_lesson_says_why_the_block_and_the_table_write_times_differently():
    said = _student_markdown()
    assert "time of day" in said and "full date and time" in said and "+00:00" in said
    # said beside the first table that shows a time of day
    assert "time of day" in plain_words(cell_source("02", "cell-10"))
