"""Lessons 04-06 as a student reads them (issue 32, issue 38): short policy names, sentences instead of reprs,
the original's details under "Under the hood", and the helpers that turn rows into those sentences and tables."""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import pytest
from agent_framework import AgentResponse, Message

from course_lib.exercises import exercise
from course_lib.loop import LoopAgentOptions, LoopExitReason
from course_lib.loop_demos import (
    EXIT_REASON_WORDS,
    options_rows,
    run_seed_demo,
    seed_match_sentence,
    stop_sentence,
    verdict_sentence,
)
from course_lib.policies import (
    CompactionPolicy,
    ReducerPolicy,
    course_policies,
    generate_timeline,
    seed_settings_rows,
    window_label,
)
from course_lib.recordings import load_policy_costs, stop_cause, stop_in_words
from course_lib.widgets import PolicyExplorer, expectations_html

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ("04_memory_policies_compared", "05_loop_agent_traced", "06_loop_options_compared")
UNDER_THE_HOOD = "## Under the hood"
PORT_WORDS = re.compile(
    r"\.NET|C#|inspect\.getsource|UTF-16|code unit|surrogate|\bbidi\b|CallerTurnGate|AsChatReducer"
    r"|\b[A-Z][A-Za-z]+Async\b|\b\w+\.cs\b|# ?NBVAL|TurnsExceed"
)
RAW_REPR = re.compile(r"\{'|\['|LoopAgentOptions\(|validation error for")


# region Names a student reads


def test_policies_have_short_names_and_keep_the_seeds_exact_settings_apart():
    factories = course_policies()
    assert list(factories) == [
        "full history",
        "last 3 turns",
        "summary",
        "facts",
        "compaction (3 turns)",
        "reducer (3 turns)",
    ]
    rows = seed_settings_rows(factories)
    assert [row["policy (as the tables name it)"] for row in rows] == ["compaction (3 turns)", "reducer (3 turns)"]
    assert all("TurnsExceed(3), minimumPreservedTurns: 3" in row["the seed's exact settings"] for row in rows)


def test_one_turn_is_singular_and_a_floor_apart_from_the_window_is_named():
    assert list(course_policies(window=1))[1::3] == ["last 1 turn", "compaction (1 turn)"]
    assert window_label("reducer", 3, 2) == "reducer (3 turns, 2 always kept)"
    assert CompactionPolicy.label(4, 4) == "compaction (4 turns)" and ReducerPolicy.label(1, 1) == "reducer (1 turn)"


def test_the_explorer_lists_whole_names_and_says_its_criteria_are_requirements_not_results():
    explorer = PolicyExplorer(generate_timeline(4))
    assert explorer.policies.layout.width == "max-content"  # a select box as wide as its longest name
    explorer.window.value = 1
    assert "last 1 turn" in explorer.policies.options
    html = expectations_html(generate_timeline(4))
    assert html.startswith("What a correct answer must contain")
    assert "<b>yes</b> at turn" not in html and "<th>graded turn</th>" in html and "<td>4</td>" in html


def test_the_explorers_requirements_are_a_table_one_required_text_per_line():
    """A long requirement reads whole on its own line, not broken across the end of a line of running text."""
    from course_lib.policies import load_timeline

    html = expectations_html(load_timeline())
    rows = re.findall(r"<tr>\s*<td>(\d+)</td>\s*<td>(.*?)</td>\s*<td>(.*?)</td>", html, flags=re.S)
    assert rows == [
        ("5", "Reporting<br>PostgreSQL", "Billing"),
        (
            "10",
            "Billing<br>SQL Server 2022<br>never restart the production database during business hours",
            "Reporting<br>PostgreSQL",
        ),
    ]
    assert "must contain Billing;" not in html  # no running text to wrap mid-phrase


# region The recorded cost table


