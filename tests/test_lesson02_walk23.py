"""Lesson 02's walk 23 (issue 32): "density, not errors".

1. Why ``forget`` replaces the session was a dense paragraph: it is now a table computed by code, one row per seed
   value, saying where the value still is before the forget, with the store emptied but the session kept, and after
   the console's forget; then one sentence.
2. The goals defined the writer, the host check and the desk, which the text defines again: the goals say what the
   student will do; each term is defined once, where it first appears.
3. The note on how printed lines are broken came before any output: it now follows the first output it describes.
5. The "chars sent" sums were explained above the table, under it and again below the plot: they are said once, in
   the lines printed under the table.
"""

import re

from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, words

from course_lib.forgetting import FORGOTTEN_MARK, whereabouts

SEED_VALUES = ["Reporting", "PostgreSQL", "Billing", "SQL Server 2022"]


def _ids() -> list[str]:
    return [c.get("id") for c in stored_lesson("02")["cells"]]


def _student_markdown() -> str:
    cells = stored_lesson("02")["cells"]
    hood = next(i for i, c in enumerate(cells) if "## Under the hood" in "".join(c["source"]))
    return plain_words(" ".join("".join(c["source"]) for c in cells[:hood] if c["cell_type"] == "markdown"))


# --- finding 1: where each seed value still is, as a table ---


def test_whereabouts_names_the_store_and_the_session_and_what_the_model_is_sent():
    history = ["module=Reporting; database=PostgreSQL", "module=Billing; database=SQL Server 2022"]
    assert whereabouts("Billing", held=["Billing"], history=history) == "the store and the session"
    assert whereabouts("Reporting", held=["Billing"], history=history) == "the session"
    assert whereabouts("Reporting", held=[], history=history, sent=["Reporting"]) == (
        "the session; the model is sent it"
    )
    assert whereabouts("Billing", held=[], history=history, sent=["Reporting"]) == (
        f"the session; the model is sent {FORGOTTEN_MARK} instead"
    )
    assert whereabouts("Billing", held=[], history=[], sent=[]) == "nowhere; the model is not sent it"
    assert whereabouts("Billing", held=[], history=[]) == "nowhere"


def test_the_lesson_shows_where_each_seed_value_is_before_and_after_forget():
    source = cell_source("02", "cell-17")
    assert "whereabouts(" in source and "values_sent(" in source  # computed, from what the model was sent
    shown = cell_outputs("02", "cell-17")
    rows = re.findall(r"<tr>(.*?)</tr>", shown, re.S)
    cells = [[c.strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]
    header, body = cells[0], cells[1:]
    assert header == ["value", "before forget", "store emptied, session kept", "forget: store and session"]
    assert [row[0] for row in body] == SEED_VALUES
    by_value = {row[0]: row[1:] for row in body}
    assert by_value["Reporting"] == [
        "the session",
        "the session; the model is sent it",
        "nowhere; the model is not sent it",
    ]
    assert by_value["Billing"] == [
        "the store and the session",
        f"the session; the model is sent {FORGOTTEN_MARK} instead",
        "nowhere; the model is not sent it",
    ]
    assert "values that call carried" not in shown  # the table says it, once


def test_one_sentence_follows_the_table_and_the_forget_filter_is_defined_in_it():
    said = cell_source("02", "cell-18")
    first = said.split("\n\n")[0]
    # walk 24: no sentence over 30 words, so the one sentence became two short ones: what happened, then why
    sentences = re.split(r"(?<=[.!?])\s+", words(first))
    assert len(sentences) == 2 and all(len(s.split()) <= 30 for s in sentences), first
    # second walk 23: the filter is defined in the bullets before the table, which already uses it
    assert "(the *forget filter*)" in words(cell_source("02", "replay-calls"))
    # walk 25: the sentence names the column to read and says why its two pairs of rows differ
    assert "Look at the column" in words(first) and "replaced by the correction, still reach the model" in words(first)
    assert "sessions of both desks" in said  # claim F49 stays in this cell
    assert said.count("\n\n") <= 1  # the sentence, and claim F49's


# --- finding 2: goals say what the student will do ---


def test_the_goals_define_nothing_and_each_term_is_defined_once():
    intro = cell_source("02", "cell-00")
    goals = intro.split("**You will be able to**")[1].split("*About")[0]
    assert not re.search(r"\*\w[\w ]*\* \(", goals), goals  # no *term* (definition)
    assert "defined in section" not in goals
    student = _student_markdown()
    for definition in (
        "host check: the host (",
        "desks, chat agents",  # second walk 23: defined in the intro, before the script uses it
        "The writer is a MAF agent too",
        "MAF (the Microsoft Agent Framework",
    ):
        assert student.count(definition) == 1, definition
    assert "the Microsoft Agent Framework" in student and student.count("Microsoft Agent Framework") == 1


# --- finding 3: the note on broken lines follows the first output it describes ---


def test_the_note_on_broken_lines_follows_the_first_output_it_describes():
    ids = _ids()
    assert "wrapped_block" not in cell_source("02", "cell-04")
    assert ids.index("display-note") == ids.index("cell-05") + 1
    note = words(cell_source("02", "display-note"))
    assert "(`wrapped_block`)" in note and "above" in note
    assert "so no word or date is cut" in note
    assert "a value holding a space, such as `sql server 2022`, may go on over the next line" in note.lower()


# --- finding 5: the chars sent sums are said once ---


def test_the_chars_sent_sums_are_said_once_under_the_table():
    student = _student_markdown()
    assert "add it up" not in student and "In those sums" not in student
    assert "last message" not in student  # the printed lines say what a call's last message is
    printed = words(cell_outputs("02", "hood-chars-sent"))  # walk 25: printed under the hood
    assert "its last message is the facts block and the user's words" in printed
    assert "the 12 messages before the last are its worked examples" in printed
    assert "the 2 messages before the last are its session history" in printed
