"""The one display setup and the shared tables and pictures."""

import os
import re
from datetime import timedelta
from typing import get_args

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from course_lib.assertions import LINE_BREAK_MARK, LINE_BREAKS, find_declarations, left_out, parse_assertions
from course_lib.capstone import Verdict
from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.presentation import (
    BLOCK_INDENT,
    BLOCK_WIDTH,
    DECLARATION_COLUMNS,
    TABLE_CSS,
    VERDICT_COLOURS,
    _short,
    declarations_frame,
    facts_frame,
    facts_html,
    figure_png,
    found_frame,
    html_with_line_breaks,
    integer_ticks,
    plot_presence,
    presence_frame,
    readable_table,
    rows_frame,
    setup_display,
    wrapped_block,
)


def store(text, t0):
    memory = WorkingMemory()
    turn = memory.begin_turn(text)
    declared = [part.strip().split("=", 1) for part in text.split(";")]
    memory.apply(turn, [FactCandidate(key=k, value=v, evidence=f"{k}={v}") for k, v in declared], recorded_at=t0)
    return memory


def test_facts_frame_has_one_row_per_fact_in_eviction_order(t0):
    frame = facts_frame(store("module=A; database=B", t0).facts)
    assert list(frame.columns) == ["key", "value", "evidence", "turn", "recorded (UTC)"]
    assert frame["key"].tolist() == ["database", "module"]
    assert facts_frame(()).empty and list(facts_frame(()).columns) == list(frame.columns)


def test_facts_frame_shows_the_time_of_day_in_utc_as_the_memory_panel_does(t0):
    facts = store("module=A", t0 + timedelta(microseconds=123456)).facts
    assert facts_frame(facts)["recorded (UTC)"].tolist() == ["12:00:00"]  # no date, microseconds or +00:00
    assert ">12:00:00</td>" in facts_html(facts) and "recorded (UTC)" in facts_html(facts)


def test_declarations_frame_shows_key_and_value_apart_and_says_why_the_rest_gives_no_fact():
    messages = ["log=level=debug", "  priority =  P1  ; owner=alice", "Hello! module=Billing", "Where is it?"]
    frame = declarations_frame((m, parse_assertions(m), left_out(m)) for m in messages)
    shown_message = f"message (␣ is a space, {LINE_BREAK_MARK} a line break)"
    assert list(frame.columns) == [shown_message, "key", "value", "left out, and why"]
    rows = frame.to_dict("records")
    assert (rows[0]["key"], rows[0]["value"], rows[0]["left out, and why"]) == ("log", "level=debug", "-")
    assert rows[1][shown_message].startswith("␣␣priority␣=")
    assert (rows[1]["key"], rows[1]["value"]) == ("priority", "P1")
    assert rows[1]["left out, and why"] == "'owner' is not an allowed key"  # never dropped without a word
    assert (rows[2]["key"], rows[2]["value"]) == ("-", "-")
    assert rows[2]["left out, and why"] == "'Hello! module' is not an allowed key (the key is all the text before '=')"
    assert "has no '='" in rows[3]["left out, and why"]
    two = declarations_frame([("module=A; database=B", {"module": "A", "database": "B"}, [])]).iloc[0]
    assert (two["key"], two["value"]) == ("module\ndatabase", "A\nB")  # one per line, in step
    message = "module=B; database=SQL Server 2022"
    shown = html_with_line_breaks(declarations_frame([(message, parse_assertions(message), left_out(message))]))
    unwrapped = 'course-unwrapped" style="white-space: nowrap; overflow-wrap: normal">B<br>SQL Server 2022</td>'
    assert unwrapped in shown and shown.count("nowrap") == 2  # key and value; message and reasons still wrap


