"""Lesson 04 after its walk 22 (issue 32): section 2 describes the six policies one bullet each.

The paragraph naming the policies was one block: a newcomer reads a list of short sentences, one per policy the
lesson compares, each naming the policy as the tables name it.
"""

from __future__ import annotations

import re

from support.lesson_cells import cell_source

from course_lib.policies import course_policies


def _section_2() -> str:
    return cell_source("04", "cell-02").split("## 2. Run every policy under every rule")[1]


def _bullets() -> list[str]:
    """Each bullet of section 2, its continuation lines joined to it."""
    bullets: list[str] = []
    for line in _section_2().splitlines():
        if line.startswith("- "):
            bullets.append(line[2:].strip())
        elif bullets and line.startswith("  ") and line.strip():
            bullets[-1] += " " + line.strip()
        elif bullets and not line.strip():
            break
    return bullets


NUMBERS = "The numbers in the names count different things."  # third walk 25: a paragraph under the bullets


def _policy_bullets() -> list[str]:
    bullets = _bullets()
    assert not any(b.startswith(NUMBERS) for b in bullets) and NUMBERS in _section_2()
    return bullets


def test_section_2_gives_one_bullet_per_policy_compared():
    bullets = _policy_bullets()
    labels = list(course_policies())
    assert len(bullets) == len(labels) == 6
    kinds = ["full history", "last 3 turns", "summary", "facts", "compaction", "reducer"]
    for bullet, kind in zip(bullets, kinds, strict=True):
        assert re.match(rf"(the )?\*{re.escape(kind)}\*", bullet, re.IGNORECASE), bullet


def test_each_policy_bullet_is_one_short_sentence():
    for bullet in _policy_bullets():
        assert len(bullet) <= 170, bullet
        assert bullet.endswith("."), bullet
        assert len(re.findall(r"\. [A-Z*]", bullet)) == 0, bullet  # one sentence, no second one after it
        # walk 25: the compaction bullet sets the window beside it after a semicolon, as the walker asked
        allowed = "; *last 3 turns* sends" if bullet.startswith("*compaction*") else None
        assert len(re.findall(r"; [A-Z*]", bullet.replace(allowed or "\0", ""))) == 0, bullet


def test_the_policy_paragraph_is_no_longer_one_block():
    before_bullets = _section_2().split("\n- ")[0]
    assert "*full history* sends" not in before_bullets
    # walk 21's word stays, under the hood since third walk 25 (tests of walks 10 and 21)
    assert "keeps no MAF session" in " ".join(cell_source("04", "hood-after-f37").split())


# Finding 1 (branch walk22-timing-policies: course_lib/policies.py): a ratio below 1 says what it means, in the
# same sentence. A student read "0.7 times as long" as "faster" without knowing why; walk 21 had left the reason to
# the markdown under the sentence, which the student had not reached.


def test_a_ratio_below_1_is_explained_in_the_same_sentence():
    from test_lesson04_walk21 import CAPPED, KEEPERS, parts, rows

    from course_lib.policies import time_growth_sentence

    said = time_growth_sentence(rows({**dict.fromkeys(KEEPERS, 3.0), **dict.fromkeys(CAPPED, 0.7)}))
    _, flat, _ = parts(said)
    assert flat.startswith("A turn took no noticeably longer (under 1.5 times as long): 0.7 times as long for the ")
    assert flat.endswith(
        "; below 1, a turn took less time on average, because the replay's one-off start-up work (setting the "
        "policy up) is shared by 200 turns instead of 10"
    )
    assert said.count("start-up") == 1


def test_no_ratio_below_1_no_explanation():
    from test_lesson04_walk21 import CAPPED, KEEPERS, rows

    from course_lib.policies import time_growth_sentence

    said = time_growth_sentence(rows({**dict.fromkeys(KEEPERS, 3.0), **dict.fromkeys(CAPPED, 1.1)}))
    assert "below 1" not in said and "start-up" not in said


def test_the_explanation_is_read_from_the_timelines_lengths():
    from course_lib.policies import ScalingRow, time_growth_sentence

    rows = [ScalingRow(turns, "facts", 0, 0, turns, ms * turns / 1000) for turns, ms in ((50, 1.0), (100, 0.8))]
    assert "is shared by 100 turns instead of 50" in time_growth_sentence(rows)


def test_the_markdown_no_longer_says_the_reason_a_second_time():
    from test_lesson04_walk21 import _cell

    words = _cell("24cbe9cf")
    assert "start-up" not in words  # the reason is the sentence's now
    assert "what a figure below 1 means" in words  # the markdown points to it
