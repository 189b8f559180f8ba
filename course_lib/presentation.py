"""How the lessons show things: one display setup, and the tables and pictures several lessons share.

Every lesson calls :func:`setup_display` in its first cell, so tables read the same everywhere (and on a
projector): text left-aligned and wrapped between words inside a bounded column, never cut with an
ellipsis in the middle of a word. The tables and the plots of the lessons are made here rather than in the
domain modules, which stay free of pandas and matplotlib: a module that measures something hands its typed rows
to :func:`~course_lib.frames.rows_frame` (the ground floor's one place rows become a table, their columns named by
the caller; re-exported here) or returns them for a lesson to show with a table of this module (:func:`facts_frame`,
:func:`presence_frame`, the policy comparison's costs and scaling, the capstone's tables).
This is the top floor of the shared modules: it reads the row types of the modules below (for types only), and
none of them imports it. It loads neither half at run time, pandas and matplotlib only when a table or figure is
made, and IPython only when the display is set up (``tests/test_structure.py`` checks that no other module but the
ground floor's :mod:`~course_lib.frames` loads pandas or matplotlib, and that no import runs in a circle).
"""

from __future__ import annotations

import html
import io
import itertools
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .frames import FORBIDDEN_NAMED, rows_frame, rule_label, shorten_at_word
from .tracing import EST_TOKENS, USAGE_FIELDS, count_of, reported_label, reported_total, shown_count

if TYPE_CHECKING:  # types only: importing the display helpers loads neither half, nor pandas, nor matplotlib
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from pandas.io.formats.style import Styler

    from .assertions import Declaration
    from .capstone import AnswerVerdict, CapstoneRun
    from .memory import Fact, FactCandidate
    from .policies import ScalingRow, SessionFootprint, Timeline
    from .tracing import SeenMessage

__all__ = [
    "ALL_CHARS",
    "BLOCK_INDENT",
    "BLOCK_WIDTH",
    "BREAKABLE_WORD",
    "CALLER",
    "CPU_SECONDS",
    "DECLARATION_COLUMNS",
    "EXTRA_CHARS",
    "FACT_COLUMNS",
    "FOUND_COLUMNS",
    "GRADED_VIEW_COLUMNS",
    "HEADING_CELL",
    "ITERATIONS",
    "LAST_CALL_COLUMN",
    "LAST_READER_CHARS",
    "LONGEST_WHOLE_WORD",
    "LOOP_READER_CHARS",
    "NEAR_CHARS",
    "NOT_GRADED",
    "NO_INDEX",
    "NO_WINNER",
    "NO_WRAP",
    "READER_CHARS",
    "RECORDED",
    "STORED_COLUMN",
    "STORE_BOUND",
    "TABLE_CSS",
    "TIMELINE_TURNS",
    "TWIN_LINE_WORDS",
    "UNWRAPPED",
    "VERDICT_COLOURS",
    "VERDICT_HATCHES",
    "VISIBLE_SPACE",
    "WHOLE_CELL",
    "WRAPPED_FACT_COLUMNS",
    "WRAPPING_CELL",
    "WRITTEN",
    "NearMeeting",
    "PanelText",
    "answers_by_rule",
    "breakable_code",
    "breakable_words",
    "correctness_table",
    "cost_table",
    "declarations_frame",
    "facts_frame",
    "facts_html",
    "fewer_from_sentence",
    "fewer_from_turn",
    "figure_png",
    "final_answers_frame",
    "footprint_frame",
    "found_frame",
    "graded_view_frame",
    "growing_policies",
    "html_lines",
    "html_with_line_breaks",
    "integer_ticks",
    "label_line_ends",
    "left_aligned_style",
    "legend_beside",
    "lesson_table_html",
    "lines_named",
    "meeting_lines",
    "meeting_lines_note",
    "near_lines_said",
    "near_meetings",
    "no_winner_sentence",
    "one_row_per_policy",
    "plain_table",
    "plot_policy_lines",
    "plot_presence",
    "plot_prompt_sizes",
    "plot_repairs",
    "plot_scaling",
    "plot_time_per_turn",
    "presence_frame",
    "prompt_sizes_note",
    "proposals_text",
    "readable_table",
    "recorded_time",
    "repairs_frame",
    "right_everywhere_line",
    "rows_frame",
    "same_lines_sentence",
    "scaling_frame",
    "setup_display",
    "show_spaces",
    "sources_frame",
    "spread_labels",
    "student_table",
    "table_display",
    "timeline_frame",
    "turns_in_words",
    "twin_policies",
    "unwrapped",
    "verdict_kind",
    "verdict_table",
    "what_was_wrong",
    "where_the_characters_go",
    "wrapped_block",
    "yes_no",
]


RECORDED = "recorded (UTC)"
"""The column of a fact's time: the time of day in UTC (within a session the date says nothing new)."""
FACT_COLUMNS = ["key", "value", "evidence", "turn", RECORDED]

TABLE_CSS = """<style>
/* course_lib.presentation.setup_display: readable tables in every lesson */
table.dataframe td, table.dataframe th { text-align: left !important; vertical-align: top; }
/* make present (Voila): cells tagged presenter-hidden (exercise stubs, cells that drive a panel) are not shown */
.celltag_presenter-hidden { display: none; }
table.dataframe td { white-space: pre-line; overflow-wrap: break-word; word-break: normal; max-width: 36em; }
table.dataframe th { white-space: normal; }
/* printed text wraps between words (a long word may still break), never in the middle of every word */
.jp-OutputArea-output pre { word-break: normal !important; overflow-wrap: anywhere; }
</style>"""
"""Left-aligned cells, wrapped between words within 36em, line breaks kept (one message per line)."""


def setup_display() -> None:
    """The one display setup every lesson calls first: no truncated values, left-aligned wrapped text.

    pandas would cut any value over 50 characters with an ellipsis (``The previous facts are k…``);
    here every value is shown whole, and the table style wraps it between words instead.
    In a notebook it also explains a NameError from a cell (``answer = Billing`` for ``'Billing'``).
    The figure style goes to ``matplotlib.rcParams`` without loading pyplot (a second of start-up that a lesson
    which draws nothing, lesson 00, would pay; the inline backend sets no rc of its own when pyplot loads later).
    """
    import matplotlib
    from IPython.display import HTML, display

    from .exercises import explain_unquoted_names

    table_display()
    matplotlib.rcParams.update({"figure.dpi": 100, "axes.spines.top": False, "axes.spines.right": False})
    display(HTML(TABLE_CSS))
    explain_unquoted_names()  # an exercise answer written without quotes gets guidance, not a bare traceback


def table_display() -> None:
    """The display settings a table needs, applied again at no cost: every value whole, no row numbers where
    :func:`student_table` leaves them out, line breaks shown as lines.

    :func:`setup_display` applies them, and so does :func:`student_table` itself: after a bare *Kernel > Restart*,
    a student who ran only lesson 00's roles table got pandas' row numbers and purposes cut at 50 characters,
    because the set-up cell had not run (fifth walk). Now a table looks the same whichever cell ran first.
    """
    import pandas as pd
    from IPython import get_ipython

    pd.set_option("display.max_colwidth", None)
    pd.set_option("display.max_columns", None)
    pd.set_option("display.width", 120)
    shell = get_ipython()
    if shell is not None:  # a value holding line breaks is shown on several lines, not as a literal \n
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, html_with_line_breaks)


def html_with_line_breaks(frame: pd.DataFrame) -> str | None:
    """A table's HTML; the columns whose text holds line breaks are shown one line per line (readable_table).

    pandas writes a line break inside a cell as the two characters ``\\n``: a prompt block or a stored
    message then reads as one run of text. Tables without line breaks keep pandas' own HTML.
    """
    has_break = frame.apply(lambda column: column.map(lambda v: isinstance(v, str) and "\n" in v).any())
    lines = list(dict.fromkeys(frame.columns[has_break.to_numpy()]))  # by position: column names may repeat
    no_index = bool(frame.attrs.get(NO_INDEX))
    if lines or no_index:
        styler = readable_table(frame, lines=lines, index=not no_index)
        unwrapped = [c for c in frame.attrs.get(NO_WRAP, []) if c in frame.columns]
        if not unwrapped:
            return str(styler.to_html())
        classes = frame.copy().astype(object)
        classes.loc[:, :] = ""
        classes.loc[:, unwrapped] = UNWRAPPED
        # a style on the cell itself: the Styler's own CSS goes by element id, which every course table shares
        return str(styler.set_td_classes(classes).to_html()).replace(
            f' {UNWRAPPED}" >', f' {UNWRAPPED}" style="white-space: nowrap; overflow-wrap: normal">'
        )
    return str(frame._repr_html_())


