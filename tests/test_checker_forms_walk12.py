"""The exercise checker after the twelfth walk's third round (issue 32): a form is said one way for every input of
its kind, right or wrong alike.

One listed or known value among other words ('Payments, unchanged'), a one-item list holding an answer of the
right kind (['accepted']), and a '?' hedge on an answer line that keeps the lesson's comment.
"""

import pytest
from support.checker import run_in_shell, said

from course_lib.exercises import check, exercise, hedged_answer_lines

MODULES = "the values the lesson declares (Reporting, Billing, Payments)"
STATUSES = "the names to choose from (accepted, rejected, nothing_to_extract, writer_failed, stale, forgotten)"
LESSON_03_LINE = "answer_1 = {}  # your prediction: how many facts mem lists (a number)"


# Finding 1: one known value among other words is not "several choices"


@pytest.mark.parametrize(
    "answer", ["Payments, unchanged", "Billing, unchanged", "Reporting; kept", "it is Payments", "payments, still"]
)
def test_one_known_value_among_other_words_is_told_to_write_only_the_value_alike(answer):
    """'Payments, unchanged' was told it "lists several choices: pick one": it lists one value and other words."""
    expected = exercise("02", "Exercise 2")  # the module the store keeps; the words do not depend on it
    assert expected.known == ("Reporting", "Billing", "Payments")
    text = said("02", "Exercise 2", answer, "Payments")
    assert text == (
        f"Exercise 2: not checked yet. Your answer {answer!r} holds one of {MODULES} among other words: write only "
        "the value, as the lesson spells it. Then run the cell again."
    )


@pytest.mark.parametrize("answer", ["accepted, stored", "accepted and stored", "rejected, I'd say not"])
def test_one_listed_name_among_other_words_is_told_to_write_only_the_name_alike(answer):
    """Lesson 02's Exercise 1: 'accepted and stored' was "several choices" as 'Payments, unchanged' was."""
    text = said("02", "Exercise 1", answer, "accepted")
    assert text == (
        f"Exercise 1: not checked yet. Your answer {answer!r} holds one of {STATUSES} among other words: write only "
        "the name, as the question spells it. Then run the cell again."
    )


@pytest.mark.parametrize(
    ("lesson", "label", "answer", "expected"),
    [
        ("02", "Exercise 2", "Payments, Billing", "Payments"),
        ("02", "Exercise 2", "Reporting or Billing", "Payments"),
        ("02", "Exercise 2", "Payments Billing", "Payments"),
        ("02", "Exercise 1", "accepted or rejected", "accepted"),
        ("02", "Exercise 1", "stale, forgotten", "accepted"),
        ("07", "Exercise 1", "repaired or not repaired", "right first time"),
        ("07", "Exercise 1", "partly repaired, right first time", "right first time"),
    ],
)
def test_two_values_or_more_still_list_several_choices(lesson, label, answer, expected):
    text = said(lesson, label, answer, expected)
    assert (
        text
        == f"{label}: not checked yet. Your answer {answer!r} lists several choices: pick one. Then run the cell again."
    )


@pytest.mark.parametrize("answer", ["not repaired, sadly", "partly repaired, I'd say not"])
def test_a_longer_listed_name_holding_a_shorter_one_is_one_value(answer):
    """'not repaired' holds 'repaired': one name, not two."""
    assert "holds one of the names to choose from" in said("07", "Exercise 1", answer, "right first time")


# Finding 2: a one-item list of the right kind is told to drop its brackets


@pytest.mark.parametrize("item", ["accepted", "rejected", "stale"])
def test_a_one_item_list_of_text_is_told_to_remove_the_brackets_alike(item):
    """['accepted'] was told "Write it between quotes": the student had quotes; the brackets are what is wrong."""
    text = said("02", "Exercise 1", [item], "accepted")
    assert text == (
        f"Exercise 1: not checked yet. Your answer [{item!r}] is a list holding one item: remove the square "
        f"brackets: write {item!r} on its own. Then run the cell again."
    )


@pytest.mark.parametrize(
    ("answer", "marks", "item"),
    [
        (("accepted",), "parentheses and the comma", "'accepted'"),
        ({"accepted"}, "braces", "'accepted'"),
    ],
)
def test_a_one_item_tuple_or_set_of_text_is_told_what_to_remove(answer, marks, item):
    text = said("02", "Exercise 1", answer, "rejected")
    kind = "tuple" if isinstance(answer, tuple) else "set"
    assert text == (
        f"Exercise 1: not checked yet. Your answer {answer!r} is a {kind} holding one item: remove the {marks}: "
        f"write {item} on its own. Then run the cell again."
    )


@pytest.mark.parametrize("item", [2, 4, 8])
def test_a_one_item_list_of_a_number_is_told_to_remove_the_brackets_alike(item):
    text = said("02", "Exercise 3", [item], 4)
    assert text == (
        f"Exercise 3: not checked yet. Your answer [{item}] is a list holding one item: remove the square "
        f"brackets: write {item} on its own. Then run the cell again."
    )


@pytest.mark.parametrize("item", [True, False])
def test_a_one_item_list_of_a_truth_value_is_told_to_remove_the_brackets_alike(item):
    text = said("04", "Exercise 1", [item], True)
    assert f"remove the square brackets: write {item} on its own" in text


@pytest.mark.parametrize(
    ("answer", "expected", "words"),
    [
        ([1], "accepted", "Your answer is a list; the answer is text (a string)."),
        (["4"], 4, "Your answer is a list; the answer is a number."),
        (["accepted", "rejected"], "accepted", "Your answer is a list; the answer is text (a string)."),
    ],
)
def test_a_list_of_another_kind_or_of_several_items_keeps_the_kind_note(answer, expected, words):
    text = " ".join(check("Exercise 1", answer, expected).split())
    assert words in text and "remove the" not in text


