"""The recordings of the local model under data/: current schemas, valid files, labelled and rendered as such."""

import json
from pathlib import Path

import pytest

from course_lib.local_model import SMOLLM2
from course_lib.memory import mark_invisible
from course_lib.memory_models import OfflineWriterClient
from course_lib.qualify import BATTERY, Case, qualify
from course_lib.recordings import (
    DATA,
    NOT_SENT,
    QUALIFICATION_BEFORE_FILE,
    QUALIFICATION_EXAMPLES_FILE,
    QUALIFICATION_FILE,
    SAMPLING_MARK,
    SCHEMAS,
    WRITER_REQUEST,
    compare_qualifications,
    declared_pairs,
    load_policy_costs,
    load_qualification,
    misses_note,
    qualification_steps,
    relabelled,
    steps_headline,
)
from course_lib.tracing import EST_TOKENS, CallLog

BOTH = pytest.mark.parametrize(
    "path",
    [QUALIFICATION_FILE, QUALIFICATION_EXAMPLES_FILE, QUALIFICATION_BEFORE_FILE],
    ids=["now", "examples", "before"],
)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_recordings_schema_file_is_generated_from_its_model(name):
    assert json.loads((DATA / name).read_text()) == SCHEMAS[name].model_json_schema()


@BOTH
def test_the_qualification_recording_names_what_reproduces_it_and_is_labelled_a_recording(path):
    recording = load_qualification(path)
    assert recording.model.model_sha256 == SMOLLM2.sha256 and recording.model.model == SMOLLM2.alias
    assert recording.model.server.startswith("xllamacpp==") and "temperature" in recording.model.sampling
    caption = recording.caption()
    assert caption.startswith("RECORDING (not run in this notebook)") and "make record-local" in caption
    assert caption.endswith("safe to ignore; the load average is how busy the machine was.")
    assert recording.recorded_at.utcoffset() is not None  # timezone-aware UTC
    assert "/" not in recording.machine.platform  # no machine path in a committed file


@BOTH
async def test_the_recorded_scorecard_has_make_qualifys_columns_and_every_case_of_the_battery(path):
    recording = load_qualification(path)
    log = CallLog()
    reference = await qualify(OfflineWriterClient(log=log), log)
    card = recording.card()
    assert list(card.columns) == list(reference.columns)
    assert list(card["case"]) == [case.name for case in BATTERY]
    assert recording.totals().loc["cases", "value"] == len(BATTERY)
    assert all(len(c.proposal) == c.calls for c in recording.cases)  # every call's reply is kept


@BOTH
def test_the_recorded_run_admitted_no_fact_the_user_did_not_declare(path):
    cases = {case.name: case for case in BATTERY}
    recording = load_qualification(path)
    assert recording.measures()["facts admitted that were not declared"] == 0
    for recorded in recording.cases:
        admitted = {tuple(pair.split("=", 1)) for pair in recorded.admitted.split("; ") if pair}
        assert admitted <= declared_pairs(cases[recorded.case]), recorded.case
        assert recorded.admitted == "" or recorded.outcome == "accepted"


@BOTH
def test_the_recording_file_is_what_the_model_writes_back(path):
    text = Path(path).read_text()
    assert load_qualification(path).model_dump_json(indent=2) + "\n" == text


def test_the_steps_are_in_order_each_with_its_own_request_and_the_current_one_last():
    steps = qualification_steps()
    requests = [recording.writer_request for recording in steps.values()]
    assert len(set(requests)) == len(steps) == 3 and requests[-1] == WRITER_REQUEST
    recorded = [recording.recorded_at for recording in steps.values()]
    assert recorded == sorted(recorded)
    table = compare_qualifications(steps)
    assert list(table.columns) == list(steps)
    assert set(table.loc["facts admitted that were not declared"]) == {0}  # whatever the request, the host holds
    assert list(table.loc["writer's sampling"]) == ["the server's: temperature 0.8", *["temperature 0.0"] * 2]
    assert not any("issue" in str(value) for value in table.to_numpy().ravel())  # a student reads no issue number
    # the words of lesson 00's section 5 (output tokens), and no term a student has not met (issue 32)
    assert "output tokens" in table.index and not any("completion" in m or "load average" in m for m in table.index)


def test_the_caption_names_the_servers_defaults_and_what_the_writer_asked_for_instead():
    now, before = load_qualification(), load_qualification(QUALIFICATION_BEFORE_FILE)
    assert now.writer_sampling() == "temperature 0.0" and before.writer_sampling() == ""
    assert WRITER_REQUEST.endswith(SAMPLING_MARK + now.writer_sampling())
    assert "The server's defaults, for every request that asks for no other: temperature 0.8" in now.caption()
    assert "; the writer asks for temperature 0.0 instead." in now.caption()
    assert "; the writer asks for no other." in before.caption()
    assert "writer asks" not in load_policy_costs().caption()  # it records several roles' requests, not one


