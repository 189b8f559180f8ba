"""Lesson 03, eleventh walk (issue 32): the gate is said in plain words where it first appears, the instructions'
route is said without "the call's options", the router's glossary row says whole words, and the loop's echo of the
feedback is explained by the rule on where a value ends."""

import json
import re
from pathlib import Path

from course_lib.providers import route_by_topic

ROOT = Path(__file__).resolve().parents[1]
LESSON_03 = ROOT / "notebooks" / "03_provider_and_two_desks.ipynb"
GLOSSARY = ROOT / "docs" / "glossary.md"


def _cell(cell_id: str) -> dict:
    cells = json.loads(LESSON_03.read_text(encoding="utf-8"))["cells"]
    return next(c for c in cells if c.get("id") == cell_id)


def _said(cell_id: str) -> str:
    return " ".join("".join(_cell(cell_id)["source"]).split())


def _said_section_5() -> str:
    """Section 6's race, said after the gate is defined in section 5 (walk 23: attaching is a section of its own)."""
    cells = json.loads(LESSON_03.read_text(encoding="utf-8"))["cells"]
    heading = next(i for i, c in enumerate(cells) if "## 6. A slow extraction" in "".join(c["source"]))
    ids = [c.get("id") for c in cells]
    assert heading == ids.index("race-md") < ids.index("cell-18")  # walk 23: the race opens section 6
    return _said("race-md")


def test_the_gate_is_defined_where_it_first_appears() -> None:
    said = _said("hood-gate")  # second walk 25: the gate is the hood's; section 5 says middleware in one sentence
    # walk 12: middleware defined before the gate, the gate said plainly
    assert said.index("*middleware* is code MAF runs") < said.index("*gate*")
    # walk 6 (issue 32): counting is section 5's; walk 16: the gate's job (the ticket, so a forget wins) is said
    # here in one clause, and section 5 shows it (tests/test_lessons00_03_walk16.py)
    assert "so it sees exactly what the caller passed to `run`." in said
    assert "counts the caller's messages" not in said
    assert "the provider's middleware counts the caller's messages" in _said_section_5()  # no gate on the path
    assert "begins the user's turn" not in said  # turn is section 5's word


def test_the_instructions_are_said_to_go_apart_from_the_messages_in_plain_words() -> None:
    said = _said("correction-sources-read")
    assert "call's options" not in said
    assert "The desk's *instructions* are the rules the desk follows. They are sent apart from these messages" in said
    assert "sent apart from these messages, so the table lists only the messages" in said
    # walk 23: which message a vendor's client makes of them is the hood's
    assert "OpenAI's client sends them as the *system* message" in _said("under-the-hood")


def test_the_routers_glossary_row_says_whole_words_as_the_router_reads() -> None:
    row = next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("| **router**"))
    assert "a line with a whole word on its list of operations words" in row
    assert route_by_topic("Where are the logs?") == "operations" and route_by_topic("I cannot login") == "triage"


def test_the_loops_echo_is_explained_by_where_a_value_ends() -> None:
    said = _said("72291c68-hood")
    # fourth walk 25: one name for the rule, section 7's, where it is stated (section 9's cell prints it)
    assert "up to the end of the line (section 7's value rule)" in said
    printed = json.dumps(_cell("d6f79827")["outputs"])
    assert re.search(r"Noted what you declared: priority=P0\. Please continue", printed)  # the rest of the line
