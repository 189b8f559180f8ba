"""Lesson 01's twelfth walk (issue 32): each finding checked at its rule.

Every exercise says the form of its answer; the stores the lesson builds pair the seed's values as the seed does
(Reporting with PostgreSQL, Billing with SQL Server 2022); section 6 and section 7 open in short paragraphs, and
section 7's opening leaves runs to "Under the hood", which says what a run is; every claim a lesson names links to
its own row of the claim map, which gives each row an anchor.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_student_path import lesson

ROOT = Path(__file__).resolve().parents[1]
LESSON = "01_contract_and_store"
CLAIMS = ROOT / "docs" / "seed-claims.md"
ROW_ID = re.compile(r"^\| (?P<id>[FL]\d{2}) \| (?P<claim>[^|]*) \|")
SEED_PAIRS = {"Reporting": "PostgreSQL", "Billing": "SQL Server 2022"}


def _cells(kind: str) -> list:
    return [c for c in lesson(LESSON).cells if c.cell_type == kind]


def _cell(cell_id: str):
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _paragraphs(cell_id: str) -> list[str]:
    return [" ".join(p.split()) for p in _cell(cell_id).source.split("\n\n") if p.strip()]


def _section(heading: str) -> list[str]:
    """The paragraphs of one section's text, from its heading to the first code cell after it."""
    paragraphs: list[str] = []
    inside = False
    for cell in lesson(LESSON).cells:
        if cell.cell_type == "code":
            if inside:
                break
            continue
        for paragraph in cell.source.split("\n\n"):
            text = " ".join(paragraph.split())
            if text.startswith(heading):
                inside = True
                continue
            if inside and text.startswith("#"):
                return paragraphs
            if inside and text:
                paragraphs.append(text)
    return paragraphs


def test_every_exercise_says_the_form_of_its_answer():
    questions = [c.source[c.source.index("**Exercise ") :] for c in _cells("markdown") if "**Exercise " in c.source]
    assert len(questions) == 3
    for question in questions:
        words = " ".join(question.split())
        assert re.search(r"\b(Write|Answer)\b[^.]*(`[^`]+`)", words), f"no answer form in: {words[:60]}"
    two = " ".join(next(q for q in questions if q.startswith("**Exercise 2.")).split())
    assert "Write the key as text" in two and "`'module'`" in two


@pytest.mark.parametrize("kind", ["module=Billing", "module=Reporting"])
def test_a_store_that_holds_a_module_holds_the_database_the_seed_pairs_with_it(kind):
    """A cell that declares a module and a database in one message, or begins a database write on a store holding a
    module, pairs them as the seed's user did: the corrected module with the corrected database."""
    module = kind.partition("=")[2]
    other = next(v for k, v in SEED_PAIRS.items() if k != module)
    for cell in _cells("code"):
        messages = re.findall(r'"([^"\n]*module=[A-Za-z]+[^"\n]*)"', cell.source)
        for message in messages:
            if f"module={module}" in message and "database=" in message:
                assert f"database={other}" not in message, f"{message!r} mixes the seed's two pairs"
    forget_cell = _cell("forget-one-key")
    printed = "".join(o.get("text", "") for o in forget_cell.outputs)
    assert "module=Billing" in printed and "database=SQL Server 2022" in printed
    assert "PostgreSQL" not in forget_cell.source + printed
    words = " ".join(_cell("cell-22").source.split())
    assert "`module=Billing`" in words and "`database=SQL Server 2022`" in words


def test_the_write_begun_before_forget_cites_the_database_of_the_module_the_store_holds():
    cell = _cell("cell-21")
    assert 'begin_turn("module=Billing")' in cell.source
    assert "PostgreSQL" not in cell.source and "database=SQL Server 2022" in cell.source


def test_section_6_opens_in_short_paragraphs_each_on_one_subject():
    paragraphs = _section("## 6. Provenance and the facts block")
    assert len(paragraphs) >= 3
    assert all(len(p) <= 420 for p in paragraphs), [len(p) for p in paragraphs]
    first = paragraphs[0]
    assert first.startswith("A fact's **provenance** is where it came from")
    assert "JSON" not in first and "wrapped_block" not in first
    json_paragraph = next(p for p in paragraphs if "JSON string" in p)
    assert "wrapped_block" not in json_paragraph and "date" not in json_paragraph
    assert "cannot make a model obey" in json_paragraph


def test_section_7_opens_without_nested_asides_and_leaves_runs_to_under_the_hood():
    paragraphs = _section("## 7. Tickets: a stale extraction cannot write")
    opening = " ".join(paragraphs)
    assert "lesson 02 opens the turns of one run" not in opening
    assert not re.search(r"\brun\b", opening), "section 7 speaks of a run it does not define"
    for paragraph in paragraphs:
        for sentence in re.split(r"(?<=[.:])\s+(?=[A-Z`])", paragraph):
            assert sentence.count("(") <= 1, f"nested asides in: {sentence}"
    assert "**stale**" in opening and "`NewerTurnBegan`" in opening and "`ForgottenTurn`" in opening
    hood = " ".join(_cell("f76cdb09").source.split())
    assert "A **run** is" in hood and "section 7" in hood


def _claim_anchors() -> dict[str, str]:
    anchors = {}
    for line in CLAIMS.read_text(encoding="utf-8").splitlines():
        match = ROW_ID.match(line)
        if match:
            found = re.match(r'(?:<span style="[^"]*">)?<a id="([^"]+)"></a>', match["claim"])  # offset span: walk 19
            anchors[match["id"]] = found[1] if found else ""
    return anchors


def test_every_row_of_the_claim_map_opens_with_an_anchor_of_its_id():
    anchors = _claim_anchors()
    assert len(anchors) >= 60
    missing = [claim for claim, anchor in anchors.items() if anchor != claim.lower()]
    assert not missing, f"rows without <a id=...>: {missing}"


def test_every_claim_a_lesson_names_links_to_its_row():
    """A lesson that names a claim (claim F60) links the name to the claim map's row, not to the top of the map."""
    named = 0
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "markdown":
                continue
            text = "".join(cell["source"])
            for match in re.finditer(r"\bclaims? ([FL]\d{2})\b", text):
                named += 1
                claim = match[1]
                link = f"](../docs/seed-claims.md#{claim.lower()})"
                assert link in text[match.start() : match.end() + len(link) + 4], (
                    f"{path.name}: {text[max(0, match.start() - 40) : match.end() + 40]!r} does not link {claim}"
                )
    assert named >= 4
