"""Walk 23's findings on lesson 07 (issue 32): "density, not errors".

1. Section 1 showed the rules' misreads and the AI judge's cost before the student had seen the loop run once: they
   are now a short section of their own after section 4 (section 5), and every "section N" of the lesson, its panel
   and its code follows the new numbers.
2. A density pass: a term is defined once, where it is first used.
"""

from __future__ import annotations

import re

from support.capstone_battery import SUPERSEDED, lesson_store
from support.lesson_cells import cell_outputs, plain_words, stored_lesson, words
from support.panels import why_of

from course_lib.capstone import battery_score
from course_lib.capstone_panel import CapstonePanel
from course_lib.extraction import make_extraction

MISREAD_CELL = "d30777ae"  # the table of the 9 answers the rules misread
JUDGE_CELL = "3f34b4e3"  # what one AI judge call would carry


def student_cells() -> list[dict]:
    """The cells before "Under the hood", in order."""
    cells = stored_lesson("07")["cells"]
    end = next(i for i, c in enumerate(cells) if c.get("id") == "under-the-hood")
    return cells[:end]


def sections() -> dict[int, list[dict]]:
    """Each numbered section ("## 5. ...") of the student's path: its cells, heading cell first."""
    found: dict[int, list[dict]] = {}
    current = None
    for cell in student_cells():
        source = "".join(cell["source"])
        heading = re.match(r"## (\d+)\. ", source) if cell["cell_type"] == "markdown" else None
        if heading:
            current = int(heading.group(1))
            found[current] = []
        elif cell["cell_type"] == "markdown" and source.startswith("## "):
            current = None  # Exercises, Key takeaways
        if current is not None:
            found[current].append(cell)
    return found


def heading(number: int) -> str:
    return "".join(sections()[number][0]["source"]).splitlines()[0]


def text_of(number: int) -> str:
    return plain_words("\n".join("".join(c["source"]) for c in sections()[number]))


def test_sections_are_numbered_one_to_ten_in_order():
    assert list(sections()) == list(range(1, 11))


def test_section_1_shows_the_evaluator_reading_answers_and_stops():
    ids = [c.get("id") for c in sections()[1]]
    assert MISREAD_CELL not in ids and JUDGE_CELL not in ids
    said = text_of(1)
    assert "AI judge" not in said and "misread" not in said
    assert "still fail" not in said


def test_the_misreads_and_the_judge_are_a_section_after_section_4():
    assert heading(5) == "## 5. Where the evaluator's rules still fail"
    ids = [c.get("id") for c in sections()[5]]
    assert MISREAD_CELL in ids and JUDGE_CELL in ids
    said = text_of(5)
    printed = " ".join(cell_outputs("07", MISREAD_CELL).split())  # walk 24: printed from the battery, not typed
    score = battery_score()  # the battery's count, measured, with its table
    assert f"{score.right} the verdict" in printed and f"{score.answers} answers" in printed
    assert "Skip this on a first read" not in said  # the loop has run: nothing left to skip to


def test_every_section_reference_names_the_section_that_shows_it():
    """Each reference the lesson makes, by the new numbers (the rule, not one reference)."""
    shown = {
        "state the evaluator's two rules (section 1)": "## 1. The evaluator",
        "read a repaired run call by call (section 6)": "## 6. One repaired run, call by call",
        "in a panel (section 9)": "## 9. Your turn: the capstone panel",
        "swapped for live ones (section 10)": "## 10. Live mode",
        "a live model may (section 10)": "## 10. Live mode",
        "not a live LLM (section 10 swaps in a live one)": "## 10. Live mode",
        "section 5's table shows": "## 5. Where the evaluator's rules still fail",
    }
    lesson = plain_words("\n".join("".join(c["source"]) for c in stored_lesson("07")["cells"]))
    titles = [heading(n) for n in sections()]
    for phrase, title in shown.items():
        assert phrase in lesson, phrase
        assert any(t.startswith(title) for t in titles), title


