"""Lesson 00, the second new-student walk of round 23 (issue 32, score 4/5: "section 4 brings four lesson 01-02
names into the part meant to be done before those lessons; a few sentences or terms make you stop").

1. Section 4 says in one sentence what the fact writer does on the closed port (a ``writer_failed`` report, the
   store keeps its facts); the cell that shows it, with ``WorkingMemory``, ``ChatFactWriter``, ``MemoryExtraction``,
   the host check and declared facts, is under "Under the hood", its printed lines and claims with it.
2. The intro's sentence on the seeds reads in order, with no bracket.
3. Section 6 defines *contract* where it uses it; the recorded run's sentence names the model, not its file's
   quantization (``-Q4_1``), which stays in the exact caption under the hood.
4. Exercise 3 says where lesson 01's rule is stated in this lesson ("Section 6 in full", under the hood), with a link
   that lands there; its hint points at the same place for the host's rule, no longer at section 4.
(Exercise 1's 40.5 and the model's name without its quantization: tests/test_lesson00_slips_walk23.py.)
"""

from __future__ import annotations

import re

from course_lib.exercises import exercise
from course_lib.recordings import load_qualification
from tests.support.lesson_cells import plain_words, stored_lesson, words

LESSON_NAMES = ("WorkingMemory", "ChatFactWriter", "MemoryExtraction", "host check", "declared facts")
"""The lesson 01-02 names section 4 introduced before those lessons."""


def cells() -> list[dict]:
    return stored_lesson("00")["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def printed(cell: dict) -> str:
    return "".join(
        "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", [])
    )


def hood_index() -> int:
    return next(
        i for i, c in enumerate(cells()) if c["cell_type"] == "markdown" and source(c).startswith("## Under the hood")
    )


def section(number: int) -> list[dict]:
    """The cells of section ``number`` of the student's path, from its heading to the next heading of its level."""
    path = cells()[: hood_index()]
    start = next(i for i, c in enumerate(path) if re.search(rf"^## {number}\. ", source(c), flags=re.M))
    out = []
    for cell in path[start:]:
        text = source(cell)
        if out and cell["cell_type"] == "markdown" and re.search(r"^## ", text, flags=re.M):
            head = text[: re.search(r"^## ", text, flags=re.M).start()]
            out.append({**cell, "source": [head]})
            break
        if not out and cell["cell_type"] == "markdown":
            text = text[re.search(rf"^## {number}\. ", text, flags=re.M).start() :]
            cell = {**cell, "source": [text]}
        out.append(cell)
    return out


def by_id(cell_id: str) -> tuple[int, dict]:
    return next((i, c) for i, c in enumerate(cells()) if c.get("id") == cell_id)


# 1. Section 4 says it in one sentence; the cell with its names is under the hood ------------------------------------


def test_section_4_names_no_lesson_01_or_02_name():
    for cell in section(4):
        text = source(cell)
        for name in LESSON_NAMES:
            assert name not in text, f"section 4's cell {cell.get('id')} names {name}"


def test_section_4_says_the_fact_writers_failure_in_one_sentence_with_a_link_under_the_hood():
    prose = plain_words("\n".join(source(c) for c in section(4) if c["cell_type"] == "markdown"))
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", prose) if "fact writer" in s]
    assert len(sentences) == 1, sentences
    (sentence,) = sentences
    assert "writer_failed" in sentence and "no fact is stored or lost" in sentence  # walk 24: no "store" yet
    link = re.search(r"\]\(#([^)]+)\)", sentence)
    assert link, "the sentence links to the cell that shows it"
    anchor = f'<a id="{link.group(1)}"></a>'
    at = next(i for i, c in enumerate(cells()) if anchor in source(c))
    assert at > hood_index(), "the cell that shows it is under the hood"


def test_the_fact_writer_cell_is_under_the_hood_with_its_names_and_printed_lines():
    prose_at, prose = by_id("3b3d8f4d")
    code_at, code = by_id("8d383239")
    assert hood_index() < prose_at < code_at, "both moved under the hood, the words before the code"
    said = words(source(prose))
    for name in ("WorkingMemory", "ChatFactWriter", "MemoryExtraction", "host check"):
        assert name in said
    shown = printed(code)
    assert "status: writer_failed" in shown
    assert "facts in the store after the failure: module=Reporting" in shown


def test_section_5_says_where_its_writer_names_come_from():
    code = next(source(c) for c in section(5) if c["cell_type"] == "code" and "ask_fact_writer" in source(c))
    assert "lesson 02" in code, "the fact writer is lesson 02's, said at its first use"


# 2. The intro's sentence on the seeds --------------------------------------------------------------------------------


def test_the_intro_says_what_the_seeds_are_in_order_with_no_bracket():
    intro = words(source(cells()[hood_index()]))  # walk 25: the seeds' sentence is under the hood
    assert "whose code, and the output it prints, a lesson re-creates" not in intro
    sentence = next(s for s in re.split(r"(?<=[.:])\s+", intro) if "re-creates" in s)
    sentence = sentence.removeprefix("**Where the course comes from.** ")  # the hood's run-in heading
    assert sentence.startswith("The course re-creates in Python"), sentence
    assert "(" not in sentence, sentence
    assert "*seeds*" in intro


# 3. Section 6: contract defined; no quantization in the student's sentence --------------------------------------------


def test_section_6_defines_the_contract_where_it_first_uses_it():
    prose = plain_words("\n".join(source(c) for c in section(6) if c["cell_type"] == "markdown"))
    first = prose.index("contract")
    assert "the rule for which words of a message count as a fact" in prose[first : first + 120], prose[first:]


def test_the_student_path_shows_no_quantization_and_the_exact_caption_keeps_it():
    exact = load_qualification().model.model
    assert exact.endswith("-Q4_1")
    path = "\n".join(printed(c) for c in cells()[: hood_index()])
    assert "Q4_1" not in path
    hood = "\n".join(printed(c) for c in cells()[hood_index() :])
    assert exact in hood, "the exact name stays under the hood"


# 4. Exercise 3 says where the rule is, with a link that lands --------------------------------------------------------


def test_exercise_3_states_lesson_01s_rule_itself():
    """Walk 25: the link sent a beginner under the hood for the rule; the exercise now states it where it needs it
    (the hood's "Section 6 in full" still states it in full, with its anchor)."""
    question = words(next(source(c) for c in cells() if "**Exercise 3." in source(c)))
    question = question[question.index("**Exercise 3.") :]
    assert "a value runs to the next `;` or line break, so a comma does not end it" in question
    assert "](#" not in question
    anchor = '<a id="section-6-in-full"></a>'
    text = words(source(next(c for c in cells() if anchor in source(c))))
    assert text.index(anchor) < text.index("### Section 6 in full"), "the anchor sits on the heading"
    assert "runs to the next `;` or line break" in text


def test_exercise_3s_hint_points_where_the_hosts_rule_is_stated():
    hint = exercise("00", "Exercise 3").hint
    assert "(section 4)" not in hint
    assert "section 6 what the host does" in hint  # walk 25: section 6, on the student's path, states it
    target = words(next(source(c) for c in cells() if source(c).startswith("## 6.")))
    assert "only if it is exactly the declared facts, each quoting the words of its own declaration" in target
    assert "Otherwise it rejects all of it." in target
