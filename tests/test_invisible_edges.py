"""Invisible edges (a byte-order mark, a zero-width space) are trimmed like spaces: no declaration vanishes.

Issue 22: a first declaration pasted with a byte-order mark (``\\ufeffmodule=...``) was silently ignored on the
console path. The rule is the contract's trimming (``course_lib.assertions``), so every reader of it agrees:
the parse, the careful writer, and the host that compares them.
"""

import pytest

from course_lib.assertions import find_declarations, parse_assertions, trim
from course_lib.providers import course_manual_desk
from course_lib.tracing import CallLog


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\ufeffmodule=Billing", {"module": "Billing"}),
        ("module=Reporting\n\ufeffdatabase=PostgreSQL", {"module": "Reporting", "database": "PostgreSQL"}),
        ("module=Billing;\u200bdatabase=X", {"module": "Billing", "database": "X"}),
        ("module\u200e=Billing\u2060", {"module": "Billing"}),
        ("mod\u200bule=Billing", {}),  # inside a key it stays: not an allowed key
        ("module=Bill\u200bing", {"module": "Bill\u200bing"}),  # inside a value it stays
        ("module=\ufeff", {}),  # an invisible value is an empty one
    ],
)
def test_invisible_format_characters_at_the_edges_are_trimmed(text, expected):
    assert parse_assertions(text) == expected
    for declaration in find_declarations(text):
        assert declaration.evidence in text and declaration.value in declaration.evidence


def test_trim_removes_whitespace_and_format_characters_only_at_the_ends():
    assert trim(" \ufeff\u200b a\u200bb \u200d\t") == "a\u200bb"
    assert trim("plain") == "plain" and trim("\ufeff") == ""


async def test_a_bom_prefixed_first_declaration_is_stored_on_the_console_path():
    console = course_manual_desk(CallLog())
    event = await console.handle("\ufeffmodule=Billing; database=SQL Server 2022")
    assert event.report.status == "accepted"
    assert {(f.key, f.value) for f in console.memory.facts} == {("module", "Billing"), ("database", "SQL Server 2022")}
