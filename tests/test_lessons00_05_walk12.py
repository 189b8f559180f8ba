"""Lessons 00 and 05, sixth walk (issue 32): the endpoint table's key examples, a failed writer's report, and the
lessons' words.

A local server's key is said with an example of its own server (``ollama`` on Ollama's row only); a failed live
writer's report says once that nothing falls back; lesson 00 maps each ``.env`` variable to its argument; lesson 05
says what its agent is, explains the empty ``Previous feedback:`` line twice (not three times) and counts the seed's
contradictions from its table's rows.
"""

import re

import pytest

from course_lib.clients import make_chat_client
from course_lib.extraction import NO_FALLBACK, ChatFactWriter, MemoryExtraction
from course_lib.live import (
    ENDPOINT_EXAMPLES,
    FIELD_VARS,
    PLACEHOLDER_API_KEY,
    Backends,
    LiveSettings,
    LiveSettingsError,
    any_local_key,
)
from course_lib.memory import WorkingMemory
from tests.support.lesson_cells import cell_outputs, cell_source, stored_lesson


def local_rows() -> list[dict[str, str]]:
    return [row for row in ENDPOINT_EXAMPLES if row["OPENAI_BASE_URL"].startswith("http://localhost")]


def test_only_ollamas_row_suggests_the_key_ollama():
    rows = {row["server"]: row["OPENAI_API_KEY"] for row in local_rows()}
    assert set(rows) == {"Ollama", "LM Studio", "llama.cpp server"}
    assert rows["Ollama"] == any_local_key("ollama")
    for server in ("LM Studio", "llama.cpp server"):
        assert "ollama" not in rows[server].lower() and rows[server] == any_local_key("local")


@pytest.mark.parametrize("row", local_rows(), ids=lambda row: row["server"])
def test_each_rows_example_key_passes_and_the_placeholder_does_not(row):
    words = row["OPENAI_API_KEY"]
    assert "blank" in words and PLACEHOLDER_API_KEY in words
    example = re.search(r"\(e\.g\. (\S+)\)$", words)[1]
    LiveSettings(model="m", api_key=example, base_url=row["OPENAI_BASE_URL"])  # the example passes
    with pytest.raises(LiveSettingsError):
        LiveSettings(model="m", api_key=PLACEHOLDER_API_KEY, base_url=row["OPENAI_BASE_URL"])


def dead_backends() -> Backends:
    """Lesson 00's closed port: a port where nothing listens, so the connection is refused."""
    live = LiveSettings(
        model="llama3.2", api_key="not-needed", base_url="http://127.0.0.1:9/v1", timeout=2, max_retries=0
    )
    return Backends(backend="openai", live=live)


async def test_a_failed_live_writers_report_says_the_fallback_point_once():
    store = WorkingMemory()
    writer = ChatFactWriter(make_chat_client("writer", backends=dead_backends()))
    report = await MemoryExtraction(store, writer).update("module=Billing")
    assert report.status == "writer_failed" and store.facts == ()
    assert report.diagnostic.endswith(NO_FALLBACK)  # the claim map's F12 still holds
    assert len(re.findall("fallback", report.diagnostic, flags=re.IGNORECASE)) == 1
    assert "cannot connect" in report.diagnostic and "OPENAI_BASE_URL" in report.diagnostic  # the cause is kept


async def test_any_other_writer_exception_keeps_its_words_and_says_the_fallback_point_once():
    class Broken:
        async def propose(self, user_text):
            raise RuntimeError("boom. No offline fallback is used.")

    report = await MemoryExtraction(WorkingMemory(), Broken()).update("module=Billing")
    assert report.diagnostic == f"Writer failed (RuntimeError): boom. {NO_FALLBACK}"


def test_lesson00_prints_the_failed_writers_fallback_point_once():
    [writer_cell] = [c["id"] for c in stored_lesson("00")["cells"] if "closed_writer = " in "".join(c["source"])]
    printed = cell_outputs("00", writer_cell)
    assert "status: writer_failed" in printed
    assert len(re.findall("fallback", printed, flags=re.IGNORECASE)) == 1


def test_lesson00_maps_each_variable_to_the_argument_it_becomes():
    cells = stored_lesson("00")["cells"]
    [words] = ["".join(c["source"]) for c in cells if "Any OpenAI-compatible endpoint" in "".join(c["source"])]
    # walk 24: the map is the comment beside each argument of the configuration cell the words point at
    assert "one argument per variable of `.env` (the comments name them)" in " ".join(words.split())
    [code] = ["".join(c["source"]) for c in cells if "ollama = LiveSettings(" in "".join(c["source"])]
    mapping = {var: arg for arg, var in re.findall(r"^\s+(\w+)=.*# in \.env: (\w+)=", code, flags=re.M)}
    assert mapping == {
        "OPENAI_MODEL": "model",
        "OPENAI_API_KEY": "api_key",
        "OPENAI_BASE_URL": "base_url",
        "COURSE_JUDGE_MODEL": "role_models",
    }
    assert 'role_models={"judge": "qwen2.5:7b"},  # in .env: COURSE_JUDGE_MODEL=qwen2.5:7b' in code
    # FIELD_VARS is the rule load_course_settings reads .env by
    assert {FIELD_VARS[argument]: argument for argument in ("model", "api_key", "base_url")} == {
        k: v for k, v in mapping.items() if k.startswith("OPENAI_")
    }
    said = " ".join(words.split())
    # walk 23: the forward pointer to section 4's report is cut (density); section 4 itself shows the report
    assert "Section 4 shows the report of a failed writer call" not in said
    assert "section 4 shows such a report" not in words


def test_lesson05_says_what_its_agent_is_and_its_agent_has_no_instructions():
    intro = cell_source("05", "cell-00")
    assert "model with instructions" not in intro and "wrapped by MAF's `Agent` class" in intro
    demo = cell_source("05", "cell-07")
    assert "Agent(client=NumberingChatClient(numberer, trace))" in demo and "instructions" not in demo


def test_lesson05_explains_the_empty_previous_feedback_line_before_the_trace_and_under_the_hood_only():
    cells = stored_lesson("05")["cells"]
    explaining = [
        c["id"] for c in cells if c["cell_type"] == "markdown" and "Previous feedback:" in "".join(c["source"])
    ]
    assert explaining == ["cell-06", "hood-format"]
    assert "no previous feedback yet" not in cell_source("05", "cell-08")


def test_lesson05_counts_the_seeds_contradictions_from_its_rows():
    [words] = [
        "".join(c["source"])
        for c in stored_lesson("05")["cells"]
        if "### Where the seed contradicts itself" in "".join(c["source"])
    ]
    table = [line for line in words.splitlines() if line.startswith("|")]
    assert table[0].split(" | ")[2] == "and in another"  # walk 24: what the seed says in one place, in another
    also = [line.split(" | ")[2] for line in table[2:]]
    itself = sum(cell != "—" for cell in also)  # the seed said against the seed
    against_source = len(also) - itself  # the seed against the .NET source only
    numbers = {1: "once", 2: "twice", 3: "three times"}
    assert (itself, against_source) == (2, 1)
    assert f"contradicts itself {numbers[itself]}" in words
    assert f"{numbers[against_source]} it contradicts the .NET source" in words
