"""An answer that is a lesson's variable, or an unknown name, is told apart from a wrong value (issue 32).

``answer_3 = yes`` in a lesson that defined ``yes``, or ``answer_1 = repaired`` where ``repaired`` is a run object,
is not a wrong value of another type: the student wrote a name meaning a word. The checker says so, in the terms of
the exercise's kind of answer, for every lesson's kind (text, number, boolean, dict). ``answer_3 = false`` for a
True/False question is Python's spelling, not text to quote.
"""

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from course_lib.exercises import check, exercise, explain_unquoted_names, unquoted_name_guidance


@dataclass
class Run:
    verdict: str


@pytest.mark.parametrize(
    ("expected", "advice"),
    [
        ("repaired", "put your answer in quotes, e.g. 'repaired'."),  # lessons 00, 02, 03, 07: text
        (True, "write True or False (no quotes)."),  # lessons 01, 04, 07: a boolean
        (  # lessons 00, 02, 03, 05, 06, 07: a number, plain arithmetic allowed (walk 21)
            3,
            "write the number you predict, in digits or as plain arithmetic with + - * / (for example 2*20 + 2), "
            "with no quotes.",
        ),
        ({"log": "a=b"}, "write the dict itself, e.g. {'key': 'value'}."),  # lesson 01: a dict
    ],
)
def test_a_variable_of_the_lesson_given_as_the_answer_is_named_as_such(expected, advice):
    repaired = Run("repaired")
    namespace = {"repaired": repaired, "answer_1": repaired, "_": repaired}
    said = check("Exercise 1", repaired, expected, "Look again.", namespace=namespace).replace("\n", " ")
    assert (
        "You wrote the name 'repaired' without quotes, so Python read it as a variable of this lesson, not as an answer"
        in said
    )
    assert advice in said
    assert "value of type" not in said and "answer_1" not in said


def test_a_dict_variable_meaning_a_word_is_named_and_not_called_a_dictionary():
    yes = {True: "yes", False: "no"}
    said = check("Exercise 3", yes, False, namespace={"yes": yes, "answer_3": yes}).replace("\n", " ")
    assert (
        "You wrote the name 'yes' without quotes, so Python read it as a variable of this lesson" in said
        and "write True or False" in said
    )
    assert "dictionary" not in said


def test_the_callers_globals_are_the_namespace_by_default():
    said = check("Exercise 1", RUN_HERE, "repaired").replace("\n", " ")
    assert "You wrote the name 'RUN_HERE' without quotes, so Python read it as a variable of this lesson" in said


RUN_HERE = Run("repaired")


def test_a_value_bound_to_no_name_and_a_plain_value_keep_their_type_feedback():
    namespace = {"answer_1": {"a": 1}, "count": 3, "word": "repaired"}
    assert "a dictionary" in check("Ex", {"a": 1}, "x", namespace=namespace)
    assert "variable" not in check("Ex", 3, "3", namespace=namespace)  # a number is an answer, even if named
    assert "variable" not in check("Ex", "repaired", "latest", namespace=namespace)


@pytest.mark.parametrize(
    ("name", "expected", "said", "not_said"),
    [
        ("false", True, "'false' is not a Python value: Python writes True or False", "quotes: '"),
        (
            "TRUE",
            False,
            "If you meant True, write True; whether it is the right answer is checked after that. Then",
            "quotes: '",
        ),
        ("yes", True, "The answer is a boolean (True or False): write the one you mean", "quotes: '"),
        ("three", 3, "Your word 'three' in digits is 3: write that, with no quotes", "quotes: '"),
        ("Billing", "Billing", "put it in quotes: 'Billing'", "capital"),
        ("false", "no", "put it in quotes: 'false'", "capital"),
    ],
)
def test_an_unknown_name_gets_advice_for_the_kind_of_answer_expected(name, expected, said, not_said):
    error = NameError(f"name '{name}' is not defined", name=name)
    guidance = unquoted_name_guidance(error, expected)
    assert said in guidance and not_said not in guidance


def test_an_unknown_name_when_the_expected_kind_is_unknown_mentions_both_spellings():
    guidance = unquoted_name_guidance(NameError("x", name="false"))
    assert (
        "Python writes True or False, with a capital letter" in guidance
        and "If you meant False, write False;" in guidance
    )
    assert "'false'" in guidance


