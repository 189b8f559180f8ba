"""Lesson 00: recorded runs' seconds are compared only when the machine was about as busy in each (issue 32)."""

from course_lib.recordings import Machine, qualification_steps, times_note


def test_the_recorded_steps_say_their_seconds_are_not_comparable_and_why():
    note = times_note(qualification_steps())
    assert note.startswith("The seconds are not comparable")
    assert "from 1.0 to 10.3" in note and "about 10 times" in note


def test_runs_on_an_equally_busy_machine_may_compare_their_seconds():
    steps = qualification_steps()
    same = Machine(platform="Linux", cpus=2, python="3.12", load_average_start=(2.0, 2, 2), load_average_end=(2, 2, 2))
    even = {name: run.model_copy(update={"machine": same}) for name, run in steps.items()}
    assert times_note(even).startswith("The machine was about as busy in every run (load 2.0)")
