"""Fixes after the fifth walks (issue 32): each says what to change before "run the cell again"."""

import pytest

from course_lib.exercises import EXERCISES, check


def words(text: str) -> str:
    return " ".join(text.split())


NAMED = [e for e in EXERCISES if e.choices and e.choice_noun]


@pytest.mark.parametrize("named", NAMED, ids=lambda e: f"{e.lesson} {e.label}")
def test_a_text_that_is_no_listed_name_is_told_what_to_write_before_running_again(named):
    """Walk 4, lesson 03: "'triag' is not a desk name: the two desks are ... Then run the cell again" said what was
    wrong and never what to change. Said alike for every choice exercise, whichever choice is right."""
    for expected in named.choices:
        said = words(check(named.label, "zzqx", expected, named.hint))
        assert "is not a" in said, said
        assert "Write one of them, in quotes, in place of 'zzqx'. Then run the cell again." in said, said
