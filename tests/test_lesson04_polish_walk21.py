"""Lesson 04 after its twenty-first walk, polish (issue 32): the facts-token note shows a fact's time on the
recording's own day, the opening and section 2 define their terms in the "New words" list instead of in brackets,
the summary cell keeps no note that applies only to a live model, exercise 3 does not repeat the answer's reason,
and the time estimate matches the lesson's length, with its optional reading marked.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from course_lib.recordings import (
    FactsTokenCount,
    example_on_the_recording_day,
    facts_gap_note,
    load_facts_tokens,
    load_policy_costs,
)
from tests.support.lesson_cells import cell_outputs, cell_source, stored_lesson


def _words(text: str) -> str:
    return " ".join(text.split())


# region the facts-token note: a time of the recording's day


def test_the_example_time_is_the_recordings_own_in_the_counts_form():
    at = datetime(2026, 12, 2, 2, 15, 18, 215736, tzinfo=UTC)
    shown = example_on_the_recording_day("2026-12-03T18:02:21+00:00", at)
    assert shown == "a timestamp such as 2026-12-02T02:15:18+00:00"
    naive = datetime(2025, 1, 31, 23, 59, 59)
    assert example_on_the_recording_day("2026-12-03T18:02:21+00:00", naive).endswith("2025-01-31T23:59:59+00:00")


def test_a_form_the_course_cannot_read_shows_no_date():
    at = datetime(2026, 12, 2, 2, 15, 18, tzinfo=UTC)
    for odd in ("", "yesterday", "2026-12-03T18:02:21", "2026-12-03T18:02:21.5+00:00"):
        shown = example_on_the_recording_day(odd, at)
        assert shown == "a timestamp", (odd, shown)


def test_the_note_never_dates_a_fact_after_the_recording_whatever_day_the_count_ran():
    recording, counted = load_policy_costs(), load_facts_tokens()
    day = f"{recording.recorded_at:%Y-%m-%d}"
    for later in ("2026-12-03T18:02:21+00:00", "2027-06-30T09:00:00+00:00", recording.recorded_at.isoformat()):
        other = FactsTokenCount.model_validate(counted.model_dump() | {"timestamp": later})
        note = facts_gap_note(recording, other)
        dates = re.findall(r"\d{4}-\d{2}-\d{2}", note)
        assert dates == [day], (later, dates)
        assert "each fact carries the time it was recorded, a timestamp such as " + day in note


def test_lesson_04_prints_the_recordings_day_only():
    said = _words(cell_outputs("04", "0dfdbc21"))
    day = f"{load_policy_costs().recorded_at:%Y-%m-%d}"
    assert f"A recording made on {day}" in said
    assert set(re.findall(r"\d{4}-\d{2}-\d{2}", said)) == {day}


# endregion

# region the lesson's words


def _markdown(cell_id: str) -> str:
    return _words(cell_source("04", cell_id))


def test_token_writer_summarizer_and_session_are_defined_in_a_sentence_where_first_used_not_in_brackets():
    # walk 21 moved them out of brackets into the opening's list; walk 23 (fourteen words before any result) moved
    # each to a sentence of the section that first uses it
    opening = _markdown("cell-00")
    objectives = opening.split("New words")[0]
    assert "(or `unknown`; a *token*" not in objectives and "(the *writer*," not in objectives
    section_2, section_4 = _markdown("cell-02"), _markdown("21ec9618")
    assert "A *token* is the unit a model's server counts, about 4 characters of English." in section_4
    assert "the facts policy's *writer*, the model of lessons 01-02 that proposes facts from the user's words" in (
        section_4
    )
    assert "another model, the *summarizer*, rewrites after each turn" in section_2
    assert "MAF keeps one conversation in an object called a *session*" in section_2
    assert section_2.index("*MAF*") < section_2.index("a *session*")


def test_section_2_uses_session_without_a_bracketed_definition():
    section_2 = _markdown("cell-02")
    assert "keeping no MAF *session*" not in section_2 and "(the object in which MAF" not in section_2
    assert "keeps no MAF session" in " ".join(cell_source("04", "hood-after-f37").split())  # third walk 25


def test_the_summary_cell_keeps_no_note_on_a_live_summarizer_and_3c_says_it():
    code = cell_source("04", "6f3be19a")
    assert "700" not in code and "cut off" not in code
    assert "cut off at its output limit" in _markdown("d9b06fe2")


def test_exercise_3_does_not_repeat_why_the_extractive_summary_kept_the_prohibition():
    prompt = _markdown("cell-24")
    assert "oldest" not in prompt
    assert "drops its oldest lines first, from the top" in _markdown("44536822")  # still taught in 3b (walk 24)


def test_the_time_estimate_fits_the_lesson_and_marks_the_optional_reading():
    assert "*About 75 minutes.*" in _markdown("cell-00")
    assert "*Optional on a first pass:" in _markdown("28c1a801")
    # walk 24: the times moved under the hood, which the lesson's story does without (no mark needed there)
    ids = [c.get("id") for c in stored_lesson("04")["cells"]]
    assert ids.index("9bf10bc2") > ids.index("hood-reducer")


# endregion
