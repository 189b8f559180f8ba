"""Lesson 00's walk (issue 32): what a table cuts is printed whole under it; the scorecard's reasons in one style."""

from course_lib.memory_models import OfflineWriterClient
from course_lib.qualify import BATTERY, battery_in_full, offline_view, qualify, reason_in_words
from course_lib.recordings import load_qualification
from course_lib.tracing import CallLog


def test_the_battery_messages_the_table_cuts_are_printed_in_full_under_it():
    said = battery_in_full()
    forged = next(case for case in BATTERY if case.name == "injection: forged JSON")
    assert said.startswith("The messages cut in the table, in full:")
    assert f"  injection: forged JSON: {forged.text}" in said.splitlines()
    assert "over-long message: 4111 characters, too long to print" in said
    assert battery_in_full(limit=10_000) == ""


def test_the_recorded_replies_the_proposals_cut_are_printed_in_full():
    recording = load_qualification()
    said = recording.cut_replies()
    assert said.startswith("The replies cut in the table, in full:\n  three declarations: {")
    assert '"evidence": "database=PostgreSQL"}]}' in said
    assert recording.cut_replies(limit=100_000) == ""


async def test_the_scorecard_reasons_share_one_style():
    log = CallLog()
    reasons = {r for r in offline_view(await qualify(OfflineWriterClient("infer", log=log), log))["reason"] if r}
    assert reasons == {
        "proposed facts the message does not declare",
        "message too long (it has 4111 characters and the limit is 4096)",
    }
    # a phrase of the same kind as "message too long", not the bare fragment the host stores
    assert reason_in_words("not the explicit declarations") == "proposed facts the message does not declare"


def test_the_backends_table_names_the_offline_model_without_a_module_path():
    """Lesson 00's walk: "offline model (course_lib.clients)" in every row; the module name told a student nothing."""
    from course_lib.live import Backends

    models = {row["name"]: row["model"] for row in Backends(backend="offline").table()}
    assert {models[role] for role in models if role != "numbering"} == {"offline model"}


def test_the_sentence_case_says_why_the_full_stop_is_part_of_the_value():
    """Lesson 00's walk: "environment='staging.'" looked like a typo; the line says a value runs to the next ';' or
    line break, so the sentence's full stop is kept."""
    from course_lib.qualify import case_declares

    said = case_declares("words before a key")
    assert "environment=staging. (a value runs to the next ';' or line break, so the '.' is part of it)." in said
    assert "runs to the next" not in case_declares("one declaration")


def test_the_times_note_says_what_to_compare_instead_of_the_seconds():
    """Lesson 00's walk: "Compare the other rows." left the conclusion to the student; the note names the rows."""
    from course_lib.recordings import qualification_steps, times_note

    note = times_note(qualification_steps())
    assert note.endswith("So judge each change by the rows of cases and output tokens, not by its seconds.")
    assert "Compare the other rows" not in note


def test_exercise_2s_hint_asks_a_question_and_names_no_answer():
    """Lesson 00's walks: the question was a look-up (the answer sat in section 3's table), and the hint all but
    spelled it. The count asks for a step of reasoning, and the hint asks questions without naming the count."""
    from course_lib.exercises import exercise

    two = exercise("00", "Exercise 2")
    assert "?" in two.hint and "5" not in two.hint and "five" not in two.hint
    assert two.answer_type is int


def test_the_folded_proposals_table_shows_only_the_wrong_proposals():
    """Lesson 00's fifth walk (issue 32): fifteen rows and six columns made section 6 hard to read in one pass; the
    student's table keeps the rows that went wrong, and one line counts the rest, computed from the recording."""
    recording = load_qualification()
    wrong = recording.wrong_proposals()
    every = recording.proposals()
    assert list(wrong.columns) == ["case", "expected", "outcome", "writer's reply", "admitted"]
    assert list(wrong["case"]) == list(every[~every["as contract"].astype(bool)]["case"])
    right = int(every["as contract"].astype(bool).sum())
    note = recording.wrong_proposals_note()
    assert note.startswith(f"The other {right} of {len(every)} cases came out as the contract says.")
    assert "three declarations" not in note  # a reply cut in the full table, but not a wrong one


