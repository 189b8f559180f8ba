"""The panels, driven without a browser: set values, click, and check the store, tables and diagnostics."""

import re

import pytest
from support.panels import last_in_chat, memory_panel, send, submit, two_desks

from course_lib.assertions import repeated_keys
from course_lib.extraction import ChatFactWriter
from course_lib.loop_demos import run_seed_demo
from course_lib.loop_panels import LoopStepper
from course_lib.memory_models import OfflineWriterClient
from course_lib.policies import generate_timeline, load_timeline
from course_lib.presentation import graded_view_frame
from course_lib.providers import course_provider_desks
from course_lib.tracing import CallLog
from course_lib.widgets import (
    FORGET_KEY_NOTE,
    KEY_LIST_WIDTH,
    KEY_PLACEHOLDER,
    NO_KEY,
    SEND_DISABLED_NOTE,
    TRANSCRIPT_RULE,
    DeskPanel,
    PolicyExplorer,
    ProgressBar,
    panel_table_html,
    repeated_key_notes,
)


async def test_submitting_declarations_fills_the_table_and_the_ticket():
    panel = memory_panel()
    await submit(panel, "module=Billing; database=SQL Server 2022")
    assert [f.key for f in panel.memory.facts] == ["database", "module"]
    shown = panel.table.value.replace("<wbr>", "")  # a break opportunity after '=' shows nothing (walk 16)
    assert "SQL Server 2022" in shown and "module=Billing" in shown
    assert "Stored: module and database." in panel.diagnostic.value
    assert panel.ticket.value == "Ticket: epoch 0 (forgets so far), turn 1 (messages read so far)"
    assert panel.shown_keys() == ("database", "module") and panel.key.value == NO_KEY
    assert panel.key.options[0] == (KEY_PLACEHOLDER, NO_KEY) and panel.forget_key_button.disabled


async def test_the_key_list_keeps_one_width_so_the_forget_buttons_stay_put():
    """Grown into the room the note beside it left, the list was about 350 px on an empty store and 263 px on a
    filled one: the Forget buttons moved sideways between two clicks (issue 32)."""
    panel = memory_panel()
    empty = (panel.key.layout.width, panel.key.layout.flex)
    assert empty == (KEY_LIST_WIDTH, "0 0 auto") and panel.key.layout.max_width == "100%"
    await submit(panel, "module=Billing; database=SQL Server 2022")
    assert (panel.key.layout.width, panel.key.layout.flex) == empty


def test_the_ticket_line_says_what_its_numbers_count_and_what_it_guards():
    """A bare "epoch 0, turn 9" means nothing to a student: the line names what each counts, as lesson 01 taught."""
    panel = memory_panel()
    note = panel.ticket_note.value.casefold()
    assert "ticket" in note and "refused" in note
    assert "Forget" in panel.ticket_note.value and "newer message" in panel.ticket_note.value
    assert panel.ticket.tooltip == re.sub(r"<[^>]+>", "", panel.ticket_note.value)
    assert panel.children.index(panel.ticket_note) == panel.children.index(panel.ticket) + 1


async def test_a_rejected_batch_shows_its_diagnostic_and_leaves_the_table_unchanged():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    table = panel.table.value
    panel.extraction.writer = ChatFactWriter(OfflineWriterClient("paraphrase"))
    await submit(panel, "module=Reporting")
    assert "Not stored: the words quoted for module are not in your message" in panel.diagnostic.value
    assert panel.table.value == table and panel.memory.facts[0].value == "Billing"


async def test_the_panel_cannot_bypass_the_contract():
    panel = memory_panel("infer")
    await submit(panel, "Our database is Oracle.")
    assert panel.memory.facts == () and "no guess is stored" in panel.diagnostic.value


async def test_forget_key_and_forget_all_buttons():
    panel = memory_panel()
    await submit(panel, "module=Billing; database=SQL Server 2022")
    panel.key.value = "module"
    panel.forget_key_button.click()
    assert [f.key for f in panel.memory.facts] == ["database"] and "Billing" not in panel.table.value
    assert panel.ticket.value == "Ticket: epoch 1 (forgets so far), turn 1 (messages read so far)"
    panel.forget_all_button.click()
    assert panel.memory.facts == () and "No facts" in panel.table.value and panel.shown_keys() == ()


