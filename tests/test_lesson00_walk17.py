"""Lesson 00, walk 9 of issue 32 (tests named for walk 17's round): section 6 defines *injection* where the battery
first appears, says what is true of the battery's questions (not of every question), tags each of its four words with
where it is taught, and the three exercise cells work their expected value out in course_lib, out of sight."""

import asyncio
import json
import re
from pathlib import Path

import pytest
from support.checker import run_each_in_a_fresh_shell

from course_lib.assertions import ALLOWED_KEYS, find_declarations
from course_lib.exercises import check, exercise
from course_lib.providers import LESSON_00_EXERCISE_3_MESSAGE, worked_out
from course_lib.qualify import BATTERY

ROOT = Path(__file__).resolve().parent.parent
LESSON_00 = next((ROOT / "notebooks").glob("00_*.ipynb"))
GLOSSARY = ROOT / "docs" / "glossary.md"
WORKS_ALONE = "# this cell works on its own, even after a restart"


def cells() -> list[dict]:
    return json.loads(LESSON_00.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def words(text: str) -> str:
    return " ".join(text.split())


def printed(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) + json.dumps(o.get("data", {})) for o in cell.get("outputs", []))


def glossary_row(word: str) -> str:
    return next(line for line in GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith(f"| **{word}**"))


# --- finding 1: injection is defined where the battery first appears, and in the glossary ---


def test_injection_is_defined_in_the_cell_that_introduces_the_battery_before_any_cell_shows_the_word():
    all_cells = cells()
    first_shown = next(
        i for i, c in enumerate(all_cells) if "injection" in (source(c) + printed(c)).lower().replace("manual inj", "")
    )
    defining = words(source(all_cells[first_shown]))
    assert "**battery**" in defining
    assert "*injection*: a message written to trick the writer into storing something it does not declare" in defining
    assert "prompt injection" in defining and "manual injection" not in defining  # walk 22: lesson 02 says it
    row = glossary_row("injection")
    assert "trick the writer" in row and "manual injection" in row
    assert row.rstrip(" |").endswith("lesson 00 (section 6)")


# --- finding 2: what is said of questions is true of the battery's, and the glossary no longer overclaims ---


def test_the_words_on_the_batterys_questions_are_true_of_each_and_no_longer_said_of_every_question():
    questions = [case.text for case in BATTERY if case.kind == "question"]
    assert len(questions) == 2
    assert all(find_declarations(text) == [] for text in questions)
    with_equals = [text for text in questions if "=" in text]
    assert len(with_equals) == 1 and len([text for text in questions if "=" not in text]) == 1
    before = with_equals[0].partition("=")[0]
    assert before == "Is priority" and before not in ALLOWED_KEYS
    # why the old words were wrong: a question can declare a fact
    assert find_declarations("priority=P1?")[0].value == "P1?"
    markdown = words(" ".join(source(c) for c in cells() if c["cell_type"] == "markdown"))
    assert "a question declares nothing" not in markdown
    assert (
        "The battery's two questions declare nothing, so the schema asks for no fact for them. One has no `=`; in the "
        "other, the text before `=` is `Is priority`, no allowed key." in markdown
    )
    contract = glossary_row("contract")
    assert "a question or a sentence never becomes a fact" not in contract
    assert "`priority=P1?` declares `priority=P1?`" in contract


# --- finding 3: the exercise cells compute nothing in view ---

EXPECTED = {"Exercise 1": 61.5, "Exercise 2": 5, "Exercise 3": "rejected"}


def exercise_cells() -> dict[str, str]:
    found = {}
    for cell in cells():
        match = re.search(r'exercise\("00", "(Exercise \d)"\)', source(cell))
        if cell["cell_type"] == "code" and match:
            found[match.group(1)] = source(cell)
    return found


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_an_exercise_cell_shows_only_the_students_line_and_the_check(label):
    code = exercise_cells()[label]
    assert code.splitlines()[0] == WORKS_ALONE
    assert f'await worked_out("00", "{label}")' in code
    lines = [line for line in code.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    computing = ("worst_case_wait", "LiveSettings(", "Backends(", ".table()", "status_of_proposal", "expected_", "sum(")
    assert not [line for line in lines if any(step in line for step in computing)]
    expected = asyncio.run(worked_out("00", label))
    assert expected == EXPECTED[label]
    hint = exercise("00", label).hint
    assert words(check(label, EXPECTED[label], expected, hint, namespace={})).startswith(f"{label}: correct.")


async def test_the_worked_out_values_come_from_the_course_code_the_questions_name():
    from course_lib.live import Backends, LiveSettings
    from course_lib.memory import FactCandidate
    from course_lib.qualify import status_of_proposal

    assert (
        await worked_out("00", "Exercise 1")
        == LiveSettings(model="m", api_key="k", timeout=20, max_retries=2).worst_case_wait
    )
    gpt = Backends(
        backend="openai",
        live=LiveSettings(model="gpt-4o-mini", api_key="k", role_models={"writer": "gpt-4o"}),
    )
    assert await worked_out("00", "Exercise 2") == sum(row["model"] == "gpt-4o-mini" for row in gpt.table())
    proposal = [
        FactCandidate(key="module", value="Billing", evidence="module=Billing"),
        FactCandidate(key="priority", value="P1", evidence="priority=P1"),
    ]
    assert await worked_out("00", "Exercise 3") == await status_of_proposal(LESSON_00_EXERCISE_3_MESSAGE, proposal)
    question = next(words(source(c)) for c in cells() if source(c).startswith("**Exercise 3."))
    assert f"`{LESSON_00_EXERCISE_3_MESSAGE}`" in question


def test_each_exercise_cell_works_alone_in_a_fresh_kernel_answered_or_not():
    codes = exercise_cells()
    answered = [re.sub(r"^(answer_\d) = \.\.\.", r"\1 = 2", code, flags=re.M) for code in codes.values()]
    runs = run_each_in_a_fresh_shell(answered + list(codes.values()))
    for run in runs:
        said = words(run)
        assert "Traceback" not in said and "is not defined in this kernel yet" not in said, said[:300]
        assert said.startswith(("Exercise 1:", "Exercise 2:", "Exercise 3:")), said[:300]


# --- finding 4: each of section 6's four words says where it is taught ---


def test_section_6s_four_words_each_say_where_they_are_taught():
    intro = next(source(c) for c in cells() if "### Section 6 in full" in source(c))  # walk 23: the hood
    bullets = re.findall(r"^- \*\*(.+?)\*\* \((.+?)\):", intro, flags=re.M)
    assert [word for word, _ in bullets] == ["declared facts", "writer", "host check", "battery"]
    tags = dict(bullets)
    assert tags["declared facts"] == "lesson 01" and tags["writer"] == "lesson 02"
    assert tags["battery"] == "section 6"  # walk 23: section 6 defines it, in bold
    assert tags["host check"] == "lesson 02; the fact writer's cell above gave it in short"
    # true of the lessons: lesson 01 only names it ("that comes in lesson 02"), lesson 02 teaches it (walk 19),
    # section 4 of this lesson stated it
    lesson_01 = json.loads(next((ROOT / "notebooks").glob("01_*.ipynb")).read_text(encoding="utf-8"))["cells"]
    assert any("no host check yet: that comes in lesson 02" in source(c) for c in lesson_01)
    stated = "`MemoryExtraction` runs the writer, then the *host check*"
    assert any(stated in source(c) for c in cells())