def test_the_hood_follows_the_new_numbers():
    cells = stored_lesson("07")["cells"]
    start = next(i for i, c in enumerate(cells) if c.get("id") == "under-the-hood")
    hood = plain_words("\n".join("".join(c["source"]) for c in cells[start:]))
    assert "Section 6's run in lesson 05's console layout" in hood
    assert "from such a message (section 7)" in hood
    assert "The panel of section 9" in hood
    assert "(section 5 measures what one judge call would carry)" in hood
    assert "tables of sections 3, 4 and 8" in hood


async def test_the_panel_points_at_the_misread_table_by_its_new_number():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 0  # the final question: it plans an action, so the constraint is due
    why = await why_of(p, "module=Billing; database=SQL Server 2022. Reboot the prod DB tonight.")
    assert why.endswith("The rules read words, not meaning (section 5's table).")
    assert "section 1's last table" not in cell_outputs("07", "capstone-panel-demo")


def test_the_evaluator_is_defined_once_on_the_students_path():
    said = words("\n".join("".join(c["source"]) for c in student_cells() if c["cell_type"] == "markdown"))
    assert said.count("**evaluator**") == 1


def test_window_policies_are_defined_where_the_lesson_uses_the_word():
    assert "window" not in text_of(1)
    assert "window policies (last 3 turns, compaction and the reducer" in text_of(4)


# --- finding 2: the density pass ---


def student_markdown() -> str:
    return plain_words("\n".join("".join(c["source"]) for c in student_cells() if c["cell_type"] == "markdown"))


def hood_text() -> str:
    cells = stored_lesson("07")["cells"]
    start = next(i for i, c in enumerate(cells) if c.get("id") == "under-the-hood")
    return plain_words("\n".join("".join(c["source"]) for c in cells[start:]))


SENTENCE_END = re.compile(r'(?<!e\.g)(?<!i\.e)[.!?]["*)]*\s+(?=[A-Z*"`(])')


def paragraphs(source: str) -> list[str]:
    """Each paragraph of a Markdown text, each list item one paragraph of its own."""
    found = []
    for block in re.split(r"\n\s*\n", source):
        items: list[list[str]] = []
        for line in block.split("\n"):
            if items and not re.match(r"\s*(?:[*-]|\d+\.) ", line):
                items[-1].append(line)
            else:
                items.append([line])
        found += [" ".join(" ".join(item).split()) for item in items]
    return [p for p in found if p]


def test_no_paragraph_of_the_students_path_runs_past_four_sentences():
    for cell in student_cells():
        if cell["cell_type"] != "markdown":
            continue
        for paragraph in paragraphs("".join(cell["source"])):
            assert len(SENTENCE_END.findall(paragraph)) + 1 <= 4, paragraph


def test_the_cap_is_defined_once_and_live_mode_points_at_it():
    said = student_markdown()
    assert said.count("iterations it allows") == 1  # section 3's list of verdicts
    live = plain_words("".join(sections()[10][0]["source"]))
    assert "stopped at the cap` (section 3)" in live


def test_compactions_setting_from_the_seed_is_porting_detail_under_the_hood():
    said = student_markdown()
    assert "French article" not in said and "seed" not in said
    assert "Compaction saw only turns 8 and 9: it keeps at most 3 user turns in the request" in said
    hood = hood_text()
    assert "compaction's setting (at most 3 user turns in the request, the question included)" in hood


def test_section_6_says_what_the_table_shows_before_how_to_read_its_saw_column():
    intro = "".join(sections()[6][0]["source"])
    first, second = intro.split("\n\n")[1:3]
    assert "one row per step" in first and "*saw* column" not in first
    assert second.startswith("In the *saw* column")


def test_section_4_names_the_roomier_policy_once():
    said = text_of(4)
    assert "The picture after it names each bar's store in words" not in said
    assert "`facts (8)` is the facts policy with its own store of 8 facts" in said
