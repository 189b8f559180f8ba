"""Lesson 04 after its seventh walk (issue 32): the explorer names its fact bound from the start, the no-winner count
says "every graded turn under every rule" instead of listing them all, the generated row's sentence names a whole
timeline as one, and exercises 1 and 2 are asked before the explorer that can answer them.
"""

from __future__ import annotations

import pytest

from course_lib.policies import course_policies, load_timeline
from course_lib.widgets import PolicyExplorer

# region Finding 2: the fact bound's number is on screen from the start


def test_the_explorer_names_the_fact_bound_from_the_start():
    explorer = PolicyExplorer(load_timeline())
    assert explorer.max_facts.value == 5 and "facts (5)" in explorer.policies.options
    assert "facts" not in explorer.policies.options  # the same name a moved slider gives, at the first value too


def test_the_fact_bound_note_has_its_number_before_the_slider_moves():
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("full history",)
    assert "Fact bound changes nothing for the chosen policies: it sizes facts (5)." in explorer.notes.value


def test_moving_the_bound_away_and_back_gives_the_first_name_again():
    explorer = PolicyExplorer(load_timeline())
    first = explorer.policies.options
    explorer.max_facts.value = 4
    assert "facts (4)" in explorer.policies.options
    explorer.max_facts.value = 5
    assert explorer.policies.options == first


async def test_the_explorers_table_names_the_bound_as_its_list_does():
    explorer = PolicyExplorer(load_timeline())
    explorer.policies.value = ("facts (5)",)
    explorer.run_button.click()
    await explorer.idle()
    assert "<td>facts (5)</td>" in explorer.table.value
    assert set(explorer.comparison.answers["policy"]) == {"facts (5)"}


def test_the_lessons_tables_keep_their_short_name_for_the_default_bound():
    assert "facts" in course_policies() and "facts (5)" in course_policies(name_the_bound=True)


# endregion


# region Finding 3: a policy wrong everywhere is said so, not listed case by case


def _answers(rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=["policy", "rule", "turn", "correct"])


def test_a_policy_wrong_at_every_graded_turn_under_every_rule_is_said_in_words():
    from course_lib.policies import wrong_answers_lines

    rows = [("window", rule, turn, False) for rule in ("latest", "earliest") for turn in (5, 10)]
    rows += [("history", "latest", 5, True), ("history", "latest", 10, True)]
    rows += [("history", "earliest", 5, True), ("history", "earliest", 10, False)]
    assert wrong_answers_lines(_answers(rows)) == [
        "window: 4 of 4 answers wrong (every graded turn under every rule)",
        "history: 1 of 4 answers wrong (turn 10 under 'earliest')",
    ]


def test_one_rule_wrong_everywhere_names_the_rule_and_none_wrong_lists_nothing():
    from course_lib.policies import wrong_answers_lines

    rows = [("window", "latest", 5, False), ("window", "latest", 10, False), ("history", "latest", 5, True)]
    assert wrong_answers_lines(_answers(rows)) == [
        "window: 2 of 2 answers wrong (every graded turn under 'latest')",
        "history: 0 of 1 answer wrong",
    ]


def test_the_lessons_no_winner_cell_prints_the_library_lines():
    from support.lesson_cells import stored_lesson

    cell = next(c for c in stored_lesson("04")["cells"] if "no_winner_sentence(answers)" in "".join(c["source"]))
    source = "".join(cell["source"])
    assert "wrong_answers_lines(" in source and "groupby" not in source
    printed = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    assert "(every graded turn under every rule)" in printed
    assert "turn 5 under 'latest', turn 10 under 'latest', turn 5 under 'earliest'" not in printed


# endregion

# region Finding 4: a whole timeline is named as one


def test_the_generated_row_sentence_names_the_lessons_whole_timeline():
    from course_lib.policies import generated_rows_sentence

    timeline = load_timeline()
    said = generated_rows_sentence(timeline, len(timeline.turns))
    assert f"the lesson's {len(timeline.turns)}-turn timeline holds" in said and "the first" not in said
    part = generated_rows_sentence(timeline, 6)
    assert "the first 6 turns of the lesson's timeline hold" in part


# endregion

# region Finding 6: exercises 1 and 2 are asked before the explorer that can answer them


def _cells():
    from support.lesson_cells import stored_lesson

    return [(c["cell_type"], "".join(c["source"])) for c in stored_lesson("04")["cells"]]


def test_exercises_1_and_2_are_asked_before_the_explorer_and_checked_with_it_after():
    cells = _cells()
    explorer = next(i for i, (kind, src) in enumerate(cells) if kind == "code" and "explorer = PolicyExplorer(" in src)
    section = next(i for i, (kind, src) in enumerate(cells) if src.startswith("## 7."))
    checking = {
        label: next(i for i, (kind, src) in enumerate(cells) if kind == "code" and f'check("{label}"' in src)
        for label in ("Exercise 1", "Exercise 2", "Exercise 3")
    }
    assert section < checking["Exercise 1"] < checking["Exercise 2"] < explorer < checking["Exercise 3"]
    before = " ".join(src for _, src in cells[section : checking["Exercise 1"]])
    assert "predict first, then check with the explorer below" in " ".join(before.split())


def test_the_exercises_heading_says_where_exercises_1_and_2_went():
    cells = _cells()
    heading = next(src for kind, src in cells if src.startswith("## Exercises"))
    assert "Exercises 1 and 2" in heading and "section 7" in heading


@pytest.mark.parametrize("label", ["Exercise 1", "Exercise 2"])
def test_the_moved_exercises_still_compute_their_answer(label):
    source = next(src for kind, src in _cells() if kind == "code" and f'check("{label}"' in src)
    number = label.split()[-1]
    assert f"answer_{number} = ...\n" in source and "await compare_policies(timeline" in source
    assert "right = True" not in source and "right = False" not in source


# endregion