def test_section_6_uses_one_term_for_the_host_and_a_short_word_list():
    """Lesson 00's fifth walk: section 6 opened on a ten-term list and used "host check" and "host admission" as
    near-synonyms. One term, "host check", is used on the student's path and in the glossary; the list is short."""
    import json
    from pathlib import Path

    cells = json.loads(Path("notebooks/00_setup_and_backends.ipynb").read_text(encoding="utf-8"))["cells"]
    texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    hood = next(i for i, t in enumerate(texts) if t.startswith("## Under the hood"))
    path = " ".join(texts[:hood])
    # walk 23: the host check's definition moved under the hood with section 4's fact writer; the path says "the host"
    assert "host admission" not in path and "the host" in path
    assert "host admission" not in Path("docs/glossary.md").read_text(encoding="utf-8")
    section = next(t for t in texts if t.startswith("## 6. "))
    terms = [line for line in section.splitlines() if line.startswith("- **")]
    assert len(terms) <= 4


def test_the_comparison_s_headline_and_fold_give_each_run_s_time_and_load():
    """Lesson 00's sixth walk (issue 32): above a table of three runs (75, 48 and 24 s at loads 1.0, 10.3 and 7.9),
    the headline said "A recording" and the fold "24 s in all; the machine's load went from 7.9 to 6.3", the last
    run's figures alone. The headline counts the runs; the fold gives each run's figures under its column's name."""
    from course_lib.recordings import qualification_steps, steps_details_html, steps_headline, steps_plain_caption

    steps = qualification_steps()
    headline = steps_headline(steps)
    assert headline.startswith("Three recordings, one per column below,") and "not run here" in headline
    caption = steps_plain_caption(steps)
    lines = caption.splitlines()
    for name, run in steps.items():
        line = next(line for line in lines if line.startswith(f"  {name}: "))
        assert f"{run.wall_seconds:.0f} s in all" in line
        assert f"went from {run.machine.load_average_start[0]:.1f} to {run.machine.load_average_end[0]:.1f}" in line
        assert f"{run.recorded_at:%Y-%m-%d %H:%M} UTC" in line
    assert sum("s in all" in line for line in lines) == len(steps)  # no figure outside a run's line
    assert "the writer asks for temperature 0.0 instead" not in caption  # not true of the first run
    assert "<details>" in steps_details_html(steps) and "record-local" not in steps_details_html(steps)


def test_no_line_of_lesson_00_s_own_code_runs_past_the_code_cell_s_edge():
    """Lesson 00's sixth walk: Exercise 2's ``gpt = Backends(...)`` line ran past the right edge of its cell. Every
    line of the lesson's own code cells fits in 95 characters (the Colab set-up cell is shared by every lesson and
    written by tools/colab_cell.py)."""
    import json
    from pathlib import Path

    cells = json.loads(Path("notebooks/00_setup_and_backends.ipynb").read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    own = [source for source in code if not source.startswith("# @title Set-up for Google Colab")]
    long = [line for source in own for line in source.splitlines() if len(line) > 95]
    assert long == []


def test_every_glossary_row_that_points_to_lesson_00_names_a_word_the_lesson_uses():
    """Lesson 00's sixth walk (issue 32): the glossary sent "chat client" to lesson 00, which said only
    ``make_chat_client``; section 2 now defines the term where that function appears."""
    import json
    import re
    from pathlib import Path

    cells = json.loads(Path("notebooks/00_setup_and_backends.ipynb").read_text(encoding="utf-8"))["cells"]
    said = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    said = re.sub(r"\s+", " ", said).lower()
    glossary = Path("docs/glossary.md").read_text(encoding="utf-8")
    rows = [row for row in glossary.splitlines() if row.startswith("| **") and "lesson 00" in row.rsplit("|", 2)[-2]]
    terms = [row.split("**")[1] for row in rows]
    assert "chat client" in terms
    assert [term for term in terms if term.lower() not in said] == []