async def test_an_empty_message_is_not_submitted_and_submit_says_why_it_is_off():
    panel = memory_panel()
    await submit(panel, "   ")
    assert panel.submit_button.disabled and "Submit stays off" in panel.submit_note.value and panel.memory.turn == 0
    await panel.submit("   ")  # a script's empty submit: nothing is submitted, nothing is said over the last result
    assert panel.diagnostic.value == "" and panel.memory.turn == 0


async def test_desk_panel_routes_shows_the_desk_and_forget_replaces_both_sessions():
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    panel = DeskPanel(desks)
    for line in ["module=Billing; database=SQL Server 2022", "Where can I find logs?", "mem"]:
        panel.line.value = line
        panel.send_button.click()
        await panel.idle()
    assert "[operations]" in panel.chat.value and "[triage]" in panel.chat.value
    assert "Billing" in panel.memory_panel.table.value
    old = dict(desks.sessions)
    panel.memory_panel.key.value = "module"
    panel.memory_panel.forget_key_button.click()
    assert [f.key for f in desks.memory.facts] == ["database"]
    assert all(desks.sessions[name] is not old[name] for name in old)


async def test_memory_panel_inside_the_desk_submits_a_full_desk_turn():
    desks = course_provider_desks(CallLog(), ("triage", "operations"))
    panel = DeskPanel(desks)
    await submit(panel.memory_panel, "module=Billing")
    assert "[triage]" in panel.chat.value and "Stored:" in panel.memory_panel.diagnostic.value


async def test_loop_stepper_walks_the_trace():
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    assert (
        "Step 1 of 6: the model (LLM), call 1" in stepper.view.value
        and "[4] Response message from LLM." in stepper.view.value
    )
    stepper.next_button.click()
    assert (
        "Step 2 of 6: the evaluator, iteration 1 (after call 1)" in stepper.view.value
        and "Feedback for iteration 1" in stepper.view.value
    )
    stepper.slider.value = 6
    assert "stop" in stepper.view.value
    stepper.next_button.click()
    assert stepper.slider.value == 6
    with pytest.raises(ValueError, match="empty"):
        LoopStepper(type(trace)())


async def test_policy_explorer_updates_the_table_and_the_plot():
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("full history", "facts (5)")
    explorer.rule.value = "earliest"
    explorer.run_button.click()
    await explorer.idle()
    assert "full history" in explorer.table.value and "last 3" not in explorer.table.value
    assert bytes(explorer.plot.value).startswith(b"\x89PNG") and explorer.plot.layout.display is None


def test_policy_explorer_shows_its_plot_before_its_long_table():
    """Lesson 04's walk: the plot sat under a table of every graded answer, seen only after scrolling past it."""
    explorer = PolicyExplorer(load_timeline())
    shown = list(explorer.children)
    assert shown.index(explorer.message) < shown.index(explorer.plot) < shown.index(explorer.table)


async def test_policy_explorer_applies_the_window_and_bound():
    explorer = PolicyExplorer(generate_timeline(8))
    explorer.policies.value = ("last 3 turns",)
    explorer.window.value = 8
    explorer.run_button.click()
    await explorer.idle()
    assert "last 8 turns" in explorer.table.value
    assert "Computed with rule latest, window 8 (the largest it can be), fact bound 5." in explorer.message.value


# --- defects found by trying the panels as a student (issue 11) ---


async def test_forget_key_with_no_key_chosen_forgets_nothing_and_says_so():
    panel = memory_panel("drop")  # a writer that stores nothing: the key list stays empty, as with a live model
    await submit(panel, "module=Billing")
    forgotten = []
    panel._on_forget = forgotten.append
    shown = panel.diagnostic.value
    panel.forget_key_button.click()  # a click of the greyed-out button does nothing, and keeps the last result
    assert forgotten == [] and panel.key.value == NO_KEY and panel.diagnostic.value == shown
    panel.forget_key(panel.key.value)  # a script forgetting with no key chosen is told so
    assert forgotten == [] and "no key is chosen" in panel.diagnostic.value


