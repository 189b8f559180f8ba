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


def test_section_2_gives_one_bullet_per_policy_compared():
    bullets = _bullets()
    labels = list(course_policies())
    assert len(bullets) == len(labels) == 6
    kinds = ["full history", "last 3 turns", "summary", "facts", "compaction", "reducer"]
    for bullet, kind in zip(bullets, kinds, strict=True):
        assert re.match(rf"(the )?\*{re.escape(kind)}\*", bullet, re.IGNORECASE), bullet


def test_each_policy_bullet_is_one_short_sentence():
    for bullet in _bullets():
        assert len(bullet) <= 170, bullet
        assert bullet.endswith("."), bullet
        assert len(re.findall(r"[.;] [A-Z*]", bullet)) == 0, bullet  # one sentence, no second one after it


def test_the_policy_paragraph_is_no_longer_one_block():
    before_bullets = _section_2().split("\n- ")[0]
    assert "*full history* sends" not in before_bullets
    assert "keeps no MAF session" in _section_2()  # walk 21's word stays (tests of walks 10 and 21)
