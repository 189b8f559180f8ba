"""Lesson 06 walked again (issue 32, walk 22): a new student's words (the exercise's hints are in
tests/test_lesson06_hints_walk22.py).

2. The first cell says what "MAF" and "the seed" are, with links to the glossary.
3. Section 4 says what ``context`` is (the ``LoopContext`` each evaluator is handed) before it reads
   ``context.feedback``.
4. and 5. Section 5 says what ``stop_sentence`` prints in plain words, and names only the roles it uses.
6. The other options' intro says what a non-streaming run is and what its option does, in short sentences.
And every sentence of the student's path is at most 35 words, with no bracket inside a bracket.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_source, stored_lesson, words
from test_anchor_links import ROOT, ids_everywhere

# region 2. The first cell says what MAF and the seed are, with glossary links that land


def _glossary_ids() -> set[str]:
    return ids_everywhere((ROOT / "docs" / "glossary.md").read_text(encoding="utf-8"))


def test_the_first_cell_says_what_maf_and_the_seed_are():
    top = words(cell_source("06", "cell-00"))
    # walk 24: said in two short sentences, still each a definition where the word first appears
    assert "*MAF Python* is the Python edition of the Microsoft Agent Framework" in top
    assert "*The seed* is the Chinese article on loop engineering that lessons 05 and 06 re-create" in top
    links = re.findall(r"\]\(\.\./docs/glossary\.md#([\w-]+)\)", top)
    assert {"words-every-lesson-uses", "where-this-comes-from"} <= set(links)
    assert set(links) <= _glossary_ids()
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    everyday = glossary.split('<a id="words-every-lesson-uses"></a>')[1].split("<a id=")[0]
    assert "| **MAF** |" in everyday and "| **seed** |" in everyday


def test_maf_and_the_seed_are_defined_before_any_section_uses_them():
    cells = [c for c in stored_lesson("06")["cells"] if c["cell_type"] == "markdown"]
    first_use = next(i for i, c in enumerate(cells) if "seed" in "".join(c["source"]))
    assert first_use == 0


# endregion

# region 3. Section 4 says what context is before reading context.feedback


def test_section_4_says_context_is_the_loop_context_each_evaluator_is_handed():
    # walk 24 (tests/test_lesson05_06_second_walk24.py): said in section 3, where `decide(context)` first uses it
    section_3 = words(cell_source("06", "cell-09"))
    section_4 = words(cell_source("06", "cell-11"))
    assert "`context` is the `LoopContext` each evaluator is handed" in section_3
    assert "[glossary](../docs/glossary.md#loopcontext)" in section_3 and "loopcontext" in _glossary_ids()
    assert "The evaluator's `context` (section 3) also has `context.feedback`" in section_4
    assert "def decide(context):" in cell_source("06", "cell-10")
    assert "the list of every feedback the loop has sent so far (the *feedback log*)" in section_4


# endregion

# region 4. and 5. Section 5: stop_sentence in plain words, and only the roles it uses


def test_section_5_says_what_stop_sentence_prints_in_plain_words():
    # walk 25 (tests/test_lesson06_walk25.py): loop_exit_reason and what stop_sentence prints moved to section 6
    section_5 = words(cell_source("06", "8f908dd8"))
    assert "says either in a sentence" not in section_5
    assert "`stop_sentence` says in words why the loop stopped" in section_5
    section_6 = words(cell_source("06", "a5908b9f"))
    assert "prints, in words, either the code or that none was recorded" in section_6


def test_section_5_names_only_the_roles_its_code_asks_for():
    section_5 = words(cell_source("06", "8f908dd8"))
    # walk 23: one plain sentence, which says what each model it names does
    assert '`"worker"` writes the note and `"judge"` judges it' in section_5
    assert "writer" not in section_5 and "reader" not in section_5
    asked = set(re.findall(r'make_chat_client\("(\w+)"', cell_source("06", "cell-14")))
    assert asked == {"worker", "judge"}


# endregion

# region 6. The other options' intro: what a non-streaming run is, what its option does


def test_the_other_options_intro_says_a_non_streaming_run_and_its_option_in_short_sentences():
    intro = words(cell_source("06", "other-options"))
    assert "In `non_streaming_returns_last_response_only`, a *non-streaming* run is" not in intro
    assert "A *non-streaming* run is one called without `stream=True`." in intro
    assert "`non_streaming_returns_last_response_only` changes only such runs" in intro
    assert "the caller gets back only the last answer" in intro
    assert all(len(sentence.split()) <= 22 for sentence in re.split(r"(?<=[.;])\s+", intro)), intro


# endregion

# region The whole student's path: sentences of at most 35 words, no bracket inside a bracket

PANEL_NOTE = "*Until the panel's cell, below, has run"
"""The note above every panel, one wording in every lesson (tests/test_reading.py): not this lesson's to split."""


def _student_sentences() -> list[tuple[str, str]]:
    sentences = []
    for cell in stored_lesson("06")["cells"]:
        if cell.get("id") == "hood-head":
            break
        if cell["cell_type"] != "markdown":
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", "".join(cell["source"]))  # a link reads as its words
        for block in re.split(r"\n\s*\n|\n(?=[*-] )", text):
            for sentence in re.split(r"(?<=[.?!])\s+(?=[A-Z*`(\[])", words(block)):
                if sentence and not sentence.startswith(PANEL_NOTE):
                    sentences.append((cell.get("id"), sentence))
    return sentences


def _depth(text: str) -> int:
    deepest = depth = 0
    for char in re.sub(r"`[^`]*`", "", text):
        if char in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]":
            depth = max(0, depth - 1)
    return deepest


def test_the_student_path_is_read_whole():
    ids = {cell_id for cell_id, _ in _student_sentences()}
    assert {"cell-00", "cell-02", "other-options", "cell-18", "student-takeaways"} <= ids


def test_no_sentence_of_the_student_path_is_over_35_words():
    long = [(cell_id, len(s.split()), s) for cell_id, s in _student_sentences() if len(s.split()) > 35]
    assert long == []


def test_no_sentence_of_the_student_path_has_a_bracket_inside_a_bracket():
    nested = [(cell_id, s) for cell_id, s in _student_sentences() if _depth(s) > 1]
    assert nested == []


# endregion