def readable_table(
    frame: pd.DataFrame, *, lines: Sequence[str] = (), index: bool = True, code: Sequence[str] = ()
) -> Styler:
    """``frame`` for display, with each value of the ``lines`` columns shown one item per line.

    pandas prints a line break inside a cell as ``\\n``; a list of messages joined by line breaks reads
    better as lines than as one wrapped run of text. ``index=False`` leaves out the row numbers. A float is written
    as Python writes it (``72.3``), not with the Styler's six decimals. The ``code`` columns hold expressions with
    long runs of no space (:func:`breakable_code`): they may wrap after a bracket, a dot or a comma, not mid-name.
    Every cell is escaped: a Styler, unlike pandas' own HTML, writes a cell's text as markup, so a user's message
    holding ``<script>`` would run in the student's browser and ``'TASK_COMPLETE: <summary>'`` would lose its
    ``<summary>``.
    """

    def one_per_line(value: object) -> str:
        return html.escape(str(value)).replace("\n", "<br>")

    styler = frame.style.set_uuid("course").set_table_attributes('class="dataframe"').format(escape="html")
    # a Styler writes every float with 6 decimals (72.300000 seconds); Python's own shortest form reads 72.3
    styler = styler.format(str, subset=list(frame.select_dtypes("float").columns))
    if not index:
        styler = styler.hide(axis="index")
    if code:
        styler = styler.format(breakable_code, subset=list(code))
    return styler.format(one_per_line, subset=list(lines)) if lines else styler


def breakable_code(value: object) -> str:
    """``value`` escaped for HTML, with a line-break chance (``<wbr>``) after each ``(``, ``.`` and ``,`` that a
    character other than a space follows.

    ``SlidingWindowCompactionStrategy(CompactionTriggers.TurnsExceed(3),`` has no space in 67 characters: wider than
    a table's cell, the browser broke it in the middle of a name (``Compaction / Strategy``). Copied, the text is
    unchanged: ``<wbr>`` adds no character.
    """
    return re.sub(r"([(.,])(?=[^\s])", r"\1<wbr>", html.escape(str(value)))


def plain_table(
    frame: pd.DataFrame, *, lines: Sequence[str] = (), code: Sequence[str] = (), title: str | None = None
) -> Styler:
    """:func:`readable_table` without pandas' row numbers: for a table whose own columns say what each row is.

    A column of 0, 1, 2 beside a "message" or "option" column is one more number a student must learn to ignore.
    ``title`` is printed by this call, just before it returns the table, so a title never shows without its table:
    ``print(title)`` on a line of its own printed it even when the table's line then failed (lesson 05's walk 25, a
    cell run after a kernel restart printed a title over "plain_table is not defined in this kernel yet").
    """
    table = readable_table(frame, lines=lines, index=False, code=code)
    if title is not None:
        print(title)
    return table


NO_INDEX = "course_no_index"
NO_WRAP = "course_no_wrap"
UNWRAPPED = "course-unwrapped"
"""The mark (in ``DataFrame.attrs``) naming columns whose lines never wrap: a table of keys beside their values keeps
each value on its key's line (``SQL Server 2022`` over two lines would face two keys)."""
"""The mark (in ``DataFrame.attrs``) of a table shown without pandas' row numbers: :func:`student_table` sets it."""


