"""What a student reads: each lesson's opening and closing, the glossary, the README's first screen, the course map.

These check what a test can see of "a lesson a student reads with ease": every lesson opens with what the student
will be able to do (3 to 5 points) and a link to the glossary, and closes with its key takeaways and the next
lesson; every French or Chinese text a lesson quotes is translated in the glossary; a table in a stored output
never holds a wall of text in one cell.
"""

import base64
import html
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DOCS = ROOT / "docs"
LESSONS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
GLOSSARY_LINK = re.compile(r"\]\(\.\./docs/glossary\.md(#[\w-]+)?\)")  # the glossary, or its lesson's section
MAX_TABLE_CELL_CHARS = 600
"""The longest text one cell of a stored table may hold: about eight lines of a 36em column."""


def lesson(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)


def markdown(name: str) -> str:
    return "\n".join(c.source for c in lesson(name).cells if c.cell_type == "markdown")


@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_opens_with_what_the_student_will_be_able_to_do_and_the_glossary(name):
    first = lesson(name).cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# ")
    assert "**You will be able to**" in first.source, f"{name}: no objectives in the first cell"
    objectives = first.source.split("**You will be able to**")[1].strip().split("\n\n")[0]
    bullets = [line for line in objectives.splitlines() if line.startswith("- ")]
    assert 3 <= len(bullets) <= 5, f"{name}: {len(bullets)} objectives, not 3 to 5"
    assert GLOSSARY_LINK.search(first.source) and re.search(r"About \d+ minutes", first.source)


@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_closes_with_its_takeaways_and_the_next_lesson(name):
    """The student's path ends with the takeaways: the last cell, or the last before an "Under the hood" section."""
    cells = lesson(name).cells
    hood = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## Under the hood")]
    last = cells[hood[0] - 1] if hood else cells[-1]
    assert last.cell_type == "markdown" and last.source.startswith("## Key takeaways")
    assert 2 <= sum(line.startswith("- ") for line in last.source.splitlines()) <= 5
    later = LESSONS[LESSONS.index(name) + 1 :]
    if later:
        assert f"**Next:** [lesson {later[0][:2]}" in last.source and f"]({later[0]}.ipynb)" in last.source
    else:
        assert "**Where next:**" in last.source


def test_every_link_of_the_lessons_and_docs_to_a_file_of_the_repository_exists():
    texts = {f"notebooks/{name}": (NOTEBOOKS, markdown(name)) for name in LESSONS}
    texts |= {f"docs/{p.name}": (DOCS, p.read_text()) for p in DOCS.glob("*.md")}
    texts["README.md"] = (ROOT, (ROOT / "README.md").read_text())
    for where, (base, text) in texts.items():
        for target in re.findall(r"\]\(([^)#:]+?)(?:#[^)]*)?\)", text):
            assert (base / target).exists(), f"{where} links to {target}, which does not exist"


CJK = re.compile(r"[\u4e00-\u9fffA-Za-z]*[\u4e00-\u9fff][\u4e00-\u9fffA-Za-z]*")
FRENCH_WORDS = {"les", "des", "du", "et", "puis", "la", "le", "un", "une", "de", "en", "n'en", "ou", "pas"}


def quoted_foreign_text(text: str) -> set[str]:
    """The Chinese runs of ``text``, and its italic spans written in French (two words or more, one of them French)."""
    chinese = set(CJK.findall(text))
    italic = re.findall(r"(?<![*\w])\*([^*\n]+?)\*(?!\*)", text.replace("\n> ", " ").replace("\n", " "))
    french = {span for span in italic if len(span.split()) > 1 and FRENCH_WORDS & set(span.lower().split())}
    return chinese | french


def test_every_french_title_and_chinese_quotation_a_lesson_shows_is_translated_in_the_glossary():
    glossary = (DOCS / "glossary.md").read_text()
    shown = {text for name in LESSONS for text in quoted_foreign_text(markdown(name))}
    assert "Corriger puis oublier" in shown and any("LoopEvaluator" in t for t in shown)  # the finder finds them
    missing = sorted(t for t in shown if t not in glossary)
    assert not missing, f"not translated in docs/glossary.md: {missing}"