def test_declarations_frame_marks_each_line_break_of_a_message_as_section_3_does():
    """A line feed in a message showed only as the text wrapping, while the lesson said only spaces were marked."""
    messages = ["module=Billing\ndatabase=SQL Server 2022", "module=A\r\npriority=P1", "module=A\u2029log=b"]
    frame = declarations_frame((m, parse_assertions(m), left_out(m)) for m in messages)
    shown = frame[DECLARATION_COLUMNS[0]].tolist()
    assert shown[0] == f"module=Billing{LINE_BREAK_MARK}database=SQL␣Server␣2022"
    assert shown[1:] == [f"module=A{LINE_BREAK_MARK}priority=P1", f"module=A{LINE_BREAK_MARK}log=b"]  # \r\n is one
    assert not any(brk in text for text in shown for brk in LINE_BREAKS)


def test_presence_frame_lists_keys_in_contract_order_and_blanks_absent_ones(t0):
    first, second = store("module=A; database=B", t0).facts, store("product=P", t0).facts
    frame = presence_frame([("turn 1", first), ("turn 2", second)])
    assert frame.index.tolist() == ["product", "module", "database"]
    assert frame.loc["module", "turn 2"] == "" and frame.loc["product", "turn 2"] == "P"
    plt.close(plot_presence(frame))


@pytest.fixture
def restore_pandas_options():
    with pd.option_context("display.max_colwidth", 50, "display.max_columns", 20, "display.width", 80):
        yield


def test_setup_display_shows_every_value_whole_and_styles_tables(restore_pandas_options, capsys):
    diagnostic = "The previous facts are kept; no fallback extraction is attempted. " * 2
    setup_display()
    assert diagnostic.strip() in pd.DataFrame({"diagnostic": [diagnostic]}).to_string()
    assert "IPython.core.display.HTML" in capsys.readouterr().out  # the style block, shown once
    assert "text-align: left" in TABLE_CSS and "overflow-wrap: break-word" in TABLE_CSS


def test_a_grid_label_wraps_between_words_onto_two_lines_and_shortens_only_past_them():
    assert _short("SQL Server 2022") == "SQL Server 2022"
    assert _short("no production restarts") == "no production\nrestarts"
    assert _short("invoices duplicated") == "invoices\nduplicated"
    assert _short("Never restart the billing database") == "Never restart\nthe billing\u2026"
    assert _short("x" * 30) == "x" * 17 + "\u2026"


def test_integer_ticks_and_png():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [1, 2, 3])
    integer_ticks(ax, "x")
    assert all(float(t).is_integer() for t in ax.get_xticks())
    assert figure_png(fig).startswith(b"\x89PNG") and not plt.fignum_exists(fig.number)


def test_each_capstone_verdict_has_one_colour_in_the_repairs_plot():
    assert list(VERDICT_COLOURS) == list(get_args(Verdict))


def test_readable_table_shows_a_column_one_item_per_line_and_escapes_it():
    frame = pd.DataFrame({"calls": [3], "returned": ["[4]Response\nFeedback <b>1</b>"]})
    page = readable_table(frame, lines=["returned"]).to_html()
    assert "[4]Response<br>Feedback &lt;b&gt;1&lt;/b&gt;" in page and 'class="dataframe"' in page


def test_presenter_mode_hides_the_exercise_and_panel_driving_cells_by_tag():
    """Voila's lab template gives each cell a celltag_<tag> class; setup_display's style hides the tag."""
    import json
    import re
    from pathlib import Path

    import nbformat
    from nbconvert import HTMLExporter

    from course_lib.presentation import TABLE_CSS

    assert ".celltag_presenter-hidden { display: none; }" in TABLE_CSS
    lessons = sorted(Path(__file__).resolve().parents[1].glob("notebooks/[0-9]*.ipynb"))
    untagged = []
    for lesson in lessons:
        for index, cell in enumerate(json.loads(lesson.read_text())["cells"]):
            source = "".join(cell["source"])
            exercise = re.search(r"^answer_\d+ = ", source, re.M) and "check(" in source
            hidden = "presenter-hidden" in cell["metadata"].get("tags", [])
            if cell["cell_type"] == "code" and (exercise or ".click()" in source) and not hidden:
                untagged.append(f"{lesson.name} cell {index}")
    assert lessons and not untagged
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("answer_1 = ...")])
    notebook.cells[0].metadata["tags"] = ["presenter-hidden"]
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    assert "celltag_presenter-hidden" in html