def test_the_shell_reads_the_expected_kind_from_the_checking_cell(capsys):
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, six=Run("x"), right=1, found=[1, 2, 3])
        shell.run_cell("answer_3 = false\nprint(check('Exercise 3', answer_3, bool(right)))")
        out = capsys.readouterr().out
        assert "'false' is not a Python value" in out.replace("\n", " ") and "quotes: '" not in out
        shell.run_cell("answer_2 = repaired\nprint(check('Exercise 1', answer_2, six.verdict))")
        out = capsys.readouterr().out
        assert "put it in quotes: 'repaired'" in out.replace("\n", " ")
        shell.run_cell("answer_2 = three\nprint(check('Exercise 2', answer_2, len(found)))")
        assert "Your word 'three' in digits is 3" in capsys.readouterr().out.replace("\n", " ")
        shell.run_cell("answer_2 = three\nprint(check('Exercise 2', answer_2, undefined_thing.count))")
        out = capsys.readouterr().out  # the expected value cannot be read: the general advice
        assert "put it in quotes: 'three'" in out.replace("\n", " ") and "Traceback" not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


@pytest.mark.parametrize("value", [True, False])
def test_an_answer_line_naming_a_lesson_variable_is_never_graded_whatever_its_value(value):
    """Lesson 04's walk: ``answer_1 = right`` after the checking cell had run once held the lesson's ``right``
    and was graded "correct". A name is not checked, in the same words whether its value is right or wrong."""
    namespace = {"right": value, "In": ["", "answer_1 = right  # my guess"]}
    said = " ".join(check("Exercise 1", value, True, "HINT", namespace=namespace).split())
    assert said == (
        "Exercise 1: not checked yet. You wrote the name 'right' without quotes, so Python read it as a variable "
        "of this lesson, not as an answer: write True or False (no quotes). Then run the cell again."
    )


def test_a_long_text_variable_is_named_not_dumped():
    summary = "customer=Fabrikam\nversion=4.2\n" * 10
    namespace = {"summary": summary, "In": ["answer_1 = summary"]}
    said = check("Exercise 1", summary, True, "HINT", namespace=namespace)
    assert "'summary' without quotes" in said and "Fabrikam" not in said and "HINT" not in said


def test_a_value_written_out_is_graded_even_when_a_variable_holds_it():
    namespace = {"right": True, "In": ["answer_1 = True"]}
    assert check("Exercise 1", True, True, namespace=namespace).startswith("Exercise 1: correct.")


@pytest.mark.parametrize(
    ("expected", "said", "not_said"),
    [
        ("bool(right)", "write your prediction as True or False (a capital first letter, no quotes)", "{'key'"),
        ("len(found)", "write your prediction as a number in digits, no quotes (for example 42)", "True or False"),
        (
            "undefined_thing.count",
            "text in quotes (for example 'some text'), a number (for example 42 or 0.5), True or",
            "capital",
        ),
    ],
)
def test_an_empty_answer_line_is_told_the_kind_the_cell_checks(capsys, expected, said, not_said):
    """Lesson 04's walk: ``answer_1 =`` left empty on a True/False question was told every kind of value."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, right=1, found=[1, 2, 3])
        shell.run_cell(f"answer_1 =\nprint(check('Exercise 1', answer_1, {expected}))")
        out = " ".join(capsys.readouterr().out.split())
        assert "SyntaxError: your answer is not a Python value yet." in out
        assert said in out and not_said not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


@pytest.mark.parametrize(
    ("line", "expected"),
    [("answer_2 = customer?", "customer"), ("answer_3 = False?", False), ("answer_1 = right first time?", "x")],
)
def test_an_answer_line_ending_in_a_question_mark_is_a_hedge_not_a_help_request(capsys, line, expected):
    """Lesson 01's walk: IPython read ``answer_2 = product?`` as "help on product", the assignment never ran, and
    the check graded the answer the cell held before: "correct". The line is now the hedge the student typed."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, expected=expected)
        shell.run_cell(f"answer_1 = {expected!r}\nprint(check('Exercise 1', answer_1, expected))")
        assert capsys.readouterr().out.startswith("Exercise 1: correct.")
        shell.run_cell(
            f"{line.replace('_2', '_1').replace('_3', '_1')}\nprint(check('Exercise 1', answer_1, expected))"
        )
        out = " ".join(capsys.readouterr().out.split())
        assert "hedges (a '?' or a word of doubt)" in out and "correct" not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def test_a_cell_whose_answer_line_was_deleted_is_not_graded_on_an_earlier_run():
    """Lesson 04's walk: with ``answer_1 = ...`` deleted, the check graded the value an earlier run left, "correct"
    included. The cell's text (IPython's ``In``) is read: an answer it never sets is not checked."""
    ran = ["", "answer_1 = True\nprint(check('Exercise 1', answer_1, True))"]
    assert check("Exercise 1", True, True, namespace={"In": ran, "answer_1": True}).startswith("Exercise 1: correct.")
    ran.append("\nprint(check('Exercise 1', answer_1, True))")
    out = " ".join(check("Exercise 1", True, True, namespace={"In": ran, "answer_1": True}).split())
    assert out.startswith("Exercise 1: not checked yet. This cell no longer sets answer_1")