# Finding 3: a '?' hedge on an answer line that keeps its comment


@pytest.mark.parametrize("value", ["1?", "2?", "9?"])
def test_a_hedge_before_the_lessons_comment_gets_the_hedge_message(capsys, value):
    """Lesson 03's Exercise 1: `answer_1 = 1?  # your prediction: ...` was a SyntaxError quoting the comment."""
    cell = LESSON_03_LINE.format(value) + "\nprint(check('Exercise 1', answer_1, 2, exercise('03', 'Exercise 1').hint))"
    out = run_in_shell(capsys, cell)
    bare = run_in_shell(
        capsys, f"answer_1 = {value}\nprint(check('Exercise 1', answer_1, 2, exercise('03', 'Exercise 1').hint))"
    )
    assert (
        out
        == bare
        == (
            f"Exercise 1: not checked yet. Your answer {value} (as typed, without quotes) hedges "
            "(a '?' or a word of doubt): write one answer "
            "on its own, as sure as you can be. Write the number alone, in digits: no '?', no quotes, no other words. "
            "Then run the cell again."
        )
    )


def test_the_transformer_keeps_the_comment_and_reads_quotes_before_a_hash():
    lines = hedged_answer_lines(
        [
            "answer_1 = 1?  # your prediction: how many facts mem lists (a number)\n",
            "answer_2 = product?# no space\n",
            "answer_3 = 'a # b'?\n",
            "answer_4 = 'x'  # is it?\n",
        ]
    )
    assert lines == [
        "answer_1 = '1?'  # your prediction: how many facts mem lists (a number)\n",
        "answer_2 = 'product?'# no space\n",
        "answer_3 = \"'a # b'?\"\n",
        "answer_4 = 'x'  # is it?\n",
    ]


@pytest.mark.parametrize("value", ["maybe 2", "2, I think", "two?"])
def test_words_of_doubt_before_a_comment_are_echoed_without_it(capsys, value):
    cell = LESSON_03_LINE.format(value) + "\nprint(check('Exercise 1', answer_1, 2, exercise('03', 'Exercise 1').hint))"
    out = run_in_shell(capsys, cell)
    assert f"Your answer {value} (as typed, without quotes) hedges" in out and "how many facts" not in out


@pytest.mark.parametrize(("value", "shown"), [("", "answer_1 ="), ("2 2", "answer_1 = 2 2")])
def test_a_line_python_cannot_read_is_quoted_without_its_comment(capsys, value, shown):
    cell = LESSON_03_LINE.format(value) + "\nprint(check('Exercise 1', answer_1, 2, exercise('03', 'Exercise 1').hint))"
    out = run_in_shell(capsys, cell)
    assert f"Python cannot read the line {shown!r} (invalid syntax)" in out and "how many facts" not in out


def test_a_message_line_with_its_comment_keeps_the_message_note(capsys):
    out = run_in_shell(capsys, "message_1 = priority=P0?  # your message, as text in quotes\nprint(message_1)")
    assert out.startswith("message_1 is not text yet") and "your message, as text" not in out


def test_a_joined_answer_quotes_a_hash_inside_quotes_whole(capsys):
    cell = "answer_1 = 'a#b' or 'c'  # note\nprint(check('Exercise 1', answer_1, 'x'))"
    out = run_in_shell(capsys, cell)
    assert "('a#b' or 'c' is 'a#b' to Python)" in out


def test_a_sentence_with_and_but_no_listed_name_is_not_told_it_lists_several_choices():
    """Lesson 00's third walk: a long sentence holding ' and ' and none of the four names was told "lists several
    choices: pick one"; it lists none. Said alike whatever the right name is."""
    sentence = "the host refuses the proposal because a key is odd and the host refuses it"
    for expected in ("accepted", "rejected"):
        told = said("00", "Exercise 3", sentence, expected)
        assert "several choices" not in told and "not checked yet" in told, told
    assert "lists several choices" in said("00", "Exercise 3", "accepted and rejected", "accepted")


def test_a_misspelt_answer_name_is_pointed_at_alike_right_or_wrong():
    """Lesson 06's walk: ``answr_1 = 4`` was told only that the cell no longer sets answer_1."""
    for value in (4, 5):
        cell = f"answr_1 = {value}\nprint(check('Exercise 1', answer_1, 4, ''))"
        told = " ".join(check("Exercise 1", 3, 4, "", namespace={"In": ["", cell], "answer_1": 3}).split())
        assert "This cell no longer sets answer_1" in told
        assert "The cell sets answr_1 instead: is that answer_1 misspelt?" in told
    plain = "print(check('Exercise 1', answer_1, 4, ''))"
    assert "instead" not in check("Exercise 1", 3, 4, "", namespace={"In": ["", plain], "answer_1": 3})


def test_one_number_among_words_anywhere_is_a_number_with_words_around_it():
    """Lessons 06 and 00's walks: '2 sessions' was told it is a number with words around it, but 'B is asked 1 time'
    and 'about 61.5 seconds' only that they are text; the same words now, right number or wrong."""
    for answer, expected in (("B is asked 1 time", 1), ("B is asked 2 times", 1), ("about 61.5 seconds", 61.5)):
        told = said(
            "06" if "asked" in answer else "00", "Exercise 3" if "asked" in answer else "Exercise 1", answer, expected
        )
        assert "a number with words around it" in told, told
