"""Lesson 04's walk 24 (issue 32): the lesson scored 4/5 for density, not errors.

- The stored explorer's note follows lessons 02 and 05: the explorer's cell works on its own, and the note above it
  says in its first sentence that the saved picture's red broken-link marks mean "not connected yet".
- The first imports cell no longer brings 39 names: it brings what section 1 uses, in groups with a comment each;
  every later section imports what it uses.
- Section 6 is one idea per paragraph; its time measurement and the stopped summary (a departure) are under the hood.
- The student's path is at most 3200 words, no paragraph over 4 sentences, no sentence over 30 words (but the
  first sentence of the panel note every lesson shares word for word, left to a change of all lessons at once).
"""

from __future__ import annotations

import re

from test_reading import WORKS_ALONE, panel_note
from test_student_path import lesson

from tests.support.lesson_cells import paragraphs, sentences

LESSON = "04_memory_policies_compared"
HOOD = "## Under the hood"


_paragraphs = paragraphs  # the shared splitter (tests/support/lesson_cells.py), as the density rule reads
_sentences = sentences


def _student_path() -> list:
    cells = lesson(LESSON).cells
    end = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.lstrip().startswith(HOOD))
    return cells[:end]


def test_the_student_path_is_at_most_3200_words_in_short_paragraphs_and_sentences():
    paragraphs = [p for c in _student_path() if c.cell_type == "markdown" for p in _paragraphs(c.source)]
    assert sum(len(p.split()) for p in paragraphs) <= 3200
    assert [p for p in paragraphs if len(_sentences(p)) > 4] == []
    assert [s for p in paragraphs for s in _sentences(p) if len(s.split()) > 30] == []


def test_the_explorer_works_on_its_own_and_its_note_says_what_the_red_marks_are_first():
    cells = lesson(LESSON).cells
    i = next(i for i, c in enumerate(cells) if c.cell_type == "code" and "PolicyExplorer(load_timeline())" in c.source)
    assert cells[i].source.startswith(WORKS_ALONE)
    note = " ".join(cells[i - 1].source.split("\n\n")[-1].replace("*", "").split())  # the note: its last paragraph
    assert note == panel_note("list, menu, sliders and Run button", alone=True)
    assert "it is only a saved picture" in note and "Red broken-link marks" in note  # what the red marks are


def test_the_first_imports_cell_brings_what_section_1_uses_in_commented_groups():
    first = next(c for c in lesson(LESSON).cells if c.cell_type == "code" and "setup_display()" in c.source)
    names = re.findall(r"^\s+(\w+),$", first.source, flags=re.M)
    names += [
        n
        for line in re.findall(r"^(?:from \S+ )?import ([\w, ]+)$", first.source, flags=re.M)
        for n in line.split(", ")
    ]
    assert len(names) <= 12, names
    groups = [line for line in first.source.splitlines() if line.startswith("# ")]
    assert len(groups) >= 2  # a one-line comment per group


def test_the_time_per_turn_and_the_stopped_summary_are_under_the_hood():
    path = " ".join(c.source for c in _student_path())
    for moved in ("plot_time_per_turn", "time_growth_sentence", "SummaryRejected", "## 3c"):
        assert moved not in path
    hood = " ".join(c.source for c in lesson(LESSON).cells[len(_student_path()) :])
    for moved in ("plot_time_per_turn", "time_growth_sentence", "SummaryRejected", "no substitute summary"):
        assert moved in hood


def test_the_replay_count_points_to_the_times_where_they_now_are():
    from course_lib.policies import ScalingRow, replay_calls_sentence

    sentence = replay_calls_sentence([ScalingRow(10, p, 0, 0, 10, 0.0, 2) for p in ("full history", "facts")])
    assert "Each replay ran 2 times, to time it (the time per turn, below): 2 \u00d7 20 = 40 calls." in sentence
    assert "next section" not in sentence
