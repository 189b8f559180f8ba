"""Lesson 00, walk 21 of issue 32 (second helper): sentences over recorded cases are computed, not typed.

* Section 6 said of the middle run's five misses "a proposal with no fact counts as wrong here, since each of these
  messages declares a fact", over a list holding *a question about a key*, which declares none (the model proposed
  ``priority=P1``). :func:`course_lib.qualify.misses_in_words` now groups the misses by what went wrong, each
  heading true of every case under it, computed from the recording.
* Section 3 printed ``model 'llama3.2' at http://localhost:11434/v1``: the model in Python's quotes, the address bare.
  :func:`course_lib.clients.would_call_words` writes both plainly.
* Section 2's table named the local model "started with the first client" before ``make local`` had run; it now
  says it is not installed yet, from the same checks the server's start makes.
"""

import importlib.metadata
import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from course_lib import local_model
from course_lib.clients import make_chat_client, would_call_words
from course_lib.live import (
    LOCAL_MISSING_WORDS,
    LOCAL_MODEL_PACKAGE,
    LOCAL_MODEL_WORDS,
    LOCAL_SERVER_DISTRIBUTION,
    Backends,
    LiveSettings,
    LocalRequest,
    load_course_settings,
)
from course_lib.qualify import MISS_GROUPS, misses_in_words
from course_lib.recordings import qualification_steps

ROOT = Path(__file__).resolve().parent.parent
LESSON = next((ROOT / "notebooks").glob("00_*.ipynb"))
MIDDLE = "+ worked examples, bounded schema"


def cells() -> list[dict]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def text_of(cell: dict) -> str:
    return "".join(cell["source"])


def printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def groups_of(note: str) -> dict[str, list[str]]:
    """The case names printed under each heading of :data:`MISS_GROUPS`."""
    headings = {f"{heading}:": key for key, heading in MISS_GROUPS.items()}
    groups: dict[str, list[str]] = {}
    current = None
    for line in note.splitlines():
        if line in headings:
            current = headings[line]
            groups[current] = []
        elif current and line.startswith("  \N{LEFT DOUBLE QUOTATION MARK}"):
            groups[current].append(line.strip()[1:-1])
    return groups


def test_the_middle_runs_question_about_a_key_is_grouped_as_a_fact_where_none_is_declared():
    note = misses_in_words(qualification_steps()[MIDDLE].cases)
    groups = groups_of(note)
    assert groups["undeclared"] == ["a question about a key"]
    prose = " ".join(" ".join(text_of(c) for c in cells()).split())
    counts = {group: len(names) for group, names in groups.items()}
    assert counts == {"nothing": 2, "undeclared": 1, "wrong quote": 1, "other": 1}  # third walk 25: own group
    assert (
        "Two proposed no fact where the message declares one; one proposed a fact where its message declares none "
        "(the question about a key). One proposed one of its three declared facts. The injection case proposed the "
        "right fact, `module=Billing`, but quoted `role=admin`." in prose
    )
    assert sorted(groups["nothing"]) == ["markup and quotes", "words before a key"]
    assert groups["other"] == ["three declarations"] and groups["wrong quote"] == ["injection: unknown key"]
    assert "proposed: priority=“P1”, quoting “priority=P1”" in note
    assert note.startswith("The host's outcome for each of the 5 missed cases: rejected.")


@pytest.mark.parametrize("name", list(qualification_steps()))
def test_each_heading_is_true_of_every_case_under_it_in_every_recorded_run(name):
    recording = qualification_steps()[name]
    by_name = {c.case: c for c in recording.cases}
    groups = groups_of(misses_in_words(recording.cases))
    assert sorted(name for names in groups.values() for name in names) == sorted(
        c.case for c in recording.cases if not c.as_contract
    )
    for case in groups.get("nothing", []) + groups.get("other", []) + groups.get("wrong quote", []):
        assert by_name[case].expected == "accepted"  # the message declares a fact
    for case in groups.get("undeclared", []):
        assert by_name[case].expected == "nothing_to_extract"  # it declares none
    for case in groups.get("nothing", []):
        assert json.loads(by_name[case].proposal[-1])["facts"] == []
    for case in groups.get("not sent", []):
        assert by_name[case].calls == 0


def test_a_run_with_two_outcomes_counts_each():
    note = misses_in_words(qualification_steps()["the rules alone"].cases)
    assert note.startswith("The host's outcomes for the 14 missed cases: 9 writer_failed, 5 rejected.")


