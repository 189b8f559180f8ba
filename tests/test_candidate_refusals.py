"""A candidate whose field is not text, and a batch the store cannot read, are refused in the store's words
(issue 32, lesson 01's walk): the rule broken and that nothing changed, never pydantic's error or a bare TypeError.
"""

from __future__ import annotations

import pytest

from course_lib.extraction import FactBatch, reply_problem
from course_lib.memory import FactCandidate, InvalidFacts, WorkingMemory, rules_broken


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"key": "module", "value": None, "evidence": "module=Billing"}, "value is None, not text"),
        ({"key": "module", "evidence": "module=Billing"}, "value is missing"),
        ({"key": 3, "value": "Billing", "evidence": "module=Billing"}, "key is 3, not text"),
    ],
)
def test_a_candidate_whose_field_is_not_text_is_refused_in_the_stores_words(fields, said):
    with pytest.raises(InvalidFacts) as refusal:
        FactCandidate(**fields)
    message = str(refusal.value)
    assert said in message and "(rule: each field is a string)" in message
    assert message.endswith("No candidate was made; no store was changed.") and "http" not in message


def test_the_store_names_the_same_rule_for_the_same_candidate():
    memory = WorkingMemory()
    ticket = memory.begin_turn("module=Billing")
    odd = FactCandidate.model_construct(key="module", value=None, evidence="module=Billing")
    with pytest.raises(InvalidFacts, match=r"value is None, not text \(rule: each field is a string\)"):
        memory.apply(ticket, [odd])
    assert memory.facts == ()


@pytest.mark.parametrize("batch", [None, (c for c in []), [None], [{"key": "module"}]])
def test_rules_broken_refuses_a_batch_it_cannot_read_as_the_store_does(batch):
    memory = WorkingMemory()
    ticket = memory.begin_turn("module=Billing")
    with pytest.raises(InvalidFacts) as store:
        memory.apply(ticket, batch)
    with pytest.raises(InvalidFacts) as listed:
        rules_broken("module=Billing", batch)
    assert str(listed.value) == str(store.value)
    good = FactCandidate(key="module", value="Billing", evidence="module=Billing")
    assert rules_broken("module=Billing", [good]) == ()


def test_a_writers_json_reply_still_says_its_problems_in_the_writers_words():
    """The check runs on a direct call only: a nested candidate of a writer's reply keeps the writer path's words."""
    with pytest.raises(Exception) as missing:
        FactBatch.model_validate_json('{"facts": [{"key": "module"}]}')
    assert reply_problem(missing.value).startswith('The writer\'s reply has no "value" in fact 1')


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (None, "None is not a declaration"),
        ("module=Billing", "the text 'module=Billing' is not a declaration"),
        ({"key": "module"}, "a dict is not a declaration"),
    ],
)
def test_from_declaration_refuses_what_is_not_a_declaration_by_its_rule(given, said):
    """Lesson 01's walk: ``C.from_declaration(None)`` raised a bare AttributeError naming no rule of the course."""
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts) as refusal:
        FactCandidate.from_declaration(given)
    message = str(refusal.value)
    assert said in message and "(rule: a candidate is made from a declaration find_declarations found)" in message
    assert message.endswith("No candidate was made; no store was changed.")
    assert memory.facts == ()


def test_rules_broken_says_a_missing_batch_in_words_not_a_type_name():
    """``rules_broken("x", None)`` is refused as the store refuses it, and says "got None", not NoneType."""
    with pytest.raises(InvalidFacts) as refusal:
        rules_broken("x", None)
    message = str(refusal.value)
    assert "got None, not a list or a tuple" in message and "NoneType" not in message
    assert "(rule: a batch is a list or a tuple of at most 5 candidates; " in message
    assert "InvalidFacts" in (rules_broken.__doc__ or "")
