"""Lesson 02's walk 22: the memory panel told `Module=Billing` the key it meant, but `moduel=Billing` only that it
is not an allowed key; the panel's notes now use the contract's own spelling rule (assertions.spelling_slip), as
lesson 01's table does."""

import pytest

from course_lib.assertions import ALLOWED_KEYS
from course_lib.widgets import declaration_notes


@pytest.mark.parametrize(("typed", "meant"), [("moduel", "module"), ("modul", "module"), ("prioirty", "priority")])
def test_a_key_one_or_two_letters_off_is_told_the_key_meant(typed, meant):
    assert declaration_notes(f"{typed}=Billing") == [f"'{typed}' is not an allowed key: write '{meant}'."]


def test_a_key_far_from_every_allowed_key_still_gets_the_list():
    [note] = declaration_notes("owner=alice")
    assert note == f"'owner' is not an allowed key (allowed keys: {', '.join(ALLOWED_KEYS)})."


def test_a_slip_and_an_unknown_key_each_get_their_own_note_in_order():
    notes = declaration_notes("moduel=Billing; owner=alice")
    assert notes[0] == "'moduel' is not an allowed key: write 'module'."
    assert notes[1].startswith("'owner' is not an allowed key (allowed keys:")
