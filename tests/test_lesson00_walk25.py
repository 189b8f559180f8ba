"""Lesson 00's walk 25 (issue 32, 4/5: "sections 5-6 bring in lesson 01-02 words and port history that a first-day
student can't use yet").

1. The student path opens on "Every lesson runs offline by default"; the seeds and MAF's history are under the hood,
   and the path names *seed* once, in a short clause beside the glossary link.
2. Section 2 says what the ``numbering`` row is in plain words: a scripted model of lessons 05 and 06, which no
   setting changes (true of :meth:`Backends.table` and :func:`stays_offline`).
3. Section 5 names no lesson 01-02 class in its prose: one sentence says the writer's call goes through lesson 02's
   fact writer and that its characters (the number the cell prints) are mostly instructions and examples.
4. Section 6 and Exercise 3 are readable on day 0: section 6 says what a message declares and what the host does in
   plain words; Exercise 3 states where a value ends, inline, and links nowhere under the hood.
5. The hood's *bounded schema* says what a JSON schema is where it uses it; ``make local`` installs a small real model.
6. One rule for every setting: a value padded with spaces is refused by its variable's name, from the shell or from
   ``.env`` alike (``COURSE_LLM= offline `` in ``.env`` was silently read as ``offline``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_type_hints

import pytest

from course_lib.exercises import exercise
from course_lib.live import (
    Backends,
    CourseSettings,
    LiveSettingsError,
    OpenAIEndpointSettings,
    load_course_settings,
    stays_offline,
)
from course_lib.tracing import CallLog
from tests.support.lesson_cells import cell_outputs, cell_source, paragraphs, stored_lesson, student_path, words

HOOD = "## Under the hood"

SETTINGS = [f"COURSE_{name.upper()}" for name in get_type_hints(CourseSettings)] + [
    f"OPENAI_{name.upper()}" for name in get_type_hints(OpenAIEndpointSettings)
]
"""Every variable the course reads from the shell or from ``.env``."""

VALID = {"COURSE_LLM": "openai", "OPENAI_MODEL": "gpt-test", "OPENAI_API_KEY": "sk-test-key-0123456789"}


def path_text() -> str:
    return words(" ".join(student_path("00")))


def hood_text() -> str:
    cells = stored_lesson("00")["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith(HOOD))
    return words(" ".join("".join(c["source"]) for c in cells[start:] if c["cell_type"] == "markdown"))


# 1. The path opens offline; the seeds' history is under the hood ------------------------------------------------------


def test_the_student_path_opens_on_running_offline():
    first = paragraphs(student_path("00")[0])[0]
    assert first.startswith("Every lesson runs **offline by default**"), first


def test_the_seeds_and_maf_history_are_under_the_hood_and_the_path_defines_seed_once_with_the_glossary():
    path = path_text()
    assert "published articles, and the output" not in path and "re-creates in Python" not in path
    assert "The course re-creates in Python the code of two published articles" in hood_text()
    # a later walk 25: the map and section 2's table use the word, so the intro defines it once, in one clause
    assert path.count("*seed*") == 1 and "follows a *seed*: a published article the course rewrites in Python" in path


# 2. The numbering row -------------------------------------------------------------------------------------------------


def test_section_2_says_the_numbering_row_is_a_scripted_model_no_setting_changes():
    section = words(next(t for t in student_path("00") if t.startswith("## 2.")))
    assert "is not a role but a scripted model that lessons 05 and 06 use; no setting changes it." in section
    assert "fake model of the seed's loop demo" not in section
    live = Backends(backend="openai", live={"model": "m", "api_key": "sk-test-key-0123456789"})
    assert stays_offline(Backends(backend="offline"), live) == ["numbering"]
    for number in ("05", "06"):
        code = " ".join("".join(c["source"]) for c in stored_lesson(number)["cells"] if c["cell_type"] == "code")
        assert "NumberingChatClient" in code or "run_seed_demo" in code or "numbering" in code


# 3. Section 5's prose needs no lesson 02 names ------------------------------------------------------------------------


def test_section_5_prose_names_no_memory_class_and_says_the_printed_character_count():
    section = words(next(t for t in student_path("00") if "## 5." in t))
    section = section[section.index("## 5.") :]
    for name in ("WorkingMemory", "ChatFactWriter", "MemoryExtraction", "You need none"):
        assert name not in section, name
    assert "Those are *worked examples*: sample messages" in section  # third walk 25: defined where it is used
    printed = cell_outputs("00", "e9786665")
    chars = re.search(r"The writer was sent (\d+) characters", printed)
    assert chars, printed
    said = f"The second call goes through lesson 02's fact writer: {chars.group(1)} characters, "
    assert said in section, section


async def test_the_writers_characters_are_mostly_its_instructions_and_examples():
    from course_lib.clients import make_chat_client
    from course_lib.extraction import ChatFactWriter, MemoryExtraction
    from course_lib.memory import WorkingMemory

    log = CallLog()
    writer = ChatFactWriter(make_chat_client("writer", log=log, backends=Backends(backend="offline")))
    await MemoryExtraction(WorkingMemory(), writer).update("module=Billing")
    call = log.calls[-1]
    assert len("module=Billing") < call.chars_sent / 2


# 4. Section 6 and Exercise 3 on day 0 ---------------------------------------------------------------------------------


def test_section_6_says_in_plain_words_what_a_message_declares_and_what_the_host_does():
    section = words(next(t for t in student_path("00") if t.startswith("## 6.")))
    assert "After lesson 02" not in section and "lesson 02" not in section and "lesson 01" not in section
    assert "A message *declares* a fact by writing `key=value`" in section
    assert "only if it is exactly the declared facts, each quoting the words of its own declaration" in section


def test_exercise_3_states_where_a_value_ends_inline_and_links_nowhere_under_the_hood():
    question = words(next(t for t in student_path("00") if t.startswith("**Exercise 3.")))
    assert "a value runs to the next `;` or line break, so a comma does not end it" in question
    assert "](#" not in question and "Section 6 in full" not in question and "lesson 02" not in question
    hint = exercise("00", "Exercise 3").hint
    assert "Under the hood" not in hint and "Section 6 in full" not in hint


def test_the_time_line_no_longer_sends_section_6_after_lesson_02():
    opening = words(student_path("00")[0])
    assert "best done after lesson 02" not in opening


# 5. The hood's bounded schema -----------------------------------------------------------------------------------------


def test_the_bounded_schema_says_what_a_json_schema_is_and_make_local_installs_a_model():
    hood = words(cell_source("00", "22bec7af"))
    assert "a *bounded schema* is a JSON schema (a description of the exact JSON shape the reply must have)" in hood
    assert "see the failure list" not in hood
    assert "`make local` installs a small real model, SmolLM2-135M-Instruct." in hood


# 6. One rule for every setting: padded is refused, from the shell or .env ---------------------------------------------


@pytest.fixture
def clean(monkeypatch):
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_settings_list_covers_every_variable_env_example_names():
    example = (Path(__file__).resolve().parent.parent / ".env.example").read_text(encoding="utf-8")
    named = set(re.findall(r"\b((?:COURSE|OPENAI)_[A-Z_]+)=", example))
    assert named <= set(SETTINGS), named - set(SETTINGS)
    assert len(SETTINGS) == 15


def _values(name: str) -> dict[str, str]:
    good = {"COURSE_LLM_TIMEOUT": "30", "COURSE_LLM_MAX_RETRIES": "1", "COURSE_LLM_MAX_TOKENS": "512"}
    good |= {"COURSE_LOCAL_THREADS": "2", "COURSE_LOCAL_REUSE": "1", "OPENAI_BASE_URL": "http://localhost:11434/v1"}
    return VALID | {name: VALID.get(name) or good.get(name) or "gpt-test"}


@pytest.mark.parametrize("name", SETTINGS)
@pytest.mark.parametrize("padded", ["{} ", " {}", " {} ", "{}\t"])
def test_a_padded_setting_is_refused_by_name_from_the_shell(clean, tmp_path, name, padded):
    values = _values(name)
    load_course_settings(tmp_path / "absent.env")  # offline with nothing set
    for var, value in values.items():
        clean.setenv(var, padded.format(value) if var == name else value)
    with pytest.raises(LiveSettingsError) as refused:
        load_course_settings(tmp_path / "absent.env")
    assert f"{name} has leading or trailing spaces; remove them" in str(refused.value)


@pytest.mark.parametrize("name", SETTINGS)
@pytest.mark.parametrize("padded", ["{} ", " {}", " {} ", "{}\t", "{}  # a comment after spaces is fine"])
def test_a_padded_setting_is_refused_by_name_from_env(clean, tmp_path, name, padded):
    values = _values(name)
    env = tmp_path / ".env"
    env.write_text("".join(f"{v}={padded.format(x) if v == name else x}\n" for v, x in values.items()), "utf-8")
    if "comment" in padded:
        load_course_settings(env)  # a comment is not part of the value
        return
    with pytest.raises(LiveSettingsError) as refused:
        load_course_settings(env)
    assert f"{name} has leading or trailing spaces; remove them" in str(refused.value)
    assert ".env" in str(refused.value)


@pytest.mark.parametrize("line", ["COURSE_LLM=offline", "COURSE_LLM='offline'", 'COURSE_LLM="offline"  # ok'])
def test_an_unpadded_or_quoted_value_in_env_is_read_as_before(clean, tmp_path, line):
    env = tmp_path / ".env"
    env.write_text(line + "\n", "utf-8")
    assert load_course_settings(env).backend == "offline"


def test_a_padded_course_llm_from_env_is_refused_as_the_finding_wrote_it(clean, tmp_path):
    env = tmp_path / ".env"
    env.write_text("COURSE_LLM= offline \n", "utf-8")
    with pytest.raises(LiveSettingsError, match="COURSE_LLM has leading or trailing spaces; remove them"):
        load_course_settings(env)


def test_the_lesson_says_the_rule_of_every_setting():
    text = words(cell_source("00", "5d7f584d"))
    assert "padded with spaces" in text