def test_every_exercise_names_the_kind_its_solution_has():
    """``answer_type`` is what the handler tells a student whose answer line fails before the cell computes its
    expected value; the instructor's solutions are the answers, so each must be of its exercise's kind."""
    import ast
    from pathlib import Path

    from course_lib.exercises import EXERCISES

    solutions = Path(__file__).resolve().parents[1] / "instructor" / "solutions"
    for one in EXERCISES:
        text = next(solutions.glob(f"{one.lesson}_*.py")).read_text()
        assigned = {
            node.targets[0].id: ast.literal_eval(node.value)
            for node in ast.parse(text).body
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        }
        answer = assigned[f"answer_{one.label.split()[-1]}"]
        assert type(answer) is one.answer_type, (one.lesson, one.label)


@pytest.mark.parametrize(
    ("line", "said"), [("answer_1 = nine", "Your word 'nine' in digits is 9"), ("answer_1 =", "in digits")]
)
def test_an_answer_line_failing_before_the_cell_computes_its_answer_is_told_the_exercises_kind(capsys, line, said):
    """Lesson 05's walk: ``answer_1 = nine`` failed before ``trace_4`` existed, and the general advice sent a student
    with a count towards quotes or a dict."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check, exercise=exercise)
        shell.run_cell(
            f"{line}\ntrace = undefined()\nprint(check('Exercise 1', answer_1, len(trace.calls[-1]), "
            "exercise('05', 'Exercise 1').hint))"
        )
        out = " ".join(capsys.readouterr().out.split())
        assert said in out and "{'key'" not in out and "quotes: 'nine'" not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


@pytest.mark.parametrize("inside", ["customer", "product"])
def test_a_dict_inside_quotes_where_one_text_is_asked_is_told_to_write_only_the_text(inside):
    """Lesson 01's walk: ``"{'evicted': 'customer'}"`` was told it "has words after a ':'"."""
    told = " ".join(check("Exercise 2", f"{{'evicted': '{inside}'}}", "customer", "HINT", namespace={}).split())
    assert "You wrote a dictionary inside quotes" in told and "write only it, between quotes" in told


