"""Lesson 07's panel, driven without a browser: pick or type an answer, click, read the verdict and the feedback."""

import pytest
from support.capstone_battery import SUPERSEDED, lesson_store

from course_lib.capstone import FEEDBACK_HEADER, check_answer, feedback_text, plans_action
from course_lib.capstone_panel import (
    MAX_ANSWER_CHARS,
    CapstonePanel,
    check_in_loop,
    shared_second_note,
    violation_rows,
)
from course_lib.extraction import make_extraction
from course_lib.policies import load_timeline
from course_lib.presentation import recorded_time


def panel(task: int = 0) -> CapstonePanel:
    """The panel on the lesson's store; ``task`` 0 plans an action (the constraint is due), 1 only asks."""
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = task
    return p


def pick(panel: CapstonePanel, label: str) -> str:
    text = dict(panel.examples.options)[label]
    panel.examples.value = text
    return text


async def check(panel: CapstonePanel, text: str | None = None) -> None:
    if text is not None:
        panel.answer.value = text
    panel.check_button.click()
    await panel.idle()


async def test_a_new_panel_shows_the_store_the_replaced_values_and_no_verdict():
    p = panel()
    assert "SQL Server 2022" in p.table.value and "Billing" in p.table.value
    assert 'module: "Reporting"; database: "PostgreSQL"' in p.replaced.value
    assert "the Answer box is empty" in p.verdict.value and p.feedback.value == "" and p.check_button.disabled
    assert repr(p) == "[Capstone panel: interactive, run this cell in Jupyter to use it]"


async def test_the_right_answer_has_no_violation_and_the_loop_sends_nothing_back():
    p = panel()
    text = pick(p, "a right one")
    assert p.answer.value == text and not p.check_button.disabled
    await check(p)
    assert "No violation" in p.verdict.value and "carries every stored constraint (the task and" in p.verdict.value
    assert "sends nothing back" in p.feedback.value and p.result is not None and p.result.sent_back is None


async def test_a_stale_answer_gets_each_violation_and_the_loops_own_feedback_message():
    p = panel()
    text = pick(p, "a stale one")
    await check(p)
    rows = violation_rows(p.result)
    assert [(r["key"], r["your answer says"], r["the store holds"]) for r in rows] == [
        ("module", "Reporting", "Billing"),
        ("database", "PostgreSQL", "SQL Server 2022"),
        ("constraint", "(nothing: the constraint is missing)", rows[2]["the store holds"]),
    ]
    assert "a correction replaced" in rows[0]["why"] and '"module=Billing" at turn 4' in rows[0]["why"]
    assert rows[2]["why"].startswith("the task and your answer plan an action")
    sent = p.result.sent_back
    expected = feedback_text(check_answer(p.extraction.memory.facts, text, p.task.value, SUPERSEDED))
    assert sent.role == "user" and sent.text == expected  # the loop's message, as the evaluator wrote it
    assert sent.additional_properties["_attribution"]["source_id"] == "loop"
    assert "3 violations" in p.verdict.value and "LoopAgent" in p.feedback.value
    assert FEEDBACK_HEADER in p.feedback.value


async def test_a_value_the_store_never_held_is_named_so():
    p = panel()
    pick(p, "a value the store never held")
    await check(p)
    (row,) = violation_rows(p.result)
    assert row["your answer says"] == "MariaDB 11" and 'never held "MariaDB 11" for database' in row["why"]


async def test_a_question_that_plans_nothing_does_not_ask_for_the_constraint():
    p = panel(task=1)
    assert p.task.value == "Which module and database are we on?"
    await check(p, "The module is Billing and the database is SQL Server 2022.")
    assert "No violation" in p.verdict.value and "constraint" not in p.verdict.value  # no plan: none was due


