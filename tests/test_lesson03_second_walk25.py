"""Lesson 03's second walk 25 (issue 32): sections 5 and 6 handed the student machinery (gate, ticket, epoch,
``stale``) before the story needed it, and section 5's filter line went unexplained.

1. Section 5 says middleware in one sentence, true of the cell it shows; the gate and the ticket are under the hood.
2. Section 5 says why both values of the filter's line are ``[forgotten]``; the hood's loop example agrees with it.
3. Section 1 says which user messages are the caller's own without a bracket mid-phrase.
4. Section 8 says why the logs question goes to the same desk (unlike section 3).
5. Section 6 no longer names ``stale``, a status the student never sees there.
6. The desk verdict's eviction sentence: tests/test_lesson03_verdict_walk25.py.
"""

from __future__ import annotations

from agent_framework import AgentMiddleware
from support.lesson_cells import cell_outputs, cell_source, student_path, words

from course_lib.extraction import make_extraction
from course_lib.providers import (
    FactsContextProvider,
    compare_injection,
    course_provider_desks,
    forget_filter,
    stored_messages,
)
from course_lib.tracing import CallLog


def _hood() -> str:
    from support.lesson_cells import stored_lesson

    cells = stored_lesson("03")["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Under the hood"))
    return " ".join(words("".join(c["source"])) for c in cells[start:] if c["cell_type"] == "markdown")


# --- 1. middleware in one sentence; the gate and the ticket under the hood ---

MIDDLEWARE = (
    "MAF also lets you add *middleware*, code it runs around each run; the provider brings its own middleware, its "
    "*gate*, passed as `middleware=[own_provider.gate]`."
)


def test_section_5_says_middleware_in_one_sentence_true_of_its_cell() -> None:
    said = words(cell_source("03", "attach-md"))
    assert MIDDLEWARE in said
    for machinery in ("put first", "_attribution"):  # third walk 25: the gate and its ticket are said in student words
        assert machinery not in said, machinery
    assert "middleware=[own_provider.gate]" in cell_source("03", "attach")  # what the sentence quotes, the cell runs
    assert isinstance(FactsContextProvider(make_extraction()).gate, AgentMiddleware)  # a middleware of its own


def test_the_gate_and_the_ticket_are_said_under_the_hood() -> None:
    hood = _hood()
    assert (
        "The provider's *gate* is a middleware put first, so it sees exactly what the caller passed to `run`." in hood
    )
    assert "The ticket is lesson 01's stamp that every write to the store must carry." in hood
    assert "a `forget` during the run still wins (section 6's race shows it)" in hood
    path = " ".join(words(cell) for cell in student_path("03"))
    # third walk 25: the path says why the gate is there once, in section 5, in a student's words
    assert path.count("*gate*") == 1 and "*gate*" in words(cell_source("03", "attach-md"))


def test_section_6_defines_the_ticket_where_the_path_first_names_it() -> None:
    path = [words(cell) for cell in student_path("03")]
    first = next(cell for cell in path if "ticket" in cell)
    assert first == words(cell_source("03", "attach-md"))  # third walk 25: section 5 says why the gate takes it
    assert first.index("*ticket*") == first.index("ticket") - 1  # defined where it first appears
    assert "the pass a write needs (lesson 01)" in first
    assert "takes the store's ticket (section 5)." in words(cell_source("03", "race-md"))  # fourth walk: not twice


# --- 2. the filter's line explained, and the hood agreeing with it ---


async def test_section_5_explains_why_both_values_are_forgotten_and_the_rule_holds() -> None:
    said = words(cell_source("03", "attach-filter-md"))
    assert (
        "Here it is on the operations desk's old reply. Section 4's last `forget` emptied the store (its facts; it "
        "still knows which values it forgot, which is how the filter can hide them). So both `database` and `module` "
        "come out as `[forgotten]`; after `forget module` alone, only `module` would."
    ) in said
    printed = cell_outputs("03", "attach-filter")
    assert "database=[forgotten]; module=[forgotten]" in printed
    # the rule the sentence states, run: after forget module alone only module is filtered
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    await desks.handle("module=Billing; database=SQL Server 2022")
    await desks.handle("Where can I find logs?")
    old = stored_messages(desks.sessions["operations"])[-1].text
    await desks.handle("forget module")
    assert forget_filter(desks.memory).redact_text(old).endswith("database=SQL Server 2022; module=[forgotten].")
    await desks.handle("forget")
    assert forget_filter(desks.memory).redact_text(old).endswith("database=[forgotten]; module=[forgotten].")


def test_the_hoods_loop_example_agrees_with_the_printed_line() -> None:
    said = words(cell_source("03", "hood-filter-loop"))
    assert "the second line section 5's cell printed" not in said
    assert "with it, the call sends `module=[forgotten]` and keeps `database=SQL Server 2022`" in said
    assert "Section 5's cell ran after the last `forget`, so its line shows both as `[forgotten]`" in said


# --- 3. section 1's caller messages ---


def test_section_1_says_the_callers_own_user_messages_without_a_bracket_mid_phrase() -> None:
    said = words(cell_source("03", "cell-02"))
    assert "the caller's own user messages (the ones with no label, see below)" in said
    assert "(unlabelled)" not in said


# --- 4. section 8: one desk per path ---


async def test_section_8_says_the_logs_question_goes_to_the_same_desk() -> None:
    said = words(cell_source("03", "cell-19"))
    assert "Unlike section 3, each path here has one desk, so `Where can I find logs?` goes to the same desk." in said
    comparison = await compare_injection()
    assert set(comparison["line"]) >= {"Where can I find logs?"}
    assert "one desk" in cell_outputs("03", "cell-20")  # the printed note says it too


# --- 5. section 6 names no stale ---


def test_the_students_path_never_names_the_stale_status() -> None:
    path = " ".join(words(cell) for cell in student_path("03"))
    assert "`stale`" not in path
    assert "a newer message began first" not in path
    assert "`forgotten` (a forget ran during the turn)" in words(cell_source("03", "race-md"))
