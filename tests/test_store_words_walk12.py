"""Lesson 01's Under the hood, twelfth walk (issue 32): the store's refusals say the plain reason first.

A batch that is not a list or a tuple says what stood there ("got None", "got a generator") before the seed's
wording, which stays in the message for the seed-conformance checks; an element that is no candidate is named as a
student wrote it ("None", not Python's "NoneType"); a length counted in UTF-16 units says so, and only then.
"""

import pytest

from course_lib.memory import MAX_CANDIDATES, FactCandidate, InvalidFacts, WorkingMemory

SEED = f"Extraction must contain at most {MAX_CANDIDATES} facts"
BILLING = FactCandidate(key="module", value="Billing", evidence="module=Billing")


def refusal(batch: object) -> str:
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts) as refused:
        memory.apply(memory.begin_turn("module=Billing"), batch)  # type: ignore[arg-type]
    assert memory.facts == ()
    return str(refused.value)


@pytest.mark.parametrize(
    ("batch", "given"),
    [
        (None, "None"),
        ((c for c in [BILLING]), "a generator"),
        ({BILLING}, "a set"),
        ("module=Billing", "a str"),
    ],
)
def test_a_batch_that_is_not_one_says_what_stood_there_before_the_seeds_words(batch, given):
    said = refusal(batch)
    plain = f"got {given}, not a list or a tuple of candidates"
    assert said.startswith(plain), said
    assert SEED in said and said.index(plain) < said.index(SEED)
    assert "NoneType" not in said and "no batch at all" not in said


@pytest.mark.parametrize(
    ("element", "named"),
    [
        (None, "None stands in the batch"),
        ({"key": "module"}, "a dict stands in the batch"),
        (42, "an int stands in the batch"),
    ],
)
def test_an_element_that_is_no_candidate_is_named_as_written(element, named):
    said = refusal([element])
    assert f"no candidate: {named} (rule: each fact is a FactCandidate)" in said
    assert "NoneType" not in said


def test_a_length_in_utf16_units_says_its_unit_and_a_plain_length_says_characters():
    from course_lib.assertions import length_in_units, length_in_utf16_units

    fire = "\U0001f525"
    said = length_in_utf16_units(fire * 200)
    assert said.startswith("400 UTF-16 units (") and "an emoji" in said and "counts as two" in said
    assert "characters (" not in said
    assert length_in_utf16_units("x" * 300) == "300 characters"  # ASCII: the count is the same either way
    assert "UTF-16" not in length_in_units(fire * 200)  # a panel on the lesson's path keeps plain words
    value = refusal_for_value(fire * 200)
    assert "value longer than 256 UTF-16 units: it has 400 UTF-16 units (" in value


def refusal_for_value(value: str) -> str:
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts) as refused:
        memory.apply(
            memory.begin_turn(f"symptom={value}"),
            [FactCandidate(key="symptom", value=value, evidence=f"symptom={value}")],
        )
    return str(refused.value)


@pytest.mark.parametrize(("given", "named"), [(None, "None"), (42, "an int"), (b"module=A", "a bytes")])
def test_a_message_that_is_not_text_is_named_as_written_not_by_its_type(given, named):
    """The sibling path of the batch refusal: parse_assertions(None) said "a value of type NoneType"."""
    from course_lib.assertions import MessageNotText, parse_assertions

    with pytest.raises(MessageNotText) as refused:
        parse_assertions(given)  # type: ignore[arg-type]
    said = str(refused.value)
    assert said.startswith(f"Message refused: it is {named}, not text (rule: a message is text).")
    assert "NoneType" not in said and "value of type" not in said
