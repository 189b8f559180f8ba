"""Lesson 07, walk 23's second student (issue 32): "one real bug when cells are re-run out of order; prose dense in
places; section 8 claims a student cannot check".

1. Section 1 and its prose sample both assigned ``superseded``, which section 5 and the hood read: re-running
   section 1's cell changed a verdict of section 5. Every name a cell reads from another cell is made by one cell.
2. Section 8 walked the generated timeline's evictions turn by turn with no table of the turns: one is computed.
3. The opening line repeated the title with a bracketed definition.
4. A violation said "states module=Reporting as current" of an answer that never wrote ``module=Reporting``.
5. "a User message" read like a typo: "a user-role message".
6. Section 4's eviction table came before the walk that explains its "back in the store" row.
7. The panel's table cut a long stated value, and its feedback printed it whole: one shortening rule for both.
8. Section 9's store holds no ``product``: the lesson says when it went.
"""

from __future__ import annotations

import ast
import builtins
import re

from support.capstone_battery import SUPERSEDED, lesson_store
from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, words

from course_lib.answer_reader import check_answer, problems, shown_value
from course_lib.capstone import (
    STORE_TURN_COLUMNS,
    capstone_policy,
    feedback_text,
    run_capstone,
    sample_store,
    store_turns,
)
from course_lib.capstone_panel import CapstonePanel, feedback_html, said_in_answer, violation_rows
from course_lib.extraction import make_extraction
from course_lib.policies import generate_timeline, load_timeline

OPENING = "6ae511d1"
SECTION_1_CODE = "61c6898f"
PROSE_SAMPLE_CODE = "7ee6c80a"
MISREAD_CELL = "d30777ae"
HOOD_FROM = "hood-from"
SECTION_2 = "27df2e29"
SECTION_4_WALK = "5e87e929"
SECTION_4_TABLE = "e07b8fae"
SECTION_8 = "ef3b5c5e"
SECTION_8_TURNS = "generated-store-turns"
SECTION_8_REPAIRS = "099389f2"
PANEL_INTRO = "capstone-panel-intro"


def _code_cells() -> list[dict]:
    """Every code cell a student runs, the hood's included (the Colab set-up cell is not the lesson's)."""
    return [
        c
        for c in stored_lesson("07")["cells"]
        if c["cell_type"] == "code" and "colab-setup" not in c.get("metadata", {}).get("tags", [])
    ]


def _bindings(code: str) -> tuple[dict[str, str], set[str]]:
    """What a cell binds (name -> how: the import it names, or "assigned") and the names it reads before binding."""
    bound: dict[str, str] = {}
    free: set[str] = set()
    for statement in ast.parse(code).body:
        made: dict[str, str] = {}
        read: set[str] = set()
        for node in ast.walk(statement):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store | ast.Del):
                    made.setdefault(node.id, "assigned")
                else:
                    read.add(node.id)
            elif isinstance(node, ast.alias):
                module = statement.module if isinstance(statement, ast.ImportFrom) else ""
                made[(node.asname or node.name).split(".")[0]] = f"import {module}.{node.name}"
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                made[node.name] = "assigned"
            elif isinstance(node, ast.arg):
                made[node.arg] = "assigned"
        free |= read - set(bound) - set(made)
        for name, how in made.items():
            bound.setdefault(name, how)
    return bound, free - set(dir(builtins)) - {"display", "get_ipython"}


