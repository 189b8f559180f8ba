"""Lesson 03 walked again (issue 32, walk 25, fourth round): what `forget` covers is said truly.

After `forget` the store's facts are empty, but the store keeps its own list of what it forgot
(`WorkingMemory.forgotten`) so that the forget filter can hide those values; the lesson says so and prints it.
Also: the filter's run under way, the `attach` comment, the gate as the provider's own middleware, one name for
the value rule, the note the model followed, and the intro's links.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words

from course_lib.exercises import exercise
from course_lib.providers import SMUGGLE_HINT, course_provider_desks, forget_filter
from course_lib.tracing import CallLog

ROOT = Path(__file__).resolve().parents[1]


async def test_the_store_keeps_what_it_forgot_after_forget_emptied_its_facts() -> None:
    """The behaviour the sentences rest on: no facts left, the forgotten ones kept, and nothing clears them."""
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    await desks.handle("module=Billing; database=SQL Server 2022")
    await desks.handle("forget module")
    await desks.handle("forget")
    await desks.handle("Which module and database am I on?")
    assert desks.memory.facts == ()
    kept = [(f.key, f.value) for _, f in desks.memory.forgotten]
    assert kept == [("module", "Billing"), ("database", "SQL Server 2022")]
    assert "module=[forgotten]" in forget_filter(desks.memory).redact_text("module=Billing")


def test_log_keeps_md_says_the_store_keeps_a_list_of_what_it_forgot() -> None:
    said = words(cell_source("03", "log-keeps-md"))
    assert "gone from the store and the sessions, and never sent to a model again" not in said
    assert "gone from the store's facts and the sessions, and never sent to a model again" in said
    assert "keeps its own list of what it forgot (`memory.forgotten`) only for section 5's filter" in said
    assert "Like `log`, that list is a copy the course never clears" in said
    printed = words(cell_outputs("03", "log-keeps"))
    assert "the store's facts: 0" in printed
    assert "what it forgot: module=Billing, database=SQL Server 2022" in printed


def test_the_takeaway_and_the_filter_paragraph_agree() -> None:
    lesson = stored_lesson("03")["cells"]
    takeaways = words(next("".join(c["source"]) for c in lesson if c.get("id") == "student-takeaways"))
    assert "`forget` reaches the store and both sessions, not copies" not in takeaways
    assert "the store's own list of what it forgot" in takeaways
    said = words(cell_source("03", "attach-filter-md"))
    assert (
        "Section 4's last `forget` emptied the store (its facts; it still knows which values it forgot, which is how "
        "the filter can hide them)."
    ) in said
    assert (
        "in anything still about to be sent. That includes the messages of a run that began before the forget, "
        "which a new session cannot clean. Under the hood shows the filter after `forget module` alone."
    ) in said  # fourth walk 25: the reason, here


def test_section_5_names_the_gate_as_the_providers_own_middleware() -> None:
    said = words(cell_source("03", "attach-md"))
    assert "the provider brings its own middleware, its *gate*, passed as `middleware=[own_provider.gate]`" in said
    assert "needs one of its own" not in said
    code = cell_source("03", "attach")
    assert "almost what ProviderDesks.build does for each desk (build also adds the filter, below)" in code.replace(
        "\n# ", " "
    )
    assert "Here is a desk as `ProviderDesks.build` makes it, without the filter (below)" in said
    assert "The gate runs first" in said


def test_the_value_rule_has_one_name_everywhere() -> None:
    md = " ".join(words("".join(c["source"])) for c in stored_lesson("03")["cells"] if c["cell_type"] == "markdown")
    hints = " ".join([exercise("03", "Exercise 1").hint, SMUGGLE_HINT])
    everything = md + " " + hints
    named = set(re.findall(r"[Ss]ection (\d+)'s value rule", everything))
    assert named == {"7"}, named
    assert "section 9's cell shows where a value ends" not in hints and "the rule section 9 prints" not in hints
    assert "section 7's value rule" in exercise("03", "Exercise 1").hint and "section 7's value rule" in SMUGGLE_HINT
    assert "the *value rule*: a value ends at `;` or at the end of the line" in words(
        cell_source("03", "program-note-both-md")
    )


def test_section_4_says_forget_removed_every_fact_not_everything() -> None:
    said = words(cell_source("03", "cell-17"))
    assert "`forget` removed every fact" in said and "removed everything" not in said


def test_section_7_says_the_model_followed_the_note() -> None:
    said = words(cell_source("03", "program-note-says"))
    assert "fooled" not in said
    assert "The model followed the note; the store did not take it as a fact" in said


def test_the_intro_links_lessons_01_and_02_and_the_course_map() -> None:
    intro = words(cell_source("03", "cell-00"))
    assert "[lesson 01](01_contract_and_store.ipynb)" in intro
    assert "[lesson 02](02_correct_then_forget.ipynb)" in intro
    assert "([course map](../docs/course_map.png))" in intro
    for target in ("01_contract_and_store.ipynb", "02_correct_then_forget.ipynb"):
        assert (ROOT / "notebooks" / target).is_file()
    assert (ROOT / "docs" / "course_map.png").is_file()
    json.loads((ROOT / "notebooks" / "03_provider_and_two_desks.ipynb").read_text())


# --- fourth walk 25 (4/5): "Under the hood shows one" showed no run ---


def test_section_5_says_why_the_filter_is_needed_and_the_hood_runs_its_line() -> None:
    said = words(cell_source("03", "attach-filter-md"))
    assert (
        "in anything still about to be sent. That includes the messages of a run that began before the forget, "
        "which a new session cannot clean. Under the hood shows the filter after `forget module` alone."
    ) in said  # fourth walk 25: the reason, here
    assert "Under the hood shows the filter after `forget module` alone." in said
    assert "The cell below runs section 5's filter line on a store that forgot only `module`." in words(
        cell_source("03", "hood-filter-loop")
    )
    shown = "".join(cell_outputs("03", "hood-filter-one-key"))
    assert "forgotten: module | still stored: database" in shown
    assert "database=SQL Server 2022; module=[forgotten]." in shown  # what the hood's prose says the call sends
