"""The helpers that make lessons 04-06 read as a student reads them (issue 32, issue 38): short policy names,
sentences instead of reprs, and the rows behind those sentences and tables.

The lesson rules themselves (port words and raw reprs before "Under the hood", one such section, no "hidden cell",
no long log) are checked on every lesson by tests/test_student_path.py, with the broader patterns this file had."""

from __future__ import annotations

import html
import re

import pytest
from agent_framework import AgentResponse, Message
from test_student_path import hood_index, lesson

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
from course_lib.recordings import address_in_words, load_policy_costs, stop_cause, stop_in_words
from course_lib.widgets import PolicyExplorer, expectations_html

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
    from course_lib.widgets import PICK_SEVERAL_HINT

    explorer = PolicyExplorer(generate_timeline(4))
    assert explorer.policies.layout.width == "max-content"  # a select box as wide as its longest name
    controls = explorer.children[0].children  # how to pick several, right under the list
    assert controls[controls.index(explorer.policies) + 1] is explorer.pick_hint
    assert (
        "Ctrl-click (Cmd-click on a Mac) to pick several" in explorer.pick_hint.value == f"<i>{PICK_SEVERAL_HINT}</i>"
    )
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
        ("5", "Reporting<br>PostgreSQL", "Billing<br>SQL Server 2022"),
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
            "summary cut at the 256-token output cap (turn 4)",
        ),
        (
            "The summary after turn 34 has 705 characters; it must be 1 to 700. The summary policy stops here.",
            "summary of 705 characters (turn 34)",
        ),
        ("The summarizer failed after turn 2: it timed out after 30 s.", "summarizer timed out (turn 2)"),
        ("The summarizer failed after turn 9: something new.", "stopped (turn 9)"),
        ("Something with no turn.", "stopped"),
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
        assert len(cells[run.policy]) < 80 and "below" not in cells[run.policy]
        assert "stopped at turn" in recording.stop_notes()  # walk 25: the full message is under the hood
        # the recorded message, its address in words; advice that no longer holds is replaced (walk 19)
        recorded = address_in_words(run.stopped).split("; raise COURSE_LLM_MAX_TOKENS")[0]
        assert f"{run.policy} stopped: {recorded}" in recording.stop_details()
        assert f"The {run.policy} policy stopped at turn " in recording.stop_notes()
    assert "http" not in recording.stop_details() and "the local model's address" in recording.stop_details()
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


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("model 'x' at http://127.0.0.1:36927/v1: the answer", "model 'x' at ADDRESS: the answer"),
        ("see https://example.org/a.", "see ADDRESS."),
        ("two: http://a:1/v1 and http://b:2/v1", "two: ADDRESS and ADDRESS"),
        ("no address here (127.0.0.1 alone is no link)", "no address here (127.0.0.1 alone is no link)"),
    ],
)
def test_a_recorded_address_is_said_in_words_never_a_dead_link(text, said):
    from course_lib.recordings import RECORDED_ADDRESS

    assert address_in_words(text) == said.replace("ADDRESS", RECORDED_ADDRESS)


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
    defaults = {row["option"]: row["value"] for row in options_rows(LoopAgentOptions())}
    assert defaults["fresh_context_per_iteration"] == "no" and defaults["on_behalf_of_author_name"] == "none"
    assert {"True", "False", "None"}.isdisjoint(defaults.values()), "a student reads yes, no and none"
    assert options_rows(LoopAgentOptions(fresh_context_per_iteration=True))[1]["value"] == "yes"


async def test_the_trace_table_spaces_the_models_numbers_and_the_stepper_says_where_it_is_in_a_sentence():
    from course_lib.loop_panels import LoopStepper

    trace, _ = await run_seed_demo()
    frame = trace.to_frame()
    assert frame["did"][0] == "[4] Response message from LLM."
    assert frame["saw"][0].startswith("[1] Original message from user. | [2] Original response")
    assert not frame["saw"].str.contains(r"\]\w", regex=True).any(), "no glued [4]Response in the table"
    assert trace.rows[0].did == "[4]Response message from LLM.", "the trace itself keeps the seed's exact text"
    stepper = LoopStepper(trace)
    assert stepper.summary() == "Step 1 of 6: the model (LLM), call 1, answered [4] Response message from LLM."
    stepper.next_button.click()
    assert stepper.summary() == "Step 2 of 6: the evaluator, iteration 1 (after call 1), decided: continue."
    stepper.slider.value = 6
    assert stepper.summary() == "Step 6 of 6: the evaluator, iteration 3 (after call 3), decided: stop."


async def test_two_runs_compared_in_a_sentence_name_what_differs():
    from course_lib.loop_demos import same_run_sentence

    run = await run_seed_demo()
    assert same_run_sentence(run, await run_seed_demo(stream=True)) == (
        "Same trace and same final messages, character for character."
    )
    assert same_run_sentence(run, await run_seed_demo(allowed=2)) == (
        "The runs differ: the trace and the final messages."
    )


