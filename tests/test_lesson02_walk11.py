"""Lesson 02, eleventh walk (issue 32): the case rule is stated before exercise 1 asks about it, the third objective
is two short bullets, a printed facts block never cuts a date, the diagnostic table says the store stops at the
first invalid fact, and the "Next" link says to shut this kernel down on a shared machine."""

import json
import re
from pathlib import Path

from course_lib.presentation import BLOCK_WIDTH

LESSON_02 = Path(__file__).resolve().parents[1] / "notebooks" / "02_correct_then_forget.ipynb"
DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


def _cells() -> list[dict]:
    return json.loads(LESSON_02.read_text(encoding="utf-8"))["cells"]


def _flat(cell_id: str) -> str:
    return " ".join("".join(next(c for c in _cells() if c.get("id") == cell_id)["source"]).split())


def _printed() -> list[str]:
    """Every stream line the lesson's cells print (tables and HTML are not printed text)."""
    return [
        line
        for cell in _cells()
        if cell["cell_type"] == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
        for line in "".join(out["text"]).splitlines()
    ]


def test_the_case_rule_is_stated_before_exercise_1_without_its_example() -> None:
    said = _flat("cell-02")
    assert "keys are lower case and compared exactly" in said and "`Priority=P1` declares nothing" in said
    cells = [c.get("id") for c in _cells()]
    assert cells.index("cell-02") < cells.index("cell-27")
    assert "Module" not in said  # exercise 1's own key stays for the student to work out


def test_the_third_objective_is_one_short_bullet_defining_nothing() -> None:
    """Walk 23: the objectives say what the student will do; the writer and the host check are defined once, where
    the lesson first uses them (cell-02), not again in the objectives."""
    intro = "".join(next(c for c in _cells() if c.get("id") == "cell-00")["source"])
    bullets = [" ".join(b.split()) for b in intro.split("\n- ")[1:]]
    mistakes = next(b for b in bullets if b.startswith("watch plain code refuse"))
    assert len(mistakes) < 200 and "(" not in mistakes, mistakes
    assert "the previous facts stay" in mistakes
    # second walk 23: the reply cut off before its end is a bullet of its own
    cut = next(b for b in bullets if b.startswith("see what a reply cut off"))
    assert len(cut) < 200 and "(" not in cut and "nothing is checked" in cut, cut


def test_a_printed_facts_block_never_cuts_a_date_and_fits_the_width() -> None:
    printed = _printed()
    dated = [line for line in printed if "recorded" in line or DATE.search(line)]
    assert dated and all(len(line) <= BLOCK_WIDTH for line in dated), [row for row in dated if len(row) > BLOCK_WIDTH]
    assert not any(re.search(r"\d{4}-(\d\d-?)?$", line.rstrip()) for line in printed)  # no date cut at a hyphen
    assert sum(bool(DATE.search(line)) for line in printed) >= 10  # every fact line still prints its whole date
    assert "(`wrapped_block`)" in _flat("display-note")  # the lesson says why a printed line is indented (walk 23:
    # just after the first output it describes)


def test_the_diagnostic_table_says_the_store_stops_at_the_first_invalid_fact() -> None:
    said = _flat("10c2ede4")
    assert "stops at the first invalid fact" in said and "names `module` (#1) only" in said
    table = next(c for c in _cells() if c.get("id") == "0214fefe")["outputs"][0]["data"]["text/plain"]
    row = next(line for line in "".join(table).splitlines() if "Invalid fact #1" in line)
    assert "#2" not in row and row.count("unchanged") + row.count("kept") == 1


def test_the_next_link_says_to_shut_this_kernel_down_in_one_sentence() -> None:
    said = _flat("student-takeaways")
    note = said.split("adding the facts for you. ", 1)[1]
    assert "(Kernel > Shut Down Kernel)" in note and "shared machine" in note and note.count(". ") == 0
