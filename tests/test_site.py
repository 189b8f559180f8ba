"""The website (``make site``) in real headless Chromium: every page, from a folder, with no network.

``make site-test`` runs this file (apart from ``make test``: it builds the site, about 6 s, and opens 14 pages).
The site is built into a temporary folder with ``.venv-site`` (requirements-site.lock) and served from it on
loopback; every request the pages make is routed through the test, and any that would leave the machine fails it.
Each lesson page must show its notebook's headings and tables, a panel its saved widget state, and every image
must load. A screenshot of each page is kept in ``tests/artifacts/site/``.
"""

import functools
import json
import os
import re
import shutil
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "site"
SITE_PYTHON = ROOT / ".venv-site" / "bin" / "python"
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DOCS = sorted((ROOT / "docs").glob("*.md"))
VIEWPORT = {"width": 1280, "height": 900}
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
CHROMIUM_FLAGS += ["--disable-component-update", "--disable-sync", "--disable-quic"]

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("CI must run the site test, but no Chromium was found (install Debian's chromium).")
    pytestmark = [pytest.mark.site, pytest.mark.skip(reason="no Chromium found (apt-get install chromium)")]


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # one line per asset would drown pytest's output
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    assert SITE_PYTHON.exists(), "the site's tools are not installed: run `make site-test`, which installs them"
    out = tmp_path_factory.mktemp("site") / "html"
    subprocess.run([str(SITE_PYTHON), "tools/build_site.py", "--out", str(out)], cwd=ROOT, check=True)
    return out


@pytest.fixture(scope="module")
def base_url(site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


class Visit:
    """One page opened with every request watched: what left the machine, what failed, what the console said."""

    def __init__(self, browser, url: str):
        self.outside: list[str] = []
        self.failed: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.route("**/*", self.route)
        self.page = self.context.new_page()
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} (HTTP {r.status})"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url, wait_until="load", timeout=60_000)  # parsed, its scripts, styles and images loaded
        settled = "() => [...document.images].every(i => i.complete) && document.fonts.status === 'loaded'"
        self.page.wait_for_function(settled, timeout=60_000)  # lazy images and the icon fonts too

    def route(self, route):
        url = urlsplit(route.request.url)
        if url.scheme in {"data", "blob", "about"} or url.hostname == "127.0.0.1":
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def broken_images(self) -> list[str]:
        """Images on screen that did not load; a panel's hidden picture (``display: none``: a fresh explorer has
        none yet) is not on screen, and a browser draws nothing for it."""
        return self.page.evaluate(
            "() => [...document.images].filter(i => i.getClientRects().length > 0)"
            ".filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
        )

    def check_and_close(self, name: str) -> None:
        self.page.evaluate("window.scrollTo(0, 0)")
        self.page.screenshot(path=str(ARTIFACTS / f"{name}_top.png"))  # the first screen: sidebar, launch buttons
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        try:
            assert not self.outside, f"{name}: requests left the machine: {self.outside}"
            assert not self.failed, f"{name}: requests failed: {self.failed}"
            assert not self.errors, f"{name}: the page raised: {self.errors}"
            assert not self.broken_images(), f"{name}: images did not load: {self.broken_images()}"
        finally:
            self.context.close()


def headings(markdown: str) -> list[str]:
    """A markdown cell's headings as the page shows them (inline code and emphasis marks dropped)."""
    found = re.findall(r"^#{1,3}\s+(.+?)\s*$", markdown, re.MULTILINE)
    return [plain(h) for h in found]


def plain(text: str) -> str:
    """Text as compared: markup and the heading's link mark dropped, Sphinx's typographic quotes made straight."""
    return (
        re.sub(r"[`*_#¶]", "", text)
        .replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .strip()
    )