async def test_the_seed_comparison_is_a_sentence_that_names_what_differs():
    trace, response = await run_seed_demo()
    assert seed_match_sentence(trace, response).startswith("The trace and the final messages are the seed's")
    _, other = await run_seed_demo(allowed=2)
    assert seed_match_sentence(trace, other) == (
        "Not the seed's output: the final messages differ from the seed's, word for word."
    )


REASONS = [v for k, v in vars(LoopExitReason).items() if k.isupper() and k != "ADDITIONAL_PROPERTIES_KEY"]


@pytest.mark.parametrize("reason", [None, *REASONS])
def test_every_exit_reason_reads_as_a_sentence(reason):
    properties = {} if reason is None else {LoopExitReason.ADDITIONAL_PROPERTIES_KEY: reason}
    response = AgentResponse(messages=[Message(role="assistant", contents=["x"])], additional_properties=properties)
    sentence = stop_sentence(response)
    assert sentence == f"Stopped because {EXIT_REASON_WORDS[reason]}" + (
        f" (loop_exit_reason: {reason})." if reason else " (no loop_exit_reason is recorded for that)."
    )


def test_a_plain_stop_names_one_evaluator_as_the_evaluator_and_several_by_their_count():
    response = AgentResponse(messages=[Message(role="assistant", contents=["x"])])
    assert stop_sentence(response, evaluators=1).startswith("Stopped because the evaluator said stop (")
    assert stop_sentence(response, evaluators=2).startswith("Stopped because all 2 evaluators said stop (")


def test_a_judges_reply_reads_in_words():
    assert verdict_sentence('{"answered": true, "gapAnalysis": null}') == "done."
    assert verdict_sentence('{"answered": false, "gapAnalysis": "no owner"}') == "not done; missing: no owner."
    assert verdict_sentence("VERDICT: MORE") == "no structured verdict; its text reads: VERDICT: MORE"


def test_lesson_06_exercise_1_explains_the_one_feedback_message_that_lists_all_feedback():
    why = exercise("06", "Exercise 1").why
    assert '"## Feedback" message' in why and "all the feedback so far" in why and "latest feedback" not in why


def test_no_why_prints_markdown_backticks_as_plain_text():
    from course_lib.exercises import EXERCISES

    for named in EXERCISES:
        printed = exercise(named.lesson, named.label).why
        assert "`" not in printed, f"lesson {named.lesson} {named.label}: use plain quotes, the Why prints as text"


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
    assert list(frame["message"]) == [1, 2, 3, 4] and list(frame.columns) == ["message", "text"]
    assert frame["text"].iloc[3].startswith("## Feedback\n\n- Feedback for iteration 1\n- Feedback for iteration 2")


async def test_compactions_count_describes_the_last_call_it_made_with_its_own_numbers():
    from course_lib.clients import make_chat_client
    from course_lib.policies import excluded_count_sentence
    from course_lib.tracing import CallLog

    turns = [turn.user for turn in generate_timeline(10).turns]
    log = CallLog()
    policy = CompactionPolicy(make_chat_client("reader"), log)
    sentence = await excluded_count_sentence(policy, turns)
    found = re.search(
        r"at the call of turn (\d+): (\d+) user turns stored \u2212 (\d+) flagged excluded = (\d+) still in view; "
        r"\+ the new question = (\d+) user turns in the last call",
        sentence,
    )
    assert found, sentence
    turn, stored, excluded, kept, sent = map(int, found.groups())
    assert turn == 10 and stored == 9 and stored - excluded == kept and sent == kept + 1
    assert sum(m.role == "user" for m in log.calls[-1].messages) == sent  # the call it names, measured
    assert "next" not in sentence  # no call that never happens
    with pytest.raises(ValueError, match="at least one turn"):
        await excluded_count_sentence(CompactionPolicy(make_chat_client("reader"), CallLog()), [])


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


# region Lesson 06's tables (issue 32, the walk's defects: yes/no, no index, no glued numbers, streaming in words)


def test_a_message_number_is_spaced_from_its_text_wherever_it_stands():
    from course_lib.loop_demos import spaced

    assert spaced("[4]Response message from LLM.") == "[4] Response message from LLM."
    assert spaced("Progress so far:\n- [4]Response") == "Progress so far:\n- [4] Response"
    assert spaced("Your last draft was: [12]Response") == "Your last draft was: [12] Response"
    assert spaced("list[1]Item and [2] Already and [3]lower") == "list[1]Item and [2] Already and [3]lower"


