"""Lesson 04's nineteenth walk, its words (issue 32): the opening's new words are a short list, one line each, with
*resolution rule* left to section 1; the facts policy's two names are said where the name is first used; a recorded
stop shows only the advice the client gives now; and the replays' call count says a live model answers each call once,
the timing repeats being offline only.
"""

from __future__ import annotations

import re

import pytest

from course_lib.policies import ScalingRow, replay_calls_sentence
from course_lib.recordings import load_policy_costs
from tests.support.lesson_cells import cell_outputs, stored_lesson

OLD_ADVICE = "raise COURSE_LLM_MAX_TOKENS (now 256)"


def _words(text: str) -> str:
    return " ".join(text.split())


def _markdown() -> list[tuple[str, str]]:
    """Each markdown cell of lesson 04 as (id, its words on one line)."""
    cells = stored_lesson("04")["cells"]
    return [(c.get("id"), _words("".join(c["source"]))) for c in cells if c["cell_type"] == "markdown"]


def _opening() -> str:
    return "".join(stored_lesson("04")["cells"][0]["source"])


# region Finding 1: the new words are a list, one line each; "resolution rule" waits for section 1


def test_the_opening_lists_its_new_words_one_bullet_each():
    opening = _opening()
    intro, words = opening.split("New words")
    bullets = [line for line in words.splitlines() if line.startswith("- ")]
    for term in ("*turn*", "*timeline*", "*reader*", "*LLM*", "*offline*"):
        assert sum(term in b for b in bullets) == 1, term
    assert len(bullets) <= 6  # walk 23: only the words the first sections need; the others where first used
    assert "re-creates *Demo170*, one of the three demo programs in a French article" in " ".join(intro.split())
    assert all(b.count("*") == 2 or "`" in b for b in bullets), "one new word per line"
    assert ";" not in words  # no run-on sentence joined by semicolons


def test_the_resolution_rule_is_first_named_where_section_1_explains_it():
    cells = _markdown()
    first = next(i for i, (_, words) in enumerate(cells) if "resolution rule" in words)
    assert "## 1. The timeline and the reader" in cells[first][1]
    assert "explicit **resolution rule** that we switch" in cells[first][1]
    assert "resolution rule" not in _opening()


def test_llm_is_spelled_out_before_the_offline_models_use_it():
    opening = _words(_opening())
    assert opening.index("*LLM* (large language model)") < opening.index("not a real LLM")


# endregion
# region Finding 2: the facts policy's name with its bound is said where "facts" is first a policy name


def test_section_2_says_the_explorer_names_the_facts_policy_with_its_bound():
    section_2 = next(words for _, words in _markdown() if "## 2. Run every policy under every rule" in words)
    assert "*facts* sends the bounded store of lessons 01-02, at most 5 facts" in section_2  # walk 22: a bullet
    assert "*facts (5)*" in section_2  # *facts (4)* no longer an aside here (walk 22, second)
    cells = _markdown()
    first = next(i for i, (_, words) in enumerate(cells) if "facts (5)" in words or "facts (4)" in words)
    assert "## 2. Run every policy under every rule" in cells[first][1]


# endregion
# region Finding 3: a recorded stop shows the advice the client gives now, and says once that it was reworded


def _recording_stopped_with(message: str):
    recording = load_policy_costs()
    run = next(r for r in recording.runs if r.stopped).model_copy(update={"stopped": message})
    return recording.model_copy(update={"runs": [run]})


CUT = "The summarizer failed after turn {turn}: summarizer model 'x' at http://127.0.0.1:1/v1: {what} was cut at the "


@pytest.mark.parametrize(
    "message",
    [
        CUT.format(turn=1, what="the answer") + f"output cap of 256 tokens (finish_reason='length'); {OLD_ADVICE} or "
        "ask for a shorter answer. No offline fallback is used.",
        CUT.format(turn=4, what="the JSON") + f"output cap of 256 tokens (finish_reason='length'); {OLD_ADVICE}.",
    ],
)
def test_advice_that_no_longer_holds_is_replaced_not_retracted(message):
    details = _recording_stopped_with(message).stop_details()
    assert OLD_ADVICE not in details
    assert "256 tokens is the server's own cap, which no setting raises: ask for a shorter answer" in details
    assert details.count("(Advice as the course's client gives it now; the recording, made earlier") == 1
    assert "Recorded before" not in details and "It now says" not in details


def test_advice_that_still_holds_is_shown_as_recorded_with_no_note():
    below = CUT.format(turn=1, what="the answer") + (
        "output cap of 128 tokens (finish_reason='length'); raise COURSE_LLM_MAX_TOKENS (now 128) or ask for a "
        "shorter answer."
    )
    details = _recording_stopped_with(below).stop_details()
    assert "raise COURSE_LLM_MAX_TOKENS (now 128) or ask for a shorter answer." in details
    assert "older advice" not in details


def test_the_lesson_prints_only_the_current_advice():
    printed = " ".join(
        cell_outputs("04", c["id"])
        for c in stored_lesson("04")["cells"]
        if c["cell_type"] == "code" and "stop_details()" in "".join(c["source"])
    )
    assert "which no setting raises" in printed and OLD_ADVICE not in printed
    prose = next(
        words
        for _, words in _markdown()
        if "the recorded stop's full message" not in words and "Here is the full message" in words
    )
    assert "then what the client says now" not in prose


# endregion
# region Finding 4: a live model would answer each call once; the timing repeats are offline only


def test_the_call_count_says_the_repeats_are_offline_timing_only():
    thrice = [ScalingRow(10, p, 0, 0, 10, 0.0, 3) for p in ("full history", "summary")]
    sentence = replay_calls_sentence(thrice)
    assert "Each replay ran 3 times, to time it (the time per turn, below): 3 \u00d7 20 = 60 calls." in sentence
    assert "Only the offline models ran the repeats: a live model would answer each of the 20 calls once." in sentence
    once = replay_calls_sentence([ScalingRow(10, "full history", 0, 0, 10, 0.0)])
    assert "once" not in once


def test_section_6_says_a_live_model_answers_each_call_once():
    # walk 24: section 6 says only that the replays use the offline models; the count is printed under the hood
    section_6 = next(words for _, words in _markdown() if "## 6. How the prompt grows" in words)
    assert "These replays always use the offline models." in section_6 and "2,880" not in section_6
    printed = next(
        cell_outputs("04", c["id"])
        for c in stored_lesson("04")["cells"]
        if "replay_calls_sentence(replays)" in "".join(c["source"])
    )
    calls = re.search(r"([\d,]+) model calls in all", printed).group(1)
    assert f"a live model would answer each of the {calls} calls once" in printed


# endregion
