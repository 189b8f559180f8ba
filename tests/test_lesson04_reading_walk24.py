"""Lesson 04's second walk 24 (issue 32): what a new student read in the order Run All shows it.

1. The cell before the prompt-size plot said "the sentence under the plot names them", but cell-10 prints its
   sentences before the figure is drawn: they show ABOVE the plot.
4. Section 2's compaction bullet did not say that compaction sends one earlier exchange fewer than *last 3 turns*,
   though both are called "3 turns".
6. Section 4's token column used the word *token* before defining it in the same bullet.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_source, plain_words, stored_lesson


def _markdown_with(phrase: str) -> str:
    cells = stored_lesson("04")["cells"]
    return next(plain_words("".join(c["source"])) for c in cells if phrase in plain_words("".join(c["source"])))


# region Finding 1: the sentences are above the plot


def test_the_plot_intro_points_above_where_the_sentences_print():
    said = plain_words(cell_source("04", "l04-before-prompt-plot"))
    assert "under the plot" not in said
    assert "the sentence above the plot names both" in said


def test_cell_10_still_prints_before_the_figure_shows():
    # the figure shows when the cell ends, after every print: "above" is true only while the prints stay
    code = cell_source("04", "cell-10")
    assert code.index("plot_prompt_sizes(") < code.index("print(")
    assert "display(fig" not in code and "plt.show" not in code


# endregion

# region Finding 4: compaction sends one earlier exchange fewer


def test_right_under_the_compaction_bullet_it_sends_one_exchange_fewer_than_the_window():
    # a sentence of its own under the list: each policy bullet stays one short sentence (walk 22's test)
    section = cell_source("04", "cell-02")
    under_the_list = section.split("- the *reducer* shortens", 1)[1].split("\n\n", 2)[1]
    said = plain_words(under_the_list)
    assert said == "So compaction sends one earlier exchange fewer than last 3 turns, though both are called '3 turns'."


def test_section_2_sentences_stay_under_31_words():
    text = _markdown_with("## 2. Run every policy")
    for sentence in re.split(r"(?<=[.:;!?])\s+|\s+-\s+", text):
        assert len(sentence.split()) <= 30, sentence


# endregion

# region Finding 6: token defined before it is used


def test_the_token_bullet_defines_token_first():
    section = _markdown_with("## 4. What it cost")
    bullet = section.split("estimated tokens (chars / 4)", 1)[1].split("reported input", 1)[0]
    assert bullet.index("token is the unit") < bullet.index("tokens under")
    assert bullet.index("token is the unit") < bullet.index("summed per call")


# endregion
