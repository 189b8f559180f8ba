"""Lesson 04's walk 25 (4/5: "a few sentences on the student's path use the course's own background words, or count
messages in ways I had to read twice"), one region per finding.

1. The opening said "*Demo170* is the third program of the *seed*": it now says what Demo170 is in plain words, and
   the seed is named as the course's word for the article.
2. Section 2 counted compaction against the window as "one earlier exchange fewer": it now says what each sends, in
   exchanges before the question, with numbers a replay reproduces.
3. Section 3b's provenance of EP013 and section 5's "the course's own" reducer move under the hood.
4. The recording's stop line names no cap (under the hood it does), and the notes on the table are folded.
5. The explorer's number boxes say in one line when typed text is not a whole number.
"""

from __future__ import annotations

import re

import pytest

from course_lib.policies import course_policies, load_timeline, run_policy
from course_lib.recordings import facts_gap_sentence, load_facts_tokens, load_policy_costs
from course_lib.tracing import CallLog
from course_lib.widgets import PolicyExplorer, number_box_note
from tests.support.lesson_cells import (
    cell_outputs,
    cell_source,
    plain_words,
    stored_cell,
    stored_lesson,
    student_path,
    words,
)

HOOD = "## Under the hood"


def _path() -> str:
    return words(" ".join(student_path("04")))


def _hood() -> str:
    cells = stored_lesson("04")["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).lstrip().startswith(HOOD))
    return words(" ".join("".join(c["source"]) for c in cells[start:] if c["cell_type"] == "markdown"))


# region Finding 1: the opening says what Demo170 is, then that the course calls the article the seed


def test_the_opening_says_what_demo170_is_before_naming_the_seed():
    opening = words(cell_source("04", "cell-00"))
    said = (
        "This lesson re-creates *Demo170*, one of the three demo programs in a French article on agent memory "
        "(the course calls it *the seed*)."
    )
    assert said in opening and opening.index(said) < opening.index("You will be able to")
    assert "third program" not in opening and "the memory half of the course" not in opening
    assert "third" in _hood()  # which of the three it is stays said, under the hood (the glossary's word)


# endregion

# region Finding 2: each policy's view counted in exchanges before the question, as a replay counts them


async def _last_call(label: str) -> tuple[int, int]:
    """(user messages, earlier exchanges) in ``label``'s last reader call on the lesson's timeline."""
    timeline, log = load_timeline(), CallLog()
    policy = course_policies()[label]("latest", log)
    await run_policy(timeline, policy, log, "latest")
    last = [call for call in log.calls if call.client == "reader"][-1]
    users = sum(m.role == "user" for m in last.messages)
    answers = sum(m.role == "assistant" for m in last.messages)
    return users, answers


async def test_section_2_counts_what_compaction_and_the_window_send_as_a_replay_does():
    section = plain_words(cell_source("04", "cell-02"))
    compaction_users, compaction_exchanges = await _last_call("compaction (3 turns)")
    window_users, window_exchanges = await _last_call("last 3 turns")
    assert compaction_users == compaction_exchanges + 1 and window_users == window_exchanges + 1
    said = (  # second walk 25: one bullet says what the numbers in the names count
        f"last 3 turns and the reducer (3 turns) send the {window_exchanges} exchanges before the question, plus "
        f"the question ({window_users} user messages). compaction (3 turns) sends {compaction_users} user "
        f"messages in all, the question included ({compaction_exchanges} exchanges plus the question)."
    )
    # third walk 25: the compaction bullet says it keeps everything stored
    assert said in section and "keeps the whole conversation stored in the session" in section
    assert "one earlier exchange fewer" not in section


# endregion

# region Finding 3: provenance and "the course's own" move under the hood


def test_section_3b_keeps_the_glossary_link_and_the_provenance_is_under_the_hood():
    episode = cell_source("04", "d28c1efa")
    assert "(../docs/glossary.md#ep013)" in episode and "oublier une interdiction ancienne" in episode
    assert "does not include it" not in words(episode) and "belongs to the French" not in words(episode)
    assert "EP013 belongs to the French article's series; the article does not include it" in _hood()


def test_section_5_points_to_the_hood_without_the_courses_own():
    section = words(cell_source("04", "e5bb8ddc"))
    assert "(How this reducer is built is explained under the hood; you don't need it for this lesson.)" in section
    assert "course's own" not in section
    assert "course's own" not in _path()


# endregion

# region Finding 4: the recording's stop line without the cap; the notes folded


def test_the_recordings_stop_line_names_no_cap_and_the_hood_does():
    recording = load_policy_costs()
    stopped = [run for run in recording.runs if run.policy == "summary" and run.stopped]
    assert stopped, "the recording has a stopped summary: this test would check nothing"
    cap = re.search(r"output cap of (\d+) tokens", stopped[0].stopped)
    assert cap
    line = "The summary policy stopped at turn 1: the small model's summary was too long and was cut off."
    assert line in recording.stop_notes() and cap[1] not in recording.stop_notes()
    shown = words(cell_outputs("04", "0dfdbc21"))
    assert line in shown and f"{cap[1]}-token" not in shown and "output cap" not in shown
    assert f"output cap of {cap[1]} tokens" in words(cell_outputs("04", "hood-stop-details-code"))


def test_the_recording_folds_its_notes_and_keeps_what_the_prose_uses_in_view():
    recording, counted = load_policy_costs(), load_facts_tokens()
    outputs = stored_cell("04", "0dfdbc21")["outputs"]
    streams = words(" ".join("".join(o.get("text", "")) for o in outputs if o.get("output_type") == "stream"))
    folded = words(" ".join("".join(o.get("data", {}).get("text/html", "")) for o in outputs))
    assert "The columns:" not in streams and "reported / estimate" not in streams
    assert "a token for each digit" not in streams
    assert "every graded answer wrong" in streams  # what the answers are worth stays in view
    assert "<details>" in folded
    assert words(recording.columns_note()) in folded
    assert words(facts_gap_sentence(recording, counted)) in folded
    section = words(cell_source("04", "28c1a801"))
    assert "the fold under the table says why" in section


# endregion

# region Finding 5: a number box says when typed text is not a whole number


@pytest.mark.parametrize("typed", ["", "   ", "nine", "-5"])
def test_each_explorer_box_says_in_one_line_when_it_kept_its_value(typed):
    explorer = PolicyExplorer(load_timeline())
    for box, slider, name in (
        (explorer.window_box, explorer.window, "window"),
        (explorer.max_facts_box, explorer.max_facts, "fact bound"),
    ):
        before = slider.value
        box.value = typed
        assert slider.value == before and box.value == str(before)
        said = explorer.number_note.value
        assert f"{name} kept at {before}." in said, said
        assert said.count(".") <= 2 and "<br>" not in said  # one line
        box.value = "4"  # a number read: the line goes
        assert slider.value == 4 and explorer.number_note.value == ""


def test_the_number_box_note_is_one_rule_for_every_box():
    explorer = PolicyExplorer(load_timeline())
    assert number_box_note(explorer.window, "nine") == "'nine' is not a whole number: window kept at 3."
    assert number_box_note(explorer.window, "") == "Nothing typed: window kept at 3."
    assert number_box_note(explorer.window, "   ") == "Nothing typed: window kept at 3."
    assert number_box_note(explorer.max_facts, "7") == ""
    assert number_box_note(explorer.max_facts, "-5") == "'-5' has a sign, and the box reads none: fact bound kept at 5."


# endregion
