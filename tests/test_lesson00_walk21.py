"""Lesson 00, walk 21 of issue 32: fewer new words before anything runs, and the recording's rejections said whole.

* Section 2 listed seven terms (fact, agent, desk, turn, memory policy, loop, LLM judge) before its first table ran.
  Now it lists only the terms the table's *purpose* column needs, one line each; the purposes say the rest in plain
  words (``turns`` became the earlier messages, ``the agent the loop runs`` the worker), and each term the lesson
  still uses later is defined where it first appears (MAF in section 4, the store's facts in section 4, a turn in
  section 6).
* The recording's row *rejected by the host* (6 / 6 / 4) counted the over-long message, which the host refuses
  before the writer is called. Each cell now says how many of its rejections came before any call, and a line under
  the table names those cases and why, both computed from the recordings.
"""

import json
import re
from pathlib import Path

from course_lib.live import ROLE_PURPOSES
from course_lib.qualify import BATTERY, reason_in_words
from course_lib.recordings import (
    compare_qualifications,
    qualification_steps,
    rejected_before_any_call,
    unsent_note,
)

ROOT = Path(__file__).resolve().parent.parent
LESSON = next((ROOT / "notebooks").glob("00_*.ipynb"))


def cells() -> list[dict]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def cell(cell_id: str) -> dict:
    return next(c for c in cells() if c.get("id") == cell_id)


def source(c: dict) -> str:
    return " ".join("".join(c["source"]).split())


def printed(c: dict) -> str:
    return "".join(
        "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", "")) for o in c.get("outputs", [])
    )


def section_2() -> str:
    return "".join(cell("a6f50877")["source"])


def listed_terms() -> list[str]:
    """The bold terms section 2 lists, one bullet each, under its sentence about the purpose column."""
    text = section_2()
    after = text[text.index("*purpose* column") :]
    return re.findall(r"^- \*\*([^*]+)\*\*", after, flags=re.MULTILINE)


# --- finding 1: section 2 lists only the terms its table needs ---


def test_section_2_lists_only_the_terms_the_printed_purpose_column_uses():
    terms = listed_terms()
    assert 1 <= len(terms) <= 4, terms
    count = {1: "one", 2: "two", 3: "three", 4: "four"}[len(terms)]
    assert f"names {count} things" in section_2()
    purposes = printed(cell("b712f3b9"))
    for term in terms:
        assert term in purposes, f"section 2 defines {term!r}, which its table does not use"
    for term in ("desk", "memory policy", "loop", "LLM judge"):
        assert term in terms


def test_each_listed_term_takes_one_line():
    text = section_2()
    bullets = [line for line in text[text.index("*purpose* column") :].splitlines() if line.startswith("- **")]
    assert len(bullets) == len(listed_terms())
    follow_ons = re.findall(r"^- \*\*[^\n]*\n  \S", text[text.index("*purpose* column") :], flags=re.MULTILINE)
    assert not follow_ons, "a term's bullet runs over one line"
    assert all(len(line) <= 118 for line in bullets), bullets


def test_section_2_says_the_other_words_are_taught_in_their_lessons_and_keeps_the_glossary_link():
    # walk 24: the lesson says once, at the top, where every new word is; section 2 no longer says it again
    intro = " ".join("".join(cells()[0]["source"]).split())
    # walk 25: the sentence also defines *seed* in a short clause, beside the same link
    assert "are in [the glossary of the words every lesson uses](../docs/glossary.md" in intro
    assert intro.index("New words") < intro.index("are in [the glossary")
    assert "taught in their lessons" not in " ".join(section_2().split())


def test_the_purposes_use_no_course_term_section_2_no_longer_defines():
    for role, purpose in ROLE_PURPOSES.items():
        for word in ("turn", "agent", "store", "candidate", "session"):
            assert not re.search(rf"\b{word}s?\b", purpose), (role, word)
    # the one course word left, "facts", is shown by an example where it is used
    writer = ROLE_PURPOSES["writer"]
    assert "facts" in writer and "module=Billing" in writer


