"""Lesson 03's second walk 24 (issue 32): the findings "that would make it a 5", and the minor ones after them.

1. Section 5's filter paragraph says what a new session cannot clean; the hypothetical loop moved under the hood.
2. Section 5 ends by introducing ``provider_agent``; section 6's comment is true to it.
3. The intro's words list reminds ``WorkingMemory``, *contract*, *extraction* and *writer*.
4. Section 7 names the two providers that label their messages.
5. Section 8 says, computed, that the logs question reaches the same desk and its history grows.
6. The restart line says what a ``NameError`` means.
7. The offline desk answers a statement "You wrote:", a question "You asked:".
8. The desk panel's chat box is a whole number of lines high, so its top line is never cut in half.
"""

from __future__ import annotations

import re

from agent_framework import Message
from support.lesson_cells import cell_outputs, cell_source, stored_lesson, words

from course_lib.memory_models import OfflineAssistantClient


def _markdown(lesson: str = "03") -> list[dict]:
    return [c for c in stored_lesson(lesson)["cells"] if c["cell_type"] == "markdown"]


def _hood() -> str:
    cells = stored_lesson("03")["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))
    return " ".join(words("".join(c["source"])) for c in cells[start:] if c["cell_type"] == "markdown")


# --- finding 1 ---


def test_the_filter_paragraph_says_what_a_new_session_cannot_clean() -> None:
    said = words(cell_source("03", "attach-filter-md"))
    assert (
        "in place of a forgotten value in anything still about to be sent. That includes the messages of a run" in said
    )
    assert "Here it is on the operations desk's old reply" in said
    assert "Say a *loop*" not in said and "lesson 05" not in said
    hood = _hood()
    # walk 25: what a new session cannot clean moved under the hood, beside the loop that shows it
    assert "A new session can't clean a run that has already started: that run still holds the old messages." in hood
    assert "re-runs an agent until a check is met" in hood and "module=[forgotten]" in hood


# --- finding 2 ---


def test_section_5_introduces_provider_agent_and_section_6_says_what_it_adds() -> None:
    cells = stored_lesson("03")["cells"]
    ids = [c.get("id") for c in cells]
    between = cells[ids.index("attach-filter") + 1 : ids.index("race-md")]
    said = " ".join(words("".join(c["source"])) for c in between if c["cell_type"] == "markdown")
    assert (
        "From here on, cells build this agent in one call, "
        "`provider_agent(client, provider, name=..., instructions=...)`, which also adds the forget filter." in said
    )
    assert "race_agent = provider_agent(  # section 5's agent, plus the forget filter" in cell_source("03", "cell-18")
    assert "(provider, gate, forget filter)" not in cell_source("03", "cell-18")


def test_provider_agent_is_section_5_s_agent_plus_the_forget_filter() -> None:
    import inspect

    from course_lib import providers

    source = inspect.getsource(providers.provider_agent)
    assert "context_providers=[InMemoryHistoryProvider(), provider]" in source
    assert "middleware=[provider.gate]" in source and "hold_agent(" in source  # hold_agent is the forget filter


# --- finding 3 ---


def test_the_words_list_reminds_the_earlier_lessons_terms() -> None:
    top = words(cell_source("03", "cell-00"))
    assert (
        "Lesson 01's store is a `WorkingMemory`, and its *contract* is its rules. An *extraction* is lesson 02's "
        "step: a model, the *writer*, proposes facts from one message." in top
    )


# --- finding 4 ---


def test_section_7_names_the_two_providers_that_label_their_messages() -> None:
    said = words(cell_source("03", "72291c68"))
    assert "MAF's history provider and the facts provider label theirs for you" in said
    assert "The two providers label theirs" not in said


# --- finding 5 ---


async def test_section_8_says_the_logs_question_reaches_the_same_desk() -> None:
    from course_lib.providers import compare_injection, one_desk_note

    comparison = await compare_injection()
    note = one_desk_note(comparison)
    logs = comparison[comparison["line"] == "Where can I find logs?"]
    grown = {int(n) for n in logs["history messages after"]}
    assert len(grown) == 1
    (n,) = grown
    assert f"so the logs question goes to the same desk, and its history grows to {n}" in note
    # walk 25: the seed's other desk is said under the hood, not in the note
    assert "seed" not in note and "the seed sends `Where can I find logs?` to the other desk" in _hood()
    assert note in words(cell_outputs("03", "cell-20"))
    assert "one_desk_note(comparison)" in cell_source("03", "cell-20")


# --- finding 6 ---


def test_the_restart_line_says_what_a_name_error_means() -> None:
    top = words(cell_source("03", "cell-00")).replace("*", "")
    assert top.endswith("each builds on the ones above it.")  # fourth walk 25: the cells' own message says what to run


# --- finding 7 ---


def _reply(text: str) -> str:
    return OfflineAssistantClient().answer([Message(role="user", contents=[text])], {})


def test_the_offline_desk_answers_a_statement_as_written_and_a_question_as_asked() -> None:
    assert _reply("deployments failed").startswith("You wrote: 'deployments failed'.")
    assert _reply("Where can I find logs?").startswith("You asked: 'Where can I find logs?'.")
    assert _reply("  is it down?  ").startswith("You asked: 'is it down?'.")


async def test_the_desk_panel_says_you_wrote_for_a_statement() -> None:
    from course_lib.providers import course_provider_desks
    from course_lib.tracing import CallLog
    from course_lib.widgets import DeskPanel

    panel = DeskPanel(course_provider_desks(CallLog(), ("triage", "operations")))
    panel.line.value = "deployments failed"
    panel.send_button.click()
    await panel.idle()
    assert "You wrote: &#x27;deployments failed&#x27;" in panel.chat.value or "You wrote: 'deployments failed'" in (
        panel.chat.value
    )
    assert "You asked" not in panel.chat.value


# --- finding 8 ---


def test_the_chat_box_is_a_whole_number_of_lines_high() -> None:
    from course_lib.widgets import TRANSCRIPT_RULE, TRANSCRIPT_STYLE

    line = re.search(r"line-height: ([\d.]+)em", TRANSCRIPT_STYLE)
    assert line, TRANSCRIPT_STYLE
    height = re.search(r"max-height: calc\((\d+) \* ([\d.]+)em\)", TRANSCRIPT_STYLE)
    assert height and height.group(2) == line.group(1)
    assert f"padding-top: {line.group(1)}em" in TRANSCRIPT_STYLE  # the faded band: one line
    assert f"height: {line.group(1)}em" in TRANSCRIPT_RULE  # the rule between turns: one line too
