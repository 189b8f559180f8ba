"""Lesson 00, walk 24 (issue 32, score 4/5: "density, not errors").

The student's path (everything before "## Under the hood") is held to the density rule: no paragraph over four
sentences, no sentence over 30 words, at most 1700 words. What was cut from the path is either said once elsewhere
on it (a definition said twice), or moved under the hood with its protection:

1. the map from each ``.env`` variable to the ``LiveSettings`` argument it becomes is now the comment beside each
   argument in section 3's configuration cell (still the rule ``load_course_settings`` reads ``.env`` by);
2. *JSON schema* (the fixed shape the writer asks for, and what a server that cannot answer in it does) is defined
   under the hood, in the failure it belongs to; the words that use it point there;
3. *silent endpoint* is defined once on the path, before Exercise 1 uses it.
"""

from __future__ import annotations

import re

from course_lib.live import FIELD_VARS
from tests.support.lesson_cells import stored_lesson

WORD_BUDGET = 1700


def cells() -> list[dict]:
    return stored_lesson("00")["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def hood_index() -> int:
    return next(i for i, c in enumerate(cells()) if source(c).lstrip().startswith("## Under the hood"))


def student_markdown() -> list[str]:
    return [source(c) for c in cells()[: hood_index()] if c["cell_type"] == "markdown"]


def _plain(md: str) -> str:
    md = re.sub(r"```.*?```", " ", md, flags=re.S)
    md = re.sub(r"<[^>]+>", " ", md)
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", md)


def paragraphs(md: str) -> list[str]:
    """Paragraphs as a reader sees them: blank-line blocks, each bullet or numbered item its own."""
    out = []
    for block in re.split(r"\n\s*\n|\n(?=\s*[-*] )|\n(?=\s*\d+\. )|\n(?=#)", _plain(md)):
        said = " ".join(block.split())
        if said and not said.startswith(("#", "|")):
            out.append(said)
    return out


def sentences(paragraph: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*(\"'`])", paragraph) if s]


def student_paragraphs() -> list[str]:
    return [p for md in student_markdown() for p in paragraphs(md)]


# --- the density rule on the student's path ---


def test_no_paragraph_of_the_student_path_has_more_than_four_sentences():
    long = [p for p in student_paragraphs() if len(sentences(p)) > 4]
    assert not long, long


def test_no_sentence_of_the_student_path_has_more_than_30_words():
    long = [s for p in student_paragraphs() for s in sentences(p) if len(s.split()) > 30]
    assert not long, long


def test_the_student_path_keeps_to_its_word_budget():
    count = sum(len(p.split()) for p in student_paragraphs())
    assert count <= WORD_BUDGET, f"{count} words on lesson 00's student path (budget {WORD_BUDGET})"


# --- 1. the variable map, beside the arguments it names ---


def test_each_env_variable_is_named_beside_the_argument_it_becomes():
    code = next(source(c) for c in cells() if c["cell_type"] == "code" and "ollama = LiveSettings(" in source(c))
    mapping = dict(re.findall(r"^\s+(\w+)=.*# in \.env: (\w+)=", code, flags=re.M))
    assert mapping == {
        "model": "OPENAI_MODEL",
        "api_key": "OPENAI_API_KEY",
        "base_url": "OPENAI_BASE_URL",
        "role_models": "COURSE_JUDGE_MODEL",
    }
    for argument in ("model", "api_key", "base_url"):  # FIELD_VARS: the rule load_course_settings reads .env by
        assert FIELD_VARS[argument] == mapping[argument]
    assert all(len(line) <= 90 for line in code.splitlines())
    words = " ".join(next(md for md in student_markdown() if "Any OpenAI-compatible endpoint" in md).split())
    assert "one argument per variable of `.env` (the comments name them)" in words


# --- 2. JSON schema: defined once, under the hood, where its failure is listed ---


def test_json_schema_is_defined_once_under_the_hood_and_pointed_at():
    path = " ".join(" ".join(student_markdown()).split())
    assert "JSON schema" not in path
    hood = [" ".join(source(c).split()) for c in cells()[hood_index() :] if c["cell_type"] == "markdown"]
    defining = [text for text in hood if "described by a *JSON schema*" in text]
    assert len(defining) == 1 and defining[0].startswith("## Under the hood")
    assert "makes every writer call fail, and the writer's report says so" in defining[0]
    later = next(text for text in hood if "a *bounded schema* is a JSON schema" in text)
    pointer = "a JSON schema (a description of the exact JSON shape the reply must have)"  # walk 25: said in place
    assert "a JSON schema (section 3)" not in later and pointer in later


# --- 3. silent endpoint, defined once before the exercise that uses it ---


def test_silent_endpoint_is_defined_once_on_the_path_before_exercise_1():
    path = " ".join(" ".join(student_markdown()).split())
    assert path.count("accepts the connection and then never answers") == 1
    exercise_1 = path.index("**Exercise 1.**")
    assert path.index("*silent endpoint*, one that accepts the connection") < exercise_1
    assert "silent endpoint hold one call" in path[exercise_1:]
