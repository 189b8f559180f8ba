"""Lesson 05, walk 22 (issue 32): a new student's walk of the traced loop.

1. No .NET/C# before "Under the hood": one plain sentence says MAF Python has no ``LoopAgent`` and the course provides
   one; the rest (the C# original, its source as the judge of the seed's contradictions) is under the hood.
2. The intro says what the *seed* is, in a sentence of its own; the objective bullet no longer defines it in a bracket.
3. Terms said before they are used: "default flow", a message's role; no unexplained "instructions".
4. Section 4 shows the streaming loop itself: ``async for update in ...run(..., stream=True)``, collecting the updates.
5. Exercise 2's likely misses (the caller's input counted in, a feedback after the stop) get hints of their own,
   computed from the demo; other wrong answers keep the generic hint.
6. The exercise cells' first comment promises only what the message gives; exercise 3 grades, and reminds, after only
   the imports cell has run (no need of section 2's ``trace``).
7. Section 1 says what is true of the demo's evaluator: it decides from the iteration; its trace records four fields.
Also: no sentence of the student's path over 35 words, and no bracket inside a bracket.
"""

from __future__ import annotations

import re

from support.checker import run_each_in_a_fresh_shell, said
from support.lesson_cells import cell_source, stored_lesson
from support.lesson_cells import plain_words as words

from course_lib.exercises import exercise
from course_lib.loop_demos import SEED_INPUT, run_seed_demo


def _student_path() -> list[dict]:
    """The lesson's cells before its "Under the hood" heading."""
    cells = stored_lesson("05")["cells"]
    hood = next(i for i, c in enumerate(cells) if c.get("id") == "hood-head")
    return cells[:hood]


def _markdown_of_path() -> list[str]:
    return ["".join(c["source"]) for c in _student_path() if c["cell_type"] == "markdown"]


# --- finding 1: .NET stays under the hood ---


def test_no_dotnet_or_csharp_on_the_students_path():
    for text in _markdown_of_path():
        assert ".NET" not in text and "C#" not in text, text[:200]


def test_section_1_says_in_one_sentence_that_the_course_provides_the_loop_agent():
    said_ = words(cell_source("05", "cell-00"))
    # walk 25: the one sentence is shorter; the longer one is said under the hood (tests/test_lesson05_walk25.py)
    # second walk 25: said in the intro only (tests/test_lesson05_second_walk25.py)
    assert "`course_lib.loop` re-creates the seed's `LoopAgent` (MAF for Python has none)" in said_
    assert "MAF for Python has no `LoopAgent` class; `course_lib.loop` provides one" in words(
        cell_source("05", "hood-head")
    )


def test_under_the_hood_keeps_the_csharp_original_and_its_source_as_the_judge():
    hood = words(cell_source("05", "hood-head"))
    assert "MAF for .NET, written in C#" in hood
    assert "source" in hood and "contradict" in hood


# --- finding 2: the seed, said once, plainly ---


def test_the_intro_says_what_the_seed_is_in_a_sentence_of_its_own():
    intro = words(cell_source("05", "cell-00"))
    # second walk 23: with the link lesson 06 gives where the seed is first named
    link = "([where it comes from](../docs/glossary.md#where-this-comes-from))"
    article = "Loop Engineering in MAF, part 2, written in Chinese."
    seed = f"The seed is the article the loop lessons re-create {link}: {article}"
    assert seed in intro
    bullet = intro.split("- reproduce")[1].split("The seed is")[0]
    assert "(" not in bullet and "seed" in bullet


# --- finding 3: terms explained ---


def test_the_terms_are_explained_where_they_are_first_used():
    intro = words(cell_source("05", "cell-00"))
    assert "default flow" not in intro or "default flow (" in intro or "the default flow:" in intro
    assert "usually also has instructions" not in intro
    section_2 = words(cell_source("05", "cell-06"))
    assert "Every chat message has a role:" in section_2
    assert section_2.index("Every chat message has a role") < len(section_2)  # said before section 2's bullets


# --- finding 4: the streaming loop is on the page ---


