"""Lessons 00 and 01, fifth walk (issue 32): the store's refusals, the tables' display and the lessons' words.

A length refusal states its bound and the count in one unit (characters when ``len()`` and the UTF-16 count agree,
UTF-16 units otherwise); an element of a batch that is not a candidate is named by its kind, never its repr;
``student_table`` applies the display settings it needs, whichever cell ran first; lesson 00's words say what its
cells do.
"""

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from course_lib.live import (
    ANY_LOCAL_KEY,
    ENDPOINT_EXAMPLES,
    PLACEHOLDER_API_KEY,
    ROLE_PURPOSES,
    LiveSettings,
    LiveSettingsError,
)
from course_lib.memory import FactCandidate, InvalidFacts, WorkingMemory
from course_lib.presentation import student_table

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
FIRE = "\U0001f525"  # one emoji: one character for len(), two UTF-16 units


def refusal(message: str, batch: list) -> InvalidFacts:
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts) as refused:
        memory.apply(memory.begin_turn(message), batch)
    assert memory.facts == ()
    return refused.value


@pytest.mark.parametrize(
    ("key", "value", "evidence", "field", "bound"),
    [
        ("symptom", FIRE * 200, f"symptom={FIRE * 200}", "value", 256),
        ("log", FIRE, f"log={FIRE * 255}", "evidence", 512),
        ("symptom", "x" * 300, "symptom=" + "x" * 300, "value", 256),
        ("log", "y", "log=" + "y" * 600, "evidence", 512),
    ],
)
def test_a_length_refusal_says_its_bound_and_its_count_in_the_same_unit(key, value, evidence, field, bound):
    said = str(refusal(evidence, [FactCandidate(key=key, value=value, evidence=evidence)]))
    text = value if field == "value" else evidence
    in_units = len(text) != len(text.encode("utf-16-le")) // 2
    unit = "UTF-16 units" if in_units else "characters"
    assert f"{field} longer than {bound} {unit}: it has " in said, said
    rule = said.partition(f"{field} longer than ")[2].partition(". ")[0]
    assert ("characters" in rule) is not in_units and ("UTF-16 units" in rule) is in_units, rule


@pytest.mark.parametrize(
    ("element", "kind"),
    [
        ({"key": "module", "value": "Billing", "evidence": "module=Billing"}, "a dict"),
        (["module", "Billing", "module=Billing"] * 20, "a list"),
        (None, "None"),
        (42, "an int"),
    ],
)
def test_an_element_that_is_no_candidate_is_named_by_its_kind_not_its_repr(element, kind):
    refused = refusal("module=Billing", [element])
    said = str(refused)
    assert said.startswith(f"Invalid fact #1 ({kind}): no candidate: {kind} stands in the batch"), said
    assert refused.rule == "not a candidate"
    assert repr(element) not in said or repr(element) == kind


def test_a_candidate_is_still_named_by_its_key_and_value():
    evidence = "module=Billing"
    candidates = [FactCandidate(key="module", value="Billing", evidence=evidence)] * 2
    assert str(refusal(evidence, candidates)).startswith("Invalid fact #2 (module=Billing): duplicate key")


@pytest.fixture
def fresh_display():
    """pandas' own settings and a shell with no course formatter: a kernel restarted, the set-up cell not run."""
    shell = InteractiveShell.instance()
    html = shell.display_formatter.formatters["text/html"]
    html.pop(pd.DataFrame, None)
    for option in ("display.max_colwidth", "display.max_columns", "display.width"):
        pd.reset_option(option)
    try:
        yield shell
    finally:
        html.pop(pd.DataFrame, None)
        InteractiveShell.clear_instance()


def test_a_student_table_looks_the_same_whether_or_not_the_set_up_cell_ran(fresh_display):
    purpose = "the fact writer (reads a message and proposes its facts, for the store to check), whole"
    frame = pd.DataFrame({"name": ["writer"], "purpose": [purpose]})
    assert pd.get_option("display.max_colwidth") == 50  # the restarted kernel's pandas would cut it
    shown = student_table(frame)
    data, _ = fresh_display.display_formatter.format(shown)
    assert purpose in data["text/html"] and purpose in data["text/plain"]
    assert "<th" not in data["text/html"].partition("<tbody>")[2]  # no column of row numbers
    again, _ = fresh_display.display_formatter.format(student_table(frame))
    assert again == data  # applied again, nothing changes