def unwrapped(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """A copy of ``frame`` whose ``columns`` are shown on one line each (:data:`NO_WRAP`).

    A table gives its widest column the room: a short label beside a long answer ("Which module?") was squeezed to
    one word per line and read as two rows. Use it for short texts only: a cell on one line is as wide as its text.
    """
    shown = frame.copy()
    shown.attrs[NO_WRAP] = [*frame.attrs.get(NO_WRAP, []), *columns]
    return shown


def student_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as a student reads it: ``yes``/``no`` for every true/false value, no column of row numbers, one
    header row.

    pandas shows a true/false column as ``True``/``False`` and puts the row numbers 0, 1, 2 beside the first
    column, where a student reads them as data. A named index (``policy``) becomes the first column: pandas would
    write its name on a header row of its own, under the columns' names. The table returned is a copy: the caller's
    frame keeps its booleans and its index.
    """
    table_display()  # the settings the table needs, whichever cell ran first (fifth walk)
    shown = frame.reset_index() if any(name is not None for name in frame.index.names) else frame.copy()
    for column in shown.columns[shown.dtypes.eq(bool).to_numpy()]:
        shown[column] = shown[column].map({True: "yes", False: "no"})
    shown.attrs[NO_INDEX] = True
    return shown


CALLER = "the caller"
"""How a table names the one source whose User messages may become facts: the caller's own words."""


def sources_frame(messages: Iterable[SeenMessage]) -> pd.DataFrame:
    """What a model received, one message a row: its role, who added it, whether it is read for facts, its text.

    Only a User message the caller wrote (no MAF attribution) is read for facts; the history, the facts block
    and any note the program adds carry a label naming who added them (:func:`course_lib.conventions.attribution`).
    """
    rows = [
        {
            "role": m.role,
            "added by": m.source or CALLER,
            "read for facts": m.role == "user" and m.source is None,
            "text": m.text,
        }
        for m in messages
    ]
    return student_table(rows_frame(rows, ["role", "added by", "read for facts", "text"]))


def facts_frame(facts: Iterable[Fact]) -> pd.DataFrame:
    """The facts as a table, one row each, in eviction order: what a student inspects after a turn.

    A fact's time is shown as the time of day in UTC (``03:16:26``): a raw timestamp with microseconds and
    ``+00:00`` is a value to decode, not to read. Lessons and the memory panel (:func:`facts_html`) show the same
    columns.
    """
    rows = [
        {"key": f.key, "value": f.value, "evidence": f.evidence, "turn": f.turn, RECORDED: recorded_time(f)}
        for f in facts
    ]
    return student_table(rows_frame(rows, FACT_COLUMNS))


def recorded_time(fact: Fact) -> str:
    """A fact's time as the tables show it, in the :data:`RECORDED` column: the time of day in UTC, to the second."""
    return f"{fact.recorded_at:%H:%M:%S}"


def presence_frame(snapshots: Sequence[tuple[str, Sequence[Fact]]]) -> pd.DataFrame:
    """Rows are keys (in ``ALLOWED_KEYS`` order), columns are the labelled snapshots, cells the values.

    A table of "key x turn" answers at a glance what a list of events hides: when a fact arrived, when a
    correction replaced it, when the bound evicted it and when forget cleared it.
    """
    import pandas as pd

    from .assertions import ALLOWED_KEYS  # when called: loading the display helpers loads neither half

    columns = {label: {f.key: f.value for f in facts} for label, facts in snapshots}
    keys = [k for k in ALLOWED_KEYS if any(k in values for values in columns.values())]
    frame = pd.DataFrame(columns, index=keys).fillna("")
    frame.index.name = "key"
    # the cells whose fact that step wrote: new, or not the same fact as the step before (a value declared again
    # unchanged is written again, with a new turn: lesson 01's walk 25); plot_presence draws them darker
    written: set[tuple[str, str]] = set()
    before: dict[str, Fact] = {}
    for label, facts in snapshots:
        now = {f.key: f for f in facts}
        written |= {(key, label) for key, fact in now.items() if before.get(key) != fact}
        before = now
    frame.attrs[WRITTEN] = frozenset(written)
    return frame


WRITTEN = "course_written"
"""The :func:`presence_frame` attribute naming its ``(key, step)`` cells whose fact that step wrote."""


def plot_presence(frame: pd.DataFrame, title: str = "Facts held after each step") -> Figure:
    """A grid: a filled cell is a fact in the store, labelled with its value; a fact written that step is darker.

    Written means new, changed, or declared again unchanged (its turn renewed): what :func:`presence_frame` records
    from the facts themselves. A frame without that record (made by hand) marks a new or changed value instead.

    A key held after one step and gone after the next was evicted then: its empty cell on that step says so
    ("evicted", in a dashed outline), computed from the frame. The figure is at most about 8 inches wide, so a lab
    (about 868 pixels) shows it unscaled and the labels, at 10 points, stay readable (second walk 22: at 1070
    pixels scaled down they were about 7 pixels high).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    written = frame.attrs.get(WRITTEN)
    columns = max(len(frame.columns), 3)
    fig, ax = plt.subplots(figsize=(min(1.3 * columns, 8.2), 0.6 * max(len(frame.index), 2) + 1.2))
    for row, key in enumerate(frame.index):
        previous = ""
        for col, label in enumerate(frame.columns):
            value = str(frame.loc[key, label])
            if value:
                fresh = (key, label) in written if written is not None else value != previous
                alpha = 0.55 if fresh else 0.2
                ax.add_patch(Rectangle((col, row), 0.95, 0.9, color="tab:blue", alpha=alpha))
                ax.text(col + 0.47, row + 0.45, _short(value, 14, 13), ha="center", va="center", fontsize=10)
            elif previous:
                ax.add_patch(Rectangle((col, row), 0.95, 0.9, fill=False, edgecolor="tab:red", linestyle="--"))
                ax.text(col + 0.47, row + 0.45, "evicted", ha="center", va="center", fontsize=10, color="tab:red")
            previous = value
    ax.set_xlim(0, len(frame.columns))
    ax.set_ylim(len(frame.index), 0)
    ax.set_xticks([i + 0.47 for i in range(len(frame.columns))], list(frame.columns), rotation=30, ha="right")
    ax.set_yticks([i + 0.45 for i in range(len(frame.index))], list(frame.index))
    ax.tick_params(length=0, labelsize=10)
    ax.set_title(title, fontsize=11)
    for spine in ax.spines.values():
        spine.set_visible(False)
    fig.tight_layout()
    return fig


def legend_beside(ax: Axes) -> None:
    """The legend to the right of the plot: the policies' long labels would otherwise cover the lines they name."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)


def twin_policies(frame: pd.DataFrame, x: str, y: str) -> dict[str, str]:
    """Each policy of ``frame`` whose ``(x, y)`` points are exactly an earlier policy's, mapped to that earlier one.

    Two such policies draw the same line: :func:`plot_policy_lines` marks the second, and
    :func:`same_lines_sentence` says so in words, both from this one test (never from the policies' names).
    """
    drawn: dict[str, tuple[list[object], list[object]]] = {}
    twins: dict[str, str] = {}
    for policy, rows in frame.groupby("policy", sort=False):
        points = (list(rows[x]), list(rows[y]))
        twin = next((name for name, earlier in drawn.items() if earlier == points), None)
        if twin is not None:
            twins[str(policy)] = twin
        drawn.setdefault(str(policy), points)
    return twins


TWIN_LINE_WORDS = "hollow rings on a dashed line"
"""How :func:`plot_policy_lines` draws a line that lies on another: the dashes hide under the line below, so the rings
are what a reader sees."""


def plot_policy_lines(
    ax: Axes, frame: pd.DataFrame, x: str, y: str, colours: Mapping[str, str] | None = None
) -> dict[str, str]:
    """One line per policy of ``frame``; a line that lies exactly on an earlier one is drawn as hollow rings on a
    dashed line (:data:`TWIN_LINE_WORDS`), and its legend says which line it covers. Returns each policy's twin
    (:func:`twin_policies`): the earlier policy whose line it lies on (none for most).

    Two policies that send the same thing draw the same line (the window and the reducer on lesson 04's timeline):
    drawn plainly, the second hides the first and a student counts one policy too few. ``colours`` keeps a policy's
    colour the same in the panels of one figure.
    """
    twins = twin_policies(frame, x, y)
    for policy, rows in frame.groupby("policy", sort=False):
        colour = colours[str(policy)] if colours else None  # None: the next colour of the cycle
        twin = twins.get(str(policy))
        if twin is None:
            ax.plot(rows[x], rows[y], marker="o", label=str(policy), color=colour)
        else:
            ax.plot(
                rows[x],
                rows[y],
                marker="o",
                markersize=9,
                markerfacecolor="none",
                linestyle=(0, (3, 4)),
                linewidth=1.2,
                label=f"{policy}, same as {twin}",  # a label may end in "(3 turns)": no second parentheses
                color=colour,
            )
    return twins


def same_lines_sentence(calls: pd.DataFrame, rule: str = "latest") -> str:
    """Under :func:`plot_prompt_sizes`: which policies sent the reader the same characters at every turn, so that
    their lines coincide, and how the plot draws the second; computed from the calls the plot draws.

    Lesson 04 said by hand that the window and the reducer "send the same"; a live reader can make them differ, and
    then the sentence says no line is shared.
    """
    reader = calls[(calls["rule"] == rule) & (calls["call"] == "reader")]
    twins = twin_policies(reader, "turn", "chars_sent")
    if not twins:
        return (
            "No two policies sent the reader the same number of characters at every turn: each has a line of its own."
        )
    said = [
        f"{policy} and {twin} sent the reader the same number of characters at every turn, so their lines "
        f'coincide: the plot draws the line of {policy} as {TWIN_LINE_WORDS}, its legend saying "same as {twin}".'
        for policy, twin in twins.items()
    ]
    return " ".join(said)


def fewer_from_turn(calls: pd.DataFrame, policy: str, others: Sequence[str], rule: str = "latest") -> int | None:
    """The first turn from which ``policy`` sent the reader fewer characters than each of ``others`` at that turn
    and at every later one (None if it never did to the end).

    Lesson 04 said "compaction sends less than the window and the reducer", but at the first turns nothing is cut
    yet and the three send the same: the turn it starts is computed, not said by hand.
    """
    reader = calls[(calls["rule"] == rule) & (calls["call"] == "reader")]
    sizes = reader.pivot_table(index="turn", columns="policy", values="chars_sent", aggfunc="sum").sort_index()
    fewer = [all(row[policy] < row[other] for other in others) for _, row in sizes.iterrows()]
    start = None
    for turn, is_fewer in zip(sizes.index, fewer, strict=True):
        start = (start if start is not None else int(turn)) if is_fewer else None
    return start


def fewer_from_sentence(calls: pd.DataFrame, policy: str, others: Sequence[str], rule: str = "latest") -> str:
    """:func:`fewer_from_turn` in words, printed under lesson 04's prompt plot for the text under it to cite."""
    turn = fewer_from_turn(calls, policy, others, rule)
    if turn is None:
        return f"{policy} did not send the reader fewer characters than {_joined(list(others))} at the last turn."
    return f"{policy} sent the reader fewer characters than {_joined(list(others))} at every turn from turn {turn} on."


def turns_in_words(turns: Sequence[int]) -> str:
    """``turn 1``, ``turns 1 to 6`` or ``turns 1 to 3 and 7``: consecutive turns said as the lesson does."""
    runs: list[list[int]] = []
    for turn in sorted(turns):
        if runs and turn == runs[-1][-1] + 1:
            runs[-1].append(turn)
        else:
            runs.append([turn])
    said = [f"{run[0]} to {run[-1]}" if len(run) > 1 else f"{run[0]}" for run in runs]
    return f"turn{'s' if len(turns) > 1 else ''} {_joined(said)}"


def meeting_lines(frame: pd.DataFrame, x: str, y: str) -> list[tuple[tuple[str, ...], list[int]]]:
    """Groups of policies whose lines meet at some ``x`` but not at every one, each with the ``x`` where they meet.

    There one line hides the others, and nothing on the plot says so: the hollow rings of :func:`plot_policy_lines`
    mark only a line equal to another everywhere (full history and *last 5 turns* send the same until the window
    fills). A group made only of such twins is left out: its rings already say it.
    """
    twins = twin_policies(frame, x, y)
    order = [str(p) for p in frame["policy"].unique()]
    meetings: dict[tuple[str, ...], list[int]] = {}
    for at, rows in frame.groupby(x, sort=True):
        for _, same in rows.groupby(y, sort=False):
            group = tuple(sorted({str(p) for p in same["policy"]}, key=order.index))
            if len({twins.get(p, p) for p in group}) > 1:  # more than one line: not only a twin on its twin
                meetings.setdefault(group, []).append(int(at))
    return sorted(meetings.items(), key=lambda item: item[1][0])


def lines_named(group: Sequence[str], every: Sequence[str]) -> str:
    """A group of meeting lines in the fewest names: listed, or "every line except facts" when it leaves out fewer
    lines than it holds (lesson 04's first turns meet five of six lines: five names read as a wall of text)."""
    left_out = [name for name in every if name not in group]
    if 0 < len(left_out) < len(group):
        return f"every line except {_joined(left_out)}"
    return _joined(group)


NEAR_CHARS = 5
"""How few characters apart two lines of characters sent may be and still look as if they meet on a plot (a few:
lesson 04's facts and full history lines, 858 and 857 at turn 6, touch on its prompt plot)."""


@dataclass(frozen=True)
class NearMeeting:
    """Two policies' lines a few characters apart at one ``x``, without meeting there: the plot shows them touching."""

    turn: int
    policies: tuple[str, str]
    values: tuple[int, int]

    @property
    def difference(self) -> int:
        return abs(self.values[0] - self.values[1])


def near_meetings(frame: pd.DataFrame, x: str, y: str, within: int = NEAR_CHARS) -> list[NearMeeting]:
    """Each pair of policies whose lines come within ``within`` of each other at some ``x`` but are not equal there.

    An equal pair is :func:`meeting_lines`' to name; a line that lies on another everywhere (its twin, drawn as rings)
    is named once, by its twin's name. Pairs come in ``x`` order, each pair's policies in the frame's order.
    """
    twins = twin_policies(frame, x, y)
    order = [str(p) for p in frame["policy"].unique() if str(p) not in twins]
    lines = frame[frame["policy"].astype(str).isin(order)]
    found: list[NearMeeting] = []
    for at, rows in lines.groupby(x, sort=True):
        values = {str(row["policy"]): int(row[y]) for _, row in rows.iterrows()}
        named = [p for p in order if p in values]
        for i, first in enumerate(named):
            for second in named[i + 1 :]:
                if 0 < abs(values[first] - values[second]) <= within:
                    found.append(NearMeeting(int(at), (first, second), (values[first], values[second])))
    return found


def near_lines_said(frame: pd.DataFrame, x: str, y: str, every: Sequence[str]) -> list[str]:
    """The near meetings (:func:`near_meetings`) said once per ``x``, one entry a turn, each group of lines by value.

    Pairs alone said one turn twice with overlapping pairs (Window 9: "full history (857) and facts (5) (858); facts
    (5) (858) and compaction (9 turns) (857)") and left out the other lines at 857 (lesson 04's walk 24). At each turn,
    the lines joined by near pairs form clusters; each cluster is said by value, every line at that value named
    (twins too): the smallest group first, "facts (5) at 858 against 857 for the other lines except summary".
    """
    by_turn: dict[int, list[tuple[str, str]]] = {}
    for meeting in near_meetings(frame, x, y):
        by_turn.setdefault(meeting.turn, []).append(meeting.policies)
    said = []
    for turn, pairs in sorted(by_turn.items()):
        rows = frame[frame[x] == turn]
        values = {str(row["policy"]): int(row[y]) for _, row in rows.iterrows()}
        clusters: list[set[int]] = []
        for first, second in pairs:
            joined = {values[first], values[second]}
            touching = [c for c in clusters if c & joined]
            for cluster in touching:
                joined |= cluster
                clusters.remove(cluster)
            clusters.append(joined)
        parts = []
        for cluster in sorted(clusters, key=min):
            groups = {v: [p for p in every if values.get(p) == v] for v in sorted(cluster, reverse=True)}
            lead = min(groups, key=lambda v: (len(groups[v]), -v))
            others = [v for v in groups if v != lead]
            rest = [p for p in every if p in values and p not in groups[lead]]
            if len(clusters) == 1 and len(others) == 1:
                against = f"{others[0]} for {_other_lines(groups[others[0]], rest)}"
            else:
                against = ", ".join(f"{v} for {_joined(groups[v])}" for v in others)
            parts.append(f"{_joined(groups[lead])} at {lead} against {against}")
        said.append(f"at {turns_in_words([turn])}, " + ", and ".join(parts))
    return said


def _other_lines(side: Sequence[str], rest: Sequence[str]) -> str:
    """``side`` among ``rest`` (every line but the lead group) in the fewest words: named, "the other lines", or "the
    other lines except summary" when it leaves out fewer lines than it holds."""
    left_out = [name for name in rest if name not in side]
    if len(side) > 1 and not left_out:
        return "the other lines"
    if 0 < len(left_out) < len(side):
        return f"the other lines except {_joined(left_out)}"
    return _joined(side)


def meeting_lines_note(frame: pd.DataFrame, x: str, y: str) -> str:
    """The note under :func:`plot_prompt_sizes`: where lines meet for some turns, so one hides another, and where two
    come within :data:`NEAR_CHARS` characters, so they look as if they meet ("" if neither).

    Said turn first, each group by :func:`lines_named`: the turns are what a student looks for on the plot.
    """
    every = [str(p) for p in frame["policy"].unique()]
    meetings = meeting_lines(frame, x, y)
    said = [f"at {turns_in_words(at)}, {lines_named(group, every)}" for group, at in meetings]
    near = near_lines_said(frame, x, y, every)
    notes = ["Lines that meet hide one another: " + "; ".join(said) + "."] if said else []
    if near:
        notes.append(
            f"Lines within {NEAR_CHARS} characters of each other look as if they meet: " + "; ".join(near) + "."
        )
    return " ".join(notes)


def spread_labels(values: Sequence[float], gap: float) -> list[float]:
    """Heights for labels at ``values``, in the same order, each at least ``gap`` above the next lower one.

    Labels written at the end of lines that end close together would print over each other; pushed apart upwards
    (never below their line's end) each stays readable, and a thin leader joins it to its line.
    """
    heights = [0.0] * len(values)
    floor = float("-inf")
    for index in sorted(range(len(values)), key=lambda i: values[i]):
        heights[index] = max(float(values[index]), floor)
        floor = heights[index] + gap
    return heights


def growing_policies(frame: pd.DataFrame, y: str) -> list[str]:
    """The policies whose ``y`` at least doubles across ``frame`` (full history as the conversation lengthens).

    The rest stay within a factor of two: bounded, whatever the conversation's length.
    """
    spans = frame.groupby("policy", sort=False)[y].agg(["min", "max"])
    return [str(policy) for policy, row in spans.iterrows() if row["max"] >= 2 * row["min"]]


def label_line_ends(
    ax: Axes,
    frame: pd.DataFrame,
    x: str,
    y: str,
    names: Mapping[str, str],
    top: float,
    colours: Mapping[str, str] | None = None,
    *,
    values: bool = False,
) -> None:
    """Each named policy's label at the right end of its line, in the line's colour (``names`` gives the words: a
    twin's line shares its twin's label), pushed apart so that no two labels print over each other. ``top`` is the
    height of the axis, which sets the gap. A legend beside the plot would make the reader match colours.

    ``values=True`` ends each label with its line's last value ("summary: 385"): a label pushed above its line
    would otherwise read as that height, and lines ending a few characters apart cannot all have a label level with
    their end.
    """
    from matplotlib.transforms import ScaledTranslation

    ends = frame.sort_values(x).groupby("policy", sort=False).tail(1)
    ends = ends[ends["policy"].astype(str).isin(names)]
    heights = spread_labels(list(ends[y]), gap=0.08 * top)
    beside = ax.transData + ScaledTranslation(12 / 72, 0, ax.figure.dpi_scale_trans)  # 12 points right of the end
    for (_, end), height in zip(ends.iterrows(), heights, strict=True):
        label = names[str(end["policy"])]
        ax.annotate(
            f"{label}: {end[y]:.0f}" if values else label,
            xy=(end[x], end[y]),
            xytext=(end[x], height),
            textcoords=beside,
            va="center",
            fontsize=8,
            color=(colours or {}).get(str(end["policy"]), "black"),
            annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": "0.6", "linewidth": 0.6},
        )


def plot_prompt_sizes(calls: pd.DataFrame, rule: str = "latest") -> Figure:
    """Characters the reader received at each turn, one line per policy (writer/summarizer calls excluded).

    The turns where lines meet (:func:`prompt_sizes_note`) are not drawn in the figure: at a figure's font size that
    note was tiny on a laptop screen (lesson 04's walk 22); the lesson prints it and the explorer shows it as text.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 3.6))
    plot_policy_lines(ax, _reader_calls(calls, rule), "turn", "chars_sent")
    integer_ticks(ax, "x")
    ax.set_xlabel("turn")
    ax.set_ylabel("characters sent to the reader")
    # two lines: on one, a long rule name beside the panel's longest legend pushed the title past the left edge
    ax.set_title(
        f"What the reader received at each turn\n(rule: {rule_label(rule)}; writer and summarizer not counted)"
    )
    legend_beside(ax)
    fig.tight_layout()
    return fig


def _reader_calls(calls: pd.DataFrame, rule: str) -> pd.DataFrame:
    return calls[(calls["rule"] == rule) & (calls["call"] == "reader")]


def prompt_sizes_note(calls: pd.DataFrame, rule: str = "latest", *, brief: bool = False) -> str:
    """The note for :func:`plot_prompt_sizes`' plot, as normal-size text: the turns where lines meet or nearly
    meet (:func:`meeting_lines_note`), or "" when none do.

    ``brief=True`` says it in two short sentences from the same data: the turns where lines meet and which lines
    (all the groups' lines in the fewest names, :func:`lines_named`), then each near pair with its turn. The lesson
    prints that one (its student read the per-turn list three times, walk 24; third walk 25 asked for the names
    there, not in the explorer); the explorer shows the full list under its own plot.
    """
    reader = _reader_calls(calls, rule)
    if not brief:
        return meeting_lines_note(reader, "turn", "chars_sent")
    every = [str(p) for p in reader["policy"].unique()]
    meetings = meeting_lines(reader, "turn", "chars_sent")
    said = []
    if meetings:
        meet = sorted({turn for _, turns in meetings for turn in turns})
        met = {name for group, _ in meetings for name in group}
        named = lines_named([p for p in every if p in met], every)
        partly = ", not all at every turn" if any(set(group) != met for group, _ in meetings) else ""
        said.append(f"Some lines meet at {turns_in_words(meet)}: {named}{partly}.")
    pairs: dict[tuple[str, str], list[int]] = {}
    for meeting in near_meetings(reader, "turn", "chars_sent"):
        pairs.setdefault(meeting.policies, []).append(meeting.turn)
    for (first, second), turns in pairs.items():
        said.append(f"At {turns_in_words(turns)}, {first} and {second} come within {NEAR_CHARS} characters.")
    return " ".join(said)


def plot_scaling(frame: pd.DataFrame) -> Figure:
    """Characters of the last reader call against the number of turns, in two panels: every policy on one scale,
    then the policies that stay flat on a scale of their own, each line named at its end.

    On one scale the growing full history squeezes the bounded policies into one line near zero; the second panel
    zooms on them so a student can tell them apart (the exact numbers are in the lesson's table).
    """
    import matplotlib.pyplot as plt

    fig, (whole, zoom) = plt.subplots(1, 2, figsize=(10, 3.8))
    policies = [str(p) for p in frame["policy"].unique()]
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {policy: cycle[i % len(cycle)] for i, policy in enumerate(policies)}
    growing = growing_policies(frame, LAST_READER_CHARS)
    flat = frame[~frame["policy"].isin(growing)]
    plot_policy_lines(whole, frame, "turns", LAST_READER_CHARS, colours)
    whole.set_ylim(0, frame[LAST_READER_CHARS].max() * 1.1)
    flat_top = flat[LAST_READER_CHARS].max() * 1.3
    others = f"the {len(policies) - len(growing)} others"
    top_flat = str(flat.sort_values(LAST_READER_CHARS)["policy"].iloc[-1])
    whole_names = {**{g: g for g in growing}, top_flat: f"{others} (right)"}
    grower_colours = {g: colours[g] for g in growing}  # the others' one label names no single line: black
    label_line_ends(whole, frame, "turns", LAST_READER_CHARS, whole_names, whole.get_ylim()[1], grower_colours)
    growers = " and ".join(growing) or "no policy"
    whole.set_title(f"All {len(policies)} policies: only {growers} grows", fontsize=10)
    twins = plot_policy_lines(zoom, flat, "turns", LAST_READER_CHARS, colours)
    zoom.set_ylim(0, flat_top)
    shared = {twin: f"{twin} = {policy}" for policy, twin in twins.items()}
    names = {str(p): shared.get(str(p), str(p)) for p in flat["policy"].unique() if str(p) not in twins}
    label_line_ends(zoom, flat, "turns", LAST_READER_CHARS, names, flat_top, colours, values=True)
    zoom.set_title(f"{others.capitalize()}, zoomed in (mind the y axis)", fontsize=10)
    for ax in (whole, zoom):
        ax.set_xlabel(TIMELINE_TURNS)
    whole.set_ylabel("characters in the last reader call")
    fig.suptitle("How each policy's prompt grows with the conversation", fontsize=11)
    fig.tight_layout()
    return fig


def plot_time_per_turn(frame: pd.DataFrame) -> Figure:
    """CPU milliseconds per turn against the number of turns, one line per policy (a ``scaling_frame`` table).

    The picture of lesson 04's point about time: a flat line is a policy whose stored history is bounded (each
    turn costs the same however long the conversation), a rising one keeps everything and re-reads it every turn.
    Times depend on the machine, so a lesson shows this figure without checking its pixels.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 3.6))
    per_turn = frame.assign(ms=1000 * frame[CPU_SECONDS] / frame["turns"])
    plot_policy_lines(ax, per_turn, "turns", "ms")
    ax.set_ylim(bottom=0)
    ax.set_xlabel(TIMELINE_TURNS)
    ax.set_ylabel("CPU milliseconds per turn")
    ax.set_title("CPU time per turn, by policy (measured in this run: it changes from run to run)")
    legend_beside(ax)
    fig.tight_layout()
    return fig