async def test_forget_key_waits_for_a_chosen_key_and_forgets_only_that_key():
    """No key is preselected: the list shows "choose a key" and Forget key stays greyed out, saying why, until the
    student picks one; a click before that (by a script) forgets nothing and says what to do."""
    panel = memory_panel()
    assert panel.forget_key_button.disabled and panel.forget_all_button.disabled and panel.key.disabled
    await submit(panel, "module=Billing; database=SQL Server 2022")
    assert panel.key.value == NO_KEY and panel.key.label == KEY_PLACEHOLDER and not panel.key.disabled
    assert panel.forget_key_button.disabled and not panel.forget_all_button.disabled
    assert FORGET_KEY_NOTE in panel.forget_note.value and panel.forget_key_button.tooltip == FORGET_KEY_NOTE
    panel.forget_key("")  # a script forgetting with no key chosen: nothing goes, and it is told what to do
    assert len(panel.memory.facts) == 2 and "choose one in the Key list first" in panel.diagnostic.value
    panel.key.value = "database"
    assert not panel.forget_key_button.disabled and panel.forget_note.value == ""
    panel.forget_key_button.click()
    assert [f.key for f in panel.memory.facts] == ["module"] and "Forgot database" in panel.diagnostic.value
    assert panel.key.value == NO_KEY and panel.forget_key_button.disabled  # the next key is chosen again, not guessed
    panel.key.value = "module"
    panel.forget_key_button.click()
    assert panel.memory.facts == () and panel.key.value == NO_KEY and panel.shown_keys() == ()
    assert panel.forget_key_button.disabled and panel.forget_all_button.disabled and panel.key.disabled


async def test_forget_key_in_the_desk_panel_keeps_the_other_facts_and_replaces_sessions_like_the_console():
    panel = two_desks()
    await send(panel, "module=Billing; database=SQL Server 2022")
    old = dict(panel.desks.sessions)
    panel.memory_panel.key.value = "database"
    panel.memory_panel.forget_key_button.click()
    await panel.idle()
    assert [f.key for f in panel.desks.memory.facts] == ["module"]
    assert all(panel.desks.sessions[name] is not old[name] for name in old)
    assert "Forgot 'database' (1 removed)" in panel.chat.value


async def test_a_submit_button_with_nothing_to_submit_is_disabled():
    panel = memory_panel()
    assert panel.submit_button.disabled
    panel.message.value = "module=Billing"
    assert not panel.submit_button.disabled
    desk = two_desks()
    assert desk.send_button.disabled
    desk.line.value = "mem"
    assert not desk.send_button.disabled


async def test_a_forget_error_in_the_desk_panel_is_shown_and_changes_nothing():
    panel = two_desks()
    await send(panel, "module=Billing")
    sessions = dict(panel.desks.sessions)
    for line in ["forget nonexistent", "forget module database"]:
        await send(panel, line)
        said = last_in_chat(panel)  # the rule is said in the chat; the note under the box points there
        rule = "not one of the allowed keys" if line == "forget nonexistent" else "forget takes one key at a time"
        assert rule in said and line.split(" ", 1)[1] in said and "Refused" in panel.error.value
        assert [f.value for f in panel.desks.memory.facts] == ["Billing"] and panel.desks.sessions == sessions
    await send(panel, "mem")
    assert panel.error.value == ""


async def test_an_unexpected_error_is_shown_in_the_panel_and_raised_to_whoever_waits():
    panel = two_desks()

    async def broken(line):
        raise RuntimeError("the desk is down")

    panel.desks.handle = broken
    panel.line.value = "hello"
    panel.send_button.click()
    with pytest.raises(RuntimeError, match="desk is down"):
        await panel.idle()
    assert "RuntimeError" in panel.error.value and "the desk is down" in panel.error.value


async def test_enter_in_the_line_sends_it():
    panel = two_desks()
    panel.line.value = "module=Billing"
    panel.line._handle_custom_msg({"event": "submit"}, [])  # what the browser sends on Enter
    await panel.idle()
    assert "module=Billing" in panel.chat.value and panel.line.value == ""


async def test_console_commands_ignore_case_but_keys_do_not():
    panel = two_desks()
    await send(panel, "module=Billing")
    calls = len(panel.desks.agents["triage"].client.log)
    await send(panel, "MEM")
    assert panel.events[-1].kind == "mem" and len(panel.desks.agents["triage"].client.log) == calls
    await send(panel, "Forget Module")
    assert "'Module'" in last_in_chat(panel) and "case-sensitive" in last_in_chat(panel)
    assert [f.value for f in panel.desks.memory.facts] == ["Billing"]


