"""Lesson 00, second walk 19 of issue 32: where declared facts are defined, the rule that cuts a message into them is
given; the offline totals leave out what the offline scorecard leaves out, as the text says; the memo's 29 of 32
links the paragraph that measured it; and "turn" is defined before section 2's table uses it.

* Sections 4 and 6 defined declared facts as "the key=value pairs a message literally contains": read so,
  ``module=Billing, priority=P1`` holds two pairs. The rule (a pair runs to the next ';' or line break) was only in
  brackets under the battery table.
* Section 6 said the offline scorecard leaves out latency and the reported tokens; its totals dropped latency by hand
  in the cell and still printed three rows of ``unknown`` tokens.
* The link backing "29 of 32" opened docs/performance.md at its top, about 300 lines above the claim.
* Section 2's table says "shortens earlier turns" before the lesson says what a turn is.
"""

import json
import re
from pathlib import Path

from course_lib.assertions import parse_assertions
from course_lib.memory_models import OfflineWriterClient
from course_lib.qualify import offline_summary, qualify, summary
from course_lib.tracing import CallLog

ROOT = Path(__file__).resolve().parent.parent
LESSON = next((ROOT / "notebooks").glob("00_*.ipynb"))
EXERCISE_3_MESSAGE = "module=Billing, priority=P1"


def cells() -> list[dict]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def cell(cell_id: str) -> dict:
    return next(c for c in cells() if c.get("id") == cell_id)


def words(cell_id: str) -> str:
    return " ".join("".join(cell(cell_id)["source"]).split())


def printed(cell_id: str) -> str:
    return "".join(
        "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
        for o in cell(cell_id).get("outputs", [])
    )


# --- finding 1: the rule is given where declared facts are defined ---


def test_declared_facts_are_given_the_rule_that_ends_a_pair_once_in_section_6():
    """Walk 21: the rule is said once, in general, in section 6; section 4 points at it. Neither names the comma,
    which was exercise 3's question answered before it was asked."""
    section_4 = words("3b3d8f4d")
    section_6 = words("5a743185")
    definition = section_4[section_4.index("declared facts") :][:200]
    # walk 23: the student's section 6 keeps no rule now; lesson 01 gives it
    assert "lesson 01 gives the rule" in definition and "runs to" not in definition
    bullet = section_6[section_6.index("**declared facts**") : section_6.index("**writer**")]
    assert "`;`" in bullet and "line break" in bullet and "nowhere else" in bullet
    assert "before the first `=`" in bullet and "after it" in bullet
    assert "comma" not in section_4 and "comma" not in section_6


def test_the_rule_the_lesson_states_is_the_contracts():
    """A comma ends nothing, ';' and a line break do; the key is the text before the first '=', trimmed."""
    assert parse_assertions("module=Billing, priority=P1 ") == {"module": "Billing, priority=P1"}
    assert parse_assertions("module=Billing;priority=P1") == {"module": "Billing", "priority": "P1"}
    assert parse_assertions("module=Billing\npriority=P1") == {"module": "Billing", "priority": "P1"}
    assert parse_assertions(" module = a=b ") == {"module": "a=b"}


def test_the_rule_is_stated_in_general_not_with_exercise_3s_message():
    for cell_id in ("3b3d8f4d", "5a743185"):
        assert EXERCISE_3_MESSAGE not in words(cell_id)
        assert "priority=P1" not in words(cell_id)


# --- finding 2: the offline totals leave out what the offline scorecard leaves out ---


async def test_offline_summary_leaves_out_latency_and_the_token_rows_nobody_reported():
    card = await qualify(OfflineWriterClient("infer"), CallLog())
    full = summary(card)
    assert "latency total (s)" in full.index and (full["value"] == "unknown").sum() == 3
    shown = offline_summary(card)
    assert "latency total (s)" not in shown.index and "unknown" not in set(shown["value"])
    assert list(shown.index) == [m for m in full.index if m != "latency total (s)" and "reported" not in m]


async def test_offline_summary_keeps_a_token_row_a_case_reported():
    card = await qualify(OfflineWriterClient("infer"), CallLog())
    card["reported input tokens"] = "12"
    shown = offline_summary(card)
    assert "reported input tokens" in shown.index and "reported output tokens" not in shown.index


def test_the_lesson_says_what_its_totals_print_and_builds_them_in_course_lib():
    code = "".join(cell("4e735d68")["source"])  # walk 23: the totals share the scorecard's cell
    assert "offline_summary(card)" in code and ".drop(" not in code
    totals = "".join(cell("4e735d68")["outputs"][-1]["data"]["text/plain"])  # the last table: the totals
    assert "measure" in totals and "as the contract says" in totals
    assert "latency" not in totals and "unknown" not in totals and "tokens" not in totals
    text = words("31b3deef")
    assert "The totals under it leave them out too: no latency total, no reported tokens." in text


# --- finding 3: the link lands on the paragraph of the claim ---


def test_the_memo_link_opens_performance_md_at_the_paragraph_that_measured_29_of_32():
    hood = words("under-the-hood")
    # walk 21: the brackets first say whose log the link opens
    # walk 23: the link's text says what opens
    link = re.search(r"29 of 32 \(\[the maintainers' log of that run\]\(\.\./docs/performance\.md#([\w-]+)\)", hood)
    assert link, "the 29 of 32 claim links no anchor of docs/performance.md"
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    anchor = f'<a id="{link[1]}"></a>'
    assert page.count(anchor) == 1
    paragraph = page[page.index(anchor) :].split("\n* ")[0]  # the list item the anchor opens
    assert "29 of 32 identical requests" in " ".join(paragraph.split())
    assert '<span style="position: relative; top: -3em">' + anchor in page  # as the glossary's rows land


# --- finding 4: "turn" is defined before section 2's table uses it ---


def test_turn_is_defined_where_it_first_appears():
    """Walk 21: section 2's table no longer says "turns" (its summarizer shortens "the earlier messages"), so the
    definition moved to the first cell that uses the word, section 6's battery table."""
    ids = [c.get("id") for c in cells()]
    turn = re.compile(r"\bturns?\b", re.IGNORECASE)
    first = next(i for i, c in enumerate(cells()) if turn.search(printed(c.get("id") or "") + words_of(c)))
    # walk 23: section 6's battery went under the hood, after the memo paragraph that now says "turns" first
    assert ids[first] == "under-the-hood", f"'turn' first appears in cell {ids[first]}"
    assert "a *turn* is one user message and its reply" in words("under-the-hood").lower()
    assert "earlier turns" not in printed("b712f3b9")


def words_of(c: dict) -> str:
    return " ".join("".join(c["source"]).split()).lower() if c["cell_type"] == "markdown" else ""