@pytest.mark.parametrize(
    ("reason", "cause"),
    [
        (
            "The summarizer failed after turn 4: model 'x' at http://127.0.0.1:1/v1: the answer was cut at the output "
            "cap of 256 tokens (finish_reason='length'); raise it. The summary policy stops here.",
            "summary cut at the 256-token output cap (turn 4), see below",
        ),
        (
            "The summary after turn 34 has 705 characters; it must be 1 to 700. The summary policy stops here.",
            "summary of 705 characters (turn 34), see below",
        ),
        ("The summarizer failed after turn 2: it timed out after 30 s.", "summarizer timed out (turn 2), see below"),
        ("The summarizer failed after turn 9: something new.", "stopped (turn 9), see below"),
        ("Something with no turn.", "stopped, see below"),
    ],
)
def test_a_stop_reads_in_a_few_words_with_its_turn(reason, cause):
    assert stop_cause(reason) == cause


def test_the_recorded_table_shows_the_cause_and_the_full_message_goes_below():
    recording = load_policy_costs()
    stopped = [run for run in recording.runs if run.stopped]
    assert stopped, "the recording has a stopped policy: this test would check nothing"
    cells = recording.table()["stopped"]
    for run in stopped:
        assert len(cells[run.policy]) < 80 and cells[run.policy].endswith("see below")
        assert f"{run.policy} stopped: {run.stopped}" in recording.stop_details()
        assert f"The {run.policy} policy stopped: " in recording.stop_notes()
    assert "http" not in recording.stop_notes() and "COURSE_LLM" not in recording.stop_notes()


@pytest.mark.parametrize(
    ("reason", "sentence"),
    [
        (
            "The summarizer failed after turn 4: summarizer model 'x' at http://127.0.0.1:1/v1: the answer was cut at "
            "the output cap of 256 tokens (finish_reason='length'); raise COURSE_LLM_MAX_TOKENS (now 256).",
            "the model's summary ran past its 256-token limit and was cut off at turn 4",
        ),
        (
            "The summary after turn 34 has 705 characters; it must be 1 to 700. The summary policy stops here.",
            "the summary ran to 705 characters, over the 700-character limit at turn 34",
        ),
        ("Something with no turn.", "it stopped (the full message is under the hood)"),
        (
            "The summary after turn 1 has 0 characters; it must be 1 to 700. The summary policy stops here.",
            "the summarizer returned an empty summary at turn 1",
        ),
    ],
)
def test_a_stop_reads_as_one_plain_sentence_without_the_operators_address(reason, sentence):
    assert stop_in_words(reason) == sentence


def test_the_recording_is_one_sentence_and_its_internals_are_folded_away():
    recording = load_policy_costs()
    headline = recording.headline()
    assert headline.count(". ") == 0 and headline.endswith(".")  # one sentence: which model, when, what it shows
    assert "SmolLM2-135M-Instruct" in headline and f"{recording.recorded_at:%Y-%m-%d}" in headline
    assert not re.search(r"SHA|top_k|temperature|load average|==", headline)
    details = recording.details_html()
    assert (
        details.startswith("<details><summary>") and "SHA-256" in details and html.escape(recording.command) in details
    )


# region The loop lessons' sentences


def test_the_options_table_has_every_field_with_its_value_and_a_note():
    rows = options_rows(LoopAgentOptions(max_iterations=2, session_created_callback=print))
    assert [row["option"] for row in rows] == list(LoopAgentOptions.__dataclass_fields__)
    shown = {row["option"]: row["value"] for row in rows}
    assert shown["max_iterations"] == "2" and shown["session_created_callback"] == "print"
    assert all(row["what it does"] for row in rows)


async def test_the_seed_comparison_is_a_sentence_that_names_what_differs():
    trace, response = await run_seed_demo()
    assert seed_match_sentence(trace, response).startswith("The trace and the final messages are the seed's")
    _, other = await run_seed_demo(allowed=2)
    assert seed_match_sentence(trace, other) == (
        "Not the seed's output: the final messages differ from the seed's (white space folded)."
    )