async def test_an_over_long_line_is_refused_before_any_desk_answers():
    panel = two_desks()
    log = panel.desks.agents["triage"].client.log
    await send(panel, "module=" + "x" * 5000)
    assert len(log) == 0 and panel.events == [] and "limit is 4096" in last_in_chat(panel)
    # the chat keeps the refused line, shortened (a refused line is recorded with its reason), never the 5000 x's
    assert "x" * 41 not in panel.chat.value and panel.desks.memory.turn == 0


async def test_an_over_long_line_says_refused_once():
    panel = two_desks()
    await send(panel, "x" * 5008)
    _typed, rule = last_in_chat(panel).split("\n", 1)
    assert rule.lower().count("refused") == 1 and rule.startswith("Message refused: it has 5008 characters")
    assert re.sub("<[^>]+>", "", panel.error.value).lower().count("refused") == 1


async def test_a_markdown_table_pasted_into_the_one_line_box_gets_the_table_row_note():
    """The one-line box drops a pasted table's line breaks (``|| module``): the rows are read back (issue 32)."""
    panel = two_desks()
    for glued in ["| key | value ||---|---|| module | Billing |", "| key | value | |---|---| | module | Billing |"]:
        await send(panel, glued)
        chat = panel.chat.value.rsplit(TRANSCRIPT_RULE, 1)[-1]
        assert "a table row is not a declaration: write module=Billing." in chat
        assert "write module=Billing" in panel.memory_panel.diagnostic.value
    assert panel.desks.memory.facts == ()


@pytest.mark.parametrize(
    ("line", "rows"),
    [
        ("| key | value ||---|---|| module | Billing |", ["| key | value |", "|---|---|", "| module | Billing |"]),
        ("| a | b | c | |:--|---|--:| | 1 |  | 3 |", ["| a | b | c |", "|:--|---|--:|", "| 1 |  | 3 |"]),
        ("| module | Billing |", None),  # one row is already whole
        ("module=Billing | x", None),
        ("|---|---|| module |", None),  # the cells do not fill whole rows
    ],
)
def test_the_rows_of_a_glued_table_are_read_back(line, rows):
    from course_lib.widgets import glued_table_rows

    assert glued_table_rows(line) == rows


async def test_every_message_of_the_memory_panel_is_single_spaced():
    """Its messages of several lines (Ignored, eviction notes, a typed forget) were double-spaced, one-liners not."""
    panel = memory_panel()
    await submit(panel, "module=Billing; owner=dana")
    several_lines = panel.diagnostic.value
    await submit(panel, "forget module")
    typed_forget = panel.diagnostic.value
    panel.forget_key("module")
    forgot = panel.diagnostic.value
    panel.diagnostic.value += "<br>one more line"
    for html in (several_lines, typed_forget, forgot, panel.diagnostic.value):
        compact = html.replace(" ", "")
        assert compact.startswith("<sectionstyle='line-height:1.4'>") and compact.count("</section>") == 1
    assert "Why:" in several_lines and panel.diagnostic.value.endswith("one more line</section>")
    panel.message.value = ""
    assert panel.diagnostic.value == ""


async def test_the_desk_panels_text_is_single_spaced():
    panel = two_desks()
    await send(panel, "x" * 5008)
    chat_caption, chat, _, error = panel.children[0].children
    for html in (chat.value, chat_caption.value, error.value, panel.memory_panel.caption.value):
        assert "line-height:1.4" in html.replace(" ", "")  # not the widget's 28 px line of an input row


def test_the_transcript_cannot_squeeze_the_memory_panel():
    panel = two_desks()
    chat_column, memory = panel.children
    # the two wrap onto two rows rather than squeeze: each keeps its basis, the store's wide enough for its table
    assert panel.layout.flex_flow == "row wrap"
    # the chat grows faster into spare width (CHAT_GROWTH), but neither shrinks below its basis before they wrap
    assert chat_column.layout.flex == "2 1 320px" and chat_column.layout.min_width == "0"
    assert memory.layout.flex == "1 1 460px"
    compact = panel.chat.value.replace(" ", "")
    assert "overflow-y:auto" in compact and "overflow-wrap:anywhere" in compact
    assert "max-height:calc(21*1.4em)" in compact  # about 420 px, a whole number of lines (walk 24)