def test_the_two_recordings_say_which_request_each_sent_and_compare_side_by_side():
    now, before = load_qualification(), load_qualification(QUALIFICATION_BEFORE_FILE)
    assert now.writer_request == WRITER_REQUEST and before.writer_request != WRITER_REQUEST
    table = compare_qualifications({"before": before, "now": now})
    assert list(table.columns) == ["before", "now"]
    assert table.loc["cases as the contract says", "before"] == f"{sum(c.as_contract for c in before.cases)} of 15"
    assert table.loc["cut at the output cap", "before"] == sum(map(before.is_cut, before.cases))


@BOTH
def test_a_writer_failure_that_used_the_whole_output_cap_is_shown_as_cut_there(path):
    recording = load_qualification(path)
    cap = recording.model.sampling["max_output_tokens (n_predict)"]
    shown = dict(zip(recording.card()["case"], recording.card()["reason"], strict=True))
    for case in recording.cases:
        cut = case.outcome == "writer_failed" and (case.output_tokens or 0) >= cap * case.calls
        assert shown[case.case].startswith("cut at the output cap") == cut, case.case
        assert cut or shown[case.case] == case.reason


def test_the_policy_cost_recording_has_lesson_04s_six_policies_with_reported_and_estimated_tokens():
    from course_lib.policies import course_policies, load_timeline

    recording = load_policy_costs()
    assert recording.model.model_sha256 == SMOLLM2.sha256 and recording.timeline == load_timeline().name
    assert [run.policy for run in recording.runs] == list(course_policies())
    table = recording.table()
    assert list(table.index) == list(course_policies())
    assert {EST_TOKENS, "reported input tokens", "reported output tokens", "seconds"} <= set(table.columns)
    columns = recording.columns_note()  # said above the table: the ratio, the seconds, the answers' count
    assert '"reported / estimate": the reported input tokens divided by' in columns and "2 graded" in columns
    notes = recording.reading_notes()  # what the answers are worth, computed
    assert "reported / estimate" not in notes
    every_wrong = all(run.graded_correct == 0 for run in recording.runs)
    assert ("got every graded answer wrong under every policy here" in notes) == every_wrong
    lucky = recording.model_copy(update={"runs": [recording.runs[0].model_copy(update={"graded_correct": 1})]})
    assert "got 1 of" in lucky.reading_notes() and "every graded answer wrong" not in lucky.reading_notes()
    for run in recording.runs:  # a run that stopped says why; one that did not answered every graded turn
        calls = run.reader_calls + run.extra_calls  # the estimate is chars/4 per call, rounded down each time
        assert run.est_tokens <= run.chars_sent // 4 <= run.est_tokens + calls
        assert (run.stopped == "") or ("no substitute summary is used" in run.stopped and run.policy == "summary")
    assert recording.caption().startswith("RECORDING (not run in this notebook)")


@BOTH
def test_the_proposals_show_what_a_cut_writer_had_written_marked_as_cut(path):
    recording = load_qualification(path)
    shown = dict(zip(recording.proposals()["case"], recording.proposals()["writer's reply"], strict=True))
    for case in recording.cases:
        assert len(case.call_errors) == case.calls
        for text, error in zip(case.proposal, case.call_errors, strict=True):
            if error and text:  # cut: the text it wrote, after the mark
                assert shown[case.case].startswith("[cut] " + text[:20]), case.case
            elif error:
                assert "(failed: " in shown[case.case]
        assert case.calls or shown[case.case] == NOT_SENT  # no call: said, not an empty cell


def test_the_proposals_show_an_invisible_character_as_a_visible_marker():
    recording = load_qualification()
    shown = recording.proposals().set_index("case")
    hidden = next(c for c in recording.cases if "\u200b" in c.message)
    assert "Bill\u200bing" in hidden.admitted and shown.loc[hidden.case, "admitted"] == "module=Bill[U+200B]ing"
    assert "\u200b" not in "".join(map(str, shown.to_numpy().ravel()))


@pytest.mark.parametrize(
    ("text", "marked"),
    [
        ("module=Billing", "module=Billing"),
        ("Bill\u200bing", "Bill[U+200B]ing"),
        ("\ufeffa\tb", "[U+FEFF]a[U+0009]b"),
        ("line\nnext", "line\nnext"),  # a line break stays one: the tables keep them
        ("Ba\u0301sico", "Ba\u0301sico"),  # a combining accent is seen (on the a), so it stays
    ],
)
def test_mark_invisible_shows_each_invisible_character_and_leaves_every_other(text, marked):
    assert mark_invisible(text) == marked


