import ast
from pathlib import Path

import nbformat
import numpy
import pytest

from course_lib.exercises import EXERCISES, check, exercise, near_miss_hint
from course_lib.memory import FactCandidate


def test_check_tells_unanswered_correct_and_wrong_apart():
    assert "not answered yet" in check("Exercise 1", ..., {"module": "A"})
    assert check("Exercise 1", {"module": "A"}, {"module": "A"}) == "Exercise 1: correct."
    assert check("Exercise 1", "B", "A", "Look again.") == "Exercise 1: not quite.\nHint: Look again."


def test_check_minds_types_and_says_which_one_is_wrong():
    assert "the text '9'; the answer is a number: write it without quotes" in " ".join(check("Ex", "9", 9).split())
    assert "the text 'True'; the answer is a boolean (True or False)" in " ".join(check("Ex", "True", True).split())
    assert "You wrote a number; the answer is text: put it in quotes" in " ".join(check("Ex", 3, "3").split())
    assert check("Ex", 1, True, "Look again.") == (
        "Ex: not checked yet. Your answer is a number; the answer is a boolean (True or False).\nWrite True or "
        "False, without quotes, with a capital first letter. Then run the cell\nagain."
    )  # broken into lines between words (tests/test_lesson06_walk4.py); the kind first, without the hint
    assert check("Ex", 9, 9) == "Ex: correct." and "decimal number 2.0" in check("Ex", 2.0, 2)  # a count is whole
    assert check("Ex", 3, numpy.int64(3)) == "Ex: correct." and check("Ex", True, numpy.bool_(True)) == "Ex: correct."
    assert check("Ex", 8, 9, "Count again.") == "Ex: not quite.\nHint: Count again."


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


# --- near misses and reasons (issue 25) ---

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.mark.parametrize(
    ("answer", "expected", "said"),
    [
        (  # an invisible character is named, with where it is, not "the right word among others" (issue 32)
            "numbering\u200b",
            "numbering",
            "Your answer holds an invisible character, U+200B (zero width space) at the end, after 'numbering': "
            "delete it or type the answer again.",
        ),
        ("Bill\u200bing", "Billing", "U+200B (zero width space) between 'Bill' and 'ing': delete it"),
        (  # a dict is counted, never named (walk 19: tests/test_checker_dicts_walk19.py)
            {"database": "SQL Server 2022"},
            {"database": "SQL Server 2022", "log": "a=b"},
            "1 key missing from yours, 0 keys in yours that should not be there, 0 keys with a wrong value. Look",
        ),
        ({"log": "a=b", "version": ""}, {"log": "a=b"}, "0 keys missing from yours, 1 key in yours that should"),
        ({"log": "A=B"}, {"log": "a=b"}, "0 keys missing from yours, 0 keys in yours that should not be there, 1 key"),
        (
            {"log": " a=b "},
            {"log": "a=b"},
            "there, 1 key with a wrong value. The value of 'log' is not the right one: check the spaces at its ends "
            "(section 1). Look",
        ),  # right once trimmed: the spaces at its ends are named (third walk 23)
        (
            {"log": "x"},
            {"log": "a=b"},
            "there, 1 key with a wrong value. The value of 'log' is not the right one. Look",
        ),
        (
            {"database": "x", "log": "y"},
            {"database": "SQL Server 2022", "log": "a=b"},
            "there, 2 keys with a wrong value. The values of 'database' and 'log' are not the right ones. Look",
        ),
        (
            {"a": 0, "b": 0, "c": 0},
            {"a": 1, "b": 2, "c": 3},
            "3 keys with a wrong value. The values of 'a', 'b' and 'c' are not the right ones",
        ),
        (["a"], ["a", "b"], "Your answer has 1 item; the answer has 2 items."),
        (
            {"database": "Oracle"},
            {"database": "SQL Server 2022", "log": "a=b"},
            "1 key missing from yours, 0 keys in yours that should not be there, 1 key with a wrong value. "
            "The value of 'database' is not the right one. Look",
        ),
        (
            {"database": "sql server 2022", "version": ""},
            {"database": "SQL Server 2022"},
            "0 keys missing from yours, 1 key in yours that should not be there, 1 key with a wrong value. "
            "The value of 'database' is not the right one. Look",
        ),
    ],
)
def test_a_near_miss_is_named(answer, expected, said):
    words = check("Ex", answer, expected, "Look again.").replace("\n", " ")  # the words, whatever the line breaks
    assert said in words
    assert words.endswith("Look again.")  # the exercise's hint still follows


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Accepted", "Mind the case: Python compares text exactly, case included, and 'Accepted' is not written"),
        (" accepted", "Your answer has spaces around it (' accepted'): write only its words, 'accepted'."),
        ("Accepted ", "Mind the case and the spaces around it: Python compares text exactly, case included"),
        ("accepted\n", "Your answer has a line break after it ('accepted\\n'): write only its words"),
        ("Accepted\t", "Mind the case and the tab after it"),
        ("the accepted status", "The answer is one word, and 'the accepted status' has 3: write only the one word"),
    ],
)
def test_a_form_near_miss_is_named_alike_for_the_right_and_a_wrong_word(answer, said):
    """Lessons 01 and 03's re-walks: "Mind the case: write 'customer'" for the right word alone, and "holds the right
    word" for 'the triage desk' but not 'the operations desk', told the student which word was right. The form is
    said first, whatever the word, without the reasoning hint."""
    for expected in ("accepted", "rejected"):
        words = check("Ex", answer, expected, "Look again.").replace("\n", " ")
        assert said in " ".join(words.split()) and "not checked yet" in words and "Look again." not in words