def lesson_facts(path: Path) -> tuple[list[str], int, list[str]]:
    """A lesson's headings, the number of tables its stored outputs hold, and the buttons its saved panels show."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in notebook["cells"] if "remove-cell" not in c["metadata"].get("tags", [])]
    titles = [h for c in cells if c["cell_type"] == "markdown" for h in headings("".join(c["source"]))]
    outputs = [o for c in cells for o in c.get("outputs", [])]
    tables = sum("".join(o.get("data", {}).get("text/html", "")).count("<table") for o in outputs)
    state = notebook["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    models = state.get("state", {})
    views = [o.get("data", {}).get("application/vnd.jupyter.widget-view+json") for o in outputs]
    shown = [v["model_id"] for v in views if v and v["model_id"] in models]
    buttons = []
    todo = list(shown)
    while todo:
        model = models[todo.pop(0)]
        if model["model_name"] == "ButtonModel" and model["state"].get("description"):
            buttons.append(model["state"]["description"])
        todo += [c.removeprefix("IPY_MODEL_") for c in model["state"].get("children", [])]
    return titles, tables, buttons


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_page_shows_its_headings_tables_and_saved_panels_with_no_network(browser, base_url, lesson):
    from playwright.sync_api import expect

    titles, tables, buttons = lesson_facts(lesson)
    visit = Visit(browser, f"{base_url}notebooks/{lesson.stem}.html")
    page = visit.page
    article = page.locator("article")
    try:
        shown = [plain(t) for t in article.locator("h1, h2, h3").all_inner_texts()]
        assert titles and all(t in shown for t in titles), f"headings missing: {set(titles) - set(shown)}"
        assert article.locator("table").count() >= tables
        colab = page.locator(f"a[href$='/blob/main/notebooks/{lesson.name}']")
        assert colab.count() >= 1 and "colab" in colab.first.get_attribute("href")
        assert article.get_by_text("Google Colab only (elsewhere", exact=False).count() == 0, "the Colab cell shows"
        if buttons:  # a panel: the widget manager drew its saved state, buttons and all
            button = article.get_by_role("button", name=buttons[0]).first
            expect(button).to_be_visible(timeout=60_000)
            inner = page.get_by_role("button", name=buttons[0])  # queried inside each box
            panel = article.locator(".cell_output .widget-box", has=inner).first  # the panel's outermost box
            expect(panel).to_be_visible()
            panel.screenshot(path=str(ARTIFACTS / f"{lesson.stem}_panel.png"))
    finally:
        visit.check_and_close(lesson.stem)


def test_the_home_page_is_the_readme_and_lists_every_lesson_in_order(browser, base_url):
    visit = Visit(browser, base_url)
    try:
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        title = re.search(r"^#\s+(.+)$", readme, re.MULTILINE).group(1).strip()
        assert title in visit.page.locator("article h1").first.inner_text()
        sidebar = [plain(t) for t in visit.page.locator("nav.bd-links a").all_inner_texts()]
        lesson_titles = [lesson_facts(p)[0][0] for p in LESSONS]
        assert [t for t in sidebar if t in lesson_titles] == lesson_titles
    finally:
        visit.check_and_close("index")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.stem)
def test_every_docs_page_renders_its_headings_and_tables(browser, base_url, doc):
    text = doc.read_text(encoding="utf-8")
    visit = Visit(browser, f"{base_url}docs/{doc.stem}.html")
    try:
        shown = [plain(t) for t in visit.page.locator("article h1, article h2").all_inner_texts()]
        top = [plain(h) for h in re.findall(r"^#{1,2}\s+(.+?)\s*$", text, re.MULTILINE)]
        assert top and all(h in shown for h in top), f"headings missing: {set(top) - set(shown)}"
        rows = len(re.findall(r"^\|\s*-", text, re.MULTILINE))
        assert visit.page.locator("article table").count() == rows
    finally:
        visit.check_and_close(f"docs_{doc.stem}")


def test_the_site_works_from_a_folder_with_no_server(browser, site):
    """Opened as files (file://), a lesson with a panel still draws it: nothing needs a server or a network."""
    lesson = next(p for p in LESSONS if lesson_facts(p)[2])
    context = browser.new_context(viewport=VIEWPORT)
    outside: list[str] = []
    context.route(
        "**/*",
        lambda r: (outside.append(r.request.url), r.abort()) if r.request.url.startswith("http") else r.continue_(),
    )
    page = context.new_page()
    page.goto((site / "notebooks" / f"{lesson.stem}.html").as_uri(), wait_until="load", timeout=60_000)
    try:
        button = lesson_facts(lesson)[2][0]
        page.get_by_role("button", name=button).first.wait_for(timeout=60_000)
        assert not outside, f"requests left the machine: {outside}"
    finally:
        context.close()