def test_the_prompt_size_plot_counts_turns_in_whole_numbers_and_labels_its_axes():
    from course_lib.presentation import plot_prompt_sizes

    calls = [{"rule": "latest", "call": "reader", "policy": "facts", "turn": t, "chars_sent": 100 * t} for t in (1, 2)]
    ax = plot_prompt_sizes(pd.DataFrame(calls)).axes[0]
    low, high = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert ax.get_xlabel() == "turn" and ax.get_ylabel()


def test_a_table_with_line_breaks_shows_them_as_lines_and_other_tables_keep_pandas_html():
    from course_lib.presentation import html_with_line_breaks

    frame = pd.DataFrame({"role": ["user", "assistant"], "text": ["block\nmodule=Billing", "Noted <b>."], "n": [1, 2]})
    shown = html_with_line_breaks(frame)
    assert "block<br>module=Billing" in shown and "\\n" not in shown and "Noted &lt;b&gt;." in shown
    plain = pd.DataFrame({"role": ["user"], "n": [1]})
    assert html_with_line_breaks(plain) == plain._repr_html_()


def test_setup_display_uses_it_for_every_table_in_a_notebook():
    from IPython.core.interactiveshell import InteractiveShell

    from course_lib.presentation import html_with_line_breaks, setup_display

    shell = InteractiveShell.instance()
    try:
        setup_display()
        assert shell.display_formatter.formatters["text/html"].lookup_by_type(pd.DataFrame) is html_with_line_breaks
    finally:
        shell.display_formatter.formatters["text/html"].pop(pd.DataFrame, None)
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def test_a_table_with_repeated_column_names_is_shown_with_its_line_breaks():
    import pandas as pd

    from course_lib.presentation import html_with_line_breaks

    frame = pd.DataFrame([[1, "a\nb"]], columns=["x", "x"])
    assert "a<br>b" in html_with_line_breaks(frame)


def test_the_time_per_turn_plot_draws_milliseconds_per_turn_one_line_per_policy():
    from course_lib.presentation import plot_time_per_turn

    rows = [
        {"policy": policy, "turns": turns, "CPU seconds": seconds}
        for policy, per_turn in (("full history", lambda n: n * n / 1e5), ("facts", lambda n: n / 1e3))
        for turns, seconds in ((10, per_turn(10)), (100, per_turn(100)))
    ]
    ax = plot_time_per_turn(pd.DataFrame(rows)).axes[0]
    lines = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
    assert lines["facts"] == pytest.approx([1.0, 1.0])  # flat: the same per turn however long
    assert lines["full history"] == pytest.approx([0.1, 1.0])  # rising: re-reads everything kept
    assert ax.get_ylabel() == "CPU milliseconds per turn" and ax.get_ylim()[0] == 0
    plt.close("all")


def test_the_repairs_plot_legend_names_only_the_verdicts_it_draws():
    from course_lib.presentation import plot_repairs

    frame = pd.DataFrame(
        [
            {
                "policy": "facts",
                "rule": "earliest",
                "store bound": 5,
                "verdict": "repaired: module and database fixed",  # the table's text: coloured by its verdict
                "iterations": 2,
                "reader chars (loop)": 900,
            },
            {
                "policy": "summary",
                "rule": "earliest",
                "store bound": 5,
                "verdict": "not repaired",
                "iterations": 1,
                "reader chars (loop)": 400,
            },
        ]
    )
    fig = plot_repairs(frame)
    [legend] = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["repaired", "not repaired"]
    with pytest.raises(ValueError, match="not a capstone verdict"):
        plot_repairs(frame.assign(verdict=["fixed: module", "not repaired"]))


