"""Lesson 04's walk 23 (issue 32): fourteen new words before any result.

The opening listed fourteen definitions (seed, Demo170, MAF, session, token, prompt...) before the first table. It now
says what Demo170 and the seed are in its first sentences, lists only the words sections 1-2 need, and defines every
other term in a sentence of the section that first uses it, once.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_source, stored_lesson, words

LATER = {  # a term, the cell that first uses it, and its definition there
    "MAF": ("cell-02", "*MAF*, the Microsoft Agent Framework"),
    "session": ("cell-02", "MAF keeps one conversation in an object called a *session*"),
    "summarizer": ("cell-02", "another model, the *summarizer*, rewrites after each turn"),
    "writer": ("21ec9618", "the facts policy's *writer*, the model of lessons 01-02 that proposes facts"),
    "token": ("21ec9618", "A *token* is the unit a model's server counts"),
    "instructions": ("21ec9618", "Each model's *instructions* count too: the fixed text"),
    "prompt": ("e5bb8ddc", "The *prompt* is everything sent to a model in one call"),
}


def _markdown_before(cell_id: str) -> str:
    """The student's words in every markdown cell before ``cell_id`` (code cells print nothing of these terms)."""
    cells = stored_lesson("04")["cells"]
    end = next(i for i, c in enumerate(cells) if c.get("id") == cell_id)
    return words(" ".join("".join(c["source"]) for c in cells[:end] if c["cell_type"] == "markdown"))


def test_the_opening_lists_only_the_words_the_first_sections_need():
    opening = cell_source("04", "cell-00")
    bullets = [line for line in opening.split("New words")[1].splitlines() if line.startswith("- ")]
    assert len(bullets) == 5
    for term in LATER:
        assert f"*{term}*" not in opening, term


def test_each_later_term_is_defined_in_the_section_that_first_uses_it_and_not_before():
    for term, (cell_id, definition) in LATER.items():
        assert definition in words(cell_source("04", cell_id)), term
        assert not re.search(rf"\b{term}\b", _markdown_before(cell_id)), term


def test_the_seed_and_demo170_are_said_before_the_objectives():
    opening = words(cell_source("04", "cell-00"))
    # walk 25: what Demo170 is in plain words, then the seed as the course's name for the article
    said = "This lesson re-creates *Demo170*, one of the three demo programs in a French article on agent memory"
    seed = opening.index("(the course calls it *the seed*)")
    assert opening.index(said) < seed < opening.index("You will be able to")


def test_section_1_says_the_reader_never_reads_values_in_its_own_answers_and_it_is_so():
    from agent_framework import Message

    from course_lib.memory_models import visible_mentions

    said = words(cell_source("04", "cell-02"))
    assert "never from its own earlier answers" in said  # walk 24: "from"
    seen = [
        Message(role="user", contents=["module=Reporting"]),
        Message(role="assistant", contents=["module=Reporting"]),  # the reader's own answer repeats it
        Message(role="user", contents=["module=Billing"]),
    ]
    assert visible_mentions(seen) == [("module", "Reporting"), ("module", "Billing")]  # a tie, as the lesson says


def test_section_1_reads_its_table_as_bullets_and_compactions_three_turns_count_the_question():
    said = cell_source("04", "cell-02")
    assert "How to read it:\n\n- A *graded* turn" in said and "\n- A *forbidden value* is" in said
    # walk 24: what the code sends, said outright
    # second walk 25: one bullet says what the numbers in the names count
    assert "**compaction (3 turns)** sends 3 user messages in all, the question included" in words(said)


def test_section_4_points_at_no_section_the_student_has_not_read():
    cells = stored_lesson("04")["cells"]
    prose = [words("".join(c["source"])) for c in cells if c["cell_type"] == "markdown"]
    assert not any("its calls only, as in section 6" in p for p in prose)


def test_the_explorer_cell_reads_no_name_another_cell_makes():
    import ast

    tree = ast.parse(cell_source("04", "cell-18"))
    made = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    made |= {
        t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)
    }
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    assert read <= made  # after a restart the panel cell runs alone (walk 23: NameError 'timeline')
