"""Defects a student's walk 16 of lessons 05-07 found (issue 32), each reproduced, then held fixed at the rule."""

import re

from support.capstone_battery import PLAN, SUPERSEDED, lesson_store, store_of
from support.lesson_cells import stored_lesson

from course_lib.answer_reader import check_answer
from course_lib.capstone_panel import CapstonePanel, example_answers
from course_lib.extraction import make_extraction

ASK = "Which module and database are we on?"


def doubled_marks(text: str) -> list[str]:
    """A value's own final punctuation left inside a sentence: "Payroll. and", "PostgreSQL.:", "Payroll. |"."""
    return re.findall(r"\w[.!?](?= and| \||[:;,.]| on| now)", text)


def test_the_try_answers_state_a_replaced_value_without_its_final_punctuation():
    memory = store_of("module=Billing", "database=SQL Server 2022", "constraint=never restart the database")
    superseded = {"module": ["Payroll."], "database": ["PostgreSQL!"]}
    for task in (PLAN, ASK):
        answers = example_answers(memory.facts, superseded, task)
        assert "a stale one" in answers and "a history" in answers, task
        for name, text in answers.items():
            assert doubled_marks(text) == [], (task, name, text)
        assert "Payroll" in answers["a stale one"] and "PostgreSQL" in answers["a history"]
        # the stale one is still flagged for its replaced value, the history still passes
        stale = {v.fact.key for v in check_answer(memory.facts, answers["a stale one"], task, superseded)}
        assert {"module", "database"} <= stale, task
        history = [v.fact.key for v in check_answer(memory.facts, answers["a history"], task, superseded)]
        assert "database" not in history and "module" not in history, task


async def test_after_payroll_with_a_period_then_billing_the_stale_try_answer_reads_as_a_sentence():
    p = CapstonePanel(make_extraction(lesson_store()), superseded=SUPERSEDED)
    p.task.index = 1  # the question that plans nothing
    for message in ("module=Payroll.", "module=Billing"):
        p.message.value = message
        p.submit_button.click()
        await p.idle()
    stale = dict((label, value) for label, value in p.examples.options)["a stale one"]
    assert stale == "The module is Payroll and the database is PostgreSQL."


def lesson_cells(number: str) -> list[dict]:
    return stored_lesson(number)["cells"]


def text_of(cell: dict) -> str:
    return "".join(cell["source"])


def printed(cell: dict) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def cell_saying(number: str, words: str) -> dict:
    (cell,) = [c for c in lesson_cells(number) if words in text_of(c)]
    return cell


def words(text: str) -> str:
    return " ".join(text.split())


def test_lesson_05_names_the_given_evaluator_and_says_what_the_fresh_option_keeps_fixed():
    assert "whose evaluator is `stop_at_5`" in words(text_of(cell_saying("05", "**Exercise 3.**")))
    after_chart = words(text_of(cell_saying("05", "## 4. Streaming gives the same run")))
    assert "keeps the input from growing" not in after_chart
    assert "keeps the number of messages fixed from the second call on" in after_chart
    # the sentence names the LoopAgent the seed describes; which MAF it is (.NET, C#) is under the hood (walk 22)
    section_2 = words(text_of(cell_saying("05", "## 2. The seed's demo")))
    assert "contradicts" not in section_2 and ".NET" not in section_2  # walk 22: said under the hood only


def test_lesson_05_hood_row_3_has_no_second_quote_and_its_intro_says_why():
    table = text_of(cell_saying("05", "### Where the seed contradicts itself"))
    (row_3,) = [line for line in table.splitlines() if line.startswith("| `MaxIterations`")]
    assert row_3.split(" | ")[2] == "—"  # walk 24: the column "and in another"
    assert "its demo never sets the option, so its output cannot show the difference" in words(table)


def test_lesson_06_defines_the_feedback_log_and_both_roles_and_when_the_second_evaluator_is_asked():
    section_4 = words(text_of(cell_saying("06", "## 4. Choosing the next messages yourself")))
    assert "the second is not asked at that iteration" in section_4
    assert "the list of every feedback the loop has sent so far (the *feedback log*)" in section_4
    assert 'a *role* (who is speaking: "user" or "assistant")' in section_4
    section_5 = words(text_of(cell_saying("06", "## 5. A judge")))
    assert "the course's job name for a model" in section_5 and "*role*" not in section_5  # walk 22: one meaning


def test_lesson_07_first_rule_cell_shows_each_way_its_prose_names():
    cell = cell_saying("07", 'rule = "never restart the production database during business hours"')
    assert "declare(store, said, superseded)" in text_of(cell)  # walk 22: the replaced values kept by declare
    shown = printed(cell)
    assert "values a correction replaced: module was Reporting" in shown
    for answer in ("module=Reporting.", "The module is Reporting.", "You are on Reporting."):
        assert answer in shown, answer
    # one violation per way: the contract's form, a sentence, the replaced value named without its key
    assert shown.count("your answer names Reporting as the current module.") == 3


def test_lesson_07_quotes_the_mysql_row_as_written_and_exercise_1_does_not_answer_itself():
    prose = words(text_of(cell_saying("07", "### Answers written as prose")))
    assert '"Use MySQL for the database"' in prose
    assert "Use MySQL for the database and Billing for the module." in printed(
        cell_saying("07", "from course_lib.capstone import PROSE_SAMPLE, sample_store")
    )
    assert "drift-prone" not in text_of(cell_saying("07", "**Exercise 1.**"))
