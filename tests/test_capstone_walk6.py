"""Lesson 07, seventh walk (issue 32): background leaves the student's path for *Under the hood*, the panel's notes
name its controls and say a saved panel's times are the saved run's, and the glossary row reads as two sentences."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSON_07 = ROOT / "notebooks" / "07_loop_held_to_the_facts.ipynb"


def sources() -> dict[str, str]:
    cells = json.loads(LESSON_07.read_text(encoding="utf-8"))["cells"]
    return {c["id"]: " ".join("".join(c["source"]).split()) for c in cells}


def test_the_prose_sample_intro_has_no_forward_reference_and_no_file_path() -> None:
    text = sources()
    intro, hood = text["7ec4c2c1"], text["under-the-hood"]
    assert "section 2 shows" not in intro and "course_lib/capstone.py" not in intro
    assert "`PROSE_SAMPLE` in `course_lib/capstone.py`" in hood


def test_section_3_states_its_bounds_plainly_and_the_background_is_under_the_hood() -> None:
    text = sources()
    section_3 = text["10ead7db"]
    assert "the store keeps at most 5 facts;" in section_3
    assert "*seed*" not in section_3 and "max_iterations" not in section_3
    porting = next(t for t in text.values() if t.startswith("**Porting notes.**"))
    assert "the bound of the French article (the *seed*)" in porting and "`max_iterations`, 10 by default" in porting


def test_section_8_names_the_controls_and_says_saved_times_are_the_saved_run_s() -> None:
    intro = sources()["capstone-panel-intro"]
    assert "Choose `constraint` in **Key**, then **Forget key**" in intro and "forget `constraint`" not in intro
    # walk 24 (density): this detail moved under the hood, in the same words
    assert "the times in its **recorded (UTC)** column are those of the saved run" in sources()["hood-store-room"]


def test_the_judge_cell_comment_names_the_rows_once() -> None:
    judge = sources()["3f34b4e3"]
    assert "sample[1] and sample[8]: the 2nd and 9th rows of section 1's sample table" in judge
    assert "earlier in this section" not in judge


def test_the_superseded_value_row_is_two_sentences() -> None:
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    [row] = [line for line in glossary.splitlines() if line.startswith("| **superseded value** |")]
    assert "without its key. A value declared again is current: it is no longer superseded |" in row
