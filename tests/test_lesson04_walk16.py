"""Lesson 04 after its eighth walk (issue 32): the explorer's typing hint says what a minus sign or 0 does, "excluded"
is defined before the line that first prints it, the cost table's note names its columns, the reader's cost sentence
is split and says where two lines nearly meet (and so does the plot's note), and the explorer's table shows *missing*
and *forbidden values named* as two columns, as section 3's table does.
"""

from __future__ import annotations

import re

import pytest

from course_lib.frames import FORBIDDEN_NAMED
from course_lib.policies import compare_policies, load_timeline
from course_lib.presentation import (
    ALL_CHARS,
    EXTRA_CHARS,
    NEAR_CHARS,
    READER_CHARS,
    final_answers_frame,
    graded_view_frame,
    meeting_lines_note,
    near_meetings,
    where_the_characters_go,
)
from course_lib.widgets import PolicyExplorer, slider_reads, slider_takes, slider_typing_hint
from tests.support.lesson_cells import cell_outputs, cell_source, stored_lesson

# region Finding 1: the typing hint says what the box does with a minus sign, a 0 and blanks


def _sliders():
    explorer = PolicyExplorer(load_timeline())
    return [explorer.window, explorer.max_facts]


@pytest.mark.parametrize("typed", ["0", "00", "0x5"])
def test_0_moves_each_explorer_slider_to_its_lowest_value(typed):
    for slider in _sliders():
        slider.value = slider.max
        assert slider_takes(slider, typed) == slider.min, (slider.description, typed)


@pytest.mark.parametrize("typed", ["-5", "-0", "+0", "-999"])
def test_a_sign_first_changes_nothing(typed):
    # walk 24: the box reads digits 0-9 only, in the kernel; the browser's parseInt read "-5" as -5, so the lowest
    for slider in _sliders():
        slider.value = slider.max
        assert slider_takes(slider, typed) == slider.max, (slider.description, typed)


@pytest.mark.parametrize(("typed", "read"), [("  7", 7), ("\t7", 7), ("7 turns", 7)])
def test_blanks_before_the_number_are_skipped(typed, read):
    assert slider_reads(typed) == read
    for slider in _sliders():
        assert slider_takes(slider, typed) == read


@pytest.mark.parametrize("typed", ["abc", "", "- 5", "-", "e3", ". 5"])
def test_text_that_does_not_start_with_a_number_leaves_the_slider_as_it_was(typed):
    for slider in _sliders():
        slider.value = 2
        assert slider_reads(typed) is None and slider_takes(slider, typed) == 2


def test_999_moves_each_slider_to_its_highest_value():
    for slider in _sliders():
        assert slider_takes(slider, "999") == slider.max


def test_the_hint_says_what_the_box_does_in_the_words_checked_above():
    # walk 17 cut the four-line rule to one line: a whole number in range is taken, other text ignored or changed
    hint = slider_typing_hint(_sliders())
    assert "below 1 becomes 1, above 10 becomes 10" in hint  # walk 21: each kind of input, what it becomes
    assert "text with no whole number first (-5, .5, abc) changes nothing" in hint  # walk 24
    assert "does not start with a digit" not in hint  # "-5" does not, and it is not ignored


# endregion

# region Finding 2: "excluded" is defined before the first line that prints it


def _student_path() -> list[dict]:
    cells = stored_lesson("04")["cells"]
    hood = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))
    return cells[:hood]


def test_the_first_cell_of_the_lesson_to_say_excluded_is_markdown_that_defines_it():
    for cell in _student_path():
        outputs = cell_outputs("04", cell["id"]) if cell["cell_type"] == "code" else ""
        if "excluded" in "".join(cell["source"]) + outputs:
            assert cell["cell_type"] == "markdown", cell["id"]
            assert "*excluded*: still stored, but left out of what the model is sent" in "".join(cell["source"])
            return
    pytest.fail("lesson 04's student path never says 'excluded'")


def test_the_definition_is_not_said_twice():
    said = [c["id"] for c in _student_path() if "*excluded*" in "".join(c["source"])]
    assert said == ["cell-13"]


# endregion

# region Finding 3: the cost table's note names its columns, never their places


POSITIONAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|last|other) (two |three )?columns?\b", re.I)


def test_the_cost_notes_name_the_total_and_its_two_parts():
    said = cell_source("04", "21ec9618")
    assert f"*{ALL_CHARS}* is the sum of the other two" in said
    assert f"*{READER_CHARS}*" in said and f"*{EXTRA_CHARS}*" in said