VERDICT_COLOURS: dict[str, str] = {
    "right first time": "tab:gray",
    "repaired": "tab:green",
    "partly repaired": "tab:olive",
    "not repaired": "tab:red",
    "stopped at the cap": "tab:orange",
    "policy stopped": "tab:purple",
}
"""The capstone's verdicts (``course_lib.capstone.Verdict``), each with its colour in :func:`plot_repairs`."""

VERDICT_HATCHES: dict[str, str] = {
    "right first time": "",
    "repaired": "//",
    "partly repaired": "..",
    "not repaired": "xx",
    "stopped at the cap": "--",
    "policy stopped": "++",
}
"""Each verdict's hatch in :func:`plot_repairs`: the verdict told apart without its colour (green and olive look alike,
and red and green are one colour to many colour-blind readers)."""


def verdict_kind(text: str) -> str:
    """The verdict a table's verdict text starts with (``"partly repaired: module fixed; ..."`` is partly repaired)."""
    kind = next((v for v in VERDICT_COLOURS if text == v or text.startswith(f"{v}:")), None)
    if kind is None:
        raise ValueError(f"{text!r} is not a capstone verdict; the verdicts are {list(VERDICT_COLOURS)}.")
    return kind


def plot_repairs(frame: pd.DataFrame, rule: str | None = None) -> Figure:
    """Iterations and characters the reader received per run, coloured by the loop's verdict.

    One bar per row of ``frame`` (for one ``rule`` when given); the label adds the rule and the store
    bound when the rows differ in them.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rows = frame if rule is None else frame[frame["rule"] == rule]
    rules, bounds = rows["rule"].nunique() > 1, rows[STORE_BOUND].nunique() > 1
    labels = [_repair_label(row, rules, bounds) for _, row in rows.iterrows()]
    kinds = [verdict_kind(str(v)) for v in rows["verdict"]]
    colours = [VERDICT_COLOURS[v] for v in kinds]
    hatches = [VERDICT_HATCHES[v] for v in kinds]
    bars = {"color": colours, "hatch": hatches, "edgecolor": "white"}  # white hatch lines on the colour
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.42 * len(rows) + 1.7), sharey=True)
    left.barh(labels, rows[ITERATIONS], **bars)
    most = int(rows[ITERATIONS].max()) if len(rows) else 1
    for y, (count, kind) in enumerate(zip(rows[ITERATIONS], kinds, strict=True)):  # the verdict in words, not colour
        left.text(count + 0.08, y, kind, va="center", fontsize=9)
    left.set_xlim(0, 1.9 * most + 0.7)  # room for the words after the longest bar
    left.set_xticks(range(most + 1))  # ticks up to the longest bar only: no count of 4 nobody reached
    left.set_xlabel("loop iterations")
    right.barh(labels, rows[LOOP_READER_CHARS], **bars)
    right.set_xlabel("characters sent to the reader in the loop")
    left.invert_yaxis()
    shown = [v for v in VERDICT_COLOURS if v in set(kinds)]  # the legend names only verdicts drawn
    handles = [
        Rectangle((0, 0), 1, 1, facecolor=VERDICT_COLOURS[v], hatch=VERDICT_HATCHES[v], edgecolor="white")
        for v in shown
    ]
    fig.legend(handles, shown, loc="lower center", ncol=max(len(shown), 1), fontsize=8, frameon=False)
    fig.suptitle("What the facts check repaired" + (f" (rule: {rule})" if rule else ""))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def _repair_label(row: pd.Series, rules: bool, bounds: bool) -> str:
    """A bar's label: the policy, then its rule and its store bound when the plot's rows differ in them.

    The bound is said once: a policy whose own name carries it (``facts (8)``) loses that suffix when the label adds
    ``, store of 8 facts``, so no label reads "facts (8), 8 facts".
    """
    policy, bound = str(row["policy"]), int(row[STORE_BOUND])
    if bounds:
        policy = policy.removesuffix(f" ({bound})")
    with_rule = policy + (f" ({rule_label(str(row['rule']))})" if rules else "")
    return with_rule + (f", store of {bound} facts" if bounds else "")


# region Lesson 04's and 07's tables: the policies' and the capstone's typed rows shown as frames
#
# Each column is named once, here (the chars/4 estimate as ``tracing.EST_TOKENS`` spells it for every table); the
# domain modules return dataclasses and never load pandas.

STORED_COLUMN = "messages in the saved session"
LAST_CALL_COLUMN = "messages in the last call"
LAST_READER_CHARS = "last reader call (chars)"
CPU_SECONDS = "CPU seconds"
STORE_BOUND = "store bound"
ITERATIONS = "iterations"
LOOP_READER_CHARS = "reader chars (loop)"
"""The columns the plots read back (:func:`plot_scaling`, :func:`plot_time_per_turn`, :func:`plot_repairs`)."""
TIMELINE_TURNS = "turns in the timeline"
"""The x axis of lesson 04's two plots against a timeline's length, and its table's row name: one name for one thing
(a student who reads "turns in the conversation" on one plot and "turns in the timeline" on the next looks for a
difference)."""


def yes_no(value: object) -> str:
    """``yes`` or ``no`` for a boolean cell: a student reads words, not Python's ``True`` and ``False``."""
    return "yes" if value else "no"


