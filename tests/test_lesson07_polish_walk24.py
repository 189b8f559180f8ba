"""Walk 24 (second round) on lesson 07 (issue 32): what would make it a 5.

1. Section 1's sample table numbers its answers, as the prose names them ("Answers 2 to 4", "the fifth answer").
2. Rule 2 says what "plans an action" means, true to the answer check's action words.
3. The prose-answers verdict sentence says ``key: value`` for each value wrongly stated as current.
4. "That is why each policy is shown once" sits right after section 3's first table.
5. Under the hood: the ``from_answers`` cell follows the paragraph that introduces it.
7. The panel's caption says turns "share one time".
8. "Where next" says what ``make qualify`` does.
9. An empty key-by-key or eviction table becomes one sentence saying why (an empty run, offline).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pandas as pd
from support.lesson_cells import stored_lesson

from course_lib import answer_reader
from course_lib.capstone import CapstoneRun, evictions_or_why, key_repairs_or_why
from course_lib.capstone_panel import shared_second_note
from course_lib.memory import Fact

NOON = datetime(2026, 1, 1, 12, tzinfo=UTC)


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _cells() -> list[dict]:
    return stored_lesson("07")["cells"]


def _code_index(contains: str) -> int:
    return next(i for i, c in enumerate(_cells()) if c["cell_type"] == "code" and contains in _source(c))


def test_sample_table_numbers_answers_from_one() -> None:
    cell = _cells()[_code_index("examples = [")]
    assert '"#"' in _source(cell)
    outputs = cell["outputs"]
    text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/html", "")) for o in outputs)
    assert ">#<" in text or " # " in text
    assert ">7<" in text or re.search(r"\b7\b", text)


def test_rule_2_defines_plans_an_action_with_the_readers_words() -> None:
    rule_2 = " ".join(next(_source(c) for c in _cells() if "**Rule 2" in _source(c)).split())
    assert "an action word such as" in rule_2
    for word in re.findall(r"\b(fix|patch|restart|deploy)\b", rule_2.split("an action word such as", 1)[1][:80]):
        assert answer_reader._ACTION.search(word), word


def test_prose_verdict_sentence_says_key_value() -> None:
    text = next(_source(c) for c in _cells() if _source(c).startswith("### Answers written as prose"))
    assert "`key: value` for each value the answer wrongly states as current" in " ".join(text.split())
    assert "the key and the other value" not in text


def test_shown_once_sentence_follows_section_3_first_table() -> None:
    table = _code_index("one_row_per_policy(repairs[shown])")
    after = " ".join(_source(_cells()[table + 1]).split())
    assert after.startswith("Both drifting rules give the same rows.")  # walk 25's wording
    assert "So each policy is shown once." in after
    assert not any(_source(c).lstrip().startswith("Each `module` value") for c in _cells())


def test_from_answers_cell_follows_its_paragraph() -> None:
    paragraph = next(i for i, c in enumerate(_cells()) if "**The answer battery.**" in _source(c))
    assert "from_answers = [" in _source(_cells()[paragraph + 1])


def test_caption_says_share_one_time() -> None:
    facts = [Fact(key=k, value="v", evidence=f"{k}=v", turn=t, recorded_at=NOON) for k, t in (("a", 2), ("b", 3))]
    note = shared_second_note(facts)  # typed within one second: the turns are named with their shared time
    assert "share one time" in note
    assert "show one time" not in note
    # replayed by the panel's cell: walk 25 (second round) says what the time is instead (test_lesson07_polish_walk25)
    assert shared_second_note(facts, replayed=(2, 3)).startswith("Every row shows the time the panel's cell ran")


def test_where_next_says_what_make_qualify_does() -> None:
    text = next(_source(c) for c in _cells() if "**Where next:**" in _source(c))
    after = " ".join(text.split("make qualify", 1)[1].split())[:200]
    assert "lesson 00's test messages" in after


def _empty_run() -> CapstoneRun:
    return CapstoneRun.model_construct(
        policy="summary",
        rule="earliest",
        max_facts=5,
        checks=[],
        reader_calls=[],
        final_answer="",
        evicted={},
        evictions=[],
        fixed=[],
        not_fixed=[],
        still_missing=[],
    )


def test_an_empty_key_table_is_a_sentence() -> None:
    shown = key_repairs_or_why(_empty_run())
    assert isinstance(shown, str) and shown.endswith(".") and "summary" in shown
    assert "DataFrame" not in shown


def test_an_empty_eviction_table_is_a_sentence() -> None:
    shown = evictions_or_why(_empty_run())
    assert isinstance(shown, str) and shown.endswith(".") and "summary" in shown


def test_a_full_table_stays_a_table() -> None:
    run = _empty_run().model_copy(update={"evicted": {"constraint": 7}})
    assert isinstance(evictions_or_why(run), pd.DataFrame)


def test_the_lesson_uses_them() -> None:
    text = "\n".join(_source(c) for c in _cells() if c["cell_type"] == "code")
    assert "key_repairs_or_why(summary_run)" in text
    assert "evictions_or_why(facts_run)" in text


def test_a_value_flush_against_non_latin_script_is_read_right() -> None:
    """6. ``モジュールはReportingです`` states the replaced module. Pinned as a misread at walk 24, it is now read right
    (a change of script ends a word: tests/test_answer_reader_scripts.py), and the battery holds it with the verdict
    it gets; the lesson's counts follow the battery."""
    from course_lib.capstone import BATTERY_MISREADS, BATTERY_STALE, RULE_MISREADS, battery_score

    flush = "モジュールはReportingです"
    assert not any(case.answer == flush for case, _ in BATTERY_MISREADS)
    assert not any(answer == flush for _, answer, _ in RULE_MISREADS)
    assert any(case.answer == flush and case.verdict == "module: Reporting" for case in BATTERY_STALE)
    score = battery_score()
    hood = " ".join("".join(c["source"]) for c in _cells() if "**The answer battery.**" in "".join(c["source"]))
    assert f"{score.answers} answers behind" in " ".join(hood.split())
    assert f"the {score.misread} misreads" in " ".join(hood.split())