def test_the_glossary_defines_the_words_the_lessons_use_before_teaching_them():
    glossary = (DOCS / "glossary.md").read_text()
    for word in ["**seed**", "**Demo150**", "**Demo160**", "**Demo170**", "**EP013**", "**MAF**", "**`LoopAgent`**"]:
        assert word in glossary, f"the glossary does not define {word}"
    assert "## Where this comes from" in glossary and "French" in glossary and "Chinese" in glossary


def test_the_glossarys_under_the_hood_row_names_the_lessons_that_have_one():
    """The row's "where" is computed here from the lessons' headings (issue 32: it said "01, 03 and later")."""
    having = [name[:2] for name in LESSONS if re.search(r"^## Under the hood", markdown(name), flags=re.MULTILINE)]
    said = "every lesson" if len(having) == len(LESSONS) else f"lessons {', '.join(having)}"
    row = next(
        line for line in (DOCS / "glossary.md").read_text().splitlines() if line.startswith("| **Under the hood**")
    )
    assert row.rstrip(" |").endswith(f"| {said}"), f"the glossary's Under the hood row should say {said!r}: {row}"


def test_the_readme_first_screen_is_for_students():
    first_screen = "\n".join((ROOT / "README.md").read_text().splitlines()[:40])
    assert "make lab" in first_screen and "01_contract_and_store.ipynb" in first_screen
    assert "00_setup_and_backends.ipynb" in first_screen and "async" in first_screen and "pandas" in first_screen
    for maintainers_word in ("nbval", "Chromium", ".ci/run", "xdist"):
        assert maintainers_word not in first_screen