async def test_policy_explorer_replaces_its_plot_and_refuses_an_empty_selection():
    explorer = PolicyExplorer(generate_timeline(4))
    explorer.policies.value = ("facts (5)",)
    for _ in range(3):
        explorer.run_button.click()
        await explorer.idle()
    assert bytes(explorer.plot.value).startswith(b"\x89PNG")
    explorer.policies.value = ()
    assert explorer.run_button.disabled
    await explorer.run()
    assert "Choose at least one policy" in explorer.message.value
    assert explorer.table.value == "" and not explorer.plot.value  # never a table without its caption


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("module=", ["'module=' has no value"]),
        ("owner=alice; team=blue", ["'owner' and 'team' are not allowed keys", "allowed keys: product, module"]),
        ("Module=Billing", ["(keys are case-sensitive): write 'module'"]),
        # the contract trims invisible edges (a BOM, a zero-width space): the notes read the segment as it does
        ("module=\u200b", ["'module=' has no value"]),
        ("\ufeffModule=Billing", ["(keys are case-sensitive): write 'module'"]),
    ],
)
async def test_memory_panel_says_which_rule_a_line_broke(text, expected):
    panel = memory_panel()
    await submit(panel, text)
    assert panel.memory.facts == ()
    for words in expected:
        assert words in panel.diagnostic.value


async def test_memory_panel_reports_unknown_keys_next_to_a_valid_one():
    panel = memory_panel()
    await submit(panel, "module=Billing; owner=alice")
    assert [f.key for f in panel.memory.facts] == ["module"]
    assert (
        "Stored: module." in panel.diagnostic.value and "Why: 'owner' is not an allowed key" in panel.diagnostic.value
    )


async def test_stepper_lists_each_previous_feedback_as_one_item_apart_from_the_response():
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    assert stepper.previous_button.disabled and not stepper.next_button.disabled
    stepper.slider.value = 6
    response, feedback = stepper.view.value.split("<b>Previous feedback</b>")
    assert feedback.split("</ul>")[0].count("<li>") == 2 and "Feedback for iteration 1" in feedback
    assert "Feedback for iteration" not in response.split("<b>Last response</b>")[1]
    assert stepper.next_button.disabled


def test_progress_bar_counts_steps_and_shows_the_last_line():
    bar = ProgressBar(total=2, description="Replaying")
    assert (bar.bar.value, bar.label.value) == (0, "0/2")
    assert repr(bar) == "[Replaying: a progress bar of 2 steps, moving while this cell runs]"  # never "0 done"
    bar.step("full history, 10 turns")
    bar.step("facts, 10 turns")
    bar.step("one more than announced")
    assert bar.bar.value == 2 and bar.label.value == "2/2 one more than announced"
    with pytest.raises(ValueError, match="at least 1 step"):
        ProgressBar(total=0)


async def test_the_desk_panel_status_reflects_the_latest_action():
    panel = two_desks()
    await send(panel, "module=Billing; database=SQL Server 2022")
    await send(panel, "forget nonexistent")
    assert "Refused" in panel.error.value
    panel.memory_panel.key.value = "database"
    panel.memory_panel.forget_key_button.click()  # a later forget that succeeds
    await panel.idle()
    assert panel.error.value == "" and "Forgot 'database' (1 removed)" in panel.memory_panel.diagnostic.value
    await send(panel, "module=Reporting")
    assert "Stored: module." in panel.memory_panel.diagnostic.value
    await send(panel, "forget")  # typed: the earlier turn's report is no longer the latest news
    assert "Stored" not in panel.memory_panel.diagnostic.value and panel.desks.memory.facts == ()


@pytest.mark.parametrize("text", ["module=", "Module=Billing", "owner=alice"])
async def test_a_line_that_stores_nothing_says_so_and_why_and_is_not_green(text):
    panel = memory_panel()
    await submit(panel, text)
    assert panel.memory.facts == ()
    assert "Nothing stored" in panel.diagnostic.value and "color:green" not in panel.diagnostic.value
    assert "Why:" in panel.diagnostic.value


async def test_policy_explorer_on_a_four_turn_timeline_grades_full_history_correct():
    explorer = PolicyExplorer(generate_timeline(4))
    explorer.policies.value = ("full history",)
    explorer.run_button.click()
    await explorer.idle()
    assert ">yes<" in explorer.table.value
    assert "Billing" in explorer.message.value  # the panel says what a correct answer must contain


