"""Two exercises' own words after the twelfth walk's second round (issue 32): lesson 06's misses ask, lesson 07's
Why names the facts a store of 6 keeps."""

from course_lib.exercises import exercise
from course_lib.memory import FactCandidate, WorkingMemory
from course_lib.policies import load_timeline


def test_lesson_06_exercise_2_misses_ask():
    """Finding 7: the misses for 1 and 3 gave the reasoning away; they ask instead."""
    misses = dict(exercise("06", "Exercise 2").misses)
    assert misses[3] == "That counts three runs: how many runs does max_iterations=2 allow?"
    assert misses[1].endswith("?") and "new one for each" not in misses[1]


def test_lesson_07_exercise_3_why_names_the_six_facts_kept():
    """Finding 8: "Six places keep turns 4 to 9" read as six turns, six facts; turn 5 declares none, turn 6 two."""
    memory = WorkingMemory(max_facts=6)
    for turn in load_timeline().turns[:9]:
        lines = [part.strip() for chunk in turn.user.split("\n") for part in chunk.split(";")]
        facts = [FactCandidate(key=k, value=v, evidence=f"{k}={v}") for k, _, v in (p.partition("=") for p in lines)]
        memory.apply(memory.begin_turn(turn.user), [f for f in facts if f.value and " " not in f.key])
    kept = {fact.key: fact.turn for fact in memory.facts}
    assert kept == {"version": 4, "module": 6, "database": 6, "environment": 7, "symptom": 8, "log": 9}
    why = exercise("07", "Exercise 3").why
    assert "version (turn 4), module and database (turn 6), environment, symptom and log (turns 7 to 9)" in why
    assert "constraint of turn 2 is evicted" in why
