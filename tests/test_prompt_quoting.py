"""One quoting rule for every stored value the course puts into a prompt: the facts block's, shared by the feedback."""

import json
import sys

import pytest

from course_lib.capstone import check_answer, feedback_text, quote_fact, quoted_facts
from course_lib.memory import _INVISIBLE_RANGES, FactCandidate, WorkingMemory, invisible, quote_for_prompt

ISPRINTABLE_ACCEPTS = ["\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u034f", "\ufe0f"]
"""Invisible characters that ``str.isprintable`` accepts: the seven the issue found."""
SIBLINGS = ["\u180b", "\u180f", "\u17b4", "\ufe00", "\U000e0100", "\U000e01ef", "\U0001d159"]
"""Their siblings: Mongolian and supplementary variation selectors, a Khmer inherent vowel, a blank notehead."""
REFUSED_BY_ISPRINTABLE = [
    "\u202e",
    "\u2066",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\u00ad",
    "\U000e0041",
    "\u2060",
    "\u061c",
    "\u0007",
    "\u007f",
    "\u2028",
]
"""The eleven classes the feedback let through raw: bidi overrides and isolates, zero-width space and joiner, BOM,
soft hyphen, tag characters, word joiner, Arabic letter mark, control characters (DEL too), a line separator."""


@pytest.mark.parametrize(
    "char", ISPRINTABLE_ACCEPTS + SIBLINGS + REFUSED_BY_ISPRINTABLE, ids=lambda c: f"U+{ord(c):04X}"
)
def test_an_invisible_character_is_escaped_and_reads_back(char):
    assert ISPRINTABLE_ACCEPTS[0].isprintable()  # the premise: isprintable alone is not enough
    text = f"Billing{char}EU"
    quoted = quote_for_prompt(text)
    assert char not in quoted
    assert json.loads(quoted) == text


def test_every_character_of_the_ranges_and_every_unprintable_one_is_escaped():
    chars = {chr(p) for low, high in _INVISIBLE_RANGES for p in range(low, high + 1)}
    chars |= {chr(p) for p in range(0x10000) if not chr(p).isprintable() and not 0xD800 <= p <= 0xDFFF}
    text = "".join(sorted(chars))
    quoted = quote_for_prompt(text)
    assert not any(invisible(c) for c in quoted)
    assert json.loads(quoted) == text


def test_visible_text_is_left_as_written():
    for text in ["Billing", "SQL Server 2022", "été 中文 Ελληνικά", 'say "hi" \\ there', "emoji 🙂"]:
        assert quote_for_prompt(text) == json.dumps(text, ensure_ascii=False)


def test_the_feedback_quotes_a_stored_value_exactly_as_the_facts_block_does():
    value = "Billing\u3164\u202e\u200b\ufe0fEU"
    memory = WorkingMemory()
    memory.apply(
        memory.begin_turn("module=Reporting"),
        [FactCandidate(key="module", value="Reporting", evidence="module=Reporting")],
    )
    text = f"module={value}"
    memory.apply(memory.begin_turn(text), [FactCandidate(key="module", value=value, evidence=text)])
    [fact] = memory.facts
    block_line = next(line for line in memory.to_prompt_block().splitlines() if line.startswith("- module"))
    feedback = feedback_text(check_answer(memory.facts, "module=Reporting"))
    assert quote_fact(fact) in feedback
    assert f"= {quote_for_prompt(value)} (evidence: {quote_for_prompt(text)};" in block_line
    assert f"= {quote_for_prompt(value)} (evidence: {quote_for_prompt(text)};" in feedback
    assert not any(invisible(c) for c in feedback if c != "\n")
    assert quoted_facts(feedback) == [("module", value)]


def test_the_ranges_hold_code_points_only():
    assert all(0 <= low <= high <= sys.maxunicode for low, high in _INVISIBLE_RANGES)