def shared_names(cells: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each name a cell reads from another cell that more than one cell binds (the same import twice is one
    meaning): re-running one of them out of order changes what the reader sees. Name -> the cells binding it."""
    binders: dict[str, list[tuple[str, str]]] = {}
    readers: set[str] = set()
    for cell_id, code in cells:
        bound, free = _bindings(code)
        readers |= free
        for name, how in bound.items():
            binders.setdefault(name, []).append((cell_id, how))
    shared = {}
    for name in sorted(readers & set(binders)):
        hows = {how for _, how in binders[name]}
        if len(binders[name]) > 1 and (len(hows) > 1 or "assigned" in hows):
            shared[name] = [cell for cell, _ in binders[name]]
    return shared


# --- finding 1: a name read across cells has one meaning ---


def test_the_shared_names_rule_sees_a_name_two_cells_assign_and_a_third_reads():
    cells = [("a", "superseded = {}"), ("b", "store, superseded = f()"), ("c", "print(superseded)")]
    assert shared_names(cells) == {"superseded": ["a", "b"]}
    assert shared_names([("a", "from m import f"), ("b", "from m import f"), ("c", "f()")]) == {}
    assert shared_names([("a", "x = 1\nprint(x)"), ("b", "x = 2\nprint(x)")]) == {}  # each reads its own


def test_every_name_a_lesson_07_cell_reads_from_another_cell_is_made_by_one_cell():
    cells = [(c.get("id", "?"), "".join(c["source"])) for c in _code_cells()]
    assert shared_names(cells) == {}


def test_section_5_and_the_hood_read_the_prose_samples_own_superseded_values():
    for cell in (MISREAD_CELL, HOOD_FROM):
        code = cell_source("07", cell)
        assert "prose_superseded" in code and not re.search(r"(?<!_)\bsuperseded\b", code), cell
    assert "prose_store, prose_superseded = sample_store()" in cell_source("07", PROSE_SAMPLE_CODE)


def test_the_prose_store_and_section_1s_store_replace_different_values():
    """Why one name for both was a bug: section 1 replaced only the module."""
    _, prose_superseded = sample_store()
    assert set(prose_superseded) == {"module", "database"}
    assert "superseded = {}" in cell_source("07", SECTION_1_CODE)


# --- finding 2: section 8's generated turns, computed ---


async def test_the_store_of_5_turn_by_turn_is_what_section_8_says():
    rows = {row["turn"]: row for row in await store_turns(generate_timeline(12), 5)}
    assert list(rows) == list(range(1, 12))  # every turn before the final question
    assert set(rows[1]) == set(STORE_TURN_COLUMNS)
    assert len(rows[3]["the store after it"].split(", ")) == 5  # full after turn 3
    pushed = {turn: row["pushed out"] for turn, row in rows.items()}
    assert (pushed[4], pushed[5], pushed[6]) == ("database", "module", "constraint and product")
    assert (pushed[10], pushed[11]) == ("database", "module")
    assert rows[6]["the turn declared"] == "database=SQL Server 2022, module=Billing"
    said = words(cell_source("07", SECTION_8))
    assert "turns 4 and 5 push out `database` and then `module`" in said
    assert "they push out `product` and the constraint" in said
    assert "at turns 10 and 11" in said


async def test_the_turns_table_is_the_store_the_runs_were_held_to():
    run = await run_capstone(
        generate_timeline(12), capstone_policy("full_history", max_facts=5), "earliest", max_facts=5
    )
    rows = await store_turns(generate_timeline(12), 5)
    from_table = {(row["turn"], key) for row in rows if row["pushed out"] != "nothing" for key in _keys(row)}
    assert from_table == {(e.turn, e.key) for e in run.evictions}


def _keys(row: dict) -> list[str]:
    return row["pushed out"].replace(" and ", ", ").split(", ")


def test_section_8_shows_the_turns_table_right_after_the_walk_it_proves():
    ids = [c.get("id") for c in stored_lesson("07")["cells"]]
    assert ids.index(SECTION_8) + 1 == ids.index(SECTION_8_TURNS) < ids.index(SECTION_8_REPAIRS)
    shown = cell_outputs("07", SECTION_8_TURNS)
    for column in STORE_TURN_COLUMNS:
        assert column in shown
    assert "constraint and product" in shown and "database=SQL Server 2022, module=Billing" in shown
    assert "store_turns(" in cell_source("07", SECTION_8_TURNS)


# --- finding 3: the opening sentence ---


def test_the_opening_sentence_defines_the_controlled_facts_without_a_bracket():
    first = "".join(stored_lesson("07")["cells"][0]["source"]).split("\n\n")[1]
    assert first.startswith("In this lesson, every answer is checked against the facts the user declared")
    assert "*controlled facts*" in first and "(" not in first
    assert "held true to" not in cell_source("07", OPENING)


# --- finding 4: a violation names the value, not a key=value form the answer never wrote ---


def test_a_stated_value_is_named_as_the_current_value_of_its_key():
    store, superseded = sample_store()
    for answer in ("You are on Reporting.", "The module is Reporting.", "module=Reporting."):
        (violation,) = check_answer(store.facts, answer, "Which module?", superseded)
        assert violation.problem == "your answer names Reporting as the current module."
    said = problems(check_answer(store.facts, "You're on Reporting with PostgreSQL.", "", superseded))
    assert "=" not in said and "names PostgreSQL as the current database" in said


def test_lesson_07_never_says_an_answer_states_a_key_value_form():
    for cell in _code_cells():
        shown = "".join(
            "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
            for o in cell.get("outputs", [])
        )
        assert not re.search(r"states \w+=", shown), cell.get("id")
    assert "names Reporting as the current module" in cell_outputs("07", SECTION_1_CODE)


# --- finding 5: a user-role message ---


async def test_the_lesson_and_the_panel_say_user_role_message():
    text = "\n".join("".join(c["source"]) for c in stored_lesson("07")["cells"])
    assert "User message" not in text
    # walk 25 (third round): the message is named by its marker, added as a user-role message marked as the loop's
    assert "a `[facts check]` message. The loop adds it as a user-role message" in words(cell_source("07", SECTION_2))
    panel = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    panel.answer.value = "module=Reporting"
    result = await panel.check()
    assert "a user-role message added by" in feedback_html(result) and "User message" not in feedback_html(result)


# --- finding 6: section 4's walk comes before the table it explains ---


def test_section_4s_walk_comes_before_its_eviction_table():
    ids = [c.get("id") for c in stored_lesson("07")["cells"]]
    assert ids.index(SECTION_4_WALK) + 1 == ids.index(SECTION_4_TABLE)
    walk = plain_words(cell_source("07", SECTION_4_WALK))
    assert walk.index("at turn 4 `version` pushed out `database`") < walk.index("pushed out by")
    assert "`database` had been pushed out at turn 4, so it came back" in walk  # walk 25's wording


# --- finding 7: one shortening rule for a long stated value, in the table and in the feedback ---


async def test_a_long_stated_value_is_shortened_alike_in_the_table_and_the_feedback():
    for answer in ["module=" + "Reporting" * 60, "module=" + "R" * 600, "module=" + "Reporting " * 60]:
        panel = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
        panel.task.index = 1
        panel.answer.value = answer
        result = await panel.check()
        (row,) = violation_rows(result)
        feedback = result.sent_back.text
        assert row["your answer says"] in feedback, (row, feedback)
        assert max(len(word) for word in feedback.split()) < 80, feedback
        assert len(feedback) < 400


def test_the_shortening_helper_keeps_a_short_value_and_marks_a_cut():
    assert shown_value("Reporting") == "Reporting"
    assert shown_value("Reporting" * 60).endswith("\u2026 (540 characters)")
    assert shown_value(("Reporting " * 60).strip()).endswith("\u2026")
    assert said_in_answer("Reporting" * 60, "module=" + "Reporting" * 60) == shown_value("Reporting" * 60)


def test_the_loop_feedback_quotes_a_long_value_as_the_panel_does():
    store, superseded = sample_store()
    for long in ("module=" + "Payroll" * 90, "module=" + "Payroll" * 30):  # read in part; read whole
        (violation,) = check_answer(store.facts, long, "", superseded)
        text = feedback_text([violation])
        assert f"your answer names {shown_value(violation.stated)} as the current module." in text
        assert "Payroll" * 7 not in text


# --- finding 8: the panel's store says where product went ---


async def test_section_9_says_product_went_at_turn_9_as_the_panels_store_shows():
    timeline = load_timeline()
    panel = await CapstonePanel.from_timeline(timeline)
    keys = {f.key for f in panel.extraction.memory.facts}
    assert len(keys) == 8 and "product" not in keys and "constraint" in keys
    rows = await store_turns(timeline, 8)
    went = [row["turn"] for row in rows if "product" in _keys(row)]
    assert went == [9] and rows[8]["the turn declared"].startswith("log=")
    said = plain_words(cell_source("07", PANEL_INTRO))
    assert "`product` is not: `log`, the ninth key, pushed it out at turn 9" in said