def test_a_local_servers_key_is_said_from_the_rule_that_refuses_the_placeholder():
    local = [row for row in ENDPOINT_EXAMPLES if row["OPENAI_BASE_URL"].startswith("http://localhost")]
    # sixth walk: each row's example is its own server's ("ollama" on Ollama's row only, "local" elsewhere)
    assert len(local) == 3 and all(row["OPENAI_API_KEY"].startswith(ANY_LOCAL_KEY.partition(" (")[0]) for row in local)
    assert "blank" in ANY_LOCAL_KEY and PLACEHOLDER_API_KEY in ANY_LOCAL_KEY
    for row in local:
        example = row["OPENAI_API_KEY"].partition("e.g. ")[2].rstrip(")")
        LiveSettings(model="llama3.2", api_key=example, base_url=row["OPENAI_BASE_URL"])  # the example passes
    with pytest.raises(LiveSettingsError):
        LiveSettings(model="llama3.2", api_key=PLACEHOLDER_API_KEY, base_url="http://localhost:11434/v1")


def lesson(number: str) -> list[dict]:
    [path] = NOTEBOOKS.glob(f"{number}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text_of(cells: list[dict], kind: str = "markdown") -> str:
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == kind)


def test_the_roles_purposes_use_only_words_lesson_00_defines_before_its_table():
    for words in ("candidates", "inner agent", "summary policy", "JSON"):
        assert not any(words in purpose for purpose in ROLE_PURPOSES.values()), words
    before = text_of(lesson("00")[:5])
    assert "- **loop** (lessons 05-07)" in before and "lessons 05-06): runs" not in before


def test_lesson_00_says_what_it_uses_before_or_where_it_first_uses_it():
    cells = lesson("00")
    first_await = next(i for i, c in enumerate(cells) if c["cell_type"] == "code" and "await " in "".join(c["source"]))
    assert "`await` waits for" in "".join(cells[first_await - 1]["source"])
    first_backends = next(i for i, c in enumerate(cells) if "Backends(" in "".join(c["source"]))
    assert "`Backends` is" in text_of(cells[:first_backends])
    status = next(i for i, c in enumerate(cells) if "status: writer_failed" in json.dumps(c.get("outputs", [])))
    assert "`writer_failed`: the writer gave no proposal" in "".join(cells[status - 1]["source"])
    markdown = text_of(cells)
    assert "Three words of lessons 01 and 02, and one of\nthis lesson's" in markdown and "Four of them" not in markdown
    assert "appear in no\n  lesson's scenario" in markdown


def test_lesson_01_says_each_rule_a_row_cannot_break_alone_in_a_sentence_of_its_own():
    markdown = text_of(lesson("01"))
    assert "which then holds the line break too; a blank evidence" not in markdown
    assert "- *line break in value*: " in markdown and "- *blank evidence*: " in markdown


GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"
ROW_ANCHOR_OFFSET = '<span style="position: relative; top: -3em">'


def test_every_glossary_row_anchor_lands_a_little_above_its_row():
    """JupyterLab scrolls a link's anchor to the very top of the viewer: an anchor inside a row put the row's top
    under the toolbar, with nothing above it (fifth walk). Shifted 3em up (JupyterLab keeps ``position`` and ``top``
    and drops ``scroll-margin-top``), the row shows whole, below the end of the row before it; the ``<a id>`` itself
    is unchanged, as the site and the link checks read it."""
    rows = [line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    anchored = [row for row in rows if '<a id="' in row]
    assert len(anchored) > 30
    bare = [
        row[:60] for row in anchored if not re.search(rf'{re.escape(ROW_ANCHOR_OFFSET)}<a id="[^"]+"></a></span>', row)
    ]
    assert not bare