NOT_GRADED = "\u2014"
"""What a timeline table shows where a turn has no requirement (it is not a graded question): a dash, said in the
lesson's sentence, never an empty cell."""


def timeline_frame(timeline: Timeline) -> pd.DataFrame:
    """The timeline's turns, numbered from 1: what the user says, and what a graded answer must (not) contain.

    A turn that is not a question has no requirement: ``graded`` says ``no`` and the requirement columns a dash.
    """
    rows = [
        {
            "turn": number,
            "user": turn.user,
            "graded": yes_no(turn.expect),
            "must contain": "; ".join(turn.expect.must_contain) if turn.expect else NOT_GRADED,
            "must not contain": ("; ".join(turn.expect.must_not_contain) or "nothing") if turn.expect else NOT_GRADED,
        }
        for number, turn in enumerate(timeline.turns, start=1)
    ]
    return rows_frame(rows, ["turn", "user", "graded", "must contain", "must not contain"])


def final_answers_frame(answers: pd.DataFrame, turn: int) -> pd.DataFrame:
    """The graded answers of one turn, policy by policy: correct (yes/no), what each lacked, what it held wrongly.

    An answer that lacks nothing reads ``nothing`` in that column, never an empty cell a student has to interpret.
    """
    rows = answers[answers["turn"] == turn]
    return rows_frame(
        (
            {
                "policy": row["policy"],
                "rule": rule_label(row["rule"]),
                "correct": yes_no(row["correct"]),
                "missing": row["missing"] or "nothing",
                FORBIDDEN_NAMED: row[FORBIDDEN_NAMED] or "nothing",
            }
            for _, row in rows.iterrows()
        ),
        ["policy", "rule", "correct", "missing", FORBIDDEN_NAMED],
    )


