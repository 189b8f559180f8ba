"""Lessons 00 and 01, twelfth walk (issue 32): a refusal says its rule the same way for every input of its kind.

``COURSE_LLM`` gets the spaces and case hints every other setting gets, whatever the value spells; a refused batch
names the rule it was refused under by the name ``rules_broken`` and lesson 01's tables use, for every rule.
"""

import pytest

from course_lib.live import LiveSettingsError, load_course_settings
from course_lib.memory import MAX_VALUE_CHARS, FactCandidate, InvalidFacts, WorkingMemory, rules_broken


def backend_refusal(monkeypatch, tmp_path, value: str) -> str:
    monkeypatch.setenv("COURSE_LLM", value)
    with pytest.raises(LiveSettingsError) as caught:
        load_course_settings(tmp_path / "absent.env")
    return str(caught.value)


@pytest.mark.parametrize("value", [" openai", "openai ", " local", " nonsense", "\toffline"])
def test_a_padded_course_llm_is_told_what_a_padded_openai_model_is_told(monkeypatch, tmp_path, value):
    assert "COURSE_LLM has leading or trailing spaces; remove them" in backend_refusal(monkeypatch, tmp_path, value)


@pytest.mark.parametrize("value", ["OpenAI", "LOCAL", "Offline", "Nonsense"])
def test_a_course_llm_with_capitals_is_told_the_names_are_lower_case(monkeypatch, tmp_path, value):
    said = backend_refusal(monkeypatch, tmp_path, value)
    assert f"COURSE_LLM={value!r} is not supported" in said and "(the names are lower-case)" in said


@pytest.mark.parametrize("value", ["opnai", "nonsense"])
def test_a_lower_case_unpadded_wrong_name_gets_neither_hint(monkeypatch, tmp_path, value):
    said = backend_refusal(monkeypatch, tmp_path, value)
    assert "lower-case" not in said and "spaces" not in said and f"COURSE_LLM={value!r} is not supported" in said


def test_a_padded_right_name_is_not_called_unsupported(monkeypatch, tmp_path):
    assert "not supported" not in backend_refusal(monkeypatch, tmp_path, " openai")


TEXT = "module=Billing; symptom=" + "x" * 300


@pytest.mark.parametrize(
    "batch",
    [
        [FactCandidate(key="owner", value="alice", evidence="owner=alice")],
        [FactCandidate(key="module", value="Billing", evidence="module=Billing")] * 2,
        [FactCandidate(key="module", value=" ", evidence="module=Billing")],
        [FactCandidate(key="symptom", value="x" * 300, evidence="symptom=" + "x" * 300)],
        [FactCandidate(key="symptom", value="x" * 300, evidence="")],
        [FactCandidate(key="module", value="Billing", evidence="")],
        [FactCandidate(key="module", value="Billing", evidence="module is Billing")],
        [FactCandidate(key="module", value="Reporting", evidence="module=Billing")],
        [FactCandidate(key="module", value="Billing", evidence="module=Billing")] * 6,
    ],
)
def test_a_refused_batch_names_the_rule_it_was_refused_under_as_rules_broken_names_it(batch):
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts) as caught:
        memory.apply(memory.begin_turn(TEXT), batch)
    assert caught.value.rule == rules_broken(TEXT, batch)[0]


def test_a_value_too_long_is_refused_under_that_name_with_its_details_in_the_message():
    memory = WorkingMemory()
    value = "x" * 300
    with pytest.raises(InvalidFacts) as caught:
        memory.apply(memory.begin_turn(TEXT), [FactCandidate(key="symptom", value=value, evidence="")])
    assert caught.value.rule == "value too long"
    assert f"value longer than {MAX_VALUE_CHARS} characters" in str(caught.value)


@pytest.mark.parametrize(
    ("batch", "rule"), [(None, "not a batch"), ({"module": "Billing"}, "not a batch"), ([None], "not a candidate")]
)
def test_a_batch_the_store_cannot_read_is_refused_under_a_named_rule_too(batch, rule):
    memory = WorkingMemory()
    with pytest.raises(InvalidFacts) as caught:
        memory.apply(memory.begin_turn(TEXT), batch)
    assert caught.value.rule == rule
