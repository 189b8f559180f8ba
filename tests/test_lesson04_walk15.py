"""Lesson 04 after its seventh walk (issue 32): the explorer names its fact bound from the start, the no-winner count
says "every graded turn under every rule" instead of listing them all, the generated row's sentence names a whole
timeline as one, and the explorer no longer prints exercise 1's answer.
"""

from __future__ import annotations

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
