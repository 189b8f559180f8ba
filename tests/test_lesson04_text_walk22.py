"""Lesson 04's words after walk 22 (issue 32): findings 2, 3, 7, 8 and 9 of a new student's walk.

- Section 3b promised "a small real model's attempt" in section 4, which shows no summary: only a stop at turn 1.
- "prompt" and "instructions" were used before any definition: the New words list them, and so does the glossary.
- Section 6's bullets: the call count is said plainly, and "a 200-turn full history would overflow a small model's
  memory" is worked out from the data (the estimate alone fits the recorded 4,096-token context; only the recorded
  ratio of reported to estimated tokens takes it past).
- The glossary has "forbidden value", and "superseded value" in the memory half.
- Cell 0's "this half of the course" says which half.
"""

from __future__ import annotations

import re
from pathlib import Path

from support.lesson_cells import cell_outputs, cell_source

from course_lib.policies import ScalingRow, context_fit_sentence
from course_lib.recordings import load_policy_costs

ROOT = Path(__file__).resolve().parents[1]


# region Finding 2: section 4 shows the real model's summary stop, at the turn the recording says


def test_section_3b_says_the_real_model_s_attempt_stopped_at_the_recorded_turn():
    text = " ".join(cell_source("04", "44536822").split())
    stopped = [run for run in load_policy_costs().runs if run.policy == "summary" and run.stopped]
    assert stopped
    turn = re.search(r"after turn (\d+)", stopped[0].stopped)
    assert turn
    # second walk 25 cut section 3b's pointer: section 4's recording says the recorded turn
    assert "Section 4 shows how a small real model" not in text
    assert f"stopped at turn {turn.group(1)}" in " ".join(cell_outputs("04", "0dfdbc21").split())
    assert "Section 4 shows a small real model's attempt." not in text


# endregion

# region Finding 3: prompt and instructions are new words


def _new_words() -> str:
    return cell_source("04", "cell-00").split("New words:")[1].split("These and the other new words")[0]


def test_prompt_and_instructions_are_defined_where_first_used():
    section_4 = " ".join(cell_source("04", "21ec9618").split())
    section_6 = " ".join(cell_source("04", "e5bb8ddc").split())
    assert "Each model's *instructions* count too: the fixed text sent first in each of its calls" in section_4
    assert "The *prompt* is everything sent to a model in one call" in section_6
    assert section_6.index("The *prompt* is") < section_6.index("## 6.") + 60  # the section's first sentence


def test_prompt_and_instructions_are_in_the_glossary():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    memory_half = glossary.split("## The memory half")[1].split("\n## ")[0]
    assert "| **prompt** |" in memory_half
    assert "| **instructions** |" in memory_half


# endregion

# region Finding 7: section 6's bullets said plainly, and the overflow worked out


def _section_6_bullets() -> str:
    return " ".join(cell_source("04", "e5bb8ddc").split("## 6.")[1].split())


def test_the_call_count_bullet_is_plain():
    bullets = _section_6_bullets()
    assert "counted under the bar (the 3 timing runs counted there are offline only)" not in bullets
    assert "would overflow a small model's memory" not in bullets


def _rows(chars: int) -> list[ScalingRow]:
    return [
        ScalingRow(10, "full history", 1000, 1000, 10, 0.01),
        ScalingRow(200, "full history", chars, chars, 200, 0.1),
        ScalingRow(200, "facts", 900, 900, 400, 0.1),
    ]


def test_the_fit_is_worked_out_from_the_estimate_and_the_recorded_ratio():
    sentence = context_fit_sentence(_rows(15523), context_tokens=4096, ratio=1.21, model="SmolLM2-135M-Instruct")
    assert sentence == (
        "At 200 turns, full history's last reader call sent 15,523 characters: about 3,880 tokens by the estimate "
        "(chars / 4), under the 4,096-token context of SmolLM2-135M-Instruct, the small model recorded in section 4. "
        "But for full history that model's server counted 1.21 tokens per estimated token, so the call would be "
        "about 4,695 tokens: more than its context holds, so it would not fit."
    )


def test_a_call_that_fits_even_at_the_recorded_ratio_is_said_to_fit():
    sentence = context_fit_sentence(_rows(8000), context_tokens=4096, ratio=1.21, model="M")
    assert sentence.endswith("so the call would be about 2,420 tokens: within its context.")


def test_a_call_over_the_context_by_the_estimate_alone_is_said_so():
    sentence = context_fit_sentence(_rows(20000), context_tokens=4096, ratio=1.21, model="M")
    assert "about 5,000 tokens by the estimate (chars / 4), already more than the 4,096-token context" in sentence


def test_the_lesson_prints_the_fit_from_the_recording():
    source = cell_source("04", "l04-generated-rows")
    assert "context_fit_sentence(" in source
    recording = load_policy_costs()
    full = next(run for run in recording.runs if run.policy == "full history")
    ratio = full.input_tokens / full.est_tokens
    shown = cell_outputs("04", "l04-generated-rows")
    assert f"counted {ratio:.2f} tokens per estimated token" in shown
    assert f"{recording.model.sampling['context_tokens']:,}-token context" in shown


# endregion

# region Finding 8: the glossary's forbidden and superseded values


def test_forbidden_and_superseded_values_are_in_the_memory_half():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    memory_half = glossary.split("## The memory half")[1].split("\n## ")[0]
    assert re.search(r"\| \*\*forbidden value\*\* \| <span[^>]*><a id=\"forbidden-value\"></a></span>", memory_half)
    assert re.search(r"\| \*\*superseded value\*\* \| <span[^>]*><a id=\"superseded-value\"></a></span>", memory_half)


# endregion

# region Finding 9: which half the seed belongs to


def test_cell_0_says_which_half_the_french_seed_is():
    words = " ".join(cell_source("04", "cell-00").split())
    assert "this half of the course" not in words
    # walk 25: the opening says what Demo170 is in plain words; which half the seed is, under the hood
    hood = " ".join(cell_source("04", "hood-reducer").split())
    assert "the seed, the French article that the memory half of the course (lessons 01-04) re-creates" in hood


# endregion