REASONS = [v for k, v in vars(LoopExitReason).items() if k.isupper() and k != "ADDITIONAL_PROPERTIES_KEY"]


@pytest.mark.parametrize("reason", [None, *REASONS])
def test_every_exit_reason_reads_as_a_sentence(reason):
    properties = {} if reason is None else {LoopExitReason.ADDITIONAL_PROPERTIES_KEY: reason}
    response = AgentResponse(messages=[Message(role="assistant", contents=["x"])], additional_properties=properties)
    sentence = stop_sentence(response)
    assert sentence == f"Stopped because {EXIT_REASON_WORDS[reason]}" + (
        f" (loop_exit_reason: {reason})." if reason else "."
    )


def test_a_judges_reply_reads_in_words():
    assert verdict_sentence('{"answered": true, "gapAnalysis": null}') == "answered"
    assert verdict_sentence('{"answered": false, "gapAnalysis": "no owner"}') == "not answered: no owner"
    assert verdict_sentence("VERDICT: MORE") == "no structured verdict; its text reads: VERDICT: MORE"


def test_lesson_06_exercise_1_explains_the_one_feedback_message_that_lists_all_feedback():
    why = exercise("06", "Exercise 1").why
    assert '"## Feedback" message' in why and "all the feedback so far" in why and "latest feedback" not in why


def test_no_why_prints_markdown_backticks_as_plain_text():
    from course_lib.exercises import EXERCISES

    for named in EXERCISES:
        printed = exercise(named.lesson, named.label).why
        assert "`" not in printed, f"lesson {named.lesson} {named.label}: use plain quotes, the Why prints as text"


# region The lessons' two layers


def _student_path(stem: str) -> list[nbformat.NotebookNode]:
    cells = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4).cells
    heads = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith(UNDER_THE_HOOD)]
    assert len(heads) == 1, f"{stem}: one markdown cell must start with {UNDER_THE_HOOD!r}; found {len(heads)}"
    return [c for c in cells[: heads[0]] if "colab-setup" not in c.metadata.get("tags", [])]


def _shown(cell: nbformat.NotebookNode) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        data = output.get("data", {})
        parts += [data.get("text/plain", "") if "text/html" not in data else "", data.get("text/markdown", "")]
    return "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)


@pytest.mark.parametrize("stem", LESSONS)
def test_the_student_path_holds_no_port_words_and_no_raw_repr(stem):
    for cell in _student_path(stem):
        found = PORT_WORDS.search(cell.source) or PORT_WORDS.search(_shown(cell))
        assert not found, f"{stem} cell {cell.get('id')}: {found and found[0]!r} belongs under the hood"
        raw = RAW_REPR.search(_shown(cell))
        assert not raw, f"{stem} cell {cell.get('id')} prints a raw repr ({raw and raw[0]!r}): say it in words"


@pytest.mark.parametrize("stem", LESSONS)
def test_no_cell_says_hidden_below_and_no_log_is_long(stem):
    for cell in _student_path(stem):
        assert "hidden cell" not in cell.source, f"{stem} cell {cell.get('id')}: JupyterLab shows that cell"
        lines = sum(o.get("text", "").count("\n") for o in cell.get("outputs", []) if o.get("name") == "stdout")
        assert not re.search(r"^\[\d+/\d+\]", _shown(cell), re.M), f"{stem} cell {cell.get('id')}: a progress log"
        assert lines < 60 or "trace" in cell.source, f"{stem} cell {cell.get('id')} prints {lines} lines"


def test_the_progress_bar_does_not_count_twice():
    from course_lib.widgets import ProgressBar

    bar = ProgressBar(total=18, description="Comparing")
    bar.step("[1/18] full history under 'latest': 10 calls")
    assert bar.label.value == "1/18 full history under 'latest': 10 calls"


