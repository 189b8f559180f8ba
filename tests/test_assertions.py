"""The explicit key=value contract, rule by rule, plus properties over arbitrary text."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course_lib.assertions import (
    ALLOWED_KEYS,
    MAX_MESSAGE_CHARS,
    MessageNotText,
    MessageRefused,
    MessageTooLong,
    NearMiss,
    as_written,
    check_message,
    find_declarations,
    left_out,
    near_misses,
    parse_assertions,
)
from course_lib.memory_models import refused_declarations


def test_allowed_keys_are_the_ten_of_the_seed():
    assert ALLOWED_KEYS == (
        "product",
        "module",
        "priority",
        "database",
        "constraint",
        "customer",
        "version",
        "environment",
        "symptom",
        "log",
    )


def test_semicolons_and_newlines_separate_declarations():
    text = "module=Reporting; database=PostgreSQL\nproduct=Contoso\r\npriority=P1"
    assert parse_assertions(text) == {
        "module": "Reporting",
        "database": "PostgreSQL",
        "product": "Contoso",
        "priority": "P1",
    }


def test_values_are_trimmed_and_keep_inner_spaces():
    assert parse_assertions("  database =   SQL Server 2022  ") == {"database": "SQL Server 2022"}


def test_value_is_everything_after_the_first_equals():
    assert parse_assertions("log=level=debug") == {"log": "level=debug"}


def test_empty_value_is_not_a_declaration():
    assert parse_assertions("module=   ; database=") == {}


@pytest.mark.parametrize("text", ["Module=Billing", "MODULE=Billing", "modules=Billing", "owner=me", "=Billing"])
def test_keys_are_ordinal_and_case_sensitive(text):
    assert parse_assertions(text) == {}


def test_last_declaration_of_a_key_wins():
    assert parse_assertions("module=Reporting; module=Billing") == {"module": "Billing"}


def test_a_question_is_not_a_declaration():
    assert parse_assertions("Where can I find logs?") == {}


def test_evidence_is_the_trimmed_segment():
    [declaration] = find_declarations("Hi;  module = Billing  ;")
    assert (declaration.key, declaration.value, declaration.evidence) == ("module", "Billing", "module = Billing")


def test_message_at_the_limit_is_parsed_and_over_it_refused():
    at_limit = "module=A;" + " " * (MAX_MESSAGE_CHARS - 9)
    assert parse_assertions(at_limit) == {"module": "A"}
    with pytest.raises(MessageTooLong, match=r"4097 characters and the limit is 4096"):
        parse_assertions(at_limit + " ")


@given(st.text(max_size=300))
def test_any_text_yields_only_allowed_keys_with_nonempty_trimmed_values(text):
    for key, value in parse_assertions(text).items():
        assert key in ALLOWED_KEYS
        assert value and value == value.strip()
        assert value in text


@given(st.text(max_size=40), st.integers(min_value=1, max_value=50))
def test_any_overlong_text_raises_the_documented_error(head, extra):
    text = head + "module=A;" * ((MAX_MESSAGE_CHARS - len(head)) // 9) + "x" * (MAX_MESSAGE_CHARS + extra)
    with pytest.raises(MessageTooLong, match="limit is 4096"):
        parse_assertions(text)


@given(
    st.lists(
        st.tuples(st.sampled_from(ALLOWED_KEYS), st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 .=]{0,20}", fullmatch=True))
    )
)
def test_written_declarations_parse_back_last_one_winning(pairs):
    text = "; ".join(f"{k}={v}" for k, v in pairs)
    expected = {}
    for key, value in pairs:
        expected[key] = value.strip()
    assert parse_assertions(text) == expected


def test_a_near_miss_names_the_rule_its_segment_broke():
    text = "module=; \ufeffModule=Billing\nowner=alice; what does a=b mean; module=\u200b; module=Billing"
    assert near_misses(text) == [
        NearMiss("module", "no value"),
        NearMiss("Module", "wrong case", "module"),  # the BOM is trimmed as the parse trims it
        NearMiss("owner", "not allowed"),
        NearMiss("module", "no value"),  # a value of invisible characters only is no value
    ]


_shaped = st.tuples(
    st.sampled_from([*ALLOWED_KEYS, "Module", "PRODUCT", "owner", "x"]),
    st.sampled_from(["", " ", "\u200b", "A", " Billing "]),
)


@given(st.lists(_shaped, max_size=6))
def test_every_key_value_segment_is_a_declaration_or_a_near_miss_never_both(pairs):
    text = "; ".join(f"{key}={value}" for key, value in pairs)
    declared = [d.key for d in find_declarations(text)]
    missed = [m.key for m in near_misses(text)]
    assert len(declared) + len(missed) == len(pairs)
    assert all(key in ALLOWED_KEYS for key in declared)


def test_left_out_says_why_each_part_of_a_message_gives_no_fact():
    said = left_out("module=Reporting; module=Billing; owner=alice; Module=X; module=; Hello! log=x; Where is it?")
    assert said == [
        "'module=Reporting' is replaced by a later module (the last one wins)",
        "'owner' is not an allowed key",
        "'Module' is not an allowed key (keys are case-sensitive): write 'module'",
        "'module=' has no value",
        "'Hello! log' is not an allowed key (the key is all the text before '=')",
        "'Where is it?' has no '=': a sentence or a question declares nothing",
    ]
    assert left_out("module=Billing\ndatabase=SQL Server 2022") == []
    assert left_out("x" * 100)[0].startswith(f"'{'x' * 39}\u2026'")  # a long segment is cut, not repeated whole


@pytest.mark.parametrize("segment", [" = Billing", "=", "==x", "=module=Billing"])
def test_left_out_gives_an_empty_key_its_own_reason_not_a_missing_equals_sign(segment):
    """A part with '=' but nothing before it was told it "has no '='" (issue 32, lesson 01's walk)."""
    assert left_out(segment) == [f"'{segment.strip()}' has nothing before '=': an empty key is not an allowed key"]


@pytest.mark.parametrize(
    "segment", ["=x", "Hello! =", "priority:", "| module | |", "**module**=", "We are on module=", "a = b = c", "é=ü"]
)
def test_every_reason_left_out_gives_is_true_of_its_part(segment):
    """Each reason's claim holds of the part it names: no '=' only when there is none, a key only when one is there."""
    (reason,) = left_out(segment)
    if "has no '='" in reason:
        assert "=" not in segment
    if "is not an allowed key" in reason and "empty key" not in reason:
        assert reason.split("'")[1] == segment.partition("=")[0].strip()


def test_a_near_miss_says_its_rule_in_the_words_the_desks_use():
    assert [m.reason for m in near_misses("owner=alice; priority:P1")] == [
        "'owner' is not an allowed key",
        "'priority:' is written with a colon (a declaration is 'priority=value')",
    ]
    assert refused_declarations("owner=alice; priority:P1") == [
        m.reason for m in near_misses("owner=alice; priority:P1")
    ]


@pytest.mark.parametrize("given", [None, 42, b"module=Billing", ["module=Billing"], {"module": "Billing"}])
def test_a_message_that_is_not_text_is_refused_in_words_naming_the_rule(given):
    """Lesson 01's cells: parse_assertions(None) raised "'NoneType' object has no attribute 'encode'" (issue 32)."""
    for entry in (parse_assertions, find_declarations, left_out, near_misses, check_message):
        with pytest.raises(MessageNotText) as refused:
            entry(given)
        said = str(refused.value)
        assert said.startswith("Message refused:") and "(rule: a message is text)" in said
        assert as_written(given) in said and "encode" not in said and "NoneType" not in said
    assert issubclass(MessageNotText, MessageRefused) and issubclass(MessageNotText, TypeError)