async def test_the_memory_panel_shows_the_time_of_day_in_utc():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    recorded = panel.memory.facts[0].recorded_at
    assert "recorded (UTC)" in panel.table.value and f">{recorded:%H:%M:%S}</td>" in panel.table.value
    assert 'style="text-align: left;"' in panel.table.value  # headers over their text, lesson style or not


async def test_policy_explorer_table_shows_each_graded_answer_beside_what_the_reader_could_see():
    """A yes or no alone cannot be explained: the values the reader saw at that turn stand beside it."""
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("full history", "facts (5)")
    explorer.rule.value = "most_frequent"
    explorer.run_button.click()
    await explorer.idle()
    frame = graded_view_frame(explorer.comparison.answers, explorer.comparison.calls)
    graded = [n for n, turn in enumerate(explorer.timeline.turns, start=1) if turn.expect is not None]
    assert list(frame.columns) == [
        "policy",
        "graded turn",
        "correct",
        "missing",
        "forbidden values named",
        "values the reader could see",
    ]
    assert list(frame["graded turn"]) == graded * 2 and set(frame["correct"]) <= {"yes", "no"}
    facts_at_10 = frame[(frame["policy"] == "facts (5)") & (frame["graded turn"] == 10)].iloc[0]
    assert "constraint" not in facts_at_10["values the reader could see"]  # the evicted prohibition, not seen
    assert explorer.table.value == panel_table_html(frame, "policy-correctness")
    assert 'border="1"' not in explorer.table.value and "jp-RenderedHTMLCommon" in explorer.table.value
    for table in (explorer.table.value, explorer.message.value):  # its own rule: read from the left anywhere
        assert "td, table.policy-" in table and "text-align: left" in table
    assert "most_frequent" not in explorer.message.value + explorer.table.value  # the rule in plain words
    assert ("most frequent", "most_frequent") in explorer.rule.options


async def test_policy_explorer_clears_the_previous_result_when_a_run_fails(monkeypatch):
    explorer = PolicyExplorer(generate_timeline(8))
    explorer.policies.value = ("full history",)
    explorer.run_button.click()
    await explorer.idle()
    assert ">yes<" in explorer.table.value and explorer.plot.value

    async def refused(*args, **kwargs):
        raise ValueError("Summary too long (rule: summary budget). Nothing was compared.")

    monkeypatch.setattr("course_lib.widgets.compare_policies", refused)
    explorer.window.value = 2
    explorer.run_button.click()
    await explorer.idle()
    assert "Summary too long" in explorer.message.value
    assert explorer.table.value == "" and not explorer.plot.value  # no stale result under the refusal
    assert explorer.comparison is None


# --- a student's reading of the panels (issue 25) ---


async def test_every_panel_starts_fresh():
    panel = memory_panel()
    assert panel.memory.facts == ()
    assert panel.ticket.value == "Ticket: epoch 0 (forgets so far), turn 0 (messages read so far)"
    assert panel.diagnostic.value == "" and "No facts" in panel.table.value and panel.submit_button.disabled
    desk = two_desks()
    assert desk.transcript == [] and desk.error.value == "" and "Type a message" in desk.chat.value
    explorer = PolicyExplorer(load_timeline())
    assert explorer.comparison is None and explorer.table.value == "" and not explorer.plot.value
    assert explorer.message.value.startswith("<i>Press Run to compute with rule latest, window 3, fact bound 5.")
    assert explorer.policies.value == explorer.policies.options and explorer.notes.value == ""
    assert explorer.plot.layout.display == "none"  # an empty picture would show as a broken-image icon
    trace, _ = await run_seed_demo()
    stepper = LoopStepper(trace)
    assert stepper.slider.value == 1 and "Step 1 of 6:" in stepper.view.value


async def test_a_long_value_is_shortened_in_the_message_and_the_rule_stays_whole():
    panel = memory_panel()
    await submit(panel, "symptom=" + "x" * 300)
    text = panel.diagnostic.value
    assert "x" * 60 not in text and "has 300 characters" in text
    assert "The store is unchanged.</b></span>" in text  # the rule, whole (the Message box's note follows it)
    await submit(panel, "Module" + "z" * 150 + "=a")
    assert "z" * 60 not in panel.diagnostic.value and "(156 characters)" in panel.diagnostic.value