def _first_markdown_using(pattern: str) -> tuple[int, str]:
    for index, c in enumerate(cells()):
        if c["cell_type"] == "markdown" and re.search(pattern, source(c)):
            return index, source(c)
        if c["cell_type"] == "code" and re.search(pattern, printed(c)):
            return index, printed(c)
    raise AssertionError(f"nothing uses {pattern}")


def test_each_word_no_longer_defined_in_section_2_is_defined_where_lesson_00_first_uses_it():
    _, maf = _first_markdown_using(r"\bMAF\b")
    assert "MAF (the Microsoft Agent Framework)" in maf
    _, turn = _first_markdown_using(r"\bturns?\b")
    assert "A *turn* is one user message and its reply." in turn
    _, agent = _first_markdown_using(r"`Agent`")
    assert "an object that holds a chat client" in agent
    store = source(cell("3b3d8f4d"))
    assert "`WorkingMemory` is the store of *facts*: `key=value` pairs the user declared" in store


def test_the_removed_terms_are_not_used_before_their_definition():
    ids = [c.get("id") for c in cells()]
    maf_at = ids.index("92605e2c")  # the intro names MAF since walk 22
    turn_at = ids.index("under-the-hood")  # walk 23: the battery moved under the hood, after the memo
    for c in cells()[:maf_at]:
        assert not re.search(r"\bMAF\b", source(c) if c["cell_type"] == "markdown" else printed(c)), c.get("id")
    for c in cells()[:turn_at]:
        text = source(c) if c["cell_type"] == "markdown" else printed(c)
        assert not re.search(r"\bturns?\b", text), c.get("id")


# --- finding 2: the host's rejections before any call are said where the row is shown ---


def test_each_rejected_cell_says_how_many_came_before_any_call_computed_from_the_run():
    steps = qualification_steps()
    row = compare_qualifications(steps).loc["rejected by the host"]
    for name, run in steps.items():
        rejected = sum(c.outcome == "rejected" for c in run.cases)
        unsent = sum(c.outcome == "rejected" and c.calls == 0 for c in run.cases)
        assert unsent == len(rejected_before_any_call(run)) >= 1
        assert row[name] == f"{rejected} ({unsent} before any call)"


def test_a_run_with_no_rejection_before_any_call_shows_the_bare_count():
    run = qualification_steps()["+ the declared count (now)"]
    sent = run.model_copy(update={"cases": [c for c in run.cases if c.calls]})
    table = compare_qualifications({"sent only": sent})
    assert table.loc["rejected by the host", "sent only"] == sum(c.outcome == "rejected" for c in sent.cases)
    assert unsent_note({"sent only": sent}) == ""


def test_the_note_under_the_table_names_the_case_refused_before_any_call_and_why():
    steps = qualification_steps()
    note = unsent_note(steps)
    over_long = next(c for c in BATTERY if c.kind == "over-long")
    recorded = next(c for c in steps["+ the declared count (now)"].cases if c.case == over_long.name)
    assert f"“{over_long.name}”" in note and "in every run" in note.lower()
    assert reason_in_words(recorded.reason) in note
    assert "the writer never saw it" in note


def test_the_note_names_each_run_when_the_runs_differ():
    steps = qualification_steps()
    first, *_ = steps
    changed = dict(steps)
    changed[first] = steps[first].model_copy(update={"cases": [c for c in steps[first].cases if c.calls]})
    note = unsent_note(changed)
    assert "in every run" not in note.lower()
    for name in steps:
        assert (name in note) == (name != first), name


def test_the_lesson_shows_the_counts_and_the_note_under_the_table():
    shown = printed(cell("b7d1e0a1"))
    assert "6 (1 before any call)" in shown and "4 (1 before any call)" in shown
    assert unsent_note(qualification_steps()) in shown
    assert "print(unsent_note(steps))" in "".join(cell("b7d1e0a1")["source"])