def test_no_markdown_of_lesson_04_points_at_a_column_by_its_place():
    for cell in stored_lesson("04")["cells"]:
        if cell["cell_type"] == "markdown":
            assert not POSITIONAL.search("".join(cell["source"])), (
                cell["id"],
                POSITIONAL.search("".join(cell["source"])),
            )


# endregion

# region Finding 4: two sentences, and the near meeting said where it happens


@pytest.fixture(scope="module")
def lesson_calls():
    import asyncio

    return asyncio.run(compare_policies(load_timeline(), rules=["latest"])).calls


def _reader(calls):
    return calls[(calls["rule"] == "latest") & (calls["call"] == "reader")]


def test_the_reader_sentence_is_split_and_names_the_near_tie(lesson_calls):
    said = where_the_characters_go(lesson_calls)
    assert "; from turn" not in said and ": that is in total" not in said
    assert "then full history (7083), in total over these 10 turns." in said
    assert "From turn 7 on, full history sends the reader more at every turn." in said
    assert "At turn 6 they differ by 1 character (facts 858, full history 857)" in said


def test_no_near_tie_no_words_about_one(lesson_calls):
    calls = lesson_calls.copy()
    apart = (calls["policy"] == "full history") & (calls["turn"] == 6) & (calls["call"] == "reader")
    calls.loc[apart, "chars_sent"] = 800
    said = where_the_characters_go(calls)
    assert "differ by" not in said and "nearly meet" not in said


def test_near_meetings_are_the_pairs_a_few_characters_apart_not_equal(lesson_calls):
    near = near_meetings(_reader(lesson_calls), "turn", "chars_sent")
    assert [(m.turn, m.policies, m.values) for m in near] == [(6, ("full history", "facts"), (857, 858))]
    assert NEAR_CHARS >= 1
    far = near_meetings(_reader(lesson_calls), "turn", "chars_sent", within=0)
    assert far == []


def test_a_twin_line_is_named_once(lesson_calls):
    reader = _reader(lesson_calls).copy()
    close = (reader["policy"] == "compaction (3 turns)") & (reader["turn"] == 9)
    reader.loc[close, "chars_sent"] = 390  # 2 from last 3 turns and from its twin, the reducer
    near = near_meetings(reader, "turn", "chars_sent")
    assert [(m.turn, m.policies) for m in near if m.turn == 9] == [(9, ("last 3 turns", "compaction (3 turns)"))]


def test_the_plot_note_names_the_near_meeting(lesson_calls):
    note = meeting_lines_note(_reader(lesson_calls), "turn", "chars_sent")
    assert note.startswith("Lines that meet hide one another: at turn 1")
    assert (
        f"Lines within {NEAR_CHARS} characters of each other look as if they meet: "
        "at turn 6, facts at 858 against 857 for full history."
    ) in note


def test_a_near_meeting_alone_still_gets_its_note(lesson_calls):
    reader = _reader(lesson_calls)
    two = reader[reader["policy"].isin(["facts", "full history"])]
    assert meeting_lines_note(two, "turn", "chars_sent").startswith(f"Lines within {NEAR_CHARS} characters")


# endregion

# region Finding 5: the explorer's table has section 3's two columns


def test_the_graded_view_has_the_two_columns_of_section_3(lesson_calls):
    import asyncio

    comparison = asyncio.run(compare_policies(load_timeline(), rules=["earliest"]))
    view = graded_view_frame(comparison.answers, comparison.calls)
    final = final_answers_frame(comparison.answers, 10)
    assert {"missing", FORBIDDEN_NAMED} <= set(view.columns) and {"missing", FORBIDDEN_NAMED} <= set(final.columns)
    at_10 = view[view["graded turn"] == 10].reset_index(drop=True)
    for column in ("missing", FORBIDDEN_NAMED):
        assert list(at_10[column]) == list(final[column])  # the same words, cell for cell
    row = at_10[at_10["policy"] == "full history"].iloc[0]
    assert (row["missing"], row[FORBIDDEN_NAMED]) == ("Billing; SQL Server 2022", "Reporting; PostgreSQL")


async def test_the_explorer_shows_the_two_columns():
    explorer = PolicyExplorer(load_timeline())
    explorer.run_button.click()
    await explorer.idle()
    assert "<th>missing</th>" in explorer.table.value and f"<th>{FORBIDDEN_NAMED}</th>" in explorer.table.value
    assert "names forbidden" not in explorer.table.value


# endregion
