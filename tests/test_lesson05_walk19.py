"""Lesson 05, walk 19 (issue 32): the hood's exception names, exercise 3's set-up, and the note above the stepper.

1. The hood's "the seed's fake client cannot stream" cell catches Python's ``NotImplementedError`` but printed C#'s
   ``NotImplementedException`` as if it were what came: a printed exception name is Python's, and a .NET one is given
   as the seed's C# name, in every lesson.
2. Section 1 shows ``evaluate`` as ``async``; exercise 3 hands ``DelegateLoopEvaluator`` a plain function: the exercise
   says it takes either, and it does.
3. Exercise 3's set-up says plainly what ``seed_loop`` returns and what the cell reuses, as the cell does.
6. The note above the stepper was five if-this-then-that sentences: the stepper's cell now works on its own (it runs
   section 2's demo again), so the note is the shorter form ``tests/test_reading.py`` requires of such a cell, and
   nothing more.
"""

from __future__ import annotations

import re
from pathlib import Path

from support.lesson_cells import cell_outputs, cell_source, stored_lesson

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def words(text: str) -> str:
    return " ".join(text.replace("*", "").split())


def printed_lines(number: str) -> list[str]:
    """Every line the stored outputs of lesson ``number``'s code cells print."""
    lines = []
    for cell in stored_lesson(number)["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            lines.extend(text.splitlines())
    return lines


# --- finding 1: Python's exception name is printed; the seed's C# name is said to be C#'s ---


def test_the_hood_prints_the_python_exception_it_caught_and_names_the_seeds_csharp_one_as_such():
    shown = words(cell_outputs("05", "62353460"))
    assert (
        "the seed's client, streamed: NotImplementedError (the seed's C# client throws NotImplementedException "
        "from GetStreamingResponseAsync)"
    ) in shown
    assert "streamed: NotImplementedException" not in shown
    assert "except NotImplementedError" in cell_source("05", "62353460")


def test_no_lesson_prints_a_dotnet_exception_name_without_saying_it_is_the_csharp_one():
    named = 0
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        for line in printed_lines(path.stem[:2]):
            for found in re.finditer(r"\b\w+Exception\b", line):
                named += 1
                assert "C#" in line[: found.start()], f"{path.stem}: {line!r} prints {found.group()} as Python's"
    assert named  # the hood's line names one: the rule is tested on a real line
