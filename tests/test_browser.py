"""The memory panel in real headless Chromium, served by Voila on loopback and driven by Playwright.

Chromium comes from Debian's package (``.ci/run`` installs it); Playwright only drives it through
``executable_path``, it downloads no browser. Outside CI the test skips, saying why, when no Chromium is
found; in CI a missing Chromium is a failure.
"""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PANEL_NOTEBOOK = """\
from course_lib.clients import OfflineWriterClient
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.memory import WorkingMemory
from course_lib.widgets import MemoryPanel

panel = MemoryPanel(MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient())))
panel
"""

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("CI must run the browser test, but no Chromium was found (install Debian's chromium).")
    pytestmark = pytest.mark.skip(reason="no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"Voila did not answer at {url} within {seconds} s")


@pytest.fixture
def voila_url(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PANEL_NOTEBOOK)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "panel.ipynb")
    port = free_port()
    command = [sys.executable, "-m", "voila", "panel.ipynb", "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"]
    with open(tmp_path / "voila.log", "w") as log:
        server = subprocess.Popen(command, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/"
            wait_for(url)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


@pytest.mark.timeout(240)
def test_memory_panel_submit_and_forget_in_a_real_browser(voila_url):
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(voila_url, timeout=120_000)
        message = page.locator(".memory-panel-message textarea")
        message.wait_for(timeout=120_000)
        message.fill("module=Billing; database=SQL Server 2022")
        page.get_by_role("button", name="Submit").click()
        facts = page.locator(".memory-panel-facts table")
        expect(facts).to_contain_text("SQL Server 2022", timeout=60_000)
        expect(facts).to_contain_text("Billing")
        page.locator("select").select_option("module")
        page.get_by_role("button", name="Forget key").click()
        expect(facts).not_to_contain_text("Billing", timeout=60_000)
        expect(facts).to_contain_text("SQL Server 2022")
        expect(page.locator(".memory-panel-diagnostic")).to_contain_text("Forgot 'module'")
        page.screenshot(path=str(ARTIFACTS / "memory_panel.png"), full_page=True)
        browser.close()
