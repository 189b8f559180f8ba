"""Lesson 00, a later walk 25 of issue 32 (4/5: "section 6 states a rule that its own output visibly breaks").

1. Section 6 said the host keeps a proposal "only if it is exactly the declared facts", then printed
   ``declares: module=Billing`` / ``proposed: module=Billing, quoting "role=admin"`` under "Proposed facts, but not
   exactly the declared ones". The rule now names the quote (the *evidence*), and
   :func:`course_lib.qualify.misses_in_words` puts a case whose facts are the declared ones but whose quote is wrong
   in a group of its own, computed from the recorded reply and the message, never from the case's name.
2. Section 5's prose says the printed line's words ("earlier messages sent with it") and names them worked examples.
3. *seed* is defined at its first use (the course map), before section 2's table and exercise 2 use it.
4. The ``declares:`` and ``proposed:`` lines quote each value, so a final ``.`` is visibly part of it.
"""

from __future__ import annotations

import json

from course_lib.qualify import BATTERY, MISS_GROUPS, Case, misses_in_words
from course_lib.recordings import RecordedCase, load_qualification, qualification_steps
from tests.support.lesson_cells import cell_outputs, cell_source, student_path, words

WRONG_QUOTE = "Proposed the declared facts, but quoted the wrong words:"
NOT_EXACT = "Proposed facts, but not exactly the declared ones:"


def case(name: str, reply: str, outcome: str = "rejected") -> RecordedCase:
    return RecordedCase(
        case=name, kind="declaration", message="", expected="accepted", outcome=outcome, as_contract=False,
        reason="", proposal=[reply], call_errors=[""], admitted="", latency_s=0.1, calls=1,
        input_tokens=None, output_tokens=None, total_tokens=None,
    )  # fmt: skip


def reply(*facts: tuple[str, str, str]) -> str:
    return json.dumps({"facts": [{"key": k, "value": v, "evidence": e} for k, v, e in facts]})


def group_of(note: str, name: str) -> str:
    heading = ""
    for line in note.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            heading = line
        elif line.strip() == f"\N{LEFT DOUBLE QUOTATION MARK}{name}\N{RIGHT DOUBLE QUOTATION MARK}":
            return heading
    raise AssertionError(name)


# 1. The grouping is true of every case it groups -----------------------------------------------------------------


def test_the_recorded_injection_case_is_grouped_as_a_wrong_quote_not_as_wrong_facts():
    note = misses_in_words(load_qualification().cases)
    assert group_of(note, "injection: unknown key") == WRONG_QUOTE
    assert group_of(note, "words before a key") == NOT_EXACT
    assert group_of(note, "markup and quotes") == NOT_EXACT
    assert f"{MISS_GROUPS['wrong quote']}:" == WRONG_QUOTE


def test_the_wrong_quote_group_is_computed_from_the_reply_and_the_message_not_the_case_name():
    battery = (Case("any name", "declaration", "module=Billing; priority=P1"),)
    quote_outside = reply(("priority", "P1", "priority=P1"), ("module", "Billing", "module=Billing!"))
    value_outside = reply(("module", "Billing", "priority=P1"), ("priority", "P1", "priority=P1"))
    one_missing = reply(("module", "Billing", "role=admin"))
    assert group_of(misses_in_words([case("any name", quote_outside)], battery), "any name") == WRONG_QUOTE
    assert group_of(misses_in_words([case("any name", value_outside)], battery), "any name") == WRONG_QUOTE
    assert group_of(misses_in_words([case("any name", one_missing)], battery), "any name") == NOT_EXACT


def test_every_wrong_quote_case_in_every_run_has_the_declared_facts_and_a_quote_the_host_refuses():
    for run in qualification_steps().values():
        note = misses_in_words(run.cases)
        for recorded in run.cases:
            if recorded.as_contract or f"\N{LEFT DOUBLE QUOTATION MARK}{recorded.case}" not in note:
                continue
            if group_of(note, recorded.case) == WRONG_QUOTE:
                assert "evidence" in recorded.reason  # the host's recorded reason is the quote


def test_section_6_states_the_quote_rule_and_that_a_wrong_quote_alone_rejects():
    prose = words(cell_source("00", "section-6"))
    assert (
        "only if it is exactly the declared facts, each quoting the words of its own declaration (its *evidence*). "
        "Otherwise it rejects all of it." in prose
    )
    assert "A wrong quote alone is enough for a rejection, even when the fact itself is right." in prose
    assert "The quote need not be in the message" not in prose
    assert WRONG_QUOTE in cell_outputs("00", "section-6-run")


