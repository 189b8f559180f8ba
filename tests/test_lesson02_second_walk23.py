"""Lesson 02's second walk 23 (issue 32): the console is named ``console``, statements in the order a newcomer reads
them, and a few dense sentences made plain (findings 2 to 9; finding 1 is tests/test_declared_inside_walk23.py).

2. Section 1 defines a desk as one agent with its own session, then named the console ``desk``: the console is
   ``console`` on the student's path.
3. "Before each model call" the block is pasted: the writer's calls get none, so it is "each desk call".
4. The table of where each value is said "sent [forgotten] instead" before the forget filter was defined.
5. The host "decides what is stored" and "writes no fact": the one piece that writes a fact is the store.
6. "desk" and "writer" were used before they were defined (the first output, the script).
7. The desks' instructions were counted (99) but never shown.
8. Forgetting one key throws away both desks' whole conversations: the lesson says so.
9. Dense sentences: the objectives, the side note on the count.
"""

import re

from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, words

from course_lib.providers import DESK_INSTRUCTIONS_BY_NAME

GLOSSARY = "docs/glossary.md"


def _cells() -> list[dict]:
    return stored_lesson("02")["cells"]


def _student_cells() -> list[dict]:
    cells = _cells()
    hood = next(i for i, c in enumerate(cells) if "## Under the hood" in "".join(c["source"]))
    return cells[:hood]


def _code(cell: dict) -> str:
    return "".join(cell["source"])


# --- finding 2: the console is `console` ---


def test_the_console_is_named_console_on_the_students_path():
    code = "\n".join(_code(c) for c in _student_cells() if c["cell_type"] == "code")
    assert "console = ManualInjectionDesk(" in code
    assert not re.search(r"(?<![\w.])desk\.(handle|agents|sessions|memory)\b", code)
    assert not re.search(r"(?<![\w.])desk = ", code)
    section_1 = words(cell_source("02", "cell-04"))
    assert "`console.handle(line)`" in section_1 and "`desk.handle" not in section_1
    markdown = words(" ".join(_code(c) for c in _student_cells() if c["cell_type"] == "markdown"))
    assert "desk.handle" not in markdown


# --- finding 3: the block goes before each desk call ---


def test_the_intro_says_the_block_goes_before_each_desk_call():
    intro = words(cell_source("02", "cell-00"))
    assert "Before each model call" not in intro
    assert "before each desk call" in intro.lower()


# --- finding 4: the forget filter is defined before the table that uses it ---


def test_the_forget_filter_is_started_and_defined_in_the_bullets_before_the_table():
    bullets = words(cell_source("02", "replay-calls"))
    # walk 25: the filter is named after the sentence that says what it does, and what escapes it is said there
    assert "`replay.memory.forget()` empties only the store." in bullets and "(the *forget filter*)" in bullets
    assert "Reporting and PostgreSQL were never forgotten, only replaced by the correction" in bullets
    after = words(cell_source("02", "cell-18"))
    assert "*forget filter*" not in after and "replaced by the correction, still reach the model" in after


# --- finding 5: one piece writes a fact, said alike in the lesson and the glossary ---

STORE_WRITES = "the store, the one piece that writes a fact"


def test_the_lesson_and_the_glossary_name_the_store_as_the_one_writer():
    writer = words(cell_source("02", "cell-02"))
    assert "decides what is stored" not in writer and "it writes no fact" not in writer
    assert STORE_WRITES in plain_words(writer)
    with open(GLOSSARY, encoding="utf-8") as glossary:
        row = next(line for line in glossary if "| **host**, **host check**" in line)
    assert "decides what is stored" not in row and "admits the declared facts into the store" not in row
    assert STORE_WRITES in row


# --- finding 6: desk and writer are defined before an output or the script uses them ---


def test_desks_are_defined_in_the_intro_before_the_script_and_the_first_output():
    intro = words(cell_source("02", "cell-00"))
    defined = intro.index("*desks*")
    assert defined < intro.index("(it goes to the other desk)")
    printed = words(cell_outputs("02", "cell-01"))
    assert "A writer proposes facts" not in printed
    assert "A third agent, the writer" in printed


def test_a_desk_is_defined_once():
    student = plain_words(" ".join(_code(c) for c in _student_cells() if c["cell_type"] == "markdown"))
    assert student.count("desks, chat agents") == 1
    assert "a desk is one MAF `Agent`" not in student


# --- finding 7: the desks' instructions are shown where their count is used ---


def test_the_desks_instructions_are_printed_where_their_count_is_first_used():
    printed = words(cell_outputs("02", "hood-chars-sent"))  # walk 25: the sums went under the hood
    triage = DESK_INSTRUCTIONS_BY_NAME["triage"]
    assert f"triage desk ({len(triage)} characters): {triage}" in printed
    assert printed.index(triage) < printed.index(f"{len(triage)} of instructions")
    earlier = " ".join(cell_outputs("02", c["id"]) for c in _cells()[: _ids().index("hood-chars-sent")] if c.get("id"))
    assert f"{len(triage)} of instructions" not in earlier


def _ids() -> list[str]:
    return [c.get("id") for c in _cells()]


# --- finding 8: the cost of forgetting one key ---


def test_section_4_says_forgetting_one_key_costs_both_whole_conversations():
    said = words(cell_source("02", "cell-12"))
    assert "forgetting one key also throws away both desks' whole conversations" in said


# --- finding 9: dense sentences made plain ---


def test_the_objectives_say_the_refusals_and_the_cut_reply_in_two_plain_bullets():
    intro = cell_source("02", "cell-00")
    bullets = [words(b) for b in intro.split("\n- ")[1:]]
    assert "watch plain code refuse three wrong proposals from a model; each time, the previous facts stay;" in bullets
    assert any(b.startswith("see what a reply cut off before its end does: nothing is checked") for b in bullets)
    assert "a fourth, a reply cut off" not in words(intro)


def test_the_side_note_says_the_count_is_a_number_only_in_plain_words():
    note = words(cell_source("02", "46669f8a"))
    assert "never which" not in note
    assert "The count is only a number: the model must still find each key and value in the message" in note


def test_the_takeaways_say_the_store_writes_and_the_host_checks():
    takeaways = words(cell_source("02", "student-takeaways"))
    assert "the host stores" not in takeaways
    assert "the store writes a batch only when the host check finds it matches" in takeaways