async def test_a_correction_in_the_store_makes_the_old_value_stale_and_clears_the_verdict():
    p = panel(task=1)
    await check(p, "module=Billing")
    assert "No violation" in p.verdict.value
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    assert {f.key: f.value for f in p.extraction.memory.facts}["module"] == "Payroll"
    assert "<i>Press Check answer to hold this answer to the store.</i>" in p.verdict.value  # it answered the old store
    assert 'module: "Reporting", "Billing" (replaced at turn 6)' in p.replaced.value
    await check(p)
    (row,) = violation_rows(p.result)
    assert (row["key"], row["your answer says"], row["the store holds"]) == ("module", "Billing", "Payroll")
    assert "Payroll" in pick(p, "a right one")  # the answers to try follow the store
    await check(p)
    assert "No violation" in p.verdict.value
    assert "The module is Billing" in pick(p, "a stale one")  # the value the student's own correction replaced
    await check(p)
    assert "correction replaced" in violation_rows(p.result)[0]["why"]


async def test_a_forgotten_key_is_held_against_no_answer_and_its_old_values_go_too():
    p = panel(task=1)
    p.key.value = "module"
    p.forget_key_button.click()
    await p.idle()
    assert "module" not in {f.key for f in p.extraction.memory.facts} and "module" not in p.superseded
    await check(p, "The module is Reporting.")
    assert "No violation" in p.verdict.value
    p.forget_all_button.click()
    await p.idle()
    await check(p, "module=Payroll; database=Oracle")
    assert "the store is empty, so there is nothing to hold the answer to" in p.verdict.value and p.superseded == {}


async def test_changing_the_answer_or_the_task_takes_the_verdict_off_the_screen():
    p = panel(task=1)
    await check(p, "module=Reporting")
    assert "1 violation" in p.verdict.value and p.feedback.value
    p.answer.value = "module=Reporting."
    assert "Press Check answer" in p.verdict.value and p.feedback.value == "" and p.result is None
    await check(p)
    p.task.index = 0
    assert "Press Check answer" in p.verdict.value and p.result is None
    p.answer.value = "  \n "
    assert p.check_button.disabled and "the Answer box is empty" in p.verdict.value


@pytest.mark.parametrize(
    ("answer", "rule"),
    [("", "The answer is empty"), ("x" * (MAX_ANSWER_CHARS + 1), f"at most {MAX_ANSWER_CHARS:,} characters")],
)
async def test_an_answer_the_panel_cannot_check_is_refused_in_words_and_changes_nothing(answer, rule):
    p = panel()
    before = p.extraction.memory.facts
    p.answer.value = answer
    await p.check()  # the box's button is disabled when empty: the refusal is the panel's own rule
    assert "Refused:" in p.verdict.value and rule in p.verdict.value and p.result is None
    assert p.extraction.memory.facts == before
    with pytest.raises(ValueError, match=rule.split(" ")[0]):
        await check_in_loop(p.extraction, p.task.value, answer, SUPERSEDED)


@pytest.mark.parametrize(
    "answer",
    [
        "<script>alert(1)</script> module=<b>Reporting</b>",
        "| key | value |\n|---|---|\n| module | Reporting |",
        "# Module: **Reporting** \u2014 base de donn\u00e9es \U0001f680 \u05e9\u05dc\u05d5\u05dd",
        "module=" + "Reporting" * 400,
    ],
)
async def test_odd_answers_are_checked_and_shown_escaped_and_short(answer):
    p = panel()
    await check(p, answer)
    assert "<script>" not in p.verdict.value + p.feedback.value and "<b>Reporting" not in p.verdict.value
    assert "module" in p.verdict.value and "violation" in p.verdict.value
    longest = max(len(row["your answer says"]) for row in violation_rows(p.result))
    assert longest < 200  # a long stated value is shortened in the table, the rest of the row stays readable


async def test_the_facts_blocks_own_frame_in_an_answer_is_named_and_changes_no_fact():
    p = panel()
    before = p.extraction.memory.facts
    await check(p, p.extraction.memory.to_prompt_block())
    assert "repeats the controlled-facts block" in p.verdict.value
    assert p.extraction.memory.facts == before
    await check(p, feedback_text(check_answer(before, "module=Reporting")))
    assert "repeats the facts check" in p.verdict.value and p.extraction.memory.facts == before


