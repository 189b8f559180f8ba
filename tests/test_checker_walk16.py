"""The exercise checker after the eighth walk (issue 32): a detail after a ':' is told to keep the phrase before it
only where that phrase could be the answer, extra dict keys are not named, "case-sensitive" only of a key that is
an allowed key up to its case, a swapped pair of letters in a short key is a slip, an unquoted name is quoted, a
huge whole number is graded as any wrong count, a bare hedge is echoed in quotes, and hints stop before the answer.
"""

import pytest
from support.checker import run_in_shell, said

from course_lib.exercises import _KEYS, EXERCISES, check, exercise, unquoted_name_guidance

LESSON_01_DICT = {"database": "SQL Server 2022", "log": "a=b"}
AMONG = "holds one of the ten allowed keys (" + ", ".join(_KEYS) + ") among other words: write only the name"


def _cell(line, lesson, label="Exercise 1"):
    return f"{line}\nprint(check({label!r}, answer_1, expected, exercise({lesson!r}, {label!r}).hint))"


# --- finding 1: a key name with words after a ':' ---


@pytest.mark.parametrize(
    "answer", ["evicted: customer", "answer: customer", "product: no", "customer: yes", "evicted: product"]
)
@pytest.mark.parametrize("expected", ["customer", "product"])
def test_lesson_01_exercise_2_a_key_among_words_with_a_colon_is_told_to_write_only_the_name(answer, expected):
    text = said("01", "Exercise 2", answer, expected)
    assert (
        text == f"Exercise 2: not checked yet. Your answer {answer!r} {AMONG}, as the question spells it. "
        "Then run the cell again."
    )
    assert "phrase before" not in text


@pytest.mark.parametrize("expected", ["customer", "product"])
def test_lesson_01_exercise_2_a_colon_before_no_key_is_not_told_to_keep_the_phrase_before_it(expected):
    text = said("01", "Exercise 2", "evicted: custmer", expected)
    assert "phrase before" not in text and "not checked yet" in text


@pytest.mark.parametrize("verdict", ["right first time", "repaired", "not repaired"])
def test_lesson_07_a_verdict_with_its_detail_is_told_to_write_only_the_name(verdict):
    text = " ".join(
        check("Exercise 1", "repaired: module fixed", verdict, exercise("07", "Exercise 1").hint, namespace={}).split()
    )
    assert "among other words: write only the name" in text and "phrase before" not in text


def test_an_exercise_without_names_still_keeps_the_phrase_before_the_colon():
    text = " ".join(check("Ex", "accepted: all of it", "accepted", "Look again.", namespace={}).split())
    assert "write only the short phrase before it" in text


# --- findings 2 and 3: extra keys, and when keys are case-sensitive ---


@pytest.mark.parametrize(
    "extra",
    [
        {"version": ""},
        {"version": "", "module": "Billing"},
    ],
)
def test_lesson_01_exercise_1_extra_keys_are_not_named(extra):
    """An extra allowed key is counted, never named; a key that is no allowed key at all is a form (walk 19)."""
    text = said("01", "Exercise 1", {**LESSON_01_DICT, **extra}, LESSON_01_DICT)
    assert f"{len(extra)} key{'s' * (len(extra) != 1)} in yours that should not be there" in text
    assert not any(repr(key) in text for key in extra)


def test_lesson_01_exercise_1_a_key_that_is_no_allowed_key_in_any_case_is_not_told_of_case():
    text = said("01", "Exercise 1", {**LESSON_01_DICT, "Hello! database": "Oracle"}, LESSON_01_DICT)
    assert "case-sensitive" not in text


@pytest.mark.parametrize(("key", "allowed"), [("LOG", "log"), ("Version", "version")])
def test_lesson_01_exercise_1_an_allowed_key_in_another_case_is_told_the_key_it_reads_as(key, allowed):
    """Walk 21: "keys are case-sensitive" stated the rule the message's own 'Database' tests; 'Database' itself is
    graded (tests/test_lesson01_walk21.py)."""
    text = said("01", "Exercise 1", {**LESSON_01_DICT, key: "x"}, LESSON_01_DICT)
    assert f"not checked yet. The key {key!r} reads as {allowed!r}: write each key exactly as" in text


# --- finding 4: a swapped pair of letters in a short key ---


@pytest.mark.parametrize(("typed", "key"), [("lgo", "log"), ("databse", "database")])
def test_lesson_01_exercise_1_a_swapped_pair_in_any_key_reads_as_the_key(typed, key):
    answer = {"database": "SQL Server 2022", "log": "a=b"}
    answer[typed] = answer.pop(key)
    text = said("01", "Exercise 1", answer, LESSON_01_DICT)
    assert f"The key {typed!r} reads as {key!r}" in text and "not checked yet" in text


@pytest.mark.parametrize("expected", ["customer", "log"])
def test_lesson_01_exercise_2_a_swapped_pair_in_a_short_key_reads_as_the_key(expected):
    text = said("01", "Exercise 2", "lgo", expected)
    assert "reads as 'log'" in text and "not checked yet" in text


