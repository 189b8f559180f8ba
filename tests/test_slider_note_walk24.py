"""The explorer's slider note, as lesson 04's walk 24 asked (issue 32): "1.7 or 1e3 becomes 1" read as a mistake.

The line now says the rule in words (the box reads a whole number in digits, up to the first other character),
and gives 1.7 and 1e3 as what that rule reads, so 1e3 read as 1 is the rule's consequence, not a slip.
"""

import re

from course_lib.policies import generate_timeline, load_timeline
from course_lib.widgets import PolicyExplorer, slider_takes, slider_typing_hint

RULE = "A slider's number box reads a whole number in digits, up to the first other character"


def _sliders(timeline=None):
    explorer = PolicyExplorer(timeline or load_timeline())
    return [explorer.window, explorer.max_facts]


def test_the_note_says_the_rule_in_words_then_what_it_makes_of_1_7_and_1e3():
    hint = slider_typing_hint(_sliders())
    assert RULE in hint and "(so 1.7 and 1e3 are read as 1)" in hint
    assert "becomes 1 (only" not in hint and "1e3 becomes" not in hint  # the old wording, read as a mistake
    assert "\n" not in hint and len(hint) <= 220


def test_every_example_of_the_note_is_what_the_box_does():
    sliders = _sliders()
    hint = slider_typing_hint(sliders)
    read = re.search(r"so (\d+)\.7 and (\d+)e3 are read as (\d+)\)", hint)
    assert read
    for slider in sliders:
        assert slider_takes(slider, f"{read.group(1)}.7") == int(read.group(3))
        assert slider_takes(slider, f"{read.group(2)}e3") == int(read.group(3))


def test_the_example_is_a_value_every_slider_can_take_and_each_range_is_named():
    explorer = PolicyExplorer(load_timeline())
    explorer.window.min = explorer.window.max = 10
    assert "(so 10.7 and 10e3 are read as 10)" in explorer.typing_hint.value
    hint = slider_typing_hint(_sliders(generate_timeline(7)))
    assert "above a slider's highest (Window 7, Fact bound 10) becomes that highest" in hint
