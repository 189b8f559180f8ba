"""Lesson 00's twelfth walk (issue 32): words that must be true of what the lesson's cells do.

A blank setting the backend requires is told to get a value (unsetting it only brings "needs ..."); the recording's
caption names the server's output cap as a cap on every request, not a default; a tempting wrong answer to an
exercise is asked a question that sends the student back to the lesson, not told the step it missed; and the
lesson's own sentences say what its cells do.
"""

from pathlib import Path

import pytest

from course_lib.live import LiveSettings, LiveSettingsError, load_course_settings

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "00_setup_and_backends.ipynb"


def refusal(**values) -> str:
    with pytest.raises(LiveSettingsError) as caught:
        LiveSettings(**values)
    return str(caught.value)


@pytest.mark.parametrize(
    ("values", "variable"),
    [
        ({"model": " ", "api_key": "sk-example"}, "OPENAI_MODEL"),
        ({"model": "", "api_key": "sk-example"}, "OPENAI_MODEL"),
        ({"model": "gpt-4o-mini", "api_key": "   "}, "OPENAI_API_KEY"),
    ],
)
def test_a_blank_required_setting_is_told_to_get_a_value_not_to_be_unset(values, variable):
    said = refusal(**values)
    assert f"{variable} is blank; give it a value." in said
    assert "unset" not in said


@pytest.mark.parametrize(
    ("values", "variable"),
    [
        ({"model": "gpt-4o-mini", "api_key": "sk-example", "base_url": " "}, "OPENAI_BASE_URL"),
        ({"model": "gpt-4o-mini", "api_key": "sk-example", "role_models": {"writer": " "}}, "COURSE_WRITER_MODEL"),
    ],
)
def test_a_blank_optional_setting_may_still_be_unset(values, variable):
    assert f"{variable} is blank; give it a value or unset it" in refusal(**values)


@pytest.mark.parametrize("blank", ["OPENAI_MODEL", "OPENAI_API_KEY"])
def test_a_blank_required_variable_read_from_the_environment_is_told_to_get_a_value(monkeypatch, tmp_path, blank):
    variables = {"COURSE_LLM": "openai", "OPENAI_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "sk-example"}
    for name in [*variables, "OPENAI_BASE_URL"]:
        monkeypatch.delenv(name, raising=False)
    for name, value in (variables | {blank: ""}).items():
        monkeypatch.setenv(name, value)
    with pytest.raises(LiveSettingsError) as caught:
        load_course_settings(tmp_path / "absent.env")
    assert f"{blank} is blank; give it a value." in str(caught.value) and "unset" not in str(caught.value)