async def test_a_calls_input_is_a_table_numbered_from_one():
    from course_lib.loop import LoopAgentOptions as Options
    from course_lib.loop_demos import call_input_frame

    trace, _ = await run_seed_demo(options=Options(fresh_context_per_iteration=True))
    frame = call_input_frame(trace.calls[2])
    assert list(frame.index) == [1, 2, 3, 4] and list(frame.columns) == ["text"]
    assert frame.loc[4, "text"].startswith("## Feedback\n\n- Feedback for iteration 1\n- Feedback for iteration 2")


async def test_compactions_count_is_worked_out_and_the_next_call_holds_what_it_says():
    from course_lib.clients import make_chat_client
    from course_lib.policies import excluded_count_sentence
    from course_lib.tracing import CallLog

    timeline = generate_timeline(10)
    log = CallLog()
    policy = CompactionPolicy(make_chat_client("reader"), log)
    for turn in timeline.turns:
        await policy.turn(turn.user)
    sentence = excluded_count_sentence(policy)
    found = re.search(
        r"(\d+) user turns stored \u2212 (\d+) flagged excluded = (\d+) still in view; "
        r"\+ the next question = (\d+) user turns in the next call",
        sentence,
    )
    assert found, sentence
    stored, excluded, kept, nxt = map(int, found.groups())
    assert stored == 10 and stored - excluded == kept and nxt == kept + 1
    await policy.turn("one more question")
    assert sum(m.role == "user" for m in log.calls[-1].messages) == nxt


def test_the_feedback_log_reads_in_words_never_a_bare_none():
    from course_lib.loop_demos import EXPLICIT_MESSAGES, NO_FEEDBACK_YET, feedback_log_words

    assert feedback_log_words([]) == NO_FEEDBACK_YET == "(no feedback yet)"
    assert feedback_log_words([None]) == EXPLICIT_MESSAGES == "(no feedback: explicit messages)"
    assert feedback_log_words(["more", None]) == "more, (no feedback: explicit messages)"


async def test_a_multi_line_message_in_the_trace_hangs_deeper_than_its_first_line():
    from course_lib.loop_demos import HANGING, INDENT, run_middleware_demo

    trace, _ = await run_middleware_demo(with_session=True)
    text = trace.text()
    assert "Progress so far:" in text
    for line in text.splitlines():
        assert not line.startswith("- ["), f"a message's continuation line is flush left: {line!r}"
    assert f"{INDENT}Progress so far:\n{HANGING}- [4]Response message from LLM.\n{INDENT}Continue" in text


async def test_the_stepper_shows_every_message_verbatim_not_as_markdown():
    from course_lib.loop import LoopAgentOptions as Options
    from course_lib.loop_panels import VERBATIM_STYLE, LoopStepper

    trace, _ = await run_seed_demo(options=Options(fresh_context_per_iteration=True))
    stepper = LoopStepper(trace)
    for step in range(1, stepper.slider.max + 1):
        stepper.slider.value = step
        assert "<br>" not in stepper.view.value, f"step {step}: a message's line breaks must stay in its own block"
        assert f'<pre style="{VERBATIM_STYLE}">' in stepper.view.value
    stepper.slider.value = 3
    assert "<pre" in stepper.view.value and "## Feedback\n\n- Feedback for iteration 1" in stepper.view.value


# region Lesson 04's tables as a student reads them (issue 32, the second walk)


def test_the_timeline_table_says_yes_or_no_and_a_dash_where_nothing_is_graded():
    from course_lib.policies import load_timeline
    from course_lib.presentation import NOT_GRADED, timeline_frame

    frame = timeline_frame(load_timeline())
    assert list(frame["turn"]) == list(range(1, 11))
    assert set(frame["graded"]) == {"yes", "no"}
    ungraded = frame[frame["graded"] == "no"]
    assert set(ungraded["must contain"]) == set(ungraded["must not contain"]) == {NOT_GRADED}
    assert "" not in set(frame.to_numpy().ravel())