async def test_a_fact_pushed_out_is_named_without_its_whole_long_value():
    """The note naming an evicted fact shortens a long value as every other note does: it stays inside the panel."""
    panel = memory_panel()
    await submit(panel, "log=" + "trace_" * 30 + "; module=Billing; database=SQL Server 2022; symptom=slow")
    await submit(panel, "customer=Contoso")
    await submit(panel, "priority=P1")  # pushes database out (turn 1, first in key order)
    await submit(panel, "version=7")  # pushes the long log out
    said = panel.diagnostic.value
    assert "pushed out to make room" in said and "(180 characters)" in said and "trace_" * 10 not in said
    assert "overflow-wrap: anywhere" in said


def test_shortening_keeps_short_quotations_and_cuts_unbroken_runs():
    from course_lib.widgets import shorten_long_input

    assert shorten_long_input("'module' is not 'Module'") == "'module' is not 'Module'"
    assert shorten_long_input("a " + "y" * 100 + " b") == "a " + "y" * 40 + "\u2026 (100 characters) b"
    assert shorten_long_input('"' + "q w " * 30 + '"') == '"' + ("q w " * 30)[:40] + '\u2026" (120 characters)'


async def test_emptying_the_message_box_disables_submit_and_clears_the_previous_result():
    panel = memory_panel()
    await submit(panel, "module=Billing")
    assert "Stored:" in panel.diagnostic.value
    panel.message.value = "   "
    assert panel.submit_button.disabled and panel.diagnostic.value == ""
    assert [f.key for f in panel.memory.facts] == ["module"]  # the store is not touched


async def test_the_desk_transcript_is_laid_out_from_its_newest_line():
    panel = two_desks()
    for line in ["module=Billing", "mem", "Where can I find logs?", "mem", "forget module", "mem", "forget"]:
        await send(panel, line)
    assert "flex-direction:column-reverse" in panel.chat.value.replace(" ", "")
    assert panel.chat.value.rindex("forget") > panel.chat.value.index("module=Billing")  # oldest first, newest last


async def test_the_offline_desk_answers_a_refused_declaration_as_a_refusal():
    panel = two_desks()
    await send(panel, "owner=alice")
    assert "You asked" not in panel.chat.value and "'owner' is not an allowed key" in panel.chat.value
    assert "Nothing was noted" in panel.chat.value and panel.desks.memory.facts == ()


def test_policy_labels_follow_the_sliders_and_keep_the_selection():
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("last 3 turns", "facts (5)")
    explorer.window.value = 6
    assert "last 6 turns" in explorer.policies.options and "compaction (6 turns)" in explorer.policies.options
    assert "reducer (6 turns)" in explorer.policies.options and "last 3 turns" not in explorer.policies.options
    explorer.max_facts.value = 4
    assert explorer.policies.value == ("last 6 turns", "facts (4)")
    assert "window 6, fact bound 4" in explorer.message.value


def test_a_slider_that_changes_nothing_for_the_chosen_policies_says_so():
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("full history", "facts (5)")
    assert "Window changes nothing for the chosen policies" in explorer.notes.value
    assert "last 3 turns, compaction (3 turns), reducer (3 turns)" in explorer.notes.value
    assert "Fact bound" not in explorer.notes.value
    explorer.policies.value = ("summary",)
    assert "Window changes nothing" in explorer.notes.value and "Fact bound changes nothing" in explorer.notes.value
    explorer.policies.value = ("summary", "reducer (3 turns)")
    assert "Window" not in explorer.notes.value


@pytest.mark.parametrize("control", ["window", "max_facts", "rule", "policies"])
async def test_moving_a_control_takes_the_previous_table_off_the_screen(control):
    explorer = PolicyExplorer(generate_timeline(6))
    explorer.policies.value = ("full history", "last 3 turns")
    explorer.run_button.click()
    await explorer.idle()
    assert explorer.table.value and "Computed with" in explorer.message.value
    new = {"window": 2, "max_facts": 3, "rule": "earliest", "policies": ("full history",)}[control]
    getattr(explorer, control).value = new
    assert explorer.table.value == "" and not explorer.plot.value and explorer.comparison is None
    assert explorer.plot.layout.display == "none"
    assert "Press Run" in explorer.message.value and "Computed with" not in explorer.message.value