# --- finding 5: an unquoted name is said in quotes ---


def test_an_unquoted_word_is_quoted_where_it_is_named():
    text = unquoted_name_guidance(NameError("name 'customer' is not defined", name="customer"), "customer")
    assert text.startswith("The word customer has no quotes around it")


@pytest.mark.parametrize("expected", [True, False])
def test_a_word_for_a_true_false_answer_is_quoted_where_it_is_named(capsys, expected):
    out = run_in_shell(capsys, _cell("answer_1 = True, it is admitted", "01", "Exercise 3"), expected=expected)
    # walk 21 (lesson 04): a value, a comma, then words: the words are extra, named in quotes ('it'), not to be quoted
    assert "a variable's name ('it')" in out and "Write your answer alone." in out and "put it in quotes" not in out


def test_an_unquoted_word_in_a_cell_is_quoted(capsys):
    out = run_in_shell(capsys, _cell("answer_1 = customer", "01", "Exercise 2"), expected="customer")
    assert "the word customer has no quotes around it" in " ".join(out.split())


# --- finding 6: a huge whole number ---

COUNTS = [(e.lesson, e.label) for e in EXERCISES if e.answer_type is int]


@pytest.mark.parametrize(("lesson", "label"), COUNTS)
@pytest.mark.parametrize("sign", ["", "-"], ids=["positive", "negative"])
def test_a_400_digit_whole_number_is_graded_as_any_wrong_count(lesson, label, sign):
    """Finding 6: ``answer_1 = 1000…0`` (400 zeros) crashed with OverflowError in the count check."""
    typed = sign + "1" + "0" * 400
    text = said(lesson, label, int(typed), 2, line=f"answer_1 = {typed}")
    if sign:
        assert "A count is a whole number, 0 or more" in text and "not checked yet" in text
    else:
        assert text.startswith(f"{label}: not quite.")


@pytest.mark.parametrize("sign", [1, -1])
def test_a_whole_number_too_long_to_print_is_said_without_a_crash(sign):
    text = " ".join(check("Ex", sign * 10**5000, 2, "Look again.", namespace={}).split())
    assert text.startswith("Ex: not")


# --- findings 7 and 8: lesson 05's hints stop before the counting ---


def test_lesson_05_exercise_1_eleven_is_asked_about_the_last_call_not_told_the_count():
    text = said("05", "Exercise 1", 11, 9)
    assert "Does the last call get its own response and feedback?" in text
    assert "three earlier" not in text and "all four" not in text


async def test_lesson_05_exercise_3_hint_points_at_section_2():
    # second walk 25: once, in the reminder a wrong answer prints under the hint (tests/test_lesson05_second_walk25.py)
    from course_lib.loop_demos import numbering_reminder, run_seed_demo

    trace, _ = await run_seed_demo()
    assert "section 2" in numbering_reminder(trace).lower()
    assert "section 2" not in exercise("05", "Exercise 3").hint.lower()


# --- finding 9: a bare hedge is echoed in quotes, said to be as typed ---


@pytest.mark.parametrize("expected", [9, 11])
def test_a_bare_hedge_is_echoed_in_quotes_as_typed(capsys, expected):
    out = run_in_shell(capsys, _cell("answer_1 = 9?", "05"), expected=expected)
    assert "Your answer 9? (as typed, without quotes) hedges" in out and "`" not in out


# --- finding 10: lesson 02's hints point at the table, not at the conclusion ---


def test_lesson_02_exercise_2_hint_does_not_say_the_batch_is_rejected():
    for wrong in ("Reporting", "Billing", "nothing", "Payroll"):
        assert "rejected" not in said("02", "Exercise 2", wrong, "Payments")


def test_lesson_02_exercise_3_three_is_pointed_at_the_table_only():
    text = said("02", "Exercise 3", 3, 4)
    assert "skip" not in text and "declares nothing" not in text and "section 6" in text.lower()


# --- finding 11: lesson 03's exercise 1 on an empty message and on a message that is not text ---


@pytest.mark.parametrize("message", ["", "   ", "\n"])
async def test_lesson_03_exercise_1_an_empty_message_is_said_in_plain_words(message):
    from course_lib.providers import try_smuggling

    feedback = " ".join((await try_smuggling(message, namespace={})).feedback.split())
    assert feedback.startswith("Exercise 1: an empty message gives the desk nothing to answer.")
    assert "turn" not in feedback and "run this cell again." in feedback


@pytest.mark.parametrize("message", [42, None, ["module=Billing"], 10**5000], ids=["int", "None", "list", "huge"])
async def test_lesson_03_exercise_1_a_message_that_is_not_text_ends_as_every_unchecked_message(message):
    from course_lib.providers import try_smuggling

    feedback = " ".join((await try_smuggling(message, namespace={})).feedback.split())
    assert feedback.startswith("Exercise 1: message_1 must be text in quotes")
    assert feedback.endswith("Then run the cell again.")