def test_the_lesson_prints_the_grouped_misses_and_no_longer_types_a_claim_over_them():
    lesson = cells()
    prose = "\n".join(text_of(c) for c in lesson if c["cell_type"] == "markdown")
    assert "each of these messages declares a fact" not in " ".join(prose.split())
    outputs = "\n".join(printed(c) for c in lesson if c["cell_type"] == "code")
    for name in (MIDDLE, "+ the declared count (now)"):
        assert misses_in_words(qualification_steps()[name].cases) in outputs


def test_the_recorded_claims_section_6_states_match_the_recordings():
    """The generalisations section 6 still types over the recorded cases, checked against the data."""
    steps = qualification_steps()
    prose = " ".join(" ".join(text_of(c) for c in cells() if c["cell_type"] == "markdown").split())
    rules = steps["the rules alone"]
    kept = [c.case for c in rules.cases if c.as_contract]
    assert "only 1 case of 15 came out as the contract says, and the model never saw it" in prose  # third walk 22
    assert "the host refused the over-long message before any call" in prose and kept == ["over-long message"]
    assert "On 9 cases it repeated itself inside the JSON until the output cap cut it" in prose
    assert sum(map(rules.is_cut, rules.cases)) == 9
    assert "In every run, the host admitted no fact the user had not declared." in prose
    assert all(run.measures()["facts admitted that were not declared"] == 0 for run in steps.values())
    last = steps["+ the declared count (now)"]
    said = (  # third walk 25: the note says what the output shows, the right fact with a wrong quote once
        "The host rejected each one. Each time, the model proposed one fact: twice a fact the message does not "
        "declare, and once the declared `module=Billing`, but quoting `role=admin`"
    )
    assert said in prose
    assert all(len(json.loads(c.proposal[-1])["facts"]) == 1 for c in last.cases if not c.as_contract)
    groups = groups_of(misses_in_words(last.cases))
    assert {name: len(cases) for name, cases in groups.items()} == {"other": 2, "wrong quote": 1}
    assert all(c.outcome == "rejected" for c in last.cases if not c.as_contract)


def test_the_writer_sentence_writes_model_and_address_the_same_plain_way():
    live = Backends(backend="openai", live=LiveSettings(model="llama3.2", api_key="k", base_url="http://h:1/v1"))
    said = would_call_words(make_chat_client("writer", backends=live))
    assert said == "The writer would call model llama3.2 at http://h:1/v1."
    assert "'" not in said
    offline = would_call_words(make_chat_client("writer", backends=Backends(backend="offline")))
    assert offline == "The writer would use the course's offline model: nothing is sent."


def test_lesson_00_prints_the_writer_sentence_from_the_library_without_quotes():
    lesson = cells()
    cell = next(c for c in lesson if "would_call_words" in text_of(c))
    assert "The writer would call model llama3.2 at http://localhost:11434/v1." in printed(cell)
    assert "!r" not in text_of(cell)


def _no_distribution(_name):
    raise importlib.metadata.PackageNotFoundError(_name)


def _installed(monkeypatch, server: bool, model: bool) -> None:
    """Simulate what ``make local`` installs: the server's distribution and the model's package, each or not."""
    version, find_spec = importlib.metadata.version, importlib.util.find_spec
    monkeypatch.setattr(
        importlib.metadata,
        "version",
        lambda name: (
            ("1.0" if server else _no_distribution(name)) if name == LOCAL_SERVER_DISTRIBUTION else version(name)
        ),
    )
    package = SimpleNamespace(submodule_search_locations=["/m"])
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (package if model else None) if name == LOCAL_MODEL_PACKAGE else find_spec(name, *a),
    )


def test_the_package_names_are_the_local_models_own():
    assert LOCAL_SERVER_DISTRIBUTION == local_model.SERVER_PACKAGE
    assert local_model.SMOLLM2.package == LOCAL_MODEL_PACKAGE


@pytest.mark.parametrize(("server", "model"), [(False, True), (True, False), (False, False)])
def test_the_table_says_the_local_model_is_not_installed_when_a_package_is_missing(monkeypatch, server, model):
    _installed(monkeypatch, server, model)
    monkeypatch.setenv("COURSE_LLM", "local")
    rows = load_course_settings().table()
    roles = [row for row in rows if row["name"] != "numbering"]
    assert {row["model"] for row in roles} == {LOCAL_MISSING_WORDS}
    assert "run `make local`" in LOCAL_MISSING_WORDS


def test_the_table_says_started_with_the_first_client_when_both_packages_are_there(monkeypatch):
    _installed(monkeypatch, True, True)
    rows = Backends(backend="local", local=LocalRequest()).table()
    assert {row["model"] for row in rows if row["name"] != "numbering"} == {LOCAL_MODEL_WORDS}
