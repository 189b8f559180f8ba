"""Lesson 00, the second new-student walk of round 23 (issue 32): the course_lib half of its findings.

3. The recorded run's sentence names the model, not its file's quantization (``-Q4_1``): ``qualify.model_in_words``.
5. Exercise 1: the retries taken for the attempts (40.5 for 20 s and 2 retries) get a hint of their own, computed
   from the formula, for any settings, never the answer.
"""

from __future__ import annotations

import pytest

from course_lib.exercises import _silent_wait_slips, check, exercise
from course_lib.live import LiveSettings
from course_lib.qualify import run_in_words
from course_lib.recordings import load_qualification

# 3. The model's name without its quantization ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file_name", "model"),
    [
        ("SmolLM2-135M-Instruct-Q4_1", "SmolLM2-135M-Instruct"),
        ("SmolLM2-135M-Instruct.Q8_0", "SmolLM2-135M-Instruct"),
        ("Qwen2.5-0.5B-Instruct-Q4_K_M", "Qwen2.5-0.5B-Instruct"),
        ("gpt-4o-mini", "gpt-4o-mini"),
        ("llama3.2", "llama3.2"),
    ],
)
def test_run_in_words_names_the_model_not_its_files_quantization(file_name, model):
    recorded = load_qualification()
    said = run_in_words(file_name, recorded.cases, recorded.recorded_at)
    assert f": {model} got " in said, said


# 5. Exercise 1: the retries taken for the attempts -----------------------------------------------------------------


def hint_1(answer: float) -> str:
    settings = LiveSettings(model="m", api_key="k", timeout=20, max_retries=2)
    hint = exercise("00", "Exercise 1").hint
    return " ".join(check("Exercise 1", answer, settings.worst_case_wait, hint).split())


def test_exercise_1_retries_taken_for_attempts_get_their_own_hint_without_the_answer():
    taken = LiveSettings(model="m", api_key="k", timeout=20, max_retries=1).worst_case_wait  # 2 attempts, 1 wait
    assert taken == 40.5
    said = hint_1(taken)
    assert said.startswith("Exercise 1: not quite.")
    assert "40.5 s" in said and "attempts in all" in said, said
    assert "61.5" not in said


@pytest.mark.parametrize(("timeout", "retries"), [(20, 2), (30, 3), (10, 4), (45, 2)])
def test_the_retries_taken_for_attempts_slip_is_computed_for_any_settings(timeout, retries):
    taken = LiveSettings(model="m", api_key="k", timeout=timeout, max_retries=retries - 1).worst_case_wait
    right = LiveSettings(model="m", api_key="k", timeout=timeout, max_retries=retries).worst_case_wait
    slips = dict(_silent_wait_slips(float(timeout), retries))
    assert taken in slips, sorted(slips)
    assert "attempts in all" in slips[taken]
    assert f"{right:g}" not in slips[taken]