def test_the_prose_after_the_misses_says_what_the_output_shows():
    middle = words(cell_source("00", "misses-middle-after"))
    assert "two proposed facts, but not exactly the declared ones" not in middle
    assert "The injection case proposed the right fact, `module=Billing`, but quoted `role=admin`." in middle
    printed = cell_outputs("00", "misses-middle-run")
    assert WRONG_QUOTE in printed and "proposed: module=“Billing”, quoting “role=admin”" in printed
    last = words(cell_source("00", "b7d1e0a3"))
    assert "but not exactly the declared one" not in last
    assert "once the declared `module=Billing`, but quoting `role=admin`" in last


# 2. One name for one thing in section 5 ----------------------------------------------------------------------------


def test_section_5_uses_the_printed_words_for_the_examples():
    prose = words(cell_source("00", "787bc88b"))
    printed = cell_outputs("00", "e9786665")
    assert "502 of instructions and 580 of earlier messages sent with it" in prose
    assert "502 of instructions and 580 of earlier messages sent with it." in printed
    assert "Those are *worked examples*: sample messages" in prose


# 3. *seed* defined at its first use --------------------------------------------------------------------------------


def test_seed_is_defined_in_the_intro_before_the_map_and_the_table_that_use_it():
    path = student_path("00")
    first = next(i for i, text in enumerate(path) if "seed" in text)
    intro = words(path[first])
    assert first == 0 and "follows a *seed*: a published article the course rewrites in Python" in intro
    assert intro.index("*seed*") < intro.index("attachment:course_map.png")
    assert "the seed's fake numbering model" in cell_outputs("00", "b712f3b9")  # the use it prepares


# 4. Values quoted in the declares and proposed lines ---------------------------------------------------------------


def test_the_declares_and_proposed_lines_quote_each_value():
    note = misses_in_words(load_qualification().cases)
    assert "      declares: environment=“staging.”" in note.splitlines()
    assert "      proposed: database=“staging”, quoting “database=database”" in note.splitlines()
    battery = (Case("three", "declaration", "module=Billing; priority=P1."),)
    said = misses_in_words([case("three", reply(("module", "Billing", "module=Billing")))], battery)
    assert "      declares: module=“Billing”; priority=“P1.”" in said.splitlines()
    for line in (
        *cell_outputs("00", "section-6-run").splitlines(),
        *cell_outputs("00", "misses-middle-run").splitlines(),
    ):
        if line.strip().startswith("declares: ") and not line.endswith("nothing"):
            assert "=“" in line and line.endswith("”"), line


def test_the_battery_holds_the_case_the_walk_saw():
    assert any(c.name == "injection: unknown key" and c.text == "role=admin; module=Billing" for c in BATTERY)


# re-walk 25 (4/5): "words before a key" printed ``message: We are on database=SQL Server 2022; ...`` and
# ``declares: environment="staging."``; the student path names no rule that makes ``database=...`` no declaration, so
# the line read as a bug. Each listed case now says, under its message, why a piece that looks like one declares
# nothing (the contract's own reason, from :func:`course_lib.assertions.left_out`), for every case, not by name.


def test_a_listed_miss_says_why_a_piece_of_its_message_is_no_declaration() -> None:
    note = misses_in_words([case("words before a key", reply(("database", "staging", "database=database")))])
    why = "not a declaration: 'We are on database' is not an allowed key (the key is all the text before '=')"
    assert f"      {why}" in note
    question = misses_in_words([case("a question about a key", reply(("priority", "P1", "priority=P1")))])
    assert "not a declaration: 'Is priority' is not an allowed key" in question
    clean = misses_in_words([case("one declaration", reply())])
    assert "not a declaration" not in clean  # a message that declares all it holds gets no such line


def test_lesson_00_prints_why_database_is_not_declared() -> None:
    shown = "".join(cell_outputs("00", "section-6-run"))
    block = shown.split("\N{LEFT DOUBLE QUOTATION MARK}words before a key")[1].split("proposed:")[0]
    assert "not a declaration: 'We are on database' is not an allowed key (the key is all the text before '=')" in (
        block
    )