def test_each_repairs_bar_says_its_verdict_in_words_and_a_hatch_not_by_colour_alone():
    """Lesson 07's walker: green "repaired" and olive "partly repaired" look alike, and red/green fails colour-blind
    readers; each bar ends in its verdict written out, and each verdict has its own hatch (the legend's too)."""
    from course_lib.presentation import VERDICT_HATCHES, plot_repairs

    assert set(VERDICT_HATCHES) == set(VERDICT_COLOURS)
    assert len(set(VERDICT_HATCHES.values())) == len(VERDICT_HATCHES)  # no two verdicts share a hatch
    verdicts = ["repaired: module fixed", "partly repaired: module fixed; log not fixed", "not repaired"]
    row = {"rule": "earliest", "store bound": 5, "reader chars (loop)": 100}
    frame = pd.DataFrame(
        [{**row, "policy": f"p{i}", "verdict": v, "iterations": i + 1} for i, v in enumerate(verdicts)]
    )
    fig = plot_repairs(frame)
    left, right = fig.axes
    said = [t.get_text() for t in left.texts]
    assert said == ["repaired", "partly repaired", "not repaired"]
    for text, bar in zip(left.texts, left.patches, strict=True):  # each word just past the end of its own bar
        x, y = text.get_position()
        assert x >= bar.get_width() and bar.get_y() <= y <= bar.get_y() + bar.get_height()
    assert left.get_xlim()[1] > max(frame["iterations"])  # room for the words inside the axes
    for ax in (left, right):
        assert [p.get_hatch() for p in ax.patches] == [
            VERDICT_HATCHES[v] for v in ["repaired", "partly repaired", "not repaired"]
        ]
    [legend] = fig.legends
    assert [h.get_hatch() for h in legend.legend_handles] == [p.get_hatch() for p in left.patches]
    plt.close("all")


def test_a_repairs_bar_says_its_store_bound_once():
    """Lesson 07's plot read "facts (8), 8 facts": the policy's own name and the added bound repeated the number."""
    from course_lib.presentation import plot_repairs

    runs = [("facts", 5), ("facts (8)", 8), ("full history", 5), ("full history", 8)]
    row = {"rule": "earliest", "verdict": "repaired", "iterations": 1, "reader chars (loop)": 100}
    frame = pd.DataFrame([{**row, "policy": policy, "store bound": bound} for policy, bound in runs])
    fig = plot_repairs(frame)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [
        "facts, store of 5 facts",
        "facts, store of 8 facts",
        "full history, store of 5 facts",
        "full history, store of 8 facts",
    ]
    one_bound = plot_repairs(frame[frame["store bound"] == 8])
    assert [t.get_text() for t in one_bound.axes[0].get_yticklabels()] == ["facts (8)", "full history"]
    plt.close("all")


def test_rows_become_a_table_with_exactly_the_named_columns():
    frame = rows_frame([{"b": 2, "a": 1}], ["a", "b"])
    assert frame.to_dict("records") == [{"a": 1, "b": 2}] and list(frame.columns) == ["a", "b"]
    assert list(rows_frame([], ["a", "b"]).columns) == ["a", "b"]  # an empty table keeps its headings


@pytest.mark.parametrize("row", [{"a": 1}, {"a": 1, "b": 2, "c": 3}])
def test_a_row_that_does_not_fit_the_columns_is_refused_by_name(row):
    with pytest.raises(ValueError, match=r"Row 2 does not fit .*every row has exactly the table's columns"):
        rows_frame([{"a": 0, "b": 0}, row], ["a", "b"])


def test_the_chars_4_estimate_has_one_spelling_in_the_call_log_and_the_policy_tables():
    from course_lib.policies import CallRow, calls_frame
    from course_lib.presentation import cost_table
    from course_lib.tracing import EST_TOKENS, CallLog, ModelCall

    log = CallLog()
    log.record(ModelCall(client="reader", instructions="x" * 41, messages=(), reply="ok"))
    rows = [CallRow("full history", "latest", 1, "reader", "", log.calls[0].chars_sent, None, None, None)]
    costs = cost_table(calls_frame(rows))
    assert log.to_frame().loc[0, EST_TOKENS] == 10 and EST_TOKENS in log.usage_by_role().columns
    assert (
        costs.loc["full history", EST_TOKENS] == 10 and costs.loc["full history", "reported input tokens"] == "unknown"
    )


