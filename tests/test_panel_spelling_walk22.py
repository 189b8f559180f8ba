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


# Lesson 03's walk 22: `forget Module` was told the key it meant, `forget modul` only the list of keys.


async def test_the_desk_console_tells_a_forget_of_a_misspelt_key_the_key_meant():
    from course_lib.providers import course_provider_desks
    from course_lib.tracing import CallLog

    desks = course_provider_desks(CallLog())
    await desks.handle("module=Billing")
    event = await desks.handle("forget modul")
    assert event.kind == "refused" and "Cannot forget: 'modul' is not an allowed key: write 'module'." in event.output
    assert [f.key for f in desks.memory.facts] == ["module"]  # nothing was forgotten


def test_the_panel_tells_a_forget_typed_in_the_message_box_the_key_meant():
    from course_lib.widgets import command_guidance

    said = command_guidance("forget modul", stored=["module"])
    assert said.endswith("'modul' is not an allowed key: write 'module'.")
    assert "allowed keys (" in command_guidance("forget color", stored=["module"])