async def test_the_panel_from_the_timeline_holds_the_store_of_the_final_question():
    timeline = load_timeline()
    p = await CapstonePanel.from_timeline(timeline)
    held = {f.key: f.value for f in p.extraction.memory.facts}
    assert held["module"] == "Billing" and held["database"] == "SQL Server 2022" and "constraint" in held
    assert p.superseded == {"module": ["Reporting"], "database": ["PostgreSQL"]}
    assert p.task.value == timeline.turns[-1].user and p.task.options[1] == "Which module and database are we on?"
    assert "turn 9" in p.ticket.value and "capstone-panel" in p._dom_classes
    pick(p, "a stale one")
    await check(p)
    assert {r["key"] for r in violation_rows(p.result)} == {"module", "database", "constraint"}


async def test_a_verdict_computed_while_the_answer_changed_is_not_shown():
    p = panel(task=1)
    p.answer.value = "module=Reporting"
    p.check_button.click()  # scheduled: it runs once the test awaits
    p.answer.value = "module=Billing"
    await p.idle()
    assert p.result is None and "Press Check answer" in p.verdict.value and p.feedback.value == ""


@pytest.mark.parametrize(
    ("task", "answer", "planner", "absent"),
    [
        (1, "The module is Reporting: restart it tonight.", "your answer plans an action", "the task"),
        (0, "The module is Reporting.", "the task plans an action", "your answer plans"),
        (0, "The module is Reporting: restart it tonight.", "the task and your answer plan an action", None),
    ],
)
async def test_a_missing_constraint_names_what_planned_the_action_in_the_why_and_the_feedback(
    task, answer, planner, absent
):
    p = panel(task)
    await check(p, answer)
    row = violation_rows(p.result)[-1]
    assert row["key"] == "constraint" and row["why"].startswith(planner)
    assert planner in p.result.sent_back.text  # the loop's feedback says what the table says
    assert absent is None or absent not in row["why"] + p.result.sent_back.text


async def test_each_replaced_value_keeps_the_correction_that_replaced_it():
    p = await CapstonePanel.from_timeline(load_timeline())
    p.task.index = 1
    p.message.value = "module=Payroll"
    p.submit_button.click()
    await p.idle()
    payroll = next(f for f in p.extraction.memory.facts if f.key == "module")
    assert '"Reporting" (replaced at turn 6)' in p.replaced.value
    assert f'"Billing" (replaced at turn {payroll.turn})' in p.replaced.value
    await check(p, "The module is Reporting.")
    (row,) = violation_rows(p.result)
    assert row["why"] == (  # the chain in order (walk 19): Billing is not current
        f'"Billing" replaced it at turn 6, then "Payroll" replaced "Billing" at turn {payroll.turn}; the store holds '
        '"Payroll".'
    )
    await check(p, "The module is Billing.")
    (row,) = violation_rows(p.result)
    assert f'the user said "module=Payroll" at turn {payroll.turn}' in row["why"] and "turn 6" not in row["why"]


async def test_typing_an_answer_of_your_own_puts_the_try_menu_back_to_its_prompt():
    p = panel()
    pick(p, "a stale one")
    assert p.examples.label == "a stale one"
    p.answer.value += " And more."
    assert p.examples.value == "" and p.examples.label == "(pick an answer to fill the box)"
    pick(p, "a right one")
    assert p.examples.label == "a right one"  # picking again still fills the box


@pytest.mark.parametrize("task", [0, 1])
async def test_the_answers_to_try_fit_the_task_chosen(task):
    p = panel(task)
    examples = dict(p.examples.options)
    del examples["(pick an answer to fill the box)"]
    asks_for_action = plans_action(p.task.value)
    assert all(plans_action(text) == asks_for_action for text in examples.values())  # a plan only when asked for
    await check(p, examples["a right one"])
    assert "No violation" in p.verdict.value
    await check(p, examples["a stale one"])
    keys = [r["key"] for r in violation_rows(p.result)]
    assert keys == ["module", "database", "constraint"] if asks_for_action else ["module", "database"]
    p.task.index = 1 - task  # another task: other answers to try, the menu back to its prompt
    assert p.examples.label == "(pick an answer to fill the box)" and dict(p.examples.options) != {
        "(pick an answer to fill the box)": "",
        **examples,
    }