def test_a_deleted_answer_line_in_a_fresh_kernel_is_told_to_write_it_back(capsys):
    """Lesson 05's walk: with ``answer_1 = ...`` deleted in a fresh kernel, the NameError advice said to put
    'answer_1' in quotes, and opened with "Answer_1"."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check)
        shell.user_ns.pop("answer_1", None)
        shell.run_cell("print(check('Exercise 1', answer_1, 9))")
        out = " ".join(capsys.readouterr().out.split())
        assert out.startswith("Exercise 1: not checked yet. answer_1 has no value yet: this cell does not set it.")
        assert "Write answer_1 = your answer where the cell had it" in out and "quotes: 'answer_1'" not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def test_an_unknown_word_opens_its_sentence_without_capitalising_the_word():
    said = unquoted_name_guidance(NameError("name 'billing' is not defined", name="billing"))
    assert said.startswith("The word billing has no quotes around it")


def test_a_lesson_name_missing_in_a_fresh_kernel_says_to_run_the_cells_above(capsys):
    """Lesson 05's walk: an exercise cell run alone after a restart stopped at ``run_seed_demo``; the advice must
    be to run the cells above, not to put the name in quotes."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.run_cell("answer_1 = 9\ntrace_4, _ = run_seed_demo(allowed=4)")
        out = " ".join(capsys.readouterr().out.split())
        assert out.startswith("run_seed_demo is not defined in this kernel yet: a cell above imports or creates it.")
        assert "Run All Above Selected Cell" in out and "quotes" not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def test_a_deleted_answer_line_never_answered_is_told_to_write_it_back(capsys):
    """Lesson 04's walk: deleting ``answer_1 = ...`` before ever answering printed "Replace ... with your
    prediction", with no ``...`` left on screen. A cell that no longer sets ``answer_1`` is told so, whatever the
    earlier run left in it."""
    shell = InteractiveShell.instance()
    try:
        shell.user_ns.update(check=check)
        shell.run_cell("answer_1 = ...\nprint(check('Exercise 1', answer_1, True))", store_history=True)
        assert "Replace ... with your prediction" in capsys.readouterr().out
        shell.run_cell("print(check('Exercise 1', answer_1, True))", store_history=True)
        out = " ".join(capsys.readouterr().out.split())
        assert out.startswith("Exercise 1: not checked yet. This cell no longer sets answer_1")
        assert "Replace ..." not in out
    finally:
        InteractiveShell.clear_instance()


def test_a_checking_cell_run_first_in_a_fresh_kernel_explains_an_unquoted_answer():
    """Lesson 00's walk: after a restart, running only Exercise 1 gave a bare NameError for `answer_1 = sixty`, the
    guidance being installed by section 1's setup_display(). A cell that imports the checker installs it too."""
    cell = "from course_lib.exercises import check\nanswer_1 = sixty\nprint(check('Exercise 1', answer_1, 61, ''))\n"
    probe = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        f"InteractiveShell.instance().run_cell({cell!r}, store_history=True)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1]
    )
    said = shown.stdout + shown.stderr
    assert "sixty" in said and "quotes" in said and "Traceback" not in said, said


@pytest.mark.parametrize("value", [5, 6])
def test_a_misspelt_answer_name_is_pointed_at_in_a_fresh_kernel_too(capsys, value):
    """Lesson 00's walk 21: after a restart, ``answr_2 = 5`` was told only that answer_2 has no value yet; in a kernel
    that had run the cell it was asked "is that answer_2 misspelt?". Both now ask, alike right or wrong."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check)
        shell.run_cell(f"answr_2 = {value}\nprint(check('Exercise 2', answer_2, 5))", store_history=True)
        out = " ".join(capsys.readouterr().out.split())
        assert "answer_2 has no value yet: this cell does not set it. The cell sets answr_2 instead" in out, out
        assert "is that answer_2 misspelt?" in out and "Traceback" not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


@pytest.mark.parametrize(
    ("line", "expected", "value"),
    [
        ("answer_1 = False, because", True, "False"),
        ("answer_1 = True, seen", True, "True"),
        ("answer_3 = 2, because", 2, "2"),
        ("answer_2 = 'triage', since", "'triage'", "'triage'"),
    ],
)
def test_a_value_then_a_comma_and_words_is_told_to_write_the_answer_alone(capsys, line, expected, value):
    """Lesson 04's walk 21: ``answer_1 = False, because`` was told to put 'because' in quotes, which makes a tuple,
    another wrong kind. The words are extra; the student's own value is echoed, alike right or wrong."""
    shell = InteractiveShell.instance()
    try:
        explain_unquoted_names(shell)
        shell.user_ns.update(check=check)
        name = line.split()[0]
        shell.run_cell(f"{line}\nprint(check('Exercise 1', {name}, {expected}))", store_history=True)
        out = " ".join(capsys.readouterr().out.split())
        assert f"{name} holds more than an answer: your value {value}, then a comma and other words" in out, out
        assert "Write your answer alone." in out and "put it in quotes" not in out and "Traceback" not in out
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()
