"""Every lesson after 00 says once, at its top, what to run after a restart (issue 32, walks 23 of lessons 01-03, 06).

A story cell run alone after a restart stops with Python's NameError (the shell's friendly words come with the imports
cell): lesson 02's walk marked it [major]. Lessons 01 and 06 had a line, each in its own words; now every lesson from
01 to 07 has the same one. Lesson 00's cells make the names they read (tests/test_lesson00_walk23.py), so it needs none.
"""

from __future__ import annotations

import pytest
from support.lesson_cells import stored_lesson, words

RESTART = (
    "After a restart, run the imports cell (the first code cell after the Colab set-up) before any other, then the "
    "cells in order: each builds on the ones above it."
)


@pytest.mark.parametrize("lesson", ["01", "02", "03", "04", "05", "06", "07"])
def test_the_lessons_first_cell_says_what_to_run_after_a_restart(lesson):
    cells = stored_lesson(lesson)["cells"]
    top = words("".join(cells[0]["source"])).replace("*", "")
    assert top.count(RESTART) == 1
    later = " ".join(words("".join(c["source"])) for c in cells[1:] if c["cell_type"] == "markdown")
    assert "After a restart, run the imports cell" not in later
    assert cells[1].get("id") == "colab-setup"  # so "the first code cell after the Colab set-up" is the imports
