"""The desk's own offline reply, twenty-first walk (issue 32): it names the parts that declare nothing in the order
they come in the message, by the same reading as the panels' notes (a part with no key was named last)."""

from __future__ import annotations

import pytest

from course_lib.memory_models import refused_declarations
from course_lib.widgets import declaration_notes


@pytest.mark.parametrize(
    ("message", "first", "second"),
    [
        ("=Payroll; color=red", "'=Payroll' has no key", "'color' is not an allowed key"),
        ("color=red; =Payroll", "'color' is not an allowed key", "'=Payroll' has no key"),
        ("= =; Module=X", "'= =' has no key", "'Module' is not an allowed key"),
    ],
)
def test_the_desk_s_reply_follows_the_order_of_the_parts(message: str, first: str, second: str) -> None:
    reasons = refused_declarations(message)
    assert len(reasons) == 2
    assert reasons[0].startswith(first) and reasons[1].startswith(second)


@pytest.mark.parametrize("message", ["=Payroll; color=red", "color=red; =Payroll; module=", "module=; = =; colour=x"])
def test_the_desk_s_reply_and_the_panel_s_notes_name_the_parts_in_one_order(message: str) -> None:
    def opening(reason: str) -> str:
        return reason.split(" ")[0]

    assert [opening(r) for r in refused_declarations(message)] == [opening(n) for n in declaration_notes(message)]