def correctness_table(answers: pd.DataFrame) -> pd.DataFrame:
    """Policies x (rule, question turn): ``yes`` when the answer was correct, ``no`` otherwise; rules in plain words,
    turns as ``turn 5`` (shown through :func:`student_table`, the header has no row naming its levels, so each
    heading says what it is)."""
    table = answers.pivot_table(index="policy", columns=["rule", "turn"], values="correct", aggfunc="first", sort=False)
    table = table.rename(columns=rule_label, level="rule").rename(columns=lambda turn: f"turn {turn}", level="turn")
    return table.map(yes_no)


def _joined(words: Sequence[str]) -> str:
    return ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else "".join(words)


def no_winner_sentence(answers: pd.DataFrame) -> str:
    """The comparison's verdict in one sentence, read from its answers: whether any policy is right everywhere, and
    under which rules a policy answers every graded question right.

    Computed from the same answers as :func:`correctness_table`, so the lesson's words cannot drift from its table
    (issue 32: the text said full history was right "under `latest` only" while the table showed it right at turn 5
    under every rule; what holds under `latest` only is being right at both graded turns).
    """
    perfect: list[str] = []
    partial: list[str] = []
    for policy, rows in answers.groupby("policy", sort=False):
        if rows["correct"].all():
            perfect.append(str(policy))
            continue
        rules = [rule_label(str(r)) for r, g in rows.groupby("rule", sort=False) if g["correct"].all()]
        if rules:
            numbers = [str(t) for t in sorted(rows["turn"].unique())]
            turns = ("turns " if len(numbers) > 1 else "turn ") + _joined(numbers)
            named = _joined([f"'{rule}'" for rule in rules])
            partial.append(f"{policy} answers every graded question ({turns}) right only under {named}")
    if perfect:
        head = f"{_joined(perfect)} answered every graded question right under every rule"
    else:
        head = "Every policy gets at least one graded answer wrong"
    return "; ".join([head, *partial]) + f". {NO_WINNER}"


NO_WINNER = "As the seed asks, no winner is announced, whatever these counts: a right answer is not the whole cost."
"""The end of :func:`no_winner_sentence`, the same whether or not a policy was right everywhere: the seed never
announces a winner, so the verdict never ties that to the counts (issue 32: "none, so no winner is announced" read
as if no winner came only because none was perfect)."""


def right_everywhere_line(answers: pd.DataFrame) -> str:
    """``policies right everywhere: ...``: the policies right at every graded turn under every rule, or ``none``.

    The same words whatever the answers; it names the policies (never a Python list) and announces nothing: the
    verdict (:func:`no_winner_sentence`) says that no winner is announced.
    """
    perfect = [str(p) for p, rows in answers.groupby("policy", sort=False) if rows["correct"].all()]
    return f"policies right everywhere: {_joined(perfect) or 'none'}"


READER_CHARS = "chars sent to the reader"
EXTRA_CHARS = "chars sent by extra calls"
"""The cost table's two parts of :data:`ALL_CHARS`: the reader's calls (what the plots draw) and the writer's or
summarizer's calls, so that a total is never read as what the reader received."""
ALL_CHARS = "chars sent (all calls)"
"""The cost table's total: the characters of every call of a policy added up, the reader's and the extra ones (a
per-call log names its column :data:`~course_lib.tracing.CHARS_SENT`; a sum over a whole run says what it adds up).
"chars", not "characters", in all three: the longer word widened the ten-column table past a laptop's notebook."""


def cost_table(calls: pd.DataFrame, rule: str = "latest") -> pd.DataFrame:
    """Per policy, for one rule: calls by kind, characters sent (reader, extra, all), the estimate, reported tokens.

    The plots and section 6 count the reader's calls only; the total also counts the writer's and summarizer's, so
    the table shows both parts beside it.
    """
    import pandas as pd

    rows = []
    for policy, group in calls[calls["rule"] == rule].groupby("policy", sort=False):
        reader = group["call"] == "reader"
        rows.append(
            {
                "policy": policy,
                "reader calls": int(reader.sum()),
                "extra calls (writer, summarizer)": int((~reader).sum()),
                READER_CHARS: int(group.loc[reader, "chars_sent"].sum()),
                EXTRA_CHARS: int(group.loc[~reader, "chars_sent"].sum()),
                ALL_CHARS: int(group["chars_sent"].sum()),
                EST_TOKENS: int(group[EST_TOKENS].sum()),
                **{reported_label(usage): _sum_reported(group[f"reported_{usage}"]) for usage in USAGE_FIELDS},
            }
        )
    return pd.DataFrame(rows).set_index("policy")


def where_the_characters_go(calls: pd.DataFrame, rule: str = "latest") -> str:
    """The sentences under the cost table: who sends the most in all and how much of it is extra calls; who sends the
    most to the reader alone (what the plot draws), over the whole run; then, turn by turn, where the second of those
    sends the reader more and where the two come within :data:`NEAR_CHARS` characters (their lines touch on the plot).
    All computed from the calls, never written by hand, each its own sentence.
    """
    rows = calls[calls["rule"] == rule]
    if rows.empty:
        raise ValueError(f"No calls under the rule {rule!r}: a cost sentence needs the calls of one rule it ran.")
    costs = cost_table(calls, rule)
    top = str(costs[ALL_CHARS].idxmax())
    total, extra = int(costs.loc[top, ALL_CHARS]), int(costs.loc[top, EXTRA_CHARS])
    kinds = " and ".join(sorted(set(rows[(rows["policy"] == top) & (rows["call"] != "reader")]["call"])))
    first = f"In all, the {top} policy sends the most characters ({total})"
    first += (
        f": {extra} of them in its {kinds} calls, {total - extra} to the reader." if extra else ", all to the reader."
    )
    reader = costs[READER_CHARS].sort_values(ascending=False)
    second = f"To the reader alone (the plot below), the {reader.index[0]} policy sends the most ({reader.iloc[0]})"
    turns = int(rows["turn"].nunique())
    if len(reader) < 2:
        return f"{first} {second} in total over these {turns} turns."
    top, runner_up = str(reader.index[0]), str(reader.index[1])
    second += f", then {runner_up} ({reader.iloc[1]}), in total over these {turns} turns."
    return " ".join([first, second, *_turn_by_turn(rows, top, runner_up)])


def _turn_by_turn(rows: pd.DataFrame, top: str, runner_up: str) -> list[str]:
    """What a total hides, for the reader's two largest: the turns at which the second's call is the larger one, then
    the turns where the two are a few characters apart (:func:`near_meetings`), where the plot shows their lines touch.

    A total says nothing of each turn: lesson 04's facts reader receives the most over 10 turns, yet full history's
    single call overtakes it as the conversation grows, and the plot under the sentence shows that crossing.
    """
    reader = rows[rows["call"] == "reader"]
    per_turn = reader.pivot_table(index="turn", columns="policy", values="chars_sent", aggfunc="sum")
    turns = [int(t) for t in per_turn.index]
    larger = [t for t in turns if per_turn.loc[t, runner_up] > per_turn.loc[t, top]]
    if not larger:
        said = [f"At none of these {len(turns)} turns does {runner_up} send the reader more."]
    elif len(larger) == 1:
        said = [f"At turn {larger[0]}, {runner_up} sends the reader more."]
    elif larger == turns[turns.index(larger[0]) :]:
        said = [f"From turn {larger[0]} on, {runner_up} sends the reader more at every turn."]
    else:
        said = [f"At turns {', '.join(map(str, larger[:-1]))} and {larger[-1]}, {runner_up} sends the reader more."]
    two = reader[reader["policy"].isin([top, runner_up])]
    parts: list[str] = []
    for meeting in near_meetings(two, "turn", "chars_sent"):
        chars = dict(zip(meeting.policies, meeting.values, strict=True))
        count = f"{meeting.difference} character{'s' if meeting.difference > 1 else ''}"
        said_first = not parts
        parts.append(
            f"{'At turn' if said_first else 'at turn'} {meeting.turn} {'they ' if said_first else ''}differ by "
            f"{count} ({top} {chars[top]}, {runner_up} {chars[runner_up]})"
        )
    if parts:
        said.append(f"{_joined(parts)}, so their lines nearly meet there.")
    return said


def _sum_reported(column: pd.Series) -> int | str:
    """A sum of reported counts, or ``unknown`` when any call reported none (a partial sum is no measurement)."""
    return shown_count(reported_total(count_of(value) for value in column))


def scaling_frame(rows: Sequence[ScalingRow]) -> pd.DataFrame:
    """One row per replay of :func:`~course_lib.policies.measure_scaling`: the table :func:`plot_scaling` draws."""
    import pandas as pd

    columns = ["turns", "policy", LAST_READER_CHARS, "all calls (chars)", "calls", CPU_SECONDS]
    return pd.DataFrame(
        [[r.turns, r.policy, r.last_reader_chars, r.all_chars, r.calls, r.cpu_seconds] for r in rows], columns=columns
    )


