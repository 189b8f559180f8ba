"""Lesson 04's twelfth walk (issue 32): a new word is defined outside the list it would interrupt, the seed's
"abandoned hypothesis" is said as the replaced values, the plots' reading guides are short, and the scaling table is
introduced by a line of the lesson rather than a caption that reads as printed output."""

from __future__ import annotations

import re

from test_student_path import lesson

LESSON = "04_memory_policies_compared"


def _cell(cell_id: str):
    return next(c for c in lesson(LESSON).cells if c.get("id") == cell_id)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.:])\s+(?=[A-Z])", " ".join(text.split())) if s]


def test_the_turn_is_defined_with_the_other_new_words_not_inside_the_list_of_policies():
    opening = lesson(LESSON).cells[0].source
    objectives = opening.split("*About 75 minutes.*")[0]  # the list of policies is in the objectives
    bullets = [line for line in objectives.splitlines() if line.startswith(("- ", "  "))]
    assert "*turn*" not in " ".join(bullets)
    new_words = " ".join(opening.split()).split("New words")[1]  # a list since walk 19
    assert "- a *turn* is one user message" in new_words


def test_the_blended_values_are_called_replaced_values_and_the_seeds_word_is_glossed():
    prose = " ".join(_cell("d28c1efa").source.split())
    assert "The abandoned hypothesis is back" not in prose
    assert "The replaced values, `Reporting` and `PostgreSQL`, are back beside the current ones" in prose
    assert "abandoned hypothesis (here, a replaced value)" in prose


def test_the_plots_reading_guides_are_short():
    assert len(_sentences(_cell("l04-before-prompt-plot").source)) <= 2
    scaling = " ".join(_cell("cell-16").source.split())
    assert "read that number, not the label's height." in scaling and "sits above its line" not in scaling


def test_the_scaling_table_is_introduced_by_a_line_of_the_lesson_not_a_styler_caption():
    cells = lesson(LESSON).cells
    ids = [c.get("id") for c in cells]
    table = ids.index("l04-scaling-table")
    assert "set_caption" not in "\n".join(c.source for c in cells if c.cell_type == "code")
    intro = cells[table - 1]
    assert intro.cell_type == "markdown" and intro.source.startswith("The table below:")
    assert "readable_table(chars" in cells[table].source