@BOTH
def test_each_recordings_case_names_kinds_and_messages_are_the_batterys(path):
    """Names and kinds are labels: ``python -m course_lib.recordings relabel`` keeps the files equal to BATTERY."""
    recording = load_qualification(path)
    assert [(c.case, c.kind) for c in recording.cases] == [(case.name, case.kind) for case in BATTERY]
    assert relabelled(recording) == recording


def test_a_relabel_changes_labels_only_and_refuses_a_case_whose_message_changed():
    recording = load_qualification()
    renamed = [c.model_copy(update={"case": "old name", "kind": "old kind"}) for c in recording.cases]
    relabelled_back = relabelled(recording.model_copy(update={"cases": renamed}))
    assert relabelled_back == recording  # every recorded reply, outcome and count kept
    other = (Case("one declaration", "declaration", "module=Payroll"), *BATTERY[1:])
    with pytest.raises(ValueError, match=r"rule: a relabel keeps every message\). Nothing was relabelled"):
        relabelled(recording, other)
    with pytest.raises(ValueError, match="neither adds nor drops one"):
        relabelled(recording, BATTERY[:-1])


def test_the_window_and_the_reducer_differ_in_the_recording_for_a_reason_computed_from_its_runs():
    """Offline they send the same messages; on a real model the answers inside those turns differ, and it says so."""
    recording = load_policy_costs()
    runs = {run.policy: run for run in recording.runs}
    window, reducer = runs["last 3 turns"], runs["reducer (3 turns)"]
    note = recording.same_turns_note()
    assert note in recording.reading_notes() and "send the same turns" in note
    assert f"{reducer.input_tokens} input tokens against {window.input_tokens}" in note
    assert f"{reducer.output_tokens} output tokens against {window.output_tokens}" in note
    swapped = [  # the other way round, the sentence follows the figures, not the policy's name
        run.model_copy(update={"input_tokens": 10_000, "output_tokens": 5_000}) if run is window else run
        for run in recording.runs
    ]
    flipped = recording.model_copy(update={"runs": swapped}).same_turns_note()
    assert "the last 3 turns run wrote more (5000 output tokens against" in flipped
    shorter = [run.model_copy(update={"output_tokens": 1}) if run is reducer else run for run in recording.runs]
    assert "wrote more" not in recording.model_copy(update={"runs": shorter}).same_turns_note()
    unknown = [run.model_copy(update={"input_tokens": None}) if run is reducer else run for run in recording.runs]
    assert recording.model_copy(update={"runs": unknown}).same_turns_note() == ""


def test_the_qualification_recording_is_introduced_in_one_sentence_and_the_rest_folded_away():
    """Lesson 00's recording (issue 32): the student reads one line; the settings and machine sit in <details>."""
    recording = load_qualification()
    sentence, *commands = steps_headline({"last": recording}).splitlines()
    assert len(sentence) < 240 and f"{recording.recorded_at:%Y-%m-%d}" in sentence and "not run here" in sentence
    assert recording.model.model.split("-Q")[0] in sentence
    assert "  make local && make record-local" in commands  # each command on a line of its own, as copied
    assert "top_k" not in sentence and "SHA-256" not in sentence  # those are in the folded caption
    assert "<details>" in recording.details_html() and "top_k" in recording.details_html()


@BOTH
def test_the_proposals_say_what_the_contract_expects_of_each_case(path):
    """Lesson 00's proposals table (issue 32): beside each outcome, what a writer keeping the contract gets and
    whether this one did, so a student sees which proposals were wrong without the scorecard above."""
    recording = load_qualification(path)
    shown = recording.proposals()
    assert list(shown.columns) == ["case", "expected", "outcome", "as contract", "writer's reply", "admitted"]
    assert list(shown["expected"]) == [c.expected for c in recording.cases]
    assert list(shown["as contract"]) == [c.as_contract for c in recording.cases]


def test_the_cases_each_request_missed_are_computed_from_the_runs_the_table_compares():
    """Lesson 00 §6 said "the middle run still had two faults" beside 10 of 15 (issue 32): the misses are now a
    line per run, computed from the cases, whose count is the table's complement."""
    steps = qualification_steps()
    note = misses_note(steps)
    lines = note.splitlines()
    assert len(lines) == 1 + len(steps)
    for (name, run), line in zip(steps.items(), lines[1:], strict=True):
        missed = [c.case for c in run.cases if not c.as_contract]
        kept = sum(c.as_contract for c in run.cases)
        assert run.measures()["cases as the contract says"] == f"{kept} of {len(run.cases)}"
        assert line.startswith(f"  {name}: missed {len(missed)} of {len(run.cases)}")
        listed = [c.case for c in run.cases if c.as_contract] if len(missed) > kept else missed
        assert all(f"“{case}”" in line for case in listed)
    middle = lines[2]
    assert "missed 5 of 15" in middle and "“a question about a key”" in middle and "“one declaration”" not in middle
    assert "every case but “over-long message”" in lines[1]