def test_section_4_consumes_the_stream_in_its_own_visible_loop():
    code = cell_source("05", "cell-16")
    assert "stream_seed_demo" not in code
    assert re.search(r"^async for update in \w+:", code, re.M)
    assert ".run(" in code and "stream=True" in code
    assert "updates.append(update)" in code
    assert "updates_sentence(updates)" in code and "same_run_sentence(" in code


# --- finding 5: exercise 2's likely misses ---


async def test_exercise_2s_misses_are_the_two_likely_misconceptions_computed_from_the_demo():
    trace, response = await run_seed_demo(allowed=1)
    right = len(response.messages)
    with_input = right + len(SEED_INPUT)  # the caller's messages counted in
    with_feedback = right + sum(step.actor == "Evaluator" for step in trace.rows)  # a feedback after each evaluation
    misses = dict(exercise("05", "Exercise 2").misses)
    assert {with_input, with_feedback} <= set(misses)
    assert with_input == 4 and with_feedback == 2
    assert "input" in misses[with_input] and "feedback" in misses[with_feedback]
    for value in (with_input, with_feedback):  # pointers, never the answer
        assert str(right) not in re.sub(r"\[\d+\]|section \d|iteration \d", "", misses[value])


def test_other_wrong_answers_of_exercise_2_keep_the_generic_hint():
    generic = words(exercise("05", "Exercise 2").hint)
    for wrong in (0, 3):
        assert generic in said("05", "Exercise 2", wrong, 1)
    assert "input" in said("05", "Exercise 2", 4, 1)
    assert "stop" in said("05", "Exercise 2", 2, 1)


# --- finding 6: what the exercise cells promise, exercise 3 after the imports cell alone ---

OVERSOLD = "this import lets the cell say which cells to run first"


def test_no_exercise_cell_promises_to_say_which_cells():
    for cell in stored_lesson("05")["cells"]:
        assert OVERSOLD not in "".join(cell["source"])


def test_exercise_3_grades_and_reminds_after_only_the_imports_cell():
    cells = {c.get("id"): "".join(c["source"]) for c in stored_lesson("05")["cells"]}
    imports, exercise_3 = cells["cell-01"], cells["cell-26"]
    assert "trace)" not in exercise_3.replace("ex_trace)", "")  # section 2's trace is not read
    right = exercise_3.replace("answer_3 = ...", "answer_3 = 2")
    wrong = exercise_3.replace("answer_3 = ...", "answer_3 = 3")
    runs = run_each_in_a_fresh_shell([imports + "\n" + right, imports + "\n" + wrong])
    said_right, said_wrong = (words(run) for run in runs)
    assert "Exercise 3: correct." in said_right and "not defined" not in said_right
    assert "not quite" in said_wrong and "numbered [1] to [3]" in said_wrong


# --- finding 7: what the evaluator reads ---


def test_section_1_says_the_trace_records_the_four_fields():
    bullets = words(cell_source("05", "cell-02"))
    assert "reads four of its fields" not in bullets
    # walk 23: the trace is introduced in the next cell, so section 1 names the four fields without it
    assert "Four of its fields matter here: `initial_messages` (the task), `last_response`, `feedback`" in bullets
    assert "decides from `iteration` alone" in bullets


# --- also: short sentences, no bracket inside a bracket ---


def _prose(text: str) -> str:
    """Markdown prose: no code spans, links reduced to their text, no table rows or headings."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(("|", "#", "<"))]
    text = re.sub(r"`[^`]*`", "CODE", " ".join(lines))
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)


def _sentences(text: str) -> list[str]:
    text = re.sub(r"\b(e\.g|i\.e|etc)\.", r"\1", text)
    return [s for s in re.split(r"(?<=[.?!])\s+|\s+\*\s+|\s+-\s+(?=[a-z])", text) if s.strip()]


PANEL_NOTE = "*Until the panel's cell, below, has run"
"""The note above every panel, in one wording in every lesson (tests/test_reading.py): not this lesson's to split."""


def test_no_long_sentence_and_no_nested_bracket_on_the_students_path():
    for text in _markdown_of_path():
        prose = _prose(text.split(PANEL_NOTE)[0])
        for sentence in _sentences(prose):
            assert len(sentence.split()) <= 35, sentence
            depth = 0
            for char in sentence:
                depth += {"(": 1, ")": -1}.get(char, 0)
                assert depth <= 1, sentence