async def test_a_result_computed_for_settings_moved_during_the_run_is_not_shown(monkeypatch):
    import asyncio

    from course_lib import widgets

    explorer = PolicyExplorer(generate_timeline(6))
    explorer.policies.value = ("full history",)
    started, release = asyncio.Event(), asyncio.Event()
    real = widgets.compare_policies

    async def slow(*args, **kwargs):
        started.set()
        await release.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(widgets, "compare_policies", slow)
    explorer.run_button.click()
    await started.wait()
    explorer.window.value = 2
    release.set()
    await explorer.idle()
    assert explorer.table.value == "" and "Press Run to compute with rule latest, window 2" in explorer.message.value


async def test_a_table_is_never_on_screen_without_its_caption():
    explorer = PolicyExplorer(generate_timeline(6))
    steps = [("policies", ("facts (5)",)), ("run", None), ("window", 4), ("run", None), ("policies", ()), ("run", None)]
    for name, value in steps:
        if name == "run":
            await explorer.run()
        else:
            getattr(explorer, name).value = value
        if explorer.table.value:
            assert explorer.message.value.startswith("<i>Computed with ")


async def test_the_desk_chat_shows_the_stores_verdict_under_each_reply():
    panel = two_desks()
    await send(panel, "; ".join(f"{k}=x" for k in ("module", "database", "product", "priority", "customer", "version")))
    assert "[memory] Not stored" in panel.chat.value and "at most 5 facts" in panel.chat.value
    await send(panel, "Where can I find logs?")
    assert "[memory] Nothing stored" in panel.chat.value


async def test_the_desk_panels_message_box_clears_after_a_turn_and_keeps_a_refused_line():
    panel = two_desks()
    await submit(panel.memory_panel, "module=Billing")
    assert panel.memory_panel.message.value == "" and "Stored:" in panel.memory_panel.diagnostic.value
    await submit(panel.memory_panel, "x" * 4097)
    assert panel.memory_panel.message.value == "x" * 4097


async def test_the_desk_chat_shortens_a_long_value_it_echoes_from_the_student():
    """The chat repeats the line and the desk's reply, which repeats the value: neither shows 300 characters whole."""
    panel = DeskPanel(course_provider_desks(CallLog()))
    await panel.send("module=" + "x" * 300)
    chat = panel.chat.value
    assert "x" * 60 not in chat and "(300 characters)" in chat
    assert "a value may have at most 256" in chat  # the store's verdict, whole


async def test_the_desk_panels_greyed_out_send_says_why_like_submit():
    panel = two_desks()
    assert panel.send_button.disabled and SEND_DISABLED_NOTE in panel.send_note.value
    assert panel.send_button.tooltip == SEND_DISABLED_NOTE
    panel.line.value = "mem"
    assert not panel.send_button.disabled and panel.send_note.value == "" and panel.send_button.tooltip is None
    await send(panel, "module=Billing")  # a sent line empties the box: Send is off again, and says why
    assert panel.send_button.disabled and SEND_DISABLED_NOTE in panel.send_note.value


async def test_a_key_declared_twice_in_one_message_says_which_value_was_read():
    panel = two_desks()
    await send(panel, "module=Billing; module=Payroll")
    said = "module is declared twice in this message (Billing, then Payroll): only the last, module=Payroll, is read."
    assert said in panel.transcript[-1] and said in panel.memory_panel.diagnostic.value
    assert [(f.key, f.value) for f in panel.desks.memory.facts] == [("module", "Payroll")]
    await send(panel, "priority=P1; priority=P1")  # the same value twice is no conflict: nothing to say
    assert "declared twice" not in panel.transcript[-1]


def test_a_key_declared_on_two_lines_is_said_of_the_message_not_of_a_line():
    """Lesson 02's walk: ``module=Billing`` then ``module=Reporting`` on a second line was said to be declared twice
    "in this line", though the student typed two lines; the note speaks of the message, whatever its lines."""
    (note,) = repeated_key_notes("module=Billing\nmodule=Reporting")
    assert note == (
        "module is declared twice in this message (Billing, then Reporting): only the last, module=Reporting, is read."
    )
    assert "line" not in note


def test_repeated_keys_lists_each_value_of_a_key_declared_more_than_once():
    assert repeated_keys("module=Billing; module=Payroll; database=X; module=HR") == {
        "module": ["Billing", "Payroll", "HR"]
    }
    assert repeated_keys("module=Billing") == {} == repeated_keys("x" * 5000)