def test_a_missing_key_is_counted_in_the_same_words_whichever_key_it_is():
    """Lesson 01's walk: `answer_1 = {}` was told "missing the keys 'database' and 'log'", the answer's keys. A
    missing key is counted, never named; extra keys are not named either (walk 8). A key in another case is a form,
    said before any grading (walk 19: tests/test_checker_dicts_walk19.py)."""
    expected = {"database": "SQL Server 2022", "log": "a=b", "module": "Billing"}
    one_missing = {key: near_miss_hint({k: v for k, v in expected.items() if k != key}, expected) for key in expected}
    assert len(set(one_missing.values())) == 1
    said = one_missing["log"]
    assert said.startswith("Compared key by key with the right dict: 1 key missing from yours,")
    two_missing = [near_miss_hint({key: expected[key]}, expected) for key in expected]
    assert len(set(two_missing)) == 1 and "2 keys missing from yours" in two_missing[0]
    for words in (said, *two_missing, near_miss_hint({}, expected)):
        assert not any(repr(key) in words for key in expected)
    assert "3 keys missing from yours" in near_miss_hint({}, expected)
    capital = check("Ex", {"Log": "a=b", "Version": ""}, {"log": "a=b"}, "Look again.", namespace={})
    assert "not checked yet. The key 'Log' is not an allowed key: keys are case-sensitive" in " ".join(capital.split())


def test_a_wrong_answer_that_is_no_near_miss_gets_only_the_hint():
    assert check("Ex", "rejected", "accepted", "Look again.") == "Ex: not quite.\nHint: Look again."
    assert check("Ex", 8, 9) == "Ex: not quite."


def test_a_correct_answer_says_why_on_one_line_of_its_own():
    first = exercise("01", "Exercise 1")
    said = check("Exercise 1", {"log": "a=b"}, {"log": "a=b"}, first.hint)
    verdict, why = said.split("\n", 1)
    assert verdict == "Exercise 1: correct." and why.replace("\n", " ") == f"Why: {first.why}"
    assert check("Ex", 1, 1, why="One is one.") == "Ex: correct.\nWhy: One is one."
    assert check("Ex", 1, 1) == "Ex: correct."  # an exercise not in EXERCISES has no reason to give
    assert "not answered yet" in check("Exercise 1", ..., None, first.hint)  # the stored line is unchanged
    with pytest.raises(KeyError, match="no 'Exercise 9' in lesson '01'"):
        exercise("01", "Exercise 9")