def test_the_usage_tables_label_their_columns_in_words_the_same_way_everywhere():
    """Lesson 00's usage tables, lesson 02's call log, lesson 04's cost table and the scorecard name their columns
    alike, in words (``chars sent``, ``reported input tokens``), never as the fields they come from (``chars_sent``)."""
    from course_lib.policies import CallRow, calls_frame
    from course_lib.presentation import ALL_CHARS, cost_table
    from course_lib.qualify import SCORECARD_COLUMNS
    from course_lib.tracing import CHARS_SENT, EST_TOKENS, CallLog, ModelCall

    log = CallLog()
    log.record(ModelCall(client="reader", instructions="x" * 41, messages=(), reply="ok"))
    rows = [CallRow("full history", "latest", 1, "reader", "", log.calls[0].chars_sent, None, None, None)]
    tables = {
        "usage by role": list(log.usage_by_role().columns),
        "call log": list(log.to_frame().columns),
        "cost table": list(cost_table(calls_frame(rows)).columns),
        "scorecard": list(SCORECARD_COLUMNS),
    }
    for name, columns in tables.items():
        assert not [c for c in columns if "_" in c], f"{name} shows a field name: {columns}"
    for name in ("usage by role", "call log"):
        assert {CHARS_SENT, EST_TOKENS, "reported input tokens"} <= set(tables[name]), tables[name]
    # the cost table adds up whole runs, and its total says so (lesson 04's walk: "chars sent" of what?)
    assert {ALL_CHARS, EST_TOKENS, "reported input tokens"} <= set(tables["cost table"]), tables["cost table"]


def test_a_student_table_says_yes_or_no_and_hides_the_row_numbers_without_changing_the_callers_frame():
    from course_lib.presentation import html_with_line_breaks, student_table

    frame = pd.DataFrame({"desk": ["triage", "operations"], "holds the block": [True, False]})
    shown = student_table(frame)
    assert list(shown["holds the block"]) == ["yes", "no"] and list(frame["holds the block"]) == [True, False]
    page = html_with_line_breaks(shown)
    assert "<td" in page and "triage" in page and not re.search(r"<th[^>]*>\s*0\s*</th>", page)
    assert re.search(r"<th[^>]*>\s*0\s*</th>", html_with_line_breaks(frame)), "a plain frame keeps pandas' row numbers"


async def test_a_note_the_program_adds_is_read_by_the_model_and_never_becomes_a_fact():
    from agent_framework import Message

    from course_lib.clients import make_chat_client
    from course_lib.extraction import make_extraction
    from course_lib.memory import WorkingMemory
    from course_lib.presentation import sources_frame
    from course_lib.providers import FactsContextProvider, program_note, provider_agent
    from course_lib.tracing import CallLog

    log, memory = CallLog(), WorkingMemory()
    client, provider = make_chat_client("assistant", log=log), FactsContextProvider(make_extraction(memory))
    desk = provider_agent(client, provider, name="desk", instructions="You are the desk.")
    note = program_note("priority=P0", source="reviewer")
    await desk.run([Message(role="user", contents=["module=Billing"]), note], session=desk.create_session())
    assert [(f.key, f.value) for f in memory.facts] == [("module", "Billing")]
    table = sources_frame(log.calls[-1].messages)
    assert table[["added by", "read for facts"]].values.tolist() == [
        ["FactsContextProvider", "no"],
        ["the caller", "yes"],
        ["reviewer", "no"],
    ]


