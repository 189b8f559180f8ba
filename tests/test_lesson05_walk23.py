"""Lesson 05, walk 23 (issue 32): "density, not errors".

1. `LoopTrace` was named (section 1's "Its trace records ...") one cell before it was introduced: it is named first
   where it is introduced, with what it records.
2. The `LoopEvaluator` base class was never shown: section 1, where the evaluator is defined, shows one in three lines
   (its one method, `evaluate(context)`, and what it returns), and that code is a real evaluator that runs.
3. Exercise 3 asked "how many times is the numbering model called before the loop stops?": it says what to count
   (every model call, the one whose answer contains [5] included) and from which output (the run's trace).
4. Under the hood's sentence on the two streamed answers' numbers was 70 words long: it is split.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_source, plain_words, stored_lesson, words

from course_lib.loop import LoopAgent, LoopEvaluator
from course_lib.loop_demos import IterationCountEvaluator, LoopTrace, seed_loop


def markdown_cells(number: str) -> list[tuple[str, str]]:
    return [
        (c.get("id", ""), "".join(c["source"])) for c in stored_lesson(number)["cells"] if c["cell_type"] == "markdown"
    ]


def student_path(number: str) -> list[tuple[str, str]]:
    cells = markdown_cells(number)
    end = next(i for i, (_, text) in enumerate(cells) if text.startswith("## Under the hood"))
    return cells[:end]


# region 1. LoopTrace is introduced where it is first named


def test_loop_trace_is_first_named_where_it_is_introduced():
    cells = student_path("05")
    first = next(i for i, (_, text) in enumerate(cells) if "LoopTrace" in text or re.search(r"\btrace\b", text))
    cell_id, text = cells[first]
    assert cell_id == "pieces-demo", cell_id
    assert "`LoopTrace`: the run's record of every step" in words(text)
    assert "Its trace records" not in words(cell_source("05", "cell-02"))


# endregion

# region 2. What an evaluator is, in three lines of code


def evaluator_code() -> str:
    [code] = re.findall(r"```python\n(.*?)```", cell_source("05", "cell-02"), re.DOTALL)
    return "\n".join(line.removeprefix("  ") for line in code.splitlines())


def test_section_1_shows_an_evaluator_in_three_lines_where_it_defines_one():
    bullets = plain_words(cell_source("05", "cell-02"))
    one_method = (
        "It is a `LoopEvaluator`: a class with one method, `evaluate(context)`, which returns a `LoopEvaluation`"
    )
    assert one_method in bullets
    code = evaluator_code().strip().splitlines()
    # the import the example needs (second walk 23: pasted without it, it was a NameError), then three lines
    assert code[0] == "from course_lib.loop import LoopContext, LoopEvaluation, LoopEvaluator"
    assert len([line for line in code[1:] if line.strip()]) == 3


async def test_the_evaluator_shown_is_a_real_one_and_stops_after_the_first_answer():
    namespace: dict[str, object] = {}  # as shown: pasted into a cell of its own, it runs
    exec(evaluator_code(), namespace)
    evaluator = namespace["StopAtOnce"]()
    assert isinstance(evaluator, LoopEvaluator)
    trace = LoopTrace()
    seeded, messages = seed_loop(trace=trace)
    response = await LoopAgent(seeded.inner_agent, evaluator).run(messages)
    assert len(trace.calls) == 1 and len(response.messages) == 1
    # the one method, as the base class declares it, and the demo's evaluator is one
    assert LoopEvaluator.__abstractmethods__ == frozenset({"evaluate"})
    assert issubclass(IterationCountEvaluator, LoopEvaluator)


# endregion

# region 3. Exercise 3 says what to count, and from which output


def test_exercise_3_asks_for_every_model_call_counted_from_the_runs_trace():
    said = plain_words(cell_source("05", "cell-25"))
    assert "How many model calls does that run make in all, counting the call whose answer contains `[5]`?" in said
    assert "The cell counts them in the run's trace, `ex_trace` (one entry per call)" in said
    assert "before the loop stops" not in said
    code = cell_source("05", "cell-26")
    assert "calls = len(ex_trace.calls)" in code and 'check("Exercise 3", answer_3, calls' in code


# endregion

# region 4. No sentence of 50 words or more in the lesson's prose (tables and lists of goals aside)


def sentences(text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # code blocks are not prose
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(("|", "#", "<", "-", "*"))]
    prose = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", " ".join(lines))
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`(*])", words(prose)) if s]


def test_the_two_numbers_sentence_is_split_and_no_prose_sentence_is_50_words_or_more():
    said = words(cell_source("05", "hood-numbers-differ"))
    assert said.startswith("The two answers carry different numbers because each run has its own counter.")
    long = [(cell, s) for cell, text in markdown_cells("05") for s in sentences(text) if len(s.split()) >= 50]
    assert not long, long


# endregion
