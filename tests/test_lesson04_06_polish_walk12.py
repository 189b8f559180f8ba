"""Lessons 04 and 06 after the sixth walks (issue 32): the "No winner" lines say the same words whether or not a
policy was right everywhere, and never a Python list; lesson 04's facts bullet lists each eviction on a line of its
own, each true of the facts policy's run; its prose quotes the stable numbers it used to point at; lesson 06 says
what a MAF message holds as the code writes it, and that the judge's missing full stop is MAF's template's own."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import nbformat
import pandas as pd

from course_lib.clients import make_chat_client
from course_lib.policies import FactsPolicy, load_timeline
from course_lib.presentation import NO_WINNER, no_winner_sentence, right_everywhere_line
from course_lib.tracing import CallLog

ROOT = Path(__file__).resolve().parent.parent
LESSON_04 = ROOT / "notebooks" / "04_memory_policies_compared.ipynb"
LESSON_06 = ROOT / "notebooks" / "06_loop_options_compared.ipynb"
RULES = ("latest", "earliest", "most_frequent")


def _cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def _cell(path: Path, cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in _cells(path) if c.get("id") == cell_id)


def _words(text: str) -> str:
    return " ".join(text.split())


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.outputs if o.get("output_type") == "stream")


def _answers(right: dict[str, bool]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"policy": policy, "rule": rule, "turn": turn, "correct": correct if turn == 10 else True}
            for policy, correct in right.items()
            for rule in RULES
            for turn in (5, 10)
        ]
    )


# 1. "No winner": the same words whatever the answers; the verdict carries the point.


def test_the_right_everywhere_line_names_policies_and_announces_nothing_whatever_the_answers():
    none = _answers({"full history": False, "facts": False})
    one = _answers({"full history": False, "facts": True})
    two = _answers({"full history": True, "facts": True})
    assert right_everywhere_line(none) == "policies right everywhere: none"
    assert right_everywhere_line(one) == "policies right everywhere: facts"
    assert right_everywhere_line(two) == "policies right everywhere: full history and facts"
    for answers in (none, one, two):
        line = right_everywhere_line(answers)
        assert "winner" not in line and "[" not in line
        assert no_winner_sentence(answers).endswith(NO_WINNER)  # said the same way, perfect or not
    assert "no winner is announced" in NO_WINNER


def test_lesson_04_prints_both_lines_from_the_library_and_the_claim_map_quotes_them():
    cell = _cell(LESSON_04, "13c8e281")
    assert "right_everywhere_line(answers)" in cell.source and "none, so" not in cell.source
    printed = _printed(cell)
    assert "policies right everywhere: none\n" in printed and NO_WINNER in printed
    row = next(line for line in (ROOT / "docs" / "seed-claims.md").read_text().splitlines() if "| F59 |" in line)
    assert "shows `policies right everywhere: none`" in row


# 2. The facts bullet: one line per eviction, each true of the facts policy's run.


async def _evictions() -> list[tuple[int, str]]:
    timeline = load_timeline()
    policy = FactsPolicy(make_chat_client("reader"), CallLog(), make_chat_client("writer"))
    gone: list[tuple[int, str]] = []
    for number, turn in enumerate(timeline.turns, start=1):
        before = {f.key for f in policy.extraction.memory.facts}
        await policy.turn(turn.user)
        after = {f.key for f in policy.extraction.memory.facts}
        gone += [(number, key) for key in sorted(before - after)]
    return gone


def test_the_facts_bullet_lists_each_eviction_of_the_run_on_a_line_of_its_own():
    evictions = asyncio.run(_evictions())
    graded = {"module", "database", "product", "constraint"}  # what the graded questions need, or the store held
    decisive = [(turn, key) for turn, key in evictions if key in graded]
    others = [(turn, key) for turn, key in evictions if key not in graded]
    assert decisive == [(4, "database"), (6, "product"), (7, "constraint")]
    source = _cell(LESSON_04, "cell-08").source
    lines = [line.strip() for line in source.splitlines() if re.match(r"\s+- turn \d+:", line)]
    assert len(lines) == len(decisive), lines
    for line, (turn, key) in zip(lines, decisive, strict=True):
        assert line.startswith(f"- turn {turn}: `{key}` out"), line
    assert "the prohibition" in lines[-1]
    assert others == [(8, "customer"), (9, "version")]  # the rest of the run's evictions are said too
    assert "Turns 8 and 9 push out `customer` and `version` too" in _words(source)


# 3. Section 1 says plainly what the *forbidden values named* column lists.


def test_section_1_says_what_the_forbidden_values_named_column_lists():
    said = _words(_cell(LESSON_04, "cell-02").source)
    assert "The tables below list, under *forbidden values named*, any forbidden value an answer named." in said
    assert "call the forbidden values" not in said


# 4. The prose quotes the stable numbers it pointed at; the quoted numbers are the printed ones.


def test_the_prose_quotes_the_numbers_the_cells_print():
    summary_out = _printed(_cell(LESSON_04, "6f3be19a"))
    summary_text = _words(_cell(LESSON_04, "d28c1efa").source)
    for mode in ("abstractive", "extractive"):
        chars = re.search(rf"^{mode}: (\d+) characters", summary_out, flags=re.M).group(1)
        assert re.search(rf"\b{chars} (?:characters|for the {mode})", summary_text), (mode, chars)
    cost_out = _printed(_cell(LESSON_04, "cell-09"))
    turn = re.search(r"From turn (\d+) on, full history sends the reader more", cost_out).group(1)  # a sentence
    assert f"from turn {turn} on" in _words(_cell(LESSON_04, "cell-11").source)
    count_out = _printed(_cell(LESSON_04, "aaef39f5"))
    stored, flagged, kept = re.search(
        r"(\d+) user turns stored \N{MINUS SIGN} (\d+) flagged excluded = (\d+)", count_out
    ).groups()
    said = _words(_cell(LESSON_04, "e5bb8ddc").source)
    assert f"{stored} stored turns \N{MINUS SIGN} {flagged} flagged = {kept} in view" in said
    # walk 24: section 6 no longer quotes the live-call count; the hood prints it
    calls = re.search(r"([\d,]+) model calls in all", _printed(_cell(LESSON_04, "hood-replay-calls-code"))).group(1)
    assert f"{calls} model calls" not in said


def test_the_no_winner_intro_says_what_its_cell_prints_without_pointing_at_a_line():
    said = _words(_cell(LESSON_04, "868cd267").source)
    assert "begins 'policies right everywhere'" not in said
    assert "the policies right everywhere (none here)" in said


# 5. Lesson 06: a MAF Message as the code writes it; the judge's template's own missing full stop.


def test_lesson_06_says_a_message_holds_contents_as_the_code_writes_them():
    prose = _words(_cells(LESSON_06)[15].source)
    assert 'a *role* (who is speaking: "user" or "assistant"), its contents (here one text) and an optional' in prose
    assert "contents=[" in _cell(LESSON_06, _cells(LESSON_06)[16].get("id")).source


def test_lesson_06_says_the_missing_full_stop_is_mafs_template_wording():
    cells = _cells(LESSON_06)
    index = next(i for i, c in enumerate(cells) if "judge-text-fallback" in c.metadata.get("tags", []))
    printed = _printed(cells[index + 1])
    assert "<unknown> Please continue" in printed  # the template's own words, no full stop after the gap
    said = _words(cells[index].source)
    assert "MAF .NET's own template" in said and "no full stop" in said
