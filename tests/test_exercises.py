from course_lib.exercises import check


def test_check_tells_unanswered_correct_and_wrong_apart():
    assert "not answered yet" in check("Exercise 1", ..., {"module": "A"})
    assert check("Exercise 1", {"module": "A"}, {"module": "A"}) == "Exercise 1: correct."
    assert check("Exercise 1", {"module": "B"}, {"module": "A"}, "Look again.") == "Exercise 1: not quite. Look again."
