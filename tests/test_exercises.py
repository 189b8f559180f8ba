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


def test_an_unquoted_answer_gets_guidance_and_a_library_name_error_keeps_its_traceback(tmp_path, capsys, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    from course_lib.exercises import explain_unquoted_names

    assert explain_unquoted_names(None) is False  # outside IPython: nothing to install
    (tmp_path / "broken_lib.py").write_text("def run():\n    return missing_name\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    shell = InteractiveShell.instance()
    try:
        assert explain_unquoted_names(shell) is True
        shell.run_cell("answer_2 = Billing")
        cell = capsys.readouterr().out
        assert "put it in quotes: 'Billing'" in cell and "Traceback" not in cell
        shell.run_cell("import broken_lib\nbroken_lib.run()")
        library = capsys.readouterr().out
        assert "Traceback" in library and "missing_name" in library and "quotes" not in library
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()