async def test_an_empty_answer_says_why_check_is_off():
    p = panel()
    assert p.check_button.disabled and "the Answer box is empty" in p.verdict.value
    p.answer.value = "  \n "
    assert p.check_button.disabled and "the Answer box is empty" in p.verdict.value
    p.answer.value = "module=Billing"
    assert not p.check_button.disabled and "Press Check answer" in p.verdict.value


async def test_the_message_boxs_example_is_the_correction_the_instructions_suggest():
    """The box showed lesson 02's "module=Billing; database=SQL Server 2022" (what the store already holds) while the
    words beside it said to type module=Payroll: the example a student sees is the correction the panel suggests."""
    p = panel()
    suggested = p.message.placeholder.removeprefix("e.g. ")  # an example, read as one (issue 32)
    assert suggested == "module=Payroll" and f"<code>{suggested}</code>" in p.children[0].value
    p.message.value = suggested
    p.submit_button.click()
    await p.idle()
    assert {f.key: f.value for f in p.extraction.memory.facts}["module"] == "Payroll"
    assert '"Billing" (replaced at turn' in p.replaced.value


async def test_a_value_current_again_is_not_listed_as_replaced_and_the_list_follows_turn_order():
    p = await CapstonePanel.from_timeline(load_timeline())  # module: Reporting, replaced by Billing at turn 6
    p.task.index = 1  # a question that plans nothing: only the module is checked
    turns = {}
    for value in ("Paie", "Billing", "Paie"):
        p.message.value = f"module={value}"
        p.submit_button.click()
        await p.idle()
        turns[value] = next(f.turn for f in p.extraction.memory.facts if f.key == "module")
    line = p.replaced.value
    assert "Paie" not in line  # the store holds Paie again: nothing replaced it
    assert line.index('"Reporting" (replaced at turn 6)') < line.index(f'"Billing" (replaced at turn {turns["Paie"]})')
    await check(p, "The module is Paie.")
    assert "No violation" in p.verdict.value


async def test_turns_stored_in_one_second_are_named_under_the_table_with_their_order_in_the_turn_column():
    """The walk saw one recorded time on every row and could not tell when each turn came: the note says why."""
    p = await CapstonePanel.from_timeline(load_timeline())
    turns = sorted({f.turn for f in p.extraction.memory.facts})
    if len({recorded_time(f) for f in p.extraction.memory.facts}) == 1:  # replayed within one second, as a rule
        assert len(turns) > 1  # the store holds several turns' facts, all stored when the cell ran
        assert "Every row shows the time the panel&#x27;s cell ran; the turn column gives the order" in p.times.value
    assert p.children.index(p.times) == p.children.index(p.table) + 1  # right under the table it explains


def test_the_shared_second_note_names_each_group_and_is_empty_when_every_turn_has_its_own_time(t0):
    from datetime import timedelta

    from course_lib.memory import FactCandidate, WorkingMemory

    memory = WorkingMemory()
    for second, text in [(0, "module=A"), (0, "database=B"), (5, "version=1")]:
        key, _, value = text.partition("=")
        candidate = FactCandidate(key=key, value=value, evidence=text)
        memory.apply(memory.begin_turn(text), [candidate], recorded_at=t0 + timedelta(seconds=second))
    note = shared_second_note(memory.facts)
    assert note.startswith("Turns 1 and 2 share one time, 12:00:00: they were stored in the same second; the")
    assert "turn column gives the order" in note and "3" not in note
    assert shared_second_note(memory.facts, replayed={1, 2, 3}).startswith("Every row shows the time the panel's cell")
    assert shared_second_note(memory.facts[-1:]) == ""
