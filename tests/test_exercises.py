import numpy

from course_lib.exercises import check


def test_check_tells_unanswered_correct_and_wrong_apart():
    assert "not answered yet" in check("Exercise 1", ..., {"module": "A"})
    assert check("Exercise 1", {"module": "A"}, {"module": "A"}) == "Exercise 1: correct."
    assert check("Exercise 1", {"module": "B"}, {"module": "A"}, "Look again.") == "Exercise 1: not quite. Look again."


def test_check_minds_types_and_says_which_one_is_wrong():
    assert "the text '9'; the answer is a number: write it without quotes" in check("Ex", "9", 9)
    assert "the text 'True'; the answer is a boolean (True or False)" in check("Ex", "True", True)
    assert "You wrote a number; the answer is text: put it in quotes" in check("Ex", 3, "3")
    assert check("Ex", 1, True, "Look again.") == (
        "Ex: not quite. Your answer is a number; the answer is a boolean (True or False). Look again."
    )
    assert check("Ex", 9, 9) == "Ex: correct." and check("Ex", 2.0, 2) == "Ex: correct."
    assert check("Ex", 3, numpy.int64(3)) == "Ex: correct." and check("Ex", True, numpy.bool_(True)) == "Ex: correct."
    assert check("Ex", 8, 9, "Count again.") == "Ex: not quite. Count again."
