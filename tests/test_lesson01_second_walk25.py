"""Lesson 01's second walk 25 (issue 32): the bare-name message names the word it says has no quotes without
quoting it, and says what Run All does only as a condition (the student may have run this cell alone); the
lesson's wording names rows by what they show and says the emoji rule once on the path.
"""

from __future__ import annotations

import pytest
from support.checker import run_in_shell

from course_lib.exercises import RUN_ALL_STOPS, unquoted_name_guidance


def _cell(line: str) -> str:
    return f"{line}\nprint(check('Exercise 2', answer_1, expected, exercise('01', 'Exercise 2').hint))"


@pytest.mark.parametrize("word", ["customer", "Billing", "x" * 60])
def test_a_bare_word_is_not_quoted_where_it_is_said_to_have_no_quotes(word):
    text = unquoted_name_guidance(NameError(f"name '{word}' is not defined", name=word), "customer", "answer_2")
    assert "has no quotes around it" in text
    assert "' has no quotes around it" not in text  # the word is not shown inside quotes it is said to lack
    assert text.startswith("answer_2 is not a value yet: the word ")


def test_a_bare_word_in_a_cell_is_named_without_quotes(capsys):
    out = " ".join(run_in_shell(capsys, _cell("answer_1 = customer"), expected="customer").split())
    assert "the word customer has no quotes around it" in out
    assert "'customer' has no quotes" not in out


def test_the_run_all_note_is_a_condition_true_when_only_this_cell_ran():
    assert RUN_ALL_STOPS == "If you use Run All, it stops at this cell until it runs without an error."
    assert "so Run All stops here" not in RUN_ALL_STOPS


def test_the_emoji_rule_is_said_once_on_the_path_in_section_3():
    from support.lesson_cells import cell_outputs, student_path, words

    from course_lib.memory import limits_summary

    assert "emoji" not in limits_summary() and "emoji" not in cell_outputs("01", "cell-01")
    assert words(" ".join(student_path("01"))).count("an emoji may count as two") == 1


def test_the_openings_table_rows_are_named_by_what_they_show():
    from support.lesson_cells import cell_source, words

    said = words(cell_source("01", "cell-20"))
    assert "Only the **middle** row (*outside every quote*) is the real citation" in said
    assert "row 2" not in said and "Rows 1 and 3" not in said
