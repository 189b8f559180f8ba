"""Lesson 00, walk 22 of issue 32: a new student's walk (score 4/5).

1. ``answer_3 = "module=Billing"`` was told the question "asks for the value alone"; the value, ``'Billing'``, is
   no status either. An answer written key=value to a question whose choices are names (statuses, desks, outcomes)
   is now told the question asks for one of those names, all of them listed, in every lesson alike.
2. After a restart, four cells run alone failed with a raw NameError. Each cell that reads a value another cell sets
   now says so on its first line, naming the values and the cell.
3. Section 6 said the 135M model "looped" inside the JSON: *loop* is the course's term for a model re-run until a
   judge says done. It now says the model repeated itself.
4. Exercise 2's hint pointed at "Section 3's table": section 3 has two. It now points at the configuration cell.
5. The intro says what a seed is: a published article whose code and console session a lesson re-creates.
6. The battery bullet no longer introduces *manual injection* only to rule it out.
7. Exercise 1 answered with section 4's printed total for the default settings is told so, from a computed figure.
"""

import builtins
import re

import pytest
from support.checker import exercise_cells, run_each_in_a_fresh_shell, said
from test_lesson00_walk19 import NOTEBOOK_NAMES, code_cells, imported, read_and_assigned, source, words

from course_lib.exercises import _KEYS, EXERCISES, exercise
from course_lib.live import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, LiveSettings

NAMED_CHOICES = [e for e in EXERCISES if e.choices and set(e.choices) != set(_KEYS)]
"""The exercises whose answer is one of the names the question lists, other than the allowed keys."""


def markdown(cell_id: str) -> str:
    from test_lesson00_walk19 import cells

    return words(source(next(c for c in cells() if c.get("id") == cell_id)))


def printed_by(cell_id: str) -> str:
    from test_lesson00_walk19 import cells, printed

    return printed(next(c for c in cells() if c.get("id") == cell_id))


# --- finding 1: a key=value answer to a question whose choices are names is told the names ---


def test_every_lesson_with_named_choices_is_covered():
    assert {(e.lesson, e.label) for e in NAMED_CHOICES} >= {("00", "Exercise 3"), ("02", "Exercise 1")}
    assert ("07", "Exercise 1") in {(e.lesson, e.label) for e in NAMED_CHOICES}


@pytest.mark.parametrize("answer", ["module=Billing", "status=rejected", "priority=P1", "desk=triage"])
@pytest.mark.parametrize("named", NAMED_CHOICES, ids=lambda e: f"{e.lesson} {e.label}")
def test_a_key_value_answer_is_told_the_question_asks_for_one_of_its_names_alike_for_each(named, answer):
    told = {said(named.lesson, named.label, answer, expected) for expected in named.choices}
    assert len(told) == 1, told  # the same words whichever name is right
    (text,) = told
    listed = f"the question asks for one of the names to choose from ({', '.join(named.choices)})"
    if named.choice_noun and not any(choice in answer for choice in named.choices):
        assert f"is not a {named.choice_noun} name" in text  # lesson 03's own refusal, which names them too
        return
    assert "not checked yet" in text and "written as key=value" in text
    assert listed in text, text
    assert "value alone" not in text and "write only it" not in text


def test_a_key_value_answer_still_gets_the_key_sentence_where_the_choices_are_the_keys():
    text = said("01", "Exercise 2", "customer=C", "customer")
    assert "the question asks for the key: write only the key" in text


def test_a_key_value_answer_still_gets_the_value_sentence_where_the_question_asks_for_a_value():
    text = said("02", "Exercise 2", "module=Payments", "Payments")
    assert "the question asks for the value alone" in text


def test_the_stored_checking_cells_with_named_choices_say_the_names_to_module_billing_after_a_restart():
    """Each such checking cell that says it works on its own, as stored, its answer line set to
    ``"module=Billing"``, run as a restarted kernel's first cell (the walk's exact slip)."""
    wanted = {(e.lesson, e.label): e for e in NAMED_CHOICES}
    sources = []
    for lesson, label, cell in exercise_cells():
        if (lesson, label) in wanted and "works on its own" in cell.splitlines()[0]:
            number = label.split()[-1]
            line = f"answer_{number} = ..."
            assert line in cell, (lesson, label)
            sources.append((wanted[(lesson, label)], cell.replace(line, f'answer_{number} = "module=Billing"')))
    assert {(e.lesson, e.label) for e, _ in sources} >= {("00", "Exercise 3"), ("02", "Exercise 1")}
    for (named, _), out in zip(sources, run_each_in_a_fresh_shell([s for _, s in sources]), strict=True):
        text = " ".join(out.split())
        assert "Traceback" not in text, text
        if named.choice_noun:
            assert f"is not a {named.choice_noun} name" in text
        else:
            assert f"one of the names to choose from ({', '.join(named.choices)})" in text, text
            assert "value alone" not in text