def test_setup_display_styles_figures_without_loading_pyplot_and_the_style_survives_pyplots_import():
    import subprocess
    import sys

    probe = (
        "import sys; from course_lib.presentation import setup_display; setup_display()\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'setup_display loaded pyplot'\n"
        "import matplotlib.pyplot as plt; print(plt.rcParams['figure.dpi'], plt.rcParams['axes.spines.top'])"
    )
    env = {**os.environ, "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    assert shown.stdout.split()[-2:] == ["100.0", "False"]


def test_the_panels_fact_table_never_breaks_a_heading_inside_a_word(t0):
    """A heading wraps only at a space ("recorded / (UTC)"): "turn" must not read "tur / n"."""
    from course_lib.presentation import facts_html

    memory = WorkingMemory()
    said = "log=" + "x" * 200
    memory.apply(memory.begin_turn(said), [FactCandidate(key="log", value="x" * 200, evidence=said)], recorded_at=t0)
    headings = re.findall(r"<th[ >][^>]*>?", facts_html(memory.facts))
    assert len(headings) == 5, headings
    assert all("overflow-wrap: normal" in th and "word-break: normal" in th for th in headings), headings


def test_the_panels_fact_table_has_single_rules_and_wraps_a_long_value_inside_its_cell(t0):
    """pandas' ``border="1"`` is a double grid in a widget; a 200-character word must wrap, not run under the edge."""
    from course_lib.presentation import BREAKABLE_WORD, WHOLE_CELL, WRAPPING_CELL, facts_html

    memory = WorkingMemory()
    said = "log=" + "x" * 200
    memory.apply(memory.begin_turn(said), [FactCandidate(key="log", value="x" * 200, evidence=said)], recorded_at=t0)
    shown = facts_html(memory.facts)
    cells = re.findall(r"<td[^>]*>", shown)
    assert "border=" not in shown and "jp-RenderedHTMLCommon" in shown
    assert [WRAPPING_CELL in td for td in cells] == [False, True, True, False, False], cells  # value, evidence wrap
    assert all(WHOLE_CELL in td for td in (cells[0], cells[3], cells[4])), "a key, a turn, a time stay whole"
    assert "overflow-wrap: anywhere" not in WRAPPING_CELL, "only an over-long word may be cut between characters"
    assert (
        f'<span style="{BREAKABLE_WORD}">{"x" * 200}</span>' in shown
        and f'log=<wbr><span style="{BREAKABLE_WORD}">{"x" * 200}' in shown  # broken after '=' first (walk 16)
    )


def test_the_panels_fact_table_cuts_only_words_too_long_for_its_column(t0):
    """Issue 32: "SQL Server 2022 Enterprise Edition" wraps at its spaces; only a word past LONGEST_WHOLE_WORD may
    be cut between characters (headless Chromium at 460 px showed "Enterpris / e" when every word could be)."""
    from course_lib.presentation import BREAKABLE_WORD, LONGEST_WHOLE_WORD, breakable_words

    assert breakable_words("SQL Server 2022 Enterprise Edition") == "SQL Server 2022 Enterprise Edition"
    token = "y" * 40
    assert breakable_words(f"a {token}") == f'a <span style="{BREAKABLE_WORD}">{token}</span>'
    edge = "z" * LONGEST_WHOLE_WORD
    assert breakable_words(edge) == edge and BREAKABLE_WORD in breakable_words(edge + "z")
    assert breakable_words("&amp;" * LONGEST_WHOLE_WORD) == "&amp;" * LONGEST_WHOLE_WORD, "counted as shown"


@pytest.mark.parametrize("lines", [(), ("message",)])
@pytest.mark.parametrize("no_index", [False, True])
def test_a_tables_text_is_shown_never_run_as_markup(lines, no_index):
    """A user's message holding ``<script>`` is data: lesson 00's recorded case ran it as a pop-up in the browser."""
    import pandas as pd

    from course_lib.presentation import html_with_line_breaks, readable_table, student_table

    frame = pd.DataFrame({"message": ['symptom=<script>alert("x")</script>\nsecond line'], "n": [1]})
    shown = student_table(frame) if no_index else frame
    for html in (html_with_line_breaks(shown) or "", readable_table(frame, lines=lines).to_html()):
        assert "<script>" not in html and "&lt;script&gt;" in html


def test_one_row_per_policy_shows_each_policy_once_when_every_rule_agrees_and_says_so():
    import pandas as pd

    from course_lib.presentation import one_row_per_policy

    same = pd.DataFrame(
        {"policy": ["facts", "summary", "facts", "summary"], "rule": ["earliest"] * 2 + ["most_frequent"] * 2}
    ).assign(verdict=["right first time", "repaired"] * 2)
    shown, said = one_row_per_policy(same)
    assert list(shown.columns) == ["policy", "verdict"] and list(shown["policy"]) == ["facts", "summary"]
    assert (
        said
        == "Under each rule (earliest and most frequent) every policy gets the same row: each policy is shown once."
    )
    differ = same.assign(verdict=["right first time", "repaired", "right first time", "not repaired"])
    shown, said = one_row_per_policy(differ)
    assert said == "" and len(shown) == 4 and list(shown["rule"]) == ["earliest"] * 2 + ["most frequent"] * 2
    shown, said = one_row_per_policy(same[same["rule"] == "earliest"])
    assert said == "" and "rule" not in shown.columns and len(shown) == 2


def test_verdict_table_names_each_task_once_and_refuses_a_task_without_a_name():
    from course_lib.capstone import AnswerVerdict
    from course_lib.presentation import verdict_table

    ask, plan = "Which module and database are we on?", "Plan the fix."
    rows = [
        AnswerVerdict(task=ask, answer="Billing.", verdict="pass"),
        AnswerVerdict(task=plan, answer="x", verdict="x"),
    ]
    table = verdict_table(rows, {"ask": ask, "plan": plan})
    assert list(table["task"]) == ["ask", "plan"]
    assert list(verdict_table(rows)["task"]) == [ask, plan]
    with pytest.raises(ValueError, match=r"\['Plan the fix.'\] has none"):
        verdict_table(rows, {"ask": ask})


def test_found_frame_keeps_each_declaration_and_shows_the_spaces_of_its_evidence():
    frame = found_frame(find_declarations("  priority =  P1  ; module=A; module=B"))
    assert list(frame.columns) == ["key", "value", "evidence (\u2423 is a space)"]
    assert frame.to_numpy().tolist() == [
        ["priority", "P1", "priority\u2423=\u2423\u2423P1"],
        ["module", "A", "module=A"],
        ["module", "B", "module=B"],
    ]


def test_a_proposal_reads_as_facts_each_with_the_words_it_cites():
    from course_lib.presentation import proposals_text

    paraphrased = FactCandidate(key="module", value="Payments", evidence="The user said the module is Payments.")
    exact = FactCandidate(key="database", value="Oracle", evidence="database=Oracle")
    assert proposals_text([paraphrased, exact]) == (
        '\u2022 module=Payments, citing "The user said the module is Payments."\n'
        '\u2022 database=Oracle, citing "database=Oracle"'
    )
    assert proposals_text([]) == "nothing"


def test_shorten_at_word_cuts_between_words_folds_white_space_and_cuts_a_lone_long_word():
    from course_lib.frames import shorten_at_word

    assert shorten_at_word("module = Billing", 40) == "module = Billing"
    assert shorten_at_word('(evidence: "module=Billing"; turn 6)', 20) == "(evidence:\u2026"
    assert shorten_at_word("a\n  b", 10) == "a b"  # one line: a table cell, not a paragraph
    assert shorten_at_word("x" * 30, 10) == "x" * 9 + "\u2026"  # no word boundary to cut at
    assert len(shorten_at_word("word " * 20, 33)) <= 33


def test_labels_at_line_ends_are_pushed_apart_upwards_and_keep_their_order():
    from course_lib.presentation import spread_labels

    assert spread_labels([380.0, 300.0, 390.0, 860.0], gap=80) == [380.0, 300.0, 460.0, 860.0]
    assert spread_labels([5.0, 5.0], gap=1) == [5.0, 6.0]  # two equal ends: one label above the other
    assert spread_labels([], gap=1) == []


def test_the_scaling_plot_zooms_on_the_policies_that_stay_flat_and_names_each_line_at_its_end():
    from course_lib.presentation import LAST_READER_CHARS, growing_policies, plot_scaling

    sizes = {"full history": (1000, 15000), "last 3 turns": (380, 383), "summary": (393, 385), "facts": (840, 860)}
    sizes["reducer (3 turns)"] = sizes["last 3 turns"]
    rows = [
        {"policy": policy, "turns": turns, LAST_READER_CHARS: chars}
        for policy, ends in sizes.items()
        for turns, chars in zip((10, 200), ends, strict=True)
    ]
    frame = pd.DataFrame(rows)
    assert growing_policies(frame, LAST_READER_CHARS) == ["full history"]
    whole, zoom = plot_scaling(frame).axes
    zoomed = {line.get_label() for line in zoom.get_lines()}
    assert "full history" not in zoomed and len(zoomed) == 4
    assert zoom.get_ylim()[1] < 2000 < whole.get_ylim()[1]  # its own scale: the flat lines come apart
    labels = {text.get_text() for text in zoom.texts}
    assert labels == {"last 3 turns = reducer (3 turns): 383", "summary: 385", "facts: 860"}  # each with its value
    assert {text.get_text() for text in whole.texts} == {"full history", "the 4 others (right)"}
    plt.close("all")


def test_a_student_table_turns_a_named_index_into_its_first_column_so_the_header_is_one_row():
    """pandas writes a named index's name (``policy``) on a header row of its own, under the columns' names."""
    import pandas as pd

    from course_lib.presentation import correctness_table, html_with_line_breaks, student_table

    costs = pd.DataFrame({"policy": ["facts", "summary"], "calls": [20, 10]}).set_index("policy")
    shown = student_table(costs)
    assert list(shown.columns) == ["policy", "calls"] and costs.index.name == "policy"  # the caller's frame kept
    answers = pd.DataFrame(
        [{"policy": "facts", "rule": "latest", "turn": turn, "correct": turn == 5} for turn in (5, 10)]
    )
    grid = student_table(correctness_table(answers))
    assert list(grid.columns) == [("policy", ""), ("latest", "turn 5"), ("latest", "turn 10")]
    header = str(html_with_line_breaks(grid)).split("<tbody>")[0]
    assert header.count("<tr>") == 2  # the rule over its turns, and no row for the index's name
    assert ">rule<" not in header and ">turn<" not in header
    plain = pd.DataFrame({"calls": [1]})
    assert list(student_table(plain).columns) == ["calls"]  # row numbers are not a named index: no column added


def test_a_student_table_writes_a_float_as_python_does_not_with_six_decimals():
    import pandas as pd

    from course_lib.presentation import html_with_line_breaks, student_table

    html = str(html_with_line_breaks(student_table(pd.DataFrame({"policy": ["facts"], "seconds": [72.3]}))))
    assert ">72.3<" in html and "72.300000" not in html


def test_wrapped_block_breaks_long_lines_at_spaces_only_and_keeps_the_text():
    """Lesson 01's walk: a printed facts line wrapped inside its date ("2026-12-" / "02T22:13:24")."""
    memory = WorkingMemory()
    said = "symptom=invoices  duplicated twice when the nightly billing run retries a failed export to the ledger"
    memory.apply(memory.begin_turn(said), [FactCandidate.from_declaration(d) for d in find_declarations(said)])
    block = memory.to_prompt_block()
    shown = wrapped_block(block)
    assert shown != block and max(len(row) for row in shown.splitlines()) <= BLOCK_WIDTH
    dates = re.findall(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", block)
    assert dates and all(any(date in row for row in shown.splitlines()) for date in dates)  # never cut
    assert "invoices  duplicated" in shown  # a run of spaces is text, never a place to break
    back = shown.replace(f"\n{BLOCK_INDENT}", " ")
    assert back == block  # the block itself is unchanged: each rest joins its line again
    assert wrapped_block('short line\n- a = "b"') == 'short line\n- a = "b"'
    assert wrapped_block("x" * 100 + " y") == "x" * 100 + f"\n{BLOCK_INDENT}y"  # a part too long for a line stays whole
