"""Pictures and settings that make a lesson's links work wherever a student opens it (issue 32, issue 38).

* tools/colab_cell.py attaches a ``docs/`` picture to the lesson cell that shows it (JupyterLab, Voila, Colab);
* tools/build_site.py writes an attached picture as a file beside the lesson's page (the website);
* tools/lab_settings.py sets the course's JupyterLab settings and keeps every other one;
* tools/present.py (``make present``) serves the ``docs/`` pages a lesson links to beside Voila's lessons.

The browser checks (a first open under ``make lab``'s flags) are in tests/test_lab.py.
"""

import base64
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402
import colab_cell  # noqa: E402
import lab_settings  # noqa: E402
import present  # noqa: E402

from tests.test_browser import free_port, wait_for  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\nfake"


def markdown(text: str, **extra) -> dict:
    return {"cell_type": "markdown", "id": "m", "metadata": {}, "source": text.splitlines(keepends=True), **extra}


def test_a_docs_picture_becomes_an_attachment_refreshed_from_docs(tmp_path):
    (tmp_path / "map.png").write_bytes(PNG)
    notebook = {"cells": [markdown("Intro.\n\n![The map](../docs/map.png)\n")]}
    attached = colab_cell.with_attached_images(notebook, tmp_path)
    cell = attached["cells"][0]
    assert "".join(cell["source"]) == "Intro.\n\n![The map](attachment:map.png)\n"
    assert base64.b64decode(cell["attachments"]["map.png"]["image/png"]) == PNG
    assert colab_cell.with_attached_images(attached, tmp_path) == attached  # idempotent
    (tmp_path / "map.png").write_bytes(PNG + b"redrawn")
    again = colab_cell.with_attached_images(attached, tmp_path)["cells"][0]
    assert base64.b64decode(again["attachments"]["map.png"]["image/png"]) == PNG + b"redrawn"


def test_a_picture_neither_attached_nor_in_docs_is_refused_by_name(tmp_path):
    with pytest.raises(SystemExit, match=r"gone\.png"):
        colab_cell.with_attached_images({"cells": [markdown("![x](../docs/gone.png)")]}, tmp_path)


def test_a_cell_without_pictures_is_left_exactly_as_it_was(tmp_path):
    cell = markdown("A line\u2028with a separator, and [a link](../docs/glossary.md).\n")
    assert colab_cell.with_attached_images({"cells": [cell]}, tmp_path)["cells"][0] is cell


def test_the_site_writes_an_attached_picture_beside_the_lesson(tmp_path):
    staged = tmp_path / "notebooks" / "00_x.ipynb"
    encoded = base64.b64encode(PNG).decode()
    cell = markdown("![The map](attachment:map.png)", attachments={"map.png": {"image/png": encoded}})
    assert build_site.detach_attachments(cell, staged) == "![The map](attachments/00_x-map.png)"
    assert (tmp_path / "notebooks" / "attachments" / "00_x-map.png").read_bytes() == PNG
    assert "attachments" not in cell


def test_every_lesson_showing_a_docs_picture_carries_it():
    for lesson in colab_cell.lessons():
        for cell in json.loads(lesson.read_text(encoding="utf-8"))["cells"]:
            text = "".join(cell["source"])
            assert not colab_cell.DOCS_IMAGE.search(text), f"{lesson.name}: run make colab to attach its pictures"
            for name in colab_cell.ATTACHED.findall(text):
                assert name in cell.get("attachments", {}), f"{lesson.name}: {name} is shown but not attached"


def test_lab_settings_set_the_courses_keys_and_keep_every_other(tmp_path):
    path = lab_settings.overrides_path(tmp_path)
    path.parent.mkdir(parents=True)
    mine = {"@jupyterlab/apputils-extension:notification": {"doNotDisturbMode": True}, "other:plugin": {"a": 1}}
    path.write_text(json.dumps(mine))
    lab_settings.write(tmp_path)
    written = json.loads(path.read_text())
    assert written["other:plugin"] == {"a": 1}
    notification = written["@jupyterlab/apputils-extension:notification"]
    assert notification == {"doNotDisturbMode": True, "fetchNews": "false", "checkForUpdates": False}
    assert lab_settings.write(tmp_path) == path and json.loads(path.read_text()) == written
    path.write_text("[]")
    with pytest.raises(SystemExit, match="must be a JSON object"):
        lab_settings.write(tmp_path)


def test_lab_settings_render_every_cell_with_a_windowing_mode_the_installed_jupyterlab_knows():
    """JupyterLab 4's default windowing leaves out cells far from the viewport: scrolling to the end of a long lesson
    sometimes showed a blank notebook area (issue 32, lesson 01's walk). The course asks for every cell rendered."""
    schema = Path(sys.prefix, "share", "jupyter", "lab", "schemas", "@jupyterlab", "notebook-extension", "tracker.json")
    tracker = lab_settings.OVERRIDES["@jupyterlab/notebook-extension:tracker"]
    properties = json.loads(schema.read_text())["properties"]
    valid = {choice["const"] for choice in properties["windowingMode"]["oneOf"]}
    assert tracker["windowingMode"] == "none" and tracker["windowingMode"] in valid, valid
    # scrolled to its end, a lesson shows its last cell, not an empty panel past it
    assert tracker["scrollPastEnd"] is False and properties["scrollPastEnd"]["type"] == "boolean"