# --- finding 2: a cell that needs a value of another cell says so on its first line ---


def needed(code: str) -> set[str]:
    read, assigned = read_and_assigned(code)
    return read - assigned - set(dir(builtins)) - NOTEBOOK_NAMES - imported(code)


def test_each_cell_that_needs_another_cells_value_names_it_on_its_first_line():
    cells = code_cells()
    needing = []
    for index, cell in enumerate(cells):
        code = source(cell)
        if not (names := needed(code)):
            continue
        needing.append(cell["id"])
        first = code.splitlines()[0]
        assert first.startswith("# needs "), (cell["id"], first)
        for name in names:
            assert re.search(rf"\b{name}\b", first), (cell["id"], name, first)
        if "the cell above" in first:  # the nearest code cell above sets them all
            assert names <= read_and_assigned(source(cells[index - 1]))[1], (cell["id"], first)
        else:
            setters = [c for c in cells[:index] if names & read_and_assigned(source(c))[1]]
            assert setters, cell["id"]
        assert len(first) <= 90
    # walk 23: the walk's four cells (section 4's closed writer, section 6's summary, misses and wrong proposals) now
    # make what they read, so none stops on a name a restarted kernel lacks (tests/test_lesson00_walk23.py)
    assert needing == [], needing


# --- finding 3: the 135M model repeated itself; "loop" is the course's term for something else ---


def test_section_6_says_the_model_repeated_itself_not_that_it_looped():
    prose = markdown("7e074104")
    assert "On 9 cases it repeated itself inside the JSON until the output cap cut it" in " ".join(prose.split())
    assert "stopped the repetition" in prose
    assert "looped" not in prose and "the loops" not in prose


# --- finding 4: exercise 2's hint points at the cell with a judge of its own ---


def test_exercise_2_hint_points_at_section_3s_configuration_cell():
    hint = exercise("00", "Exercise 2").hint
    assert "section 3's configuration cell (Ollama, with a judge of its own)" in hint
    assert "Section 3's table" not in hint
    code = source(next(c for c in code_cells() if c["id"] == "2c06b4ad"))
    assert "11434" in code and 'role_models={"judge"' in code


# --- finding 5: what a seed is, in one sentence ---


def test_the_intro_says_a_seed_is_a_published_article_with_code_and_a_console_session():
    intro = markdown("92605e2c")
    said = "The course re-creates in Python the code of two published articles, and the output that code prints."
    hood = " ".join(markdown("under-the-hood").split())  # walk 25: the seeds' history is under the hood
    assert said in hood and "re-creates in Python" not in intro  # the clause beside the glossary link stays short
    assert "the article a lesson re-creates" not in intro


# --- finding 6: the battery bullet does not introduce a term to rule it out ---


def test_the_battery_bullet_defines_injection_without_manual_injection():
    section = markdown("section-6")  # walk 23: section 6 defines it where the battery is named
    assert "*injection*: a message written to trick the writer into storing something it does not declare" in section
    assert "manual injection" not in section


# --- finding 7: section 4's printed total, given for exercise 1, is named as that ---


def test_section_4s_printed_total_is_named_as_the_default_settings_total():
    defaults = LiveSettings(model="gpt-4o-mini", api_key="sk-example")
    assert (defaults.timeout, defaults.max_retries) == (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES)
    shown = re.search(r"at most (\d+(?:\.\d+)?) s per call", printed_by("c397b2e0"))
    assert shown and float(shown.group(1)) == defaults.worst_case_wait
    asked = LiveSettings(model="gpt-4o-mini", api_key="sk-example", timeout=20, max_retries=2).worst_case_wait
    told = said("00", "Exercise 1", defaults.worst_case_wait, asked)
    assert "not quite" in told
    assert f"{defaults.worst_case_wait:g} s is section 4's total for the default settings" in told
    assert f"a timeout of {DEFAULT_TIMEOUT:g} s and {DEFAULT_MAX_RETRIES} retry" in told


def test_the_checkers_copy_of_the_default_settings_is_lives():
    from course_lib import exercises

    assert (exercises._DEFAULT_TIMEOUT, exercises._DEFAULT_MAX_RETRIES) == (DEFAULT_TIMEOUT, DEFAULT_MAX_RETRIES)
    for timeout, retries in ((30, 1), (20, 2), (5, 5), (1, 0)):
        settings = LiveSettings(model="m", api_key="k", timeout=timeout, max_retries=retries)
        assert exercises._worst_case_wait(timeout, retries) == settings.worst_case_wait


def test_another_wrong_total_still_gets_the_plain_hint():
    told = said("00", "Exercise 1", 62.5, 61.5)
    assert "section 4's total" not in told and "Section 4's cell prints this sum" in told