def footprint_frame(footprints: Sequence[SessionFootprint]) -> pd.DataFrame:
    """One row per session policy (named by it): messages its saved session stores, messages its last call sent."""
    import pandas as pd

    columns = ["policy", STORED_COLUMN, LAST_CALL_COLUMN, "first stored message"]
    rows = [[f.policy, f.stored, f.last_call, f.first_stored] for f in footprints]
    return pd.DataFrame(rows, columns=columns).set_index("policy")


def repairs_frame(runs: Sequence[CapstoneRun]) -> pd.DataFrame:
    """One row per capstone run: iterations, characters, correctness before and after the loop, the verdict and why.

    The verdict names what the loop fixed and what it did not (:attr:`~course_lib.capstone.CapstoneRun.verdict_text`).
    """
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "policy": run.policy,
                "rule": run.rule,
                STORE_BOUND: run.max_facts,
                ITERATIONS: run.iterations,
                LOOP_READER_CHARS: run.reader_chars,
                "feedback chars": run.feedback_chars,
                "first answer correct": run.first_correct,
                "final answer correct": run.final_correct,
                "verdict": run.verdict_text,
                "why": run.why,
            }
            for run in runs
        ]
    )


def one_row_per_policy(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """A table of runs under several rules, each policy once when every rule gave it the same row; and why.

    Lesson 07 runs every policy under both drifting rules; when they agree, a table listing each policy twice would
    make the student compare identical rows. Then the rows of the first rule are shown without the rule column, and
    the sentence says so (naming the rules in words). When the rules differ, or one rule ran, every row stays, the
    rule in words (with one rule, its column goes and the sentence is empty: there is nothing to compare).
    """
    rules = list(dict.fromkeys(frame["rule"]))
    others = [c for c in frame.columns if c != "rule"]
    groups = [frame.loc[frame["rule"] == rule, others].reset_index(drop=True) for rule in rules]
    if len(rules) == 1:
        return groups[0], ""
    if all(group.equals(groups[0]) for group in groups[1:]):
        names = " and ".join(rule_label(rule) for rule in rules)
        return groups[0], f"Under each rule ({names}) every policy gets the same row: each policy is shown once."
    shown = frame.reset_index(drop=True)
    return shown.assign(rule=shown["rule"].map(rule_label)), ""


def verdict_table(verdicts: Sequence[AnswerVerdict], names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per ``(task, answer)`` the capstone's evaluator read, with its verdict.

    ``names`` gives each task a short name (``{"ask": "Which module and database are we on?"}``), said once before
    the table: the task column then shows the name, not the same long question in every row. A task without a name
    is refused by name (a row would otherwise show a question the sentence never introduced).
    """
    import pandas as pd

    short = {task: name for name, task in (names or {}).items()}
    unnamed = sorted({v.task for v in verdicts} - set(short)) if names else []
    if unnamed:
        raise ValueError(f"Every task needs a short name when names are given; {unnamed} has none. No table was made.")
    return pd.DataFrame(
        [[short.get(v.task, v.task), v.answer, v.verdict] for v in verdicts], columns=["task", "answer", "verdict"]
    )


class PanelText:
    """A panel's saved output: a short line instead of the widget tree's raw repr (mixed into every panel)."""

    title = "panel"

    def __repr__(self) -> str:
        return f"[{self.title}: interactive, run this cell in Jupyter to use it]"


def html_lines(text: str) -> str:
    """``text`` escaped for an HTML value, its line breaks kept."""
    return html.escape(text, quote=False).replace("\n", "<br>")


def integer_ticks(ax: Axes, axis: Literal["x", "y", "both"] = "both") -> None:
    """Ticks on whole numbers only: a count of calls or messages has no 2.5."""
    from matplotlib.ticker import MaxNLocator

    for name in ("x", "y") if axis == "both" else (axis,):
        getattr(ax, f"{name}axis").set_major_locator(MaxNLocator(integer=True))


def figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes (for a panel's image), and closed so it is not also drawn below the cell."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def _short(text: str, width: int = 18, line: int = 14) -> str:
    """A value fitted to a grid cell: whole when it fits, else on two lines broken between words, and shortened
    (:func:`~course_lib.frames.shorten_at_word`) only past them, so a value the table beside it shows whole is not
    cut to its first word in the picture."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    first, *rest = textwrap.wrap(text, line, break_long_words=False)
    if len(first) > width or not rest:  # one word too long for any line: cut it
        return shorten_at_word(text, width)
    second = " ".join(rest)
    return f"{first}\n{second if len(rest) == 1 and len(second) <= width else shorten_at_word(second, line)}"


VISIBLE_SPACE = "\u2423"
"""How a table shows a space whose count matters: a browser collapses runs of spaces, and the rule is about them."""


def show_spaces(text: str) -> str:
    """``text`` with every space written as a visible ``␣``: the spaces the contract trims, shown in a table cell."""
    return text.replace(" ", VISIBLE_SPACE)


BLOCK_WIDTH = 88
"""The longest line :func:`wrapped_block` prints: the exercise checker's width, which fits a laptop's notebook."""

BLOCK_INDENT = "    "
"""What starts the rest of a wrapped line: no line of the facts block starts with spaces, so it reads as the rest."""

_SINGLE_SPACE = re.compile(r"(?<! ) (?! )")
"""Where :func:`wrapped_block` may break a line: a single space (a run of spaces is part of the text, kept whole)."""


def wrapped_block(text: str, width: int = BLOCK_WIDTH) -> str:
    """``text`` for printing, each long line broken at single spaces, its rest indented with :data:`BLOCK_INDENT`.

    Why: printed whole, a facts line of 130 characters wrapped wherever the screen ended, as often inside the date
    (``2026-12-`` / ``02T22:13:24``); broken here only at a space, a date or any word is never cut. The text itself
    is unchanged: joining each indented rest back with one space gives every line of ``text`` again.
    """
    return "\n".join(_wrapped_line(line, width) for line in text.split("\n"))


def _wrapped_line(line: str, width: int) -> str:
    """One line broken greedily at its single spaces; a part too long for a line stays whole."""
    rows: list[str] = []
    for part in _SINGLE_SPACE.split(line):
        room = width - (len(BLOCK_INDENT) if len(rows) > 1 else 0)
        if rows and len(rows[-1]) + 1 + len(part) <= room:
            rows[-1] += " " + part
        else:
            rows.append(part)
    return f"\n{BLOCK_INDENT}".join(rows)


FOUND_COLUMNS = ["key", "value", f"evidence ({VISIBLE_SPACE} is a space)"]


def found_frame(declarations: Iterable[Declaration]) -> pd.DataFrame:
    """Each declaration found (``find_declarations``), repeats included: its key, value and the exact words it cites.

    The evidence is the trimmed segment, inner spaces kept (``priority =  P1``); its spaces show as ``␣``, since an
    HTML table collapses the very runs of spaces that make the citation exact.
    """
    rows = [{"key": d.key, "value": d.value, FOUND_COLUMNS[2]: show_spaces(d.evidence)} for d in declarations]
    return student_table(rows_frame(rows, FOUND_COLUMNS))


DECLARATION_COLUMNS = [
    # \u23ce is assertions.LINE_BREAK_MARK, written out: loading the display helpers loads neither half
    f"message ({VISIBLE_SPACE} is a space, \u23ce a line break)",
    "key",
    "value",
    "left out, and why",
]


def declarations_frame(parsed: Iterable[tuple[str, Mapping[str, str], Sequence[str]]]) -> pd.DataFrame:
    """Messages, the declarations each holds (key and value apart, one per line) and why the rest gives no fact.

    ``parsed`` gives each message with what the contract read from it (``parse_assertions``'s dict) and why the rest
    gives no fact (``left_out``'s reasons: ``'owner' is not an allowed key``); the caller reads the message, so this
    display helper loads neither half. A dict printed as Python writes it (``{'module': 'Billing'}``) is not what a
    student should have to read, and ``log=level=debug`` written back as one text hides where the key ends: key and
    value have columns of their own. An HTML table would collapse the very spaces the trimming rule is about, so the
    message shows them as ``␣``; a line break would look like the text wrapping, so it shows as ``⏎``, the mark the
    lesson's other tables use (:func:`~course_lib.assertions.mark_line_breaks`).
    """
    from .assertions import mark_line_breaks  # when called: loading the display helpers loads neither half

    rows = [
        {
            DECLARATION_COLUMNS[0]: show_spaces(mark_line_breaks(message)),
            "key": "\n".join(found) or "-",
            "value": "\n".join(found.values()) or "-",
            "left out, and why": "\n".join(reasons) or "-",
        }
        for message, found, reasons in parsed
    ]
    frame = student_table(rows_frame(rows, DECLARATION_COLUMNS))
    frame.attrs[NO_WRAP] = ["key", "value"]
    return frame


def proposals_text(candidates: Sequence[FactCandidate]) -> str:
    """What a writer proposed, one fact a line, each with the words it cites: ``• module=Payments, citing "..."``.

    A table cell of ``module=Payments [module=Payments]`` leaves a student to guess what the brackets hold; the
    citation is named, a bullet starts each fact (a narrow column wraps one fact over several lines), and an empty
    proposal reads "nothing".
    """
    return "\n".join(f'\u2022 {c.key}={c.value}, citing "{c.evidence}"' for c in candidates) or "nothing"


def facts_html(facts: Sequence[Fact]) -> str:
    """The facts as the memory panel shows them: an HTML table whose times are the time of day (UTC).

    The time of day is enough within a session, and keeps the column narrow beside the desks. The table is drawn as
    the lesson's own tables are (:func:`lesson_table_html`: one rule under the header, no double grid). A value or
    evidence wraps inside its cell at its spaces; only a word too long for a narrow column (:func:`breakable_words`)
    may be cut between characters, so "Enterprise" never reads "Enterpris / e" while a 40-letter token still cannot
    push the table past the panel's edge, where the widget would clip it.
    """
    if not facts:
        return "<i>No facts.</i>"
    frame = facts_frame(facts)
    table = lesson_table_html(frame, "memory-facts")
    # a heading wraps only at a space ("recorded / (UTC)", which gives the values room), never inside a word
    table = table.replace("<th>", f'<th style="{HEADING_CELL}">')
    styles = itertools.cycle([WRAPPING_CELL if column in WRAPPED_FACT_COLUMNS else WHOLE_CELL for column in frame])
    table = re.sub("<td>", lambda _: f'<td style="{next(styles)}">', table)
    wrapped = re.escape(WRAPPING_CELL)
    return re.sub(
        f'(<td style="{wrapped}">)(.*?)(</td>)', lambda m: m[1] + breakable_words(m[2]) + m[3], table, flags=re.S
    )


LONGEST_WHOLE_WORD = 12
"""The longest word (characters between spaces) a panel cell never cuts. A value and an evidence word of this length,
beside a key, a turn and a time, fit the desk panel's 460 px store (measured in headless Chromium), so no word of
"SQL Server 2022 Enterprise Edition" is cut; a longer word may be cut where the panel is too narrow for it."""

BREAKABLE_WORD = "overflow-wrap: anywhere"
"""The style of a word longer than :data:`LONGEST_WHOLE_WORD`: it alone may be cut between characters."""


def breakable_words(cell: str) -> str:
    """A cell's escaped HTML text, each word breakable after its ``=`` and ``;`` and each piece longer than
    :data:`LONGEST_WHOLE_WORD` in a span that may break (:func:`_breakable_word`).

    A cell whose every word may break lets the table squeeze a column below its words' width, and the browser then
    cuts ordinary words ("Bill / ing"); a cell whose no word may break makes the table as wide as its longest token,
    past the panel. Marking only the over-long words keeps both: the others wrap at spaces, as prose does.
    """
    return re.sub(r"\S+", lambda m: _breakable_word(m[0]), cell)


_SHOWN_CHARACTER = re.compile(r"&#?\w+;|.", re.S)
"""One character as a browser shows it, in escaped HTML: an escaped one (``&amp;``, ``&#x27;``) or a plain one."""


def _breakable_word(word: str) -> str:
    """One escaped word, broken first after each ``=`` and ``;`` it shows (``customer=`` / ``Fabrikam``: ``<wbr>``,
    as no browser breaks there by itself, and never inside an escaped character such as ``&#x27;``); each piece still
    longer than :data:`LONGEST_WHOLE_WORD` goes in a span that may be cut between characters, as a last resort."""
    pieces: list[list[str]] = [[]]
    for character in _SHOWN_CHARACTER.findall(word):
        pieces[-1].append(character)
        if character in "=;":
            pieces.append([])
    return "<wbr>".join(
        f'<span style="{BREAKABLE_WORD}">{"".join(piece)}</span>' if len(piece) > LONGEST_WHOLE_WORD else "".join(piece)
        for piece in pieces
        if piece
    )


WRAPPED_FACT_COLUMNS = ("value", "evidence")
"""The panel's columns of free text, wrapped; a key, a turn and a time stay whole ("database", never "databas / e")."""
WHOLE_CELL = "text-align: left; white-space: nowrap; overflow-wrap: normal"
HEADING_CELL = "text-align: left; white-space: normal; overflow-wrap: normal; word-break: normal"


WRAPPING_CELL = "text-align: left; white-space: pre-wrap; overflow-wrap: break-word; word-break: normal; min-width: 4em"
"""A panel cell's text: at the left (in Voila too, where no lesson style applies), wrapped within the panel at its
spaces; a word longer than :data:`LONGEST_WHOLE_WORD` sits in a span that may be cut between characters
(:func:`breakable_words`), so the table shrinks to the panel without cutting an ordinary word.

``break-word`` (not ``anywhere``) on the cell: with ``anywhere`` a table may size a column below its words' width and
cut them; the over-long words get ``anywhere`` from their span, so they alone let the table shrink.
"""


def lesson_table_html(frame: pd.DataFrame, css_class: str, *, escape: bool = True) -> str:
    """A panel's table drawn as the lesson's own tables are: one thin rule under the header, no cell borders.

    pandas writes ``border="1"``, which a widget (outside the notebook's rendered-output styles) draws as a double
    grid; the table goes without it, inside the class JupyterLab and Voila style the lesson's tables with, at the left
    (that class alone would centre it).
    """
    table = frame.to_html(index=False, escape=escape, classes=css_class, justify="left", border=0)
    table = table.replace("<table ", '<table style="margin-left: 0" ', 1)  # at the left, as in the lesson's output
    return f'<div class="jp-RenderedHTMLCommon">{left_aligned_style(css_class)}{table}</div>'


def left_aligned_style(css_class: str) -> str:
    """A style that reads every cell of the tables of ``css_class`` from the left, top-aligned, as the lesson's tables.

    JupyterLab right-aligns a table's cells; the lesson's tables read from the left only once
    :func:`~course_lib.presentation.setup_display` has run in this kernel and the notebook is trusted. A panel's
    table carries its own rule, so its text reads from the left wherever the panel is shown (JupyterLab, Voila).
    """
    selector = f"table.{css_class} td, table.{css_class} th"
    return f"<style>{selector} {{ text-align: left !important; vertical-align: top; }}</style>"


GRADED_VIEW_COLUMNS = ["policy", "graded turn", "correct", "missing", FORBIDDEN_NAMED, "values the reader could see"]
"""The explorer's table: *missing* and *forbidden values named* are two columns, worded as in section 3's table
(:func:`final_answers_frame`), so one idea has one name and one place in both."""


def what_was_wrong(missing: str, forbidden: str) -> str:
    """A graded answer's fault in words, from its grading (``AnswerRow``'s ``missing`` and forbidden values named,
    each joined by ``; ``): "nothing" for a correct one, else what it is missing and the forbidden values it names,
    each list joined by commas so that the one semicolon parts the two.

    A student comparing a "no" with the requirements by eye misses a value; the grader already knows which.
    """
    parts = [f"missing {missing.replace('; ', ', ')}" if missing else ""]
    parts.append(f"names forbidden {forbidden.replace('; ', ', ')}" if forbidden else "")
    return "; ".join(p for p in parts if p) or "nothing"


def answers_by_rule(answers: pd.DataFrame, turn: int) -> str:
    """One policy's answer at ``turn`` under each rule it ran, one line a rule: correct, or what it missed and named.

    An answer right under one rule only is right because of that rule (lesson 04's 9-turn window, like full history,
    sees the superseded values too): the lines under the other rules say so, from the run rather than from prose.
    """
    rows = answers[answers["turn"] == turn]
    policies = list(dict.fromkeys(rows["policy"]))
    if len(policies) != 1:
        raise ValueError(f"Answers by rule need one policy's answers at turn {turn}; these hold {policies}.")
    lines = [f"The '{policies[0]}' policy's answer at turn {turn}, rule by rule:"]  # a name, not words of the sentence
    for _, row in rows.iterrows():
        verdict = "correct" if row["correct"] else f"wrong: {what_was_wrong(row['missing'], row[FORBIDDEN_NAMED])}"
        lines.append(f"- {rule_label(row['rule'])}: {verdict}")
    return "\n".join(lines)


def graded_view_frame(answers: pd.DataFrame, calls: pd.DataFrame) -> pd.DataFrame:
    """Each policy's answer at each graded turn beside the values its reader could see then (one rule's run).

    A ``yes`` or ``no`` alone says what happened; the values seen say why (lesson 04's section 3 reads them so).
    """
    rules = answers["rule"].unique()
    if len(rules) != 1:
        raise ValueError(f"A graded-view table needs the answers of one rule; these hold {list(rules)}.")
    reader = calls[(calls["call"] == "reader") & (calls["rule"] == rules[0])]
    seen = {(row["policy"], row["turn"]): row["visible"] for _, row in reader.iterrows()}
    return rows_frame(
        (
            {
                "policy": row["policy"],
                "graded turn": row["turn"],
                "correct": yes_no(row["correct"]),
                "missing": row["missing"] or "nothing",
                FORBIDDEN_NAMED: row[FORBIDDEN_NAMED] or "nothing",
                "values the reader could see": seen.get((row["policy"], row["turn"])) or "nothing",
            }
            for _, row in answers.iterrows()
        ),
        GRADED_VIEW_COLUMNS,
    )
