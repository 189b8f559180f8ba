"""Lesson 02's third walk 25 (issue 32): a new student scored it 4/5 ("the forget filter bullet"); these make it a 5.

1. The forget filter bullet says where the filter runs (the model client the console holds), that it is the course's
   code and not MAF's, and what it lets through and why (the sentence under the table says only a new session stops
   that leak).
2. Section 4's first paragraph points ahead to *Why forget replaces the session*, by a link to its anchor.
3. Section 1 defines `console` by what it does, not by the word itself.
4. The by-hand cell's step 1 says the ticket is taken through the extraction, before any model runs.
5. Section 7 says what the panel's line says for a comma, and (truly, computed) the same for a space, 'and', a period.
6. Section 6's *chars sent* says it counts everything only for the offline models.
7. Exercise 2's hint says "that message", not "that correction" (the exercise never calls it one).
8. "provider" (lesson 03's word for another thing) is not used undefined on the student's path.
9. Section 5's table cell says in a comment what ``name_replaced=True`` does.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_outputs, cell_source, student_path, words

from course_lib.assertions import declared_inside_reason
from course_lib.exercises import exercise


def test_the_forget_filter_bullet_says_where_it_runs_whose_code_it_is_and_what_escapes_it() -> None:
    said = words(cell_source("02", "replay-calls"))
    assert "`replay.memory.forget()` empties only the store." in said
    assert "(the *forget filter*)" in said  # the name older tests and lesson 03 point to
    assert "the course's code, not MAF's" in said
    assert "Then the desk's model client replaces each **forgotten** value with `[forgotten]` in what it sends" in said
    assert (
        "Reporting and PostgreSQL were never forgotten, only replaced by the correction, so the filter lets them "
        "through."
    ) in said
    # the leak's end is said once, under the table, after the student has seen it
    assert "Only a new session removes them, which is why `forget` replaces it." in words(cell_source("02", "cell-18"))
    assert "From then on, the course swaps" not in said
    # what the bullet claims is what the table after it prints
    table = cell_outputs("02", "cell-17")
    assert "the session; the model is sent it" in table and "the model is sent [forgotten] instead" in table
    assert "nowhere; the model is not sent it" in table


def test_section_4_points_ahead_to_why_forget_replaces_the_session() -> None:
    said = words(cell_source("02", "cell-12"))
    assert (
        "So the console also gives **both** desks a new, empty session ([*Why `forget` replaces the session*]"
        "(#why-forget-replaces-the-session), below, says why)."
    ) in said
    assert "forget filter" not in said.split("below, says why")[0]  # re-walk: the term is defined later, not used here
    anchor = cell_source("02", "cell-15")
    assert '<a id="why-forget-replaces-the-session"></a>' in anchor
    assert anchor.index("why-forget-replaces-the-session") < anchor.index("### Why `forget` replaces the session")


def test_section_1_defines_the_console_by_what_it_does() -> None:
    said = words(cell_source("02", "cell-04"))
    assert "is the *console*" not in said
    assert (
        "`console` (made in the imports cell under *MAF in two words*) is the object that joins the desks and the "
        "store; `console.handle(line)` takes one line"
    ) in said


def test_the_by_hand_step_1_says_the_ticket_comes_through_the_extraction() -> None:
    source = cell_source("02", "by-hand")
    assert "# 1. take the store's ticket (through the extraction) before any model runs" in source
    assert "begun = own.begin(text)" in source
    assert "the store's ticket for this turn" not in source


def test_section_7_says_what_the_panel_says_for_each_mark() -> None:
    said = words(cell_source("02", "cell-24"))
    assert "The line under the box says a comma does not separate declarations (it says the same for a space, " in said
    assert "nor does a space" not in said
    # true of the panel's wording, mark by mark
    assert "since a comma does not separate" in declared_inside_reason("module", "Billing, database=Oracle")
    marks = {"a space": "Billing database=Oracle", "'and'": "Billing and database=Oracle"}
    marks["a period"] = "Billing. database=Oracle"
    for mark, value in marks.items():
        assert f"since {mark} does not separate declarations" in declared_inside_reason("module", value)
    assert "(it says the same for a space, `and` or a period)" in said


def test_chars_sent_is_said_to_count_everything_only_for_the_offline_models() -> None:
    said = words(cell_source("02", "models-received"))
    assert "**the model's instructions included** (for the offline models; see *Under the hood* for live ones)" in said
    hood = words(cell_source("02", "hood-chars-sent-md"))
    assert "A live writer is also sent the JSON shape to reply in, not counted." in hood


def test_exercise_2_hint_says_message_not_correction() -> None:
    hints = [hint for _, hint in exercise("02", "Exercise 2").misses]
    assert "Reporting was declared in that message: was the batch holding it stored?" in hints
    assert not any("correction" in hint for hint in hints)


def test_provider_is_not_used_undefined_on_the_student_path() -> None:
    path = " ".join(words(cell) for cell in student_path("02"))
    assert not re.search(r"\bprovider\b", path.replace("context provider", "")), "lesson 02 says 'provider' undefined"


def test_name_replaced_has_a_comment() -> None:
    source = cell_source("02", "cell-19")
    assert "# name_replaced=True: a stored correction also names the values it replaced" in source
    assert "name_replaced=True)" in source


def test_section_5_says_the_desk_only_repeats_a_refused_correction() -> None:
    """Re-walk 25: the desk's "Noted what you declared: module=Payments" beside a refused correction read as if the
    desk knew the new values; the lesson says the desk repeats its message and the [memory] line is what was stored."""
    said = words(cell_source("02", "cell-20"))
    assert "The desk's *Noted* line only repeats the message; the `[memory]` line says what was stored." in said
    shown = "".join(cell_outputs("02", "mem-after-rejection"))
    assert "[desk] Noted what you declared: module=Payments" in shown and "[memory] Not stored" in shown