async def test_returned_messages_say_who_wrote_them_in_words():
    from course_lib.loop import LoopAgentOptions as Options
    from course_lib.loop_demos import messages_frame, returned_words

    _, response = await run_seed_demo(options=Options(on_behalf_of_author_name="loop"))
    frame = messages_frame(response.messages)
    assert list(frame["from"]) == ["the model", "loop (added by the loop)"] * 2 + ["the model"]
    assert frame["text"][0] == "[4] Response message from LLM." and list(frame["message"]) == [1, 2, 3, 4, 5]
    assert returned_words(response.messages) == "5 messages: 3 answers + 2 feedback (author: loop)"
    _, last = await run_seed_demo(options=Options(non_streaming_returns_last_response_only=True))
    assert returned_words(last.messages) == "1 message: the last answer"


async def test_a_streamed_run_reads_as_its_messages_joined_never_a_bare_none():
    from course_lib.loop_demos import seed_loop, streamed_frame

    agent, messages = seed_loop()
    stream = agent.run(messages, stream=True)
    updates = [update async for update in stream]
    final = await stream.get_final_response()
    frame = streamed_frame(updates)
    assert frame["pieces"].sum() == len(updates) > len(frame) == len(final.messages)
    assert list(frame["joined"]) == [m.text.replace("]R", "] R") for m in final.messages]
    assert frame["the pieces, as they arrived"][0] == "[4] Response | message | from | LLM."
    assert list(frame["from"]) == ["the model", "the loop (feedback)"] * 2 + ["the model"]
    assert "None" not in frame.to_string()


async def test_the_options_tables_count_what_changed_and_explain_every_other_option():
    from course_lib.loop import LoopAgentOptions as Options
    from course_lib.loop_demos import OTHER_OPTIONS, options_frame

    first = await options_frame({"defaults": Options(), "fresh": Options(fresh_context_per_iteration=True)})
    assert list(first.columns) == [
        "option",
        "model calls",
        "messages sent per call",
        "messages returned",
        "sessions created",
    ]
    assert list(first["messages sent per call"]) == ["3, 5, 7", "3, 4, 4"] and list(first["sessions created"]) == [1, 3]
    other = await options_frame(OTHER_OPTIONS)
    assert "model calls" not in other.columns and all(other["what it does"])
    shown = dict(zip(other["option"], other["returned to the caller"], strict=True))
    assert shown["exclude_on_behalf_of_messages=True"] == "3 messages: 3 answers, no feedback"


async def test_the_loop_comparison_says_yes_or_no_and_the_table_hides_the_index_and_escapes_text():
    import pandas as pd

    from course_lib.loop_demos import flow_summary, run_middleware_demo
    from course_lib.presentation import plain_table

    trace, response = await run_seed_demo()
    plain_trace, plain_response = await run_middleware_demo(with_session=False)
    rows = [flow_summary("loop", trace, response), flow_summary("middleware", plain_trace, plain_response)]
    assert [row["history kept"] for row in rows] == ["yes", "no"]
    assert "- [4] Response" in str(rows[1]["what was added"])
    html = plain_table(pd.DataFrame([{"text": "emit 'TASK_COMPLETE: <summary>'", "n": 1}])).to_html()
    assert "&lt;summary&gt;" in html and "<summary>" not in html and "row_heading" not in html


def _student_path(name: str) -> list:
    """A lesson's cells before its "Under the hood" heading (the rules of ``test_student_path.py``)."""
    cells = lesson(name).cells
    return cells[: hood_index(cells)]


def test_lesson_06_tables_show_no_raw_booleans_no_none_and_no_glued_numbers():
    cells = _student_path("06_loop_options_compared")
    for cell in cells:
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            found = re.findall(r"<td[^>]*>\s*(True|False|None)\s*</td>", html) + re.findall(r"\[\d+\][A-Z]", html)
            assert not found, f"cell {cell.get('id')} shows {found} in a table: say it in words"
        assert "grouped.head(" not in cell.source


def test_lesson_06_exercises_keep_their_hints_out_of_sight_until_a_wrong_answer():
    for cell in _student_path("06_loop_options_compared"):
        if "check(" in cell.source:
            assert re.search(r'exercise\("06", "Exercise \d"\)\.hint', cell.source), cell.source


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

    from course_lib.presentation import html_with_line_breaks, student_table

    html = html_with_line_breaks(student_table(pd.DataFrame({"turn": [1, 2], "user": ["a\nb", "c"]})))
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
    stop = next(c for c in lesson("04_memory_policies_compared").cells if c.get("id") == "d9b06fe2")
    assert "meets this rule" not in stop.source  # the recording says the summary was cut (walk 24: under the hood)
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


def test_a_trace_without_feedback_says_so_instead_of_failing():
    """Lesson 07 live: a reader right first time leaves no feedback; the cell printing it failed with StopIteration."""
    from course_lib.loop_demos import LoopTrace, TraceStep

    trace = LoopTrace()
    assert trace.first_feedback().startswith("No evaluation sent the answer back")
    trace.rows.append(TraceStep(1, "Evaluator", 1, "saw", "continue: fix it", (), feedback="fix it"))
    assert trace.first_feedback() == (
        "The feedback the evaluator sent after call 1, the last message of call 2:\nfix it"
    )