def _checking_calls(source: str, lesson: str = "") -> list[tuple[str, str]]:
    """The (label, hint) of each ``check(...)`` call with a literal label in a cell's source.

    The hint is a literal, or ``exercise("NN", "Exercise N").hint`` (a lesson that keeps its hints out of sight
    until a wrong answer): then the exercise it names must be this lesson's and this call's.
    """
    calls = []
    for node in ast.walk(ast.parse(source.replace("await ", ""))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check" and len(node.args) == 4:
            label, hint = node.args[0], node.args[3]
            if isinstance(label, ast.Constant) and isinstance(hint, ast.Constant):
                calls.append((label.value, hint.value))
            elif isinstance(label, ast.Constant) and (named := _named_hint(hint)):
                assert named == (lesson, label.value), f"lesson {lesson}, {label.value}: the hint is {named}'s"
                calls.append((label.value, exercise(*named).hint))
    return calls


def _named_hint(node: ast.expr) -> tuple[str, str] | None:
    """The (lesson, label) of a hint written ``exercise("06", "Exercise 1").hint``, or None."""
    if not (isinstance(node, ast.Attribute) and node.attr == "hint" and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    if getattr(call.func, "id", "") == "exercise" and all(isinstance(a, ast.Constant) for a in call.args[:2]):
        return (call.args[0].value, call.args[1].value)
    return None


def test_a_hint_named_by_its_exercise_counts_only_for_its_own_lesson_and_label():
    source = 'print(check("Exercise 1", answer_1, 4, exercise("06", "Exercise 1").hint))'
    assert _checking_calls(source, "06") == [("Exercise 1", exercise("06", "Exercise 1").hint)]
    with pytest.raises(AssertionError, match="the hint is"):
        _checking_calls(source.replace('("06", "Exercise 1")', '("06", "Exercise 2")'), "06")


def test_every_checking_cell_names_a_defined_exercise_and_every_exercise_is_checked():
    used = set()
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        lesson = path.name[:2]
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                for label, hint in _checking_calls(cell.source, lesson):
                    assert exercise(lesson, label).hint == hint, f"lesson {lesson}, {label}: the hint differs"
                    used.add((lesson, label))
    assert used == {(e.lesson, e.label) for e in EXERCISES}
    assert all(e.why and "\n" not in e.why for e in EXERCISES)


def test_lesson_01_exercise_1_says_why_oracle_was_never_declared():
    """The reason names what the parse really does with the message's first line (issue 32)."""
    from course_lib.assertions import parse_assertions

    why = exercise("01", "Exercise 1").why
    assert '"Hello! database" is not a key, so Oracle was never declared' in why
    assert parse_assertions("Hello! database=Oracle") == {}
    assert parse_assertions("Hello! database=Oracle\ndatabase = SQL Server 2022 ")["database"] == "SQL Server 2022"


@pytest.mark.parametrize(
    "hedge", ["product, customer", "customer or product", "product/customer", "Customer and product"]
)
def test_an_answer_listing_several_choices_is_told_to_pick_one_without_being_given_the_right_one(hedge):
    from course_lib.exercises import several_choices_hint

    note = several_choices_hint(hedge, "customer")
    assert "pick one" in note and note == several_choices_hint(hedge, "module")


@pytest.mark.parametrize(
    ("expected", "kind", "example"),
    [
        ({"database": "SQL Server 2022"}, "a dictionary", "write a dict, e.g. {'key': 'value'}"),
        (["module", "database"], "a list", "write a list, e.g. ['first', 'second']"),
    ],
)
@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_answer_to_a_container_question_is_told_how_to_write_one(expected, kind, example, empty):
    """Lesson 01's walk: "write it without quotes" fits a number or True/False, not a dict (every dict exercise)."""
    said = check("Exercise 1", empty, expected).replace("\n", " ")
    assert f"You left it empty ({empty!r}); the answer is {kind}: {example}." in said
    assert "without quotes" not in said


def _said(answer, expected, hint="Look again."):
    return " ".join(check("Ex", answer, expected, hint).split())


@pytest.mark.parametrize(
    ("right", "wrong", "expected"),
    [
        ("True?", "False?", True),
        ("maybe True", "probably False", True),
        ("2?", "3?", 2),
        ("I think 2", "I think 3", 2),
        ("61.5?", "60?", 61.5),
        ("Billing?", "Reporting?", "Billing"),
        ("maybe Billing", "maybe Reporting", "Billing"),
    ],
)
def test_a_hedge_is_named_as_a_hedge_for_every_kind_of_answer_in_the_same_words_right_or_wrong(right, wrong, expected):
    """'False?' got the truth-form note, which never names the '?'; '2?' was "a number with words around it"."""
    said_right, said_wrong = _said(right, expected), _said(wrong, expected)
    for said, answer in ((said_right, right), (said_wrong, wrong)):
        assert f"Your answer {answer!r} hedges (a '?' or a word of doubt)" in said and "not checked yet" in said
        assert "Look again" not in said
    assert said_right.replace(repr(right), "X") == said_wrong.replace(repr(wrong), "X")


@pytest.mark.parametrize(("answer", "expected"), [("61.5?", 61.5), ("2?", 2), ("False?", False), ("maybe 3", 2)])
def test_a_hedged_number_or_truth_value_is_not_told_to_lose_quotes_it_never_had(answer, expected):
    """Lesson 00's walk: `answer_1 = 61.5?` (no quotes typed) was told "Write a number in digits, without quotes";
    the '?' is what to drop. The way to write the answer lists what to leave out, quotes among them."""
    said = _said(answer, expected)
    assert f"Your answer {answer!r} hedges" in said and "without quotes" not in said
    assert "no '?'" in said and "no quotes" in said


@pytest.mark.parametrize(
    ("right", "wrong"),
    [
        ('{"module": "Billing"} I think', '{"module": "Reporting"} I think'),
        ('{"module": "Billing"}?', '{"module": "Reporting"}?'),
        ({"module": "Billing?"}, {"module": "Reporting?"}),
        ({"module": "maybe Billing"}, {"module": "maybe Reporting"}),
        ({"module?": "Billing"}, {"module?": "Reporting"}),
    ],
)
def test_a_hedge_in_or_after_a_dict_answer_is_named_as_a_hedge_right_or_wrong(right, wrong):
    """Lesson 01: '{"module": "Billing"} I think' was only "text", a value "Billing?" only "not right"."""
    expected = {"module": "Billing"}
    said_right, said_wrong = _said(right, expected), _said(wrong, expected)
    for said in (said_right, said_wrong):
        assert "hedges (a '?' or a word of doubt)" in said and "not checked yet" in said and "Look again" not in said
    if isinstance(right, str):
        assert "Write the dict itself, without quotes around it" in said_right
    assert said_right.replace("Billing", "X") == said_wrong.replace("Reporting", "X")


def test_a_dict_value_that_holds_a_question_mark_of_its_own_is_no_hedge():
    assert "hedges" not in _said({"symptom": "why?"}, {"symptom": "why? it fails"})


@pytest.mark.parametrize("negative", [-1, -2, -7, -1.5])
def test_a_negative_number_for_a_count_is_told_a_count_is_never_negative_in_the_same_words(negative):
    """Lesson 07's `answer_2 = -1` for "how many" was a bare "not quite"; no hint of where the count lies. A form
    to fix, said before any grading (lesson 05's walk, tests/test_checker_walk12.py)."""
    for expected in (0, 1, 2):
        said = _said(negative, expected, hint="")
        assert said == (
            f"Ex: not checked yet. A count is a whole number, 0 or more (how many), and {negative} is not one: write "
            "the count you predict in digits, with no minus sign and no decimal point. Then run the cell again."
        )
    assert "A count is" not in _said(-1, 61.5)  # lesson 00's seconds are no count


def test_lesson_02_a_word_saying_no_value_gets_no_note_on_capitals_which_is_not_its_issue():
    """'nothing' for "the value of module" got "Mind the case: ... a capital first letter": 'Nothing', as wrong."""
    two = exercise("02", "Exercise 2")
    for word in ("nothing", "none", "NOTHING", "empty"):
        said = _said(word, "Billing", two.hint)
        assert "Mind the case" not in said and "capital" not in said and "not quite" in said
    assert "Does the store lose a fact it held?" in " ".join(
        check("Exercise 2", "nothing", "Billing", two.hint).split()
    )
    for word in ("billing", "reporting", "BILLING"):  # a name in the wrong case keeps its note, right or wrong alike
        assert "Mind the case: Python compares text exactly, case included" in _said(word, "Billing", two.hint)


def test_an_unquoted_answer_and_an_unquoted_message_open_alike_then_give_pythons_own_error_line(capsys):
    """`answer_1 = Reporting` printed "NameError: ..." first, `message_1 = Billing` a plain sentence (issue 32)."""
    from IPython.core.interactiveshell import InteractiveShell

    from course_lib.exercises import explain_unquoted_names

    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        printed = {}
        for line in ("answer_1 = Reporting", "message_1 = Reporting"):
            shell.run_cell(line)
            printed[line] = capsys.readouterr().out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()
    answer, message = (" ".join(printed[line].split()) for line in printed)
    assert answer.startswith(
        "answer_1 is not a value yet: the word Reporting has no quotes around it, so Python read it as the name of a "
        "variable, and no variable has that name: NameError: name 'Reporting' is not defined If your answer is "
        "the text Reporting, put it in quotes: 'Reporting'."
    )
    assert message.startswith(
        "message_1 is not text yet: the message has no quotes around it, so Python read it as code and stopped: "
        "NameError: name 'Reporting' is not defined A message is text, so put the whole message in quotes"
    )
    for out in printed.values():  # Python's own line stands alone, after the plain sentence
        lines = out.splitlines()
        assert lines[0][:1] != "N" and "NameError: name 'Reporting' is not defined" in lines and "Traceback" not in out


def test_a_verdict_copied_with_its_detail_is_a_form_to_fix_not_a_miss():
    """Lesson 07's exercise 1: a table's "verdict: detail" copied whole is not checked, and no hint follows."""
    words = " ".join(check("Ex", "right first time: nothing to fix", "right first time", "Look again.").split())
    assert "has words after a ':': write only the short phrase before it." in words and "Look again" not in words


@pytest.mark.parametrize("value", ["A=B", "x=y", " x "])
def test_a_dict_value_in_the_wrong_case_or_with_spaces_is_said_alike_right_or_wrong(value):
    """Lesson 01's walk: "Mind the case: the value of 'log' is 'A=B'; write 'a=b'" handed over the value. A case slip
    is a wrong value like any other. Third walk 23: a value right once trimmed (' a=b ') is told to check the spaces
    at its ends (tests/test_lesson01_third_walk23.py), a value wrong once trimmed (' x ') is not."""
    right = " ".join(check("Ex", {"log": value}, {"log": "a=b"}, "HINT").split())
    wrong = " ".join(check("Ex", {"log": value}, {"log": "c=d"}, "HINT").split())
    assert right == wrong and "'a=b'" not in right.replace(repr(value), "")


def test_a_text_answer_right_but_for_its_case_is_told_what_a_wrong_one_is():
    said = {
        " ".join(check("Ex", answer, "SQL Server 2022", "HINT").split()) for answer in ("sql server 2022", "Oracle")
    }
    assert said == {"Ex: not quite. Hint: HINT"}


@pytest.mark.parametrize("decimal", ["3.0", "2.0", "61.5", "-4.25"])
def test_a_decimal_written_as_text_is_one_word_not_several(decimal):
    """Lesson 02's walk: `answer_2 = "3.0"` was told "The answer is one word, and '3.0' has 2", untrue; "3" got the
    reply any wrong word gets. A number in digits is one word, its decimal point included."""
    for expected in ("Billing", "accepted"):
        said = _said(decimal, expected)
        assert "one word" not in said and "has 2" not in said
        assert said.replace(decimal, "N") == _said("3", expected).replace("3", "N")


@pytest.mark.parametrize(
    "answer",
    [
        {FactCandidate(key="database", value="PostgreSQL", evidence="database=PostgreSQL"): "SQL Server 2022"},
        {FactCandidate(key="module", value="Reporting", evidence="module=Reporting"): "Billing"},
        {3: "SQL Server 2022", "log": "a=b"},
    ],
)
def test_a_dict_key_that_is_not_text_is_told_to_take_quotes_right_or_wrong(answer):
    """Lesson 01's walk: `{database: 'SQL Server 2022'}` read the lesson's variable `database` (a candidate) as the
    key, and the reply named that candidate as "an extra key" without saying to quote the key."""
    expected = {"database": "SQL Server 2022", "log": "a=b"}
    said = _said(answer, expected)
    assert "in quotes" in said and "not checked yet" in said
    assert "missing" not in said and "extra key" not in said and "FactCandidate(" not in said
