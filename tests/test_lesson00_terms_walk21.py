"""Lesson 00, third walk 21 of issue 32: one word for one thing, each term said where it first appears.

* Section 4 and exercise 1 used "dead endpoint" for two things: the demo's port where nothing listens (refused at
  once, the timeout never acts) and a server that accepts the connection, then stays silent (held until the
  timeout). The demo is now a *closed port* (the connection is refused), the timeout case a *silent endpoint*,
  defined where it first appears; exercise 1 and the glossary say the same.
* ``COURSE_LLM`` was used before the lesson said what it is (a setting read from the shell or from ``.env``).
* Exercise 3's comma was answered before it was asked: the comma sentence was in sections 4 and 6. The general rule
  (a pair runs to the next ';' or line break, the key before the first '=') is said once, in section 6.
* ``Agent`` holds "tools", a word the lesson never defined.
* The memo's link opens the maintainers' benchmark log; its sentence now says so.
"""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LESSON = next((ROOT / "notebooks").glob("00_*.ipynb"))
GLOSSARY = ROOT / "docs" / "glossary.md"


def cells() -> list[dict]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def cell(cell_id: str) -> dict:
    return next(c for c in cells() if c.get("id") == cell_id)


def words(c: dict) -> str:
    return " ".join("".join(c["source"]).split())


def printed(c: dict) -> str:
    return "".join(
        "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")) for o in c.get("outputs", [])
    )


def markdown_before(marker: str) -> str:
    """Every markdown cell's words, in order, up to the cell holding ``marker`` (excluded)."""
    said = []
    for c in cells():
        if marker in "".join(c["source"]):
            break
        if c["cell_type"] == "markdown":
            said.append(words(c))
    return " ".join(said)


def glossary_row(term: str) -> str:
    return next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith(f"| **{term}**"))


# --- finding 1: a closed port is not a silent endpoint ---


def test_lesson_00_says_dead_nowhere():
    for c in cells():
        assert not re.search(r"\bdead\b", "".join(c["source"]), flags=re.IGNORECASE), c.get("id")


def test_a_silent_endpoint_is_defined_where_it_first_appears():
    said = " ".join(words(c) for c in cells() if c["cell_type"] == "markdown")
    first = said.index("silent endpoint")
    sentence = said[said.rindex(". ", 0, first) + 2 :][:300]
    assert "accepts the connection" in sentence and "never answers" in sentence
    assert "## 4. How long a silent endpoint can hold you" in words(cell("c8d32288"))


def test_the_port_9_demo_is_a_closed_port_and_its_cells_print_a_refusal():
    demo = words(cell("7be02f73"))
    assert "closed port" in demo and "the connection is refused" in demo
    for cell_id in ("ac6bee08", "8d383239"):
        out = printed(cell(cell_id))
        assert "127.0.0.1:9/v1: cannot connect" in out and "no request was sent" in out


def test_exercise_1_asks_about_a_silent_endpoint():
    question = words(next(c for c in cells() if c["source"] and "**Exercise 1.**" in "".join(c["source"])))
    question = question[question.index("**Exercise 1.**") :]
    assert "silent endpoint" in question
    # walk 24: the term is defined once on the student's path, before the exercise (not again in it)
    at = next(i for i, c in enumerate(cells()) if "**Exercise 1.**" in "".join(c["source"]))
    before = " ".join(words(c) for c in cells()[:at] if c["cell_type"] == "markdown")
    assert "*silent endpoint*, one that accepts the connection and then never answers" in before


def test_the_glossary_says_silent_endpoint_and_closed_port_as_the_lesson_does():
    endpoint = glossary_row("endpoint")
    assert "dead" not in endpoint
    assert "*silent* endpoint" in endpoint and "accepts the connection" in endpoint and "never answers" in endpoint
    assert "*closed port*" in endpoint and "refused" in endpoint
    assert "dead endpoint" not in GLOSSARY.read_text(encoding="utf-8")


# --- finding 3: COURSE_LLM is said where it is first used ---


def test_course_llm_is_said_to_be_a_setting_where_it_first_appears():
    said = " ".join(words(c) for c in cells() if c["cell_type"] == "markdown")
    first = said.index("`COURSE_LLM`")
    assert said[first:].startswith("`COURSE_LLM`, a setting read from the shell or from the file `.env` (section 3),")


# --- finding 4: the rule is said once, in general, before exercise 3 ---


def test_the_comma_is_not_named_before_exercise_3_but_the_general_rule_is():
    before = markdown_before("**Exercise 3.")
    assert "comma" not in before
    section_6 = words(cell("5a743185"))
    bullet = section_6[section_6.index("**declared facts**") : section_6.index("**writer**")]
    assert "at each `;` and each line break, and nowhere else" in bullet
    assert "before the first `=`" in bullet and "after it" in bullet
    # walk 25: the student's path states the rule once, in Exercise 3 itself (comma included), and the hood once
    exercise_3 = next(words(c) for c in cells() if "**Exercise 3." in "".join(c["source"]))
    assert before.count("runs to the next `;`") == 0 and "The rule for where a value ends" in exercise_3
    every = " ".join(words(c) for c in cells() if c["cell_type"] == "markdown")
    assert every.count("runs to the next `;`") == 2


def test_section_4_points_at_lesson_01_for_the_rule_instead_of_stating_it():
    section_4 = words(cell("3b3d8f4d"))
    assert "runs to the next" not in section_4 and "lesson 01 gives the rule" in section_4


# --- finding 5: tools ---


def test_tools_are_defined_where_they_first_appear():
    said = " ".join(words(c) for c in cells() if c["cell_type"] == "markdown")
    # walk 23: the student's path no longer names tools (section 4's Agent has none); if the word comes back, it is
    # defined where it first appears
    if "tools" in said:
        first = said.index("tools")
        assert said[first:].startswith("tools (Python functions the model may ask to run)")


# --- finding 6: the memo's link says what it opens ---


def test_the_memo_link_says_it_opens_the_maintainers_log():
    hood = words(cell("under-the-hood"))
    link = hood.index("(../docs/performance.md#memo-repeatability)")
    assert "maintainers' log" in hood[link - 120 : link]