async def test_the_final_answers_say_yes_or_no_and_nothing_rather_than_a_blank():
    from course_lib.policies import compare_policies, load_timeline
    from course_lib.presentation import final_answers_frame

    timeline = load_timeline()
    comparison = await compare_policies(timeline, rules=["latest"])
    frame = final_answers_frame(comparison.answers, timeline.questions[-1])
    assert set(frame["correct"]) == {"yes", "no"}
    assert frame.loc[frame["policy"] == "full history", "missing"].item() == "nothing"
    assert "" not in set(frame.to_numpy().ravel()) and not frame.isin([True, False]).to_numpy().any()


def test_a_student_table_hides_the_row_numbers():
    import pandas as pd

    from course_lib.presentation import student_table

    html = student_table(pd.DataFrame({"turn": [1, 2], "user": ["a\nb", "c"]})).to_html()
    assert "row_heading" not in html and "a<br>b" in html


def test_the_lesson_shows_no_pandas_row_numbers_and_no_raw_booleans_before_under_the_hood():
    """The walk's defects, checked on the stored lesson: no 0, 1, 2... beside a named row, no True/False cell."""
    for cell in _student_path("04_memory_policies_compared"):
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            html = html if isinstance(html, str) else "".join(html)
            cells = re.findall(r"<td[^>]*>(.*?)</td>", html, flags=re.S)
            assert not {"True", "False"} & set(cells), f"cell {cell.get('id')}: say yes/no"
            numbers = re.findall(r"<th[^>]*row_heading[^>]*>\s*(\d+)\s*</th>|<tr>\s*<th>(\d+)</th>", html)
            heads = [a or b for a, b in numbers]
            assert heads[:2] != ["0", "1"], f"cell {cell.get('id')}: pandas' row numbers beside the table"
        printed = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        assert not re.search(r"correct(ly)?: (True|False)", printed), f"cell {cell.get('id')}: say yes/no"


def test_lesson_04_says_what_happened_to_the_recorded_summary_and_keeps_its_hints_out_of_sight():
    cells = {c.get("id"): c for c in _student_path("04_memory_policies_compared")}
    assert "meets this rule" not in cells["d9b06fe2"].source  # the recording says the summary was cut, not too long
    for cell in cells.values():
        if cell.cell_type == "code" and "check(" in cell.source:
            hint = re.search(r'check\([^)]*"([^"]{20,})"\)', cell.source)
            assert not hint, f"cell {cell.get('id')}: the hint is readable before the student predicts"
    words = "\n".join(c.source for c in cells.values())
    assert "serialized" not in words and "MAF Python" not in words


async def test_the_explorer_says_in_one_sentence_why_a_policy_stopped(monkeypatch):
    """A live summarizer that stops shows "no" in the panel's table: the panel says why, without the address."""
    import course_lib.widgets
    from course_lib.policies import Comparison, PolicyStop, compare_policies

    async def with_a_stop(timeline, chosen, rules):
        done = await compare_policies(timeline, chosen, rules=rules)
        reason = (
            "The summarizer failed after turn 2: summarizer model 'x' at http://127.0.0.1:9/v1: the answer was cut at "
            "the output cap of 256 tokens (finish_reason='length'); raise COURSE_LLM_MAX_TOKENS (now 256)."
        )
        stop = PolicyStop("summary", rules[0], 2, reason)
        return Comparison(done.call_rows, done.answer_rows, (stop,))

    monkeypatch.setattr(course_lib.widgets, "compare_policies", with_a_stop)
    explorer = PolicyExplorer(generate_timeline(4))
    explorer.run_button.click()
    await explorer.idle()
    said = explorer.message.value
    assert (
        "The summary policy stopped: the model's summary ran past its 256-token limit and was cut off at turn 2."
        in said
    )
    assert "http" not in said and "COURSE_LLM" not in said
