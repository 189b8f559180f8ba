"""Lesson 00's twelfth walk (issue 32): words that must be true of what the lesson's cells do.

A blank setting the backend requires is told to get a value (unsetting it only brings "needs ..."); the recording's
caption names the server's output cap as a cap on every request, not a default; a tempting wrong answer to an
exercise is asked a question that sends the student back to the lesson, not told the step it missed; and the
lesson's own sentences say what its cells do.
"""

import json
import re
from pathlib import Path

import pytest

from course_lib.exercises import EXERCISES, exercise
from course_lib.live import LiveSettings, LiveSettingsError, load_course_settings
from course_lib.recordings import load_policy_costs, load_qualification, qualification_steps, steps_plain_caption

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


def test_the_exact_caption_names_the_output_cap_as_the_servers_own_setting_not_a_default():
    for recording in (load_qualification(), load_policy_costs()):
        lines = recording.caption().splitlines()
        defaults = next(line for line in lines if "defaults" in line)
        assert not re.search(r"n_predict|context_tokens|threads", defaults)
        fixed = next(line for line in lines if "n_predict" in line)
        assert "which no request changes" in fixed
        assert "max_output_tokens (n_predict) 256" in fixed and "context_tokens 4096" in fixed


def test_the_plain_captions_name_the_output_cap_as_the_servers_own_setting_not_a_default():
    captions = [load_policy_costs().plain_caption(), steps_plain_caption(qualification_steps())]
    for caption in captions:
        lines = caption.splitlines()
        defaults = next(line for line in lines if "default" in line)
        assert "maximum output tokens" not in defaults and "context" not in defaults
        fixed = next(line for line in lines if "maximum output tokens 256" in line)
        assert "which no request changes" in fixed


def test_lesson_00_s_tempting_misses_ask_a_question_and_never_state_the_answer():
    """The misses of 60 ("the SDK also pauses between them") and 6 ("That counts the writer too ... gpt-4o") told
    the step that was missing; each now asks a question that sends the student back to the lesson."""
    for item in (e for e in EXERCISES if e.lesson == "00"):
        for _, words in item.misses:
            assert words.rstrip().endswith("?") or "?" in words, words
    one = dict(exercise("00", "Exercise 1").misses)[60]
    assert "pauses" not in one and "0.5" not in one and "61.5" not in one
    two = dict(exercise("00", "Exercise 2").misses)
    assert "gpt-4o" not in two[6] and "counts the writer" not in two[6]
    assert "is not a role" not in two[7]


def cells() -> list[str]:
    return ["".join(cell["source"]) for cell in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]]


def words() -> str:
    return " ".join(" ".join(cells()).split())


def test_exercise_2_s_premise_has_the_key_the_table_needs_and_says_which_variables_it_excludes():
    question = next(" ".join(c.split()) for c in cells() if c.startswith("**Exercise 2.**"))
    assert "OPENAI_API_KEY" in question
    assert "and no other variable" not in question
    assert "no other COURSE_<ROLE>_MODEL" in question.replace("`", "")


def test_section_4_says_the_host_check_refuses_the_whole_proposal_unless_exact():
    text = words()
    assert "refuses the rest" not in text
    assert "stores the proposal only if it is exactly the declared facts" in text
    assert "refuses all of it otherwise" in text


def test_section_2_says_once_that_numbering_is_not_a_role_and_defines_ollama_where_it_is_first_named():
    section = next(c for c in cells() if c.startswith("## 2."))
    assert len(re.findall(r"not a role", section)) == 1
    first = " ".join(section.split()).split("Ollama", 1)[1][:160]
    assert "program" in first or "server" in first


def test_section_6_s_words_are_defined_and_plain():
    text = words()
    assert "nothing said before it is stored afterwards" not in text
    assert "reads facts into prose" not in text
    assert "or not streamed at all" not in text
    assert "takes facts from plain sentences that declare none" in text
