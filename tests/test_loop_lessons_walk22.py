"""Lessons 05 and 06, walk 22 (issue 32).

5. Lesson 05's exercise 3: the miss for 3 said "no call comes after the answer [5]", which with the reminder left
   one count to make: it points at where to look (section 3's table, its 'did' column), not at the answer.
"""

from __future__ import annotations

import asyncio
import re

from support.checker import said

from course_lib.exercises import exercise
from course_lib.loop_demos import numbering_reminder, reminder_if_wrong, run_seed_demo


def words(text: str) -> str:
    return " ".join(text.split())


# region Finding 5: exercise 3's miss for 3 points where to look, and does not give the answer


def test_exercise_3s_miss_for_3_points_at_the_tables_did_column_without_the_answer():
    miss = dict(exercise("05", "Exercise 3").misses)[3]
    assert "no call comes after" not in miss and "stops as soon as" not in miss
    assert "Section 3's table" in miss and "'did' column" in miss
    assert not re.search(r"\b(2|two|twice|second)\b", miss, flags=re.I)


def test_what_a_student_who_answered_3_reads_gives_no_count_away():
    trace, _ = asyncio.run(run_seed_demo())
    shown = words(reminder_if_wrong(said("05", "Exercise 3", 3, 2), numbering_reminder(trace)))
    assert "not quite" in shown and "'did' column" in shown
    assert "no call comes after" not in shown
    counts = re.sub(r"section \d", "", shown, flags=re.I)  # "From section 2" names a section, not a count
    assert not re.search(r"\b(2|two|twice)\b", counts, flags=re.I)


# endregion
