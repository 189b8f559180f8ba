"""A student's first open of JupyterLab, started with `make lab`'s own flags, in headless Chromium.

The flags are read from the Makefile's ``LAB_FLAGS`` line, and JupyterLab gets empty user settings and workspaces
(a first open): so the test sees what ``make lab`` shows a student who never opened it. It checks that

* no first-run dialog covers the lesson (the "official Jupyter news" question: the course's overrides.json in
  .venv answers it, ``tools/lab_settings.py``);
* lesson 00's stored tables are left-aligned before anything runs (JupyterLab drops the style of an untrusted
  notebook's stored output: `make lab` signs the lessons first, ``make trust``, and the fixture does the same);
* lesson 00's course map is a picture, not its alt text;
* lesson 00's glossary link opens the glossary, with no 404 in the server's log;
* the freshly opened lesson is not marked as changed (JupyterLab writes the kernel's spec into a notebook whose
  stored one differs: tests/test_student_path.py checks every lesson's file for that cause).

Chromium and Playwright as in tests/test_browser.py (Debian's chromium; no browser is downloaded).
"""

import os
import re
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.test_browser import CHROMIUM, CHROMIUM_FLAGS, VIEWPORT, free_port

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
LESSON = "notebooks/00_setup_and_backends.ipynb"
NEWS_QUESTION = "official Jupyter news"

if CHROMIUM is None:
    pytestmark = pytest.mark.skip(reason="no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)")


def lab_flags(makefile: Path = ROOT / "Makefile") -> list[str]:
    """The flags `make lab` gives JupyterLab, from the Makefile's ``LAB_FLAGS :=`` line."""
    line = next(line for line in makefile.read_text().splitlines() if line.startswith("LAB_FLAGS :="))
    return shlex.split(line.split(":=", 1)[1])


def test_make_lab_serves_the_repository_and_opens_on_the_lessons():
    flags = lab_flags()
    assert "--ServerApp.root_dir=." in flags and "--LabApp.default_url=/lab/tree/notebooks" in flags
    make_lab = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "LAB_FLAGS" not in make_lab and " ".join(flags) in make_lab


def test_make_lab_signs_the_lessons_with_the_key_jupyterlab_checks():
    notary = next(flag for flag in lab_flags() if flag.startswith("--NotebookNotary.data_dir="))
    key_dir = notary.split("=", 1)[1]
    make_lab = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    trust = next(line for line in make_lab.splitlines() if " trust " in line)
    assert trust.startswith(f"JUPYTER_DATA_DIR={key_dir} ") and "notebooks/[0-9]*.ipynb" in trust
    assert make_lab.index(trust) < make_lab.index(" lab "), "the lessons are signed before JupyterLab starts"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab as `make lab` starts it, on loopback, no token, with a fresh user's settings."""
    home = tmp_path_factory.mktemp("student")
    subprocess.run(["make", "--no-print-directory", "trust"], cwd=ROOT, check=True, capture_output=True)
    port = free_port()
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
    }
    command = [
        str(Path(sys.executable).parent / "jupyter"),
        "lab",
        *lab_flags(),
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.token=",
        "--allow-root",
    ]
    log_path = home / "lab.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 90
            while True:
                try:
                    urllib.request.urlopen(f"{url}/api/status", timeout=5)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"JupyterLab did not answer at {url}") from None
                    time.sleep(0.5)
            yield url, log_path
        finally:
            server.terminate()
            server.wait(timeout=30)


@pytest.mark.timeout(240)
def test_first_open_shows_no_dialog_the_course_map_and_a_working_glossary_link(lab):
    from playwright.sync_api import expect, sync_playwright

    url, log_path = lab
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{url}/lab/tree/{LESSON}", timeout=120_000)
        course_map = page.locator(".jp-RenderedMarkdown img[alt^='The course map']").first
        expect(course_map).to_be_visible(timeout=120_000)
        page.wait_for_function("img => img.complete && img.naturalWidth > 100", arg=course_map.element_handle())
        page.wait_for_timeout(3000)  # JupyterLab asks its first-run question a moment after the page loads
        page.screenshot(path=str(ARTIFACTS / "lab_first_open.png"))
        stored_cell = page.locator(".jp-OutputArea-output td").first
        assert stored_cell.evaluate("cell => getComputedStyle(cell).textAlign") == "left", (
            "the stored tables lost their style before Run All: JupyterLab does not trust the lesson"
        )
        assert page.get_by_text(NEWS_QUESTION).count() == 0, "the Jupyter news question covers the lesson"
        assert page.locator(".jp-Dialog").count() == 0, "a dialog covers the lesson on first open"
        page.get_by_text("| Idle").first.wait_for(timeout=120_000)  # the kernel is connected: its spec is known
        page.wait_for_timeout(1000)
        tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current").first
        assert "jp-mod-dirty" not in (tab.get_attribute("class") or ""), (
            "the lesson's tab shows unsaved changes right after opening: JupyterLab rewrote its stored metadata"
        )
        page.locator(".jp-RenderedMarkdown a", has_text="glossary").first.click()
        expect(page.locator(".jp-RenderedMarkdown h1", has_text="Glossary").first).to_be_visible(timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / "lab_glossary.png"))
        browser.close()
    not_found = [line for line in log_path.read_text().splitlines() if re.search(r"\b404 GET\b", line)]
    assert not not_found, f"JupyterLab answered 404: {not_found}"


@pytest.mark.timeout(240)
def test_a_long_lesson_scrolled_to_its_end_shows_its_last_cell(lab):
    """Scrolled to the end, lesson 01 showed an empty panel (issue 32): the last cell was scrolled off the top
    (``scrollPastEnd``) or not rendered (windowing). The course's settings turn both off: the last cell shows."""
    from playwright.sync_api import sync_playwright

    url, _ = lab
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{url}/lab/tree/notebooks/01_contract_and_store.ipynb", timeout=120_000)
        lesson = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)", has_text="Lesson 01").first
        lesson.locator(".jp-Cell").first.wait_for(timeout=120_000)  # an earlier test's lesson may be open behind it
        page.wait_for_timeout(2000)
        scroller = lesson.locator(".jp-WindowedPanel-outer").first
        scroller.evaluate("outer => { outer.scrollTop = outer.scrollHeight; }")
        page.wait_for_timeout(1500)
        panel = scroller.bounding_box()
        last = lesson.locator(".jp-Cell").last.bounding_box()
        page.screenshot(path=str(ARTIFACTS / "lab_lesson_end.png"))
        browser.close()
    assert panel is not None and last is not None, "the lesson's last cell is not rendered"
    assert last["y"] + last["height"] > panel["y"] + 100, "scrolled to its end, the lesson shows no cell"


@pytest.mark.timeout(240)
def test_the_live_settings_file_opens_in_jupyterlab_as_lesson_00_says(lab):
    """Lesson 00's re-walk: "File > Open from Path... and type .env" answered "Could not find path: .env" (Jupyter
    Server hides dot files). `make lab` serves them, so the route lesson 00 gives works; .env.example stands in."""
    url, _ = lab
    with urllib.request.urlopen(f"{url}/api/contents/.env.example?content=1", timeout=30) as answer:
        assert answer.status == 200 and b"COURSE_LLM" in answer.read()