def test_the_readme_says_where_the_student_part_ends_in_words_a_reader_sees():
    """The end marker is an HTML comment, invisible on GitHub and in JupyterLab: a visible line follows it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    after = readme.split("<!-- end of the student part -->", 1)[1].lstrip()
    first_text = next(line for line in after.splitlines() if line.strip() and line.strip() != "---")
    assert first_text.startswith("**Students can stop here.**")


def test_the_readme_colab_badge_opens_the_lesson_the_text_says_to_open_first():
    first_screen = "\n".join((ROOT / "README.md").read_text().splitlines()[:40])
    first = re.search(r"open \*\*`(\d\d_\w+\.ipynb)`\*\*", first_screen)
    badge = re.search(r"\]\(https://colab\.research\.google\.com/github/[^)]*/notebooks/(\w+\.ipynb)\)", first_screen)
    assert first and badge, "the README's first screen names a lesson to open first and has a Colab badge"
    assert badge.group(1) == first.group(1), f"the Colab badge opens {badge.group(1)}, the text says {first.group(1)}"


def test_the_glossary_opens_with_the_students_words_and_keeps_the_provenance_for_its_end():
    glossary = (DOCS / "glossary.md").read_text()
    headings = re.findall(r"^## .*", glossary, flags=re.MULTILINE)
    assert headings[-1] == "## Where this comes from", headings
    before_provenance = glossary[: glossary.index("## Where this comes from")]
    for port_word in (".NET", "C#", "Maf.Memory", "shared files"):
        assert port_word not in before_provenance, f"the glossary names {port_word!r} before its last section"


def test_the_readme_links_the_maintainers_pages_and_shows_each_lessons_time():
    readme = (ROOT / "README.md").read_text()
    for page in ("maintainers.md", "reliability.md", "performance.md", "glossary.md"):
        assert f"(docs/{page})" in readme and (DOCS / page).exists()
    for name in LESSONS:
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{name}.ipynb` |"))
        assert re.search(r"\| \d+ min", row), f"the README's lesson table gives no time for {name}"
    for section in ("## Performance", "## Reliability", "## For maintainers"):
        assert section not in readme, f"{section} belongs in docs/"


def test_the_course_map_names_every_lesson_and_the_readme_and_lesson_00_show_it():
    spec = importlib.util.spec_from_file_location("course_map", DOCS / "course_map.py")
    assert spec is not None and spec.loader is not None
    course_map = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(course_map)
    assert sorted(course_map.LESSONS) == [name[:2] for name in LESSONS]
    assert set(course_map.POSITIONS) == set(course_map.LESSONS)
    drawing = (DOCS / "course_map.png").read_bytes()
    assert drawing.startswith(b"\x89PNG")
    width = int.from_bytes(drawing[16:20], "big")  # the PNG header's width, in pixels
    assert width <= 900, f"the map is {width} px wide: JupyterLab opens it full size, and 1300 px must show it whole"
    assert "](docs/course_map.png)" in (ROOT / "README.md").read_text()
    opening = lesson(LESSONS[0]).cells[0]
    assert "](attachment:course_map.png)" in opening.source  # tools/colab_cell.py attaches docs/course_map.png
    assert opening.attachments["course_map.png"]["image/png"]
    drawn = base64.b64encode((DOCS / "course_map.png").read_bytes()).decode()
    assert opening.attachments["course_map.png"]["image/png"] == drawn  # the lesson shows the map as last drawn
    words = " ".join(title for title, _ in course_map.LESSONS.values())
    assert not re.search(r"Demo\d|LoopAgent|MAF|provider", words), "a map title a newcomer has not met yet"


def table_cells(name: str) -> list[tuple[int, str]]:
    """Every cell of every HTML table in the lesson's stored outputs, as text, with the notebook cell's index."""
    found = []
    for index, cell in enumerate(lesson(name).cells):
        for output in cell.get("outputs", []):
            for td in re.findall(r"<td[^>]*>(.*?)</td>", output.get("data", {}).get("text/html", ""), flags=re.S):
                found.append((index, html.unescape(re.sub(r"<[^>]+>", "", td))))
    return found


@pytest.mark.parametrize("name", LESSONS)
def test_no_stored_table_cell_is_a_wall_of_text(name):
    walls = [(index, len(text)) for index, text in table_cells(name) if len(text) > MAX_TABLE_CELL_CHARS]
    assert not walls, f"{name}: table cells over {MAX_TABLE_CELL_CHARS} characters (cell, length): {walls}"


PANELS = ("MemoryPanel", "DeskPanel", "PolicyExplorer", "LoopStepper")


def driven_panels(cells: list[str]) -> list[str]:
    """The panels shown by these code cells (a cell ending on the panel's name) that a later cell clicks or sets."""
    driven = []
    for index, source in enumerate(cells):
        for panel in re.findall(rf"^(\w+) = (?:{'|'.join(PANELS)})\(", source, flags=re.M):
            if source.rstrip().splitlines()[-1] == panel:
                later = "\n".join(cells[index + 1 :])
                if re.search(rf"\b{panel}\.\w+(?:\.\w+)*(?:\.click\(\)| = )", later):
                    driven.append(panel)
    return driven


def test_the_finder_finds_a_driven_panel_and_passes_one_that_drives_its_own():
    shown = "panel = MemoryPanel(make_extraction())\npanel"
    assert driven_panels([shown, "panel.submit_button.click()"]) == ["panel"]
    assert driven_panels([shown, 'panel.message.value = "x"']) == ["panel"]
    assert driven_panels([shown, "demo = MemoryPanel(make_extraction())\ndemo.submit_button.click()"]) == []


@pytest.mark.parametrize("name", LESSONS)
def test_a_panel_the_student_sees_starts_fresh_after_run_all(name):
    cells = [c.source for c in lesson(name).cells if c.cell_type == "code"]
    assert driven_panels(cells) == [], f"{name}: a later cell drives the panel the student sees"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
BEFORE_IT_RUNS = (
    "Until the panel's cell, below, has run (Run > Run All Cells), it is only a saved picture: its {controls} "
    'do nothing yet. Red broken-link marks, or the words "Error displaying widget: model not found", mean it is not '
    "connected yet. "
)
"""Before Run All, JupyterLab draws a panel from its saved state, dead, or says "model not found": students took
either for a broken lesson, so the text just above every panel says what they are looking at, in JupyterLab's own
words (lesson 07's walk 9). A reload or a reopened notebook shows the dead picture again (lessons 03 and 07's walks),
and so does a kernel restart (the fifth walks): the same note says so, in one wording everywhere but the panel's
controls, which it names as the panel has them, and what to run, which depends on the panel's cell (walk 9). "This
cell" in a Markdown cell is the Markdown cell: the note says "the panel's cell, below". Walk 24 of lessons 05 and 06
found its sentences of 43 and 26 words dense: every lesson now says the same facts in sentences of at most 25 words."""

AFTER_ALONE = (
    "After a kernel restart, a reopen, or a reload that shows the picture again, run the panel's cell again: a new "
    "panel starts afresh."
)
AFTER_WITH_CELLS_ABOVE = (
    "After a reload that shows the picture again, run the panel's cell again: a new panel starts afresh. After a "
    "kernel restart or a reopen, run the cells above it first (Run > Run All Above Selected Cell)."
)
"""What to run again, as short as it can be said (lesson 06's walk 22: five sentences repeating "run the panel's cell,
below, again"). A page reload: JupyterLab reconnects a saved notebook's panel to the running kernel, or shows the
saved picture again (lesson 07's walk 22, checked in Chromium), so the note says what to do when it shows the picture;
running the cell again drops what the student did in the panel, so it says a new panel starts afresh."""
WORKS_ALONE = "# this cell works on its own, even after a restart"
"""The first line of a panel's cell that needs no cell above it (lessons 02 and 03)."""


def panel_note(controls: str, *, alone: bool) -> str:
    """The note above a panel: its controls as the panel has them, and what to run again, as its cell needs."""
    return BEFORE_IT_RUNS.format(controls=controls) + (AFTER_ALONE if alone else AFTER_WITH_CELLS_ABOVE)


PANEL_CONTROLS = {"LoopStepper": "buttons and slider", "PolicyExplorer": "list, menu, sliders and Run button"}
"""What the note calls a panel's controls, by the class the panel's cell builds; any other panel has buttons and boxes
(text boxes, menus, lists). The loop stepper has no box (walk 16: "its buttons and boxes" named controls it lacks)."""


def panel_controls(source: str) -> str:
    """The note's words for the controls of the panel this cell shows."""
    built = {name for name in re.findall(r"\b([A-Z]\w+)\(", source)}
    return next((words for name, words in PANEL_CONTROLS.items() if name in built), "buttons and boxes")


@pytest.mark.parametrize("name", LESSONS)
def test_the_text_above_a_stored_panel_says_it_does_nothing_until_its_cell_runs(name):
    cells = lesson(name).cells
    for i, cell in enumerate(cells):
        progress_bar = "ProgressBar(" in cell.source  # a bar, not a panel: nothing in it to click
        if not progress_bar and any(WIDGET_VIEW in o.get("data", {}) for o in cell.get("outputs", [])):
            above = cells[i - 1]
            said = " ".join(above.source.replace("*", "").split())
            controls, alone = panel_controls(cell.source), cell.source.startswith(WORKS_ALONE)
            note = panel_note(controls, alone=alone)
            assert above.cell_type == "markdown" and note in said, f"{name}: cell {i} is a panel"


def test_the_note_names_the_stepper_s_slider_and_no_box_and_other_panels_boxes():
    assert panel_controls("stepper = LoopStepper(trace)\nstepper") == "buttons and slider"
    assert panel_controls("panel = CapstonePanel(make_extraction(store))\npanel") == "buttons and boxes"


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_title_reads_lesson_nn_then_a_dash(name):
    """One title style (issue 32): lesson 00 read "# 00 · Set-up..." beside "# Lesson 01 — ..." everywhere else."""
    title = lesson(name).cells[0].source.splitlines()[0]
    assert re.fullmatch(rf"# Lesson {name[:2]} — \S.+", title), title


MENU_PATH = re.compile(r"\b(File|Edit|View|Run|Kernel|Settings|Help)\s*([\u25b8\u203a\u2192\u00bb/])\s*[A-Z]")


@pytest.mark.parametrize("name", [*LESSONS, "README"])
def test_a_menu_path_is_written_one_way_with_a_plain_arrow(name):
    """One menu style (issue 32, lesson 05's walk): "Run ▸ Run All Cells" in some lessons beside "Kernel > Restart
    Kernel" in others; a student should meet one arrow, the one JupyterLab's own docs use."""
    text = (ROOT / "README.md").read_text(encoding="utf-8") if name == "README" else markdown(name)
    assert not MENU_PATH.findall(text), f"{name}: write a menu path as 'Run > Run All Cells'"
