"""Lesson 03's third walk (issue 32): why the provider has a gate, what the race cell sets up, characters and tokens
in one plain sentence, a specific hint for Exercise 3's answer 4, the log sentence naming the calls that sent a
forgotten value, the desk chat saying the value it stored, and the under-the-hood cross reference to the value rule.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words
from support.panels import last_in_chat, send, two_desks

from course_lib.exercises import check, exercise
from course_lib.providers import course_provider_desks, stored_as_notes, value_in_words
from course_lib.tracing import CallLog, log_after_forget

# --- 1. section 5 says why the provider brings its own middleware ---


def test_section_5_says_why_the_gate_runs_first() -> None:
    said = words(cell_source("03", "attach-md"))
    assert "it sees exactly the messages you passed to `run`" in said
    assert "It takes the store's *ticket*, the pass a write needs (lesson 01), before anything else is added." in said
    assert "Section 6 shows why that order matters." in said


# --- 2. section 6 says what the race cell sets up ---


def test_section_6_says_what_the_race_cell_sets_up() -> None:
    said = words(cell_source("03", "race-md"))
    assert "`GatedWriter`" in said and "waits until" in said
    assert "`slow.release()`" in said
    assert "`asyncio.create_task`" in said and "in the background" in said
    race = cell_source("03", "cell-18")  # what the words name, the cell runs
    assert "GatedWriter(" in race and "slow.release()" in race and "asyncio.create_task(" in race


# --- 3. characters, not tokens: one plain sentence ---


def test_section_8_says_characters_and_tokens_in_a_plain_sentence() -> None:
    said = words(cell_source("03", "hood-one-desk"))  # fourth walk 25: moved under the hood (word budget)
    assert "(Characters, not tokens" not in said
    assert "Model services count and bill *tokens*, pieces of words, not characters" in said
    assert "offline models, scripted stand-ins for a real LLM" in said


# --- 4. Exercise 3's answer 4: the logs question went to operations ---


def test_exercise_3_answer_4_is_told_the_logs_question_went_to_operations() -> None:
    ex = exercise("03", "Exercise 3")
    said = check("Exercise 3", 4, 2, ex.hint, namespace={"answer_3": 4})
    assert "not quite" in said
    flat = words(said)
    assert "went to the operations desk" in flat
    assert "[operations]" in flat  # what to look at in section 3's output
    assert "[operations] You asked: 'Where can I find logs?'" in cell_outputs("03", "cell-10")


# --- 5. the log sentence names the calls that sent the value ---


async def test_the_log_sentence_names_the_calls_that_sent_the_value() -> None:
    log = CallLog()
    desks = course_provider_desks(log, ("triage", "operations"))
    await desks.handle("module=Reporting; database=PostgreSQL")
    await desks.handle("module=Billing; database=SQL Server 2022")
    await desks.handle("Where can I find logs?")
    forgotten_at = len(log)
    await desks.handle("forget module")
    said = log_after_forget(log, "Billing", forgotten_at, "forget module")
    assert "3 sent it (one call each to the triage desk, the writer and the operations desk)" in said, said
    await desks.handle("Our module is Billing again")
    said = log_after_forget(log, "Billing", forgotten_at, "forget module")
    assert "3 sent it (one call each to" in said  # the calls made since are not named among those before


def test_lesson_03_prints_which_calls_sent_it() -> None:
    printed = words(cell_outputs("03", "log-keeps"))
    assert re.search(r"\d+ sent it \(one call each to the triage desk, the writer and the operations desk\)", printed)


# --- 6. the desk chat says the value the store kept ---


def test_a_value_of_several_words_is_said_as_stored() -> None:
    assert 'the value of priority is "P0 please"' in value_in_words("priority=P0 please")


async def test_the_desk_chat_shows_the_stored_value_of_words_typed_after_a_value() -> None:
    panel = two_desks()
    await send(panel, "priority=P0 please")
    chat = last_in_chat(panel)
    assert 'priority is stored as "P0 please"' in chat, chat
    await send(panel, "module=Billing")  # a one-word value needs no such line
    assert "is stored as" not in last_in_chat(panel)


async def test_stored_as_notes_follow_the_rule_not_one_input() -> None:
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    event = await desks.handle("customer=Fabrikam Ltd; version=4.2")
    assert event.report is not None
    notes = stored_as_notes(event.report)
    assert len(notes) == 1 and 'customer is stored as "Fabrikam Ltd"' in notes[0]
    refused = await desks.handle("Where can I find logs?")
    assert refused.report is not None and stored_as_notes(refused.report) == []


# --- 7. cross references name the section that holds what they point to ---


def _sections() -> dict[str, str]:
    """Each numbered section's markdown and code, by number."""
    found: dict[str, str] = {}
    number = ""
    for cell in stored_lesson("03")["cells"]:
        text = "".join(cell["source"])
        if heading := re.match(r"## (\d+)\.", text):
            number = heading.group(1)
        elif text.startswith("## "):
            number = ""
        if number:
            found[number] = found.get(number, "") + "\n" + text
    return found


def test_the_hood_points_to_the_section_that_states_the_value_rule() -> None:
    sections = _sections()
    # fourth walk 25: one name for the rule, the section that states it (section 9's cell only prints it)
    holder = next(n for n, text in sections.items() if "a value ends at `;` or at the end of the line" in text)
    hood = words(cell_source("03", "72291c68-hood"))
    assert f"(section {holder}'s value rule)" in hood
    assert "(section 7's rule)" not in hood