# region Presenter mode (make present): the lessons' links to docs/ in Voila


def test_make_present_runs_the_launcher_that_serves_the_docs_pages():
    recipe = subprocess.run(["make", "-n", "present"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "tools/present.py" in recipe


def test_a_docs_route_names_only_a_page_or_a_picture_directly_in_docs(tmp_path):
    (tmp_path / "glossary.md").write_text("# Glossary\n")
    (tmp_path / "map.png").write_bytes(PNG)
    (tmp_path / "notes.txt").write_text("x")
    assert present.doc_file("glossary.md", tmp_path) == tmp_path / "glossary.md"
    assert present.doc_file("map.png", tmp_path) == tmp_path / "map.png"
    for refused in ("notes.txt", "missing.md", "../pyproject.toml", ".hidden.md", "sub/x.md"):
        assert present.doc_file(refused, tmp_path) is None, refused


def test_a_docs_page_is_rendered_and_its_lesson_links_point_at_voilas_pages():
    page = present.doc_page("# Glossary\n\nSee [lesson 01](../notebooks/01_contract_and_store.ipynb).\n", "Glossary")
    assert re.search(r"<h1[^>]*>Glossary", page) and "<title>Glossary</title>" in page
    assert 'href="../render/01_contract_and_store.ipynb"' in page


@pytest.fixture(scope="module")
def presenter():
    """``make present``'s launcher on loopback (no notebook is rendered: the docs routes need no kernel)."""
    port = free_port()
    command = [sys.executable, str(ROOT / "tools" / "present.py"), "--no-browser", f"--port={port}"]
    server = subprocess.Popen([*command, "--Voila.ip=127.0.0.1"], cwd=ROOT, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{url}/voila/docs/glossary.md", seconds=60)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.timeout(120)
def test_every_lessons_docs_link_opens_a_page_in_voila(presenter):
    """Each ``../docs/...`` link of a lesson, resolved from the lesson's Voila page, answers with the page."""
    links = set()
    for path in colab_cell.lessons():
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                found = re.findall(r"\]\((\.\./docs/[^)\s#]+)", "".join(cell["source"]))
                links.update((path.name, link) for link in found)
    assert ("00_setup_and_backends.ipynb", "../docs/glossary.md") in links
    for lesson, link in sorted(links):
        with urllib.request.urlopen(urljoin(f"{presenter}/voila/render/{lesson}", link), timeout=30) as answer:
            body = answer.read()
            assert answer.status == 200, (lesson, link)
        if link.endswith(".md"):
            assert answer.headers["Content-Type"].startswith("text/html") and b"<h1" in body, (lesson, link)
    with pytest.raises(urllib.error.HTTPError, match="404"):
        urllib.request.urlopen(f"{presenter}/voila/docs/missing.md", timeout=30)


def test_the_readme_page_points_its_lesson_links_at_voilas_pages():
    readme = "# Course\n\nOpen [lesson 01](notebooks/01_contract_and_store.ipynb).\n"
    page = present.doc_page(readme, "Course", "render/")
    assert 'href="render/01_contract_and_store.ipynb"' in page


@pytest.mark.timeout(120)
def test_a_lessons_readme_link_opens_the_readme_in_voila(presenter):
    """Each ``../README.md`` link of a lesson, resolved from its Voila page, answers with the README as a page."""
    links = set()
    for path in colab_cell.lessons():
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown" and "](../README.md" in "".join(cell["source"]):
                links.add(path.name)
    assert "03_provider_and_two_desks.ipynb" in links
    for lesson in sorted(links):
        page = urljoin(f"{presenter}/voila/render/{lesson}", "../README.md")
        with urllib.request.urlopen(page, timeout=30) as answer:
            body = answer.read().decode()
            assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/html"), lesson
        assert re.search(r"<h1[^>]*>Agent memory", body), lesson
        glossary = re.search(r'href="(docs/glossary\.md)"', body)  # the README's own links resolve from there
        assert glossary, "the README links the glossary"
        with urllib.request.urlopen(urljoin(page, glossary.group(1)), timeout=30) as answer:
            assert answer.status == 200


# region The README's first screen offline


def test_the_readmes_first_screen_shows_no_remote_image():
    """A badge fetched from colab or mybinder shows its alt text offline; the first screen links in words."""
    first_screen = build_site.student_part((ROOT / "README.md").read_text(encoding="utf-8"))
    remote = re.findall(r"!\[[^\]]*\]\((https?://[^)]+)\)|<img[^>]+src=\"(https?://[^\"]+)", first_screen)
    assert not remote, f"the README's first screen loads remote images: {remote}"
    assert re.search(r"\[Open lesson 01 in Colab\]\(https://colab\.research\.google\.com/", first_screen)
    assert re.search(r"\[launch every lesson on Binder\]\(https://mybinder\.org/", first_screen)
