"""The four panels in real headless Chromium, served by Voila on loopback and driven by Playwright.

One small notebook shows the memory panel, the desk panel, the loop stepper and the policy explorer; Voila
starts once for the module and one page serves every test, so the four panels cost one kernel start.
Each test clicks one panel as a student would and keeps a screenshot of it in ``tests/artifacts/``.

Chromium comes from Debian's package (``.ci/run`` installs it); Playwright only drives it through
``executable_path``, it downloads no browser. Outside CI the tests skip, saying why, when no Chromium is
found; in CI a missing Chromium is a failure.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
VIEWPORT = {"width": 1200, "height": 900}
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
# One cell per panel; each panel gets a class so a test finds it (the desk panel holds a memory panel too).
PANEL_CELLS = [
    """\
from course_lib.memory_models import OfflineWriterClient
from course_lib.extraction import ChatFactWriter, MemoryExtraction
from course_lib.loop_demos import run_seed_demo
from course_lib.memory import WorkingMemory
from course_lib.policies import generate_timeline
from course_lib.providers import course_provider_desks
from course_lib.tracing import CallLog
from course_lib.loop_panels import LoopStepper
from course_lib.widgets import DeskPanel, MemoryPanel, PolicyExplorer

memory = MemoryPanel(MemoryExtraction(WorkingMemory(), ChatFactWriter(OfflineWriterClient())))
memory.add_class("browser-memory")
memory""",
    """\
desk = DeskPanel(course_provider_desks(CallLog(), ("triage", "operations")))
desk.add_class("browser-desk")
desk""",
    """\
trace, _ = await run_seed_demo()
stepper = LoopStepper(trace)
stepper.add_class("browser-stepper")
stepper""",
    """\
explorer = PolicyExplorer(generate_timeline(4))
explorer.add_class("browser-explorer")
explorer""",
]

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


def show_whole(page) -> None:
    """Grow the window to the page's content, so a screenshot holds it whole.

    Voila's page scrolls inside ``#rendered_cells``, not the document: a full-page screenshot would stop at
    the window's bottom, and an element below it would be cut there.
    """
    content = page.evaluate(
        "() => Math.max(...[document.body, ...document.querySelectorAll('#rendered_cells')].map(e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": VIEWPORT["width"], "height": max(VIEWPORT["height"], min(content + 40, 12_000))})


def screenshot(page, target, name: str) -> None:
    show_whole(page)
    target.screenshot(path=str(ARTIFACTS / name), **({"full_page": True} if target is page else {}))


@contextmanager
def voila(cwd: Path, *arguments: str, env: dict[str, str] | None = None):
    """Voila serving ``arguments`` (a notebook or a folder, and options) from ``cwd`` on a free port of 127.0.0.1.

    Yields its base URL once it answers; stops it afterwards. Its log is ``voila.log`` in the temporary folder.
    """
    port = free_port()
    command = [sys.executable, "-m", "voila", *arguments, "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"]
    with tempfile.TemporaryDirectory() as logs, open(Path(logs) / "voila.log", "w") as log:
        server = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            url = f"http://127.0.0.1:{port}/"
            wait_for(url)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)


@contextmanager
def chromium_page(url: str, ready: str, seconds: float = 120):
    """A headless Chromium page on ``url``, yielded once the element ``ready`` (a CSS selector) is shown."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(url, timeout=seconds * 1000)
            page.locator(ready).wait_for(timeout=seconds * 1000)
            yield page
        finally:
            browser.close()


def write_notebook(folder: Path, name: str, cells: Sequence[str]) -> None:
    """A notebook of ``cells`` (code), with the python3 kernel, written to ``folder / name`` for Voila to serve."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / name)


@contextmanager
def voila_cell_page(folder: Path, cell: str, ready: str):
    """One code cell served by Voila from ``folder`` and opened in headless Chromium, yielded once ``ready`` shows
    (the stepper walks' fixtures: one panel, its own server). Skips when no Chromium is installed."""
    if CHROMIUM is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)")
    write_notebook(folder, "cell.ipynb", [cell])
    with voila(folder, "cell.ipynb") as url, chromium_page(url, ready) as page:
        yield page


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("voila")
    write_notebook(folder, "panels.ipynb", PANEL_CELLS)
    with voila(folder, "panels.ipynb") as url:
        yield url


@pytest.fixture(scope="module")
def page(voila_url):
    """One page for the module: the notebook runs once, every test clicks its own panel."""
    with chromium_page(voila_url, ".browser-explorer") as page:  # the last cell: every panel is shown
        page.locator(".browser-stepper h4").wait_for(timeout=60_000)
        # what a student sees before touching anything (tests may run in any order after this)
        page.initial = {
            name: page.locator(f".browser-{name}").inner_text() for name in ("memory", "desk", "stepper", "explorer")
        }
        yield page


@pytest.mark.timeout(240)
def test_memory_panel_forgets_one_key_and_explains_a_refused_declaration(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-memory")
    facts = panel.locator(".memory-panel-facts")
    diagnostic = panel.locator(".memory-panel-diagnostic")
    forget_key = panel.get_by_role("button", name="Forget key")
    expect(forget_key).to_be_disabled()
    panel.locator(".memory-panel-message textarea").fill("module=Billing; database=SQL Server 2022")
    panel.get_by_role("button", name="Submit").click()
    expect(facts).to_contain_text("SQL Server 2022", timeout=60_000)
    expect(facts).to_contain_text("Billing")
    expect(panel.locator("select")).to_have_value("choose a key")  # nothing preselected
    expect(panel.locator("select option").first).to_have_text("choose a key")
    expect(forget_key).to_be_disabled()  # until a key is chosen
    expect(panel).to_contain_text("Pick a key in the Key list, then click Forget key")  # an instruction (walk 24)
    panel.locator("select").select_option("module")
    expect(forget_key).to_be_enabled()
    forget_key.click()
    expect(diagnostic).to_contain_text("Forgot module", timeout=60_000)
    expect(facts).not_to_contain_text("Billing")
    expect(facts).to_contain_text("SQL Server 2022")
    panel.locator(".memory-panel-message textarea").fill("Module=Reporting; owner=alice")
    panel.get_by_role("button", name="Submit").click()
    expect(diagnostic).to_contain_text("(keys are case-sensitive): write 'module'", timeout=60_000)
    expect(diagnostic).to_contain_text("'owner' is not an allowed key")
    expect(facts).not_to_contain_text("Reporting")
    expect(facts).to_contain_text("SQL Server 2022")
    screenshot(page, panel, "memory_panel.png")


@pytest.mark.timeout(240)
def test_desk_panel_sends_on_enter_refuses_a_bad_forget_in_words_and_forgets_one_key(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-desk")
    line = panel.locator(".widget-text input")
    memory = panel.locator(".memory-panel-facts")
    error_words = panel.get_by_text("Refused:")
    line.fill("module=Billing; database=SQL Server 2022")
    line.press("Enter")
    expect(panel).to_contain_text("[triage]", timeout=60_000)
    expect(memory).to_contain_text("Billing", timeout=60_000)
    line.fill("forget nonexistent")
    panel.get_by_role("button", name="Send").click()
    expect(error_words).to_be_visible(timeout=60_000)
    expect(panel).to_contain_text("Cannot forget 'nonexistent': it is not one of the allowed keys")
    expect(line).to_have_value("forget nonexistent")  # the refused line stays in the box to correct
    expect(memory).to_contain_text("Billing")
    screenshot(page, panel, "desk_panel_refused.png")
    panel.locator("select").select_option("module")
    panel.get_by_role("button", name="Forget key").click()
    expect(memory).not_to_contain_text("Billing", timeout=60_000)
    expect(memory).to_contain_text("SQL Server 2022")
    expect(panel.locator(".memory-panel-diagnostic")).to_contain_text("Forgot 'module' (1 removed)")
    expect(error_words).to_be_hidden()  # the status is the latest action's: the earlier refusal is gone
    screenshot(page, panel, "desk_panel.png")


@pytest.mark.timeout(240)
def test_loop_stepper_moves_through_the_trace(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-stepper")
    previous, following = panel.get_by_role("button", name="Previous"), panel.get_by_role("button", name="Next")
    expect(panel).to_contain_text("Step 1 of 6: the model (LLM), call 1", timeout=60_000)
    expect(previous).to_be_disabled()
    following.click()
    expect(panel).to_contain_text("Step 2 of 6: the evaluator, iteration 1 (after call 1)", timeout=60_000)
    expect(panel).to_contain_text("Feedback for iteration 1")
    expect(previous).to_be_enabled()
    screenshot(page, panel, "loop_stepper.png")
    previous.click()
    expect(panel).to_contain_text("Step 1 of 6: the model (LLM), call 1", timeout=60_000)
    expect(previous).to_be_disabled()


@pytest.mark.timeout(240)
def test_policy_explorer_refuses_an_empty_selection_and_draws_one_plot(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-explorer")
    policies = panel.locator("select[multiple]")
    run = panel.get_by_role("button", name="Run")
    policies.select_option([])
    expect(run).to_be_disabled(timeout=60_000)
    expect(panel).to_contain_text("Choose at least one policy to run.")
    plots = panel.locator("img")  # the Image widget: an empty picture until a run draws one
    expect(plots).to_have_count(1)
    assert plots.evaluate("img => img.naturalWidth") == 0
    policies.select_option(["full history", "facts (5)"])
    expect(run).to_be_enabled(timeout=60_000)
    empty = plots.get_attribute("src")
    run.click()
    page.wait_for_function(
        "([img, old]) => img.src !== old && img.complete && img.naturalWidth > 0",
        arg=[plots.element_handle(), empty],
        timeout=120_000,
    )
    expect(panel.locator("table.policy-correctness")).to_contain_text("facts")
    expect(panel.locator("table.policy-correctness")).to_contain_text(
        "yes"
    )  # full history holds the correction of turn 3
    expect(panel).to_contain_text("What a correct answer must contain")  # a requirement, not a result
    expect(panel.locator("table.policy-expectations")).to_contain_text("Billing")  # one required text per line
    expect(plots).to_have_count(1)  # one plot, drawn in place
    assert plots.evaluate("img => img.clientWidth <= img.naturalWidth")  # at its own size, not stretched
    screenshot(page, panel, "policy_explorer.png")


def test_every_panel_starts_fresh(page):
    initial = page.initial
    assert "Ticket: epoch 0 (forgets so far), turn 0 (messages read so far)" in initial["memory"]
    assert "A turn's facts are refused by its ticket" in initial["memory"] and "No facts." in initial["memory"]
    assert "Forgot" not in initial["memory"] and "Refused" not in initial["memory"]
    assert "Type a message and press Enter" in initial["desk"] and "you:" not in initial["desk"]
    assert "Step 1 of 6: the model (LLM), call 1" in initial["stepper"]
    assert "Press Run to compute with rule latest, window 3, fact bound 5." in initial["explorer"]
    assert "correct at turn" not in initial["explorer"]  # no table before a run


@pytest.mark.timeout(240)
def test_the_desk_transcript_follows_the_newest_line_and_refuses_a_bad_declaration_in_words(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-desk")
    line = panel.locator(".widget-text input")
    lines = ["mem", "Where can I find logs?", "module=Reporting", "mem", "Which module am I on?", "mem", "owner=alice"]
    for text in lines:
        line.fill(text)
        line.press("Enter")
        expect(line).to_have_value("", timeout=60_000)
    box = panel.locator(".desk-transcript")
    expect(box).to_contain_text("'owner' is not an allowed key", timeout=60_000)
    expect(box).not_to_contain_text("You asked: 'owner=alice'")
    geometry = box.evaluate(
        """box => {
            const outer = box.getBoundingClientRect(), inner = box.firstElementChild.getBoundingClientRect();
            return {overflows: box.scrollHeight > box.clientHeight + 1, gap: Math.abs(outer.bottom - inner.bottom)};
        }"""
    )
    assert geometry["overflows"], "the transcript should be longer than its box by now"
    assert geometry["gap"] <= 2, f"the newest line is not at the bottom of the box: {geometry}"
    screenshot(page, panel, "desk_panel_transcript.png")


LAB_CELL_WIDTH = 768
"""The width of a notebook cell's output in JupyterLab at 1200x900 with the file browser open (measured, issue 32)."""

OVERFLOW = """panel => {
    const box = panel.getBoundingClientRect();
    const past = [...panel.querySelectorAll('*')].filter(e => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.right > box.right + 1;
    });
    return {
        scroll: panel.scrollWidth - panel.clientWidth,
        past: past.slice(0, 5).map(e => `${e.className}: ${(e.innerText || '').slice(0, 30)}`),
        cut: [...panel.querySelectorAll('button')].filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.innerText),
    };
}"""
"""What of a panel overflows it: how far it scrolls sideways, what reaches past its right edge, which button is cut."""


@pytest.mark.timeout(240)
def test_the_desk_panel_fits_a_cell_as_narrow_as_jupyterlabs_beside_the_file_browser(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-desk")
    line = panel.locator(".widget-text input")
    panel.evaluate(f"panel => panel.style.width = '{LAB_CELL_WIDTH}px'")  # the panel is as wide as its cell
    try:
        line.fill("priority=P1; customer=Fabrikam; version=2.1; environment=production")
        line.press("Enter")
        expect(panel.locator(".memory-panel-facts")).to_contain_text("production", timeout=60_000)
        overflow = panel.evaluate(OVERFLOW)
        screenshot(page, panel, "desk_panel_narrow.png")
        assert overflow == {"scroll": 0, "past": [], "cut": []}, f"the desk panel overflows its cell: {overflow}"
    finally:
        panel.evaluate("panel => panel.style.width = ''")
    assert panel.evaluate(OVERFLOW) == {"scroll": 0, "past": [], "cut": []}, "the desk panel overflows a wide cell"


@pytest.mark.timeout(240)
def test_memory_panel_shortens_a_long_value_and_an_emptied_box_clears_the_result(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-memory")
    diagnostic = panel.locator(".memory-panel-diagnostic")
    box = panel.locator(".memory-panel-message textarea")
    box.fill("symptom=" + "x" * 300)
    panel.get_by_role("button", name="Submit").click()
    expect(diagnostic).to_contain_text("has 300 characters", timeout=60_000)
    expect(diagnostic).to_contain_text("The store is unchanged.")
    assert diagnostic.evaluate("d => d.scrollWidth <= d.clientWidth + 1"), "the message runs off the panel's edge"
    screenshot(page, panel, "memory_panel_long_value.png")
    box.fill("")
    expect(panel.get_by_role("button", name="Submit")).to_be_disabled(timeout=60_000)
    expect(diagnostic).to_have_text("", timeout=60_000)


@pytest.mark.timeout(240)
def test_policy_explorer_labels_follow_the_window_and_a_moved_slider_clears_the_table(page):
    from playwright.sync_api import expect

    panel = page.locator(".browser-explorer")
    policies = panel.locator("select[multiple]")
    policies.select_option(["full history", "facts (5)"])
    expect(panel).to_contain_text("Window changes nothing for the chosen policies", timeout=60_000)
    panel.get_by_role("button", name="Run").click()
    expect(panel.locator("table.policy-correctness")).to_contain_text("yes", timeout=120_000)
    expect(panel).to_contain_text("Computed with rule latest")
    window = panel.locator(".widget-slider").first.locator(".ui-slider-handle, .noUi-handle").first
    window.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(policies).to_contain_text("last 4 turns", timeout=60_000)  # the generated timeline has 4 turns
    expect(policies).to_contain_text("compaction (4 turns)")
    assert policies.evaluate("el => el.scrollWidth <= el.clientWidth"), "a policy name is cut in the select box"
    expect(panel.locator("table.policy-correctness")).to_have_count(0)  # the old table answered other settings
    expect(panel).to_contain_text("Press Run to compute with rule latest, window 4")
    expect(panel).not_to_contain_text("Computed with")
    screenshot(page, panel, "policy_explorer_moved.png")


@pytest.mark.timeout(240)
def test_the_explorers_number_box_reads_only_leading_digits_in_a_real_browser(page):
    """Lesson 04's walk 24: the slider's own box read "0x5" with JavaScript's parseInt, as 5. The box beside it is
    read in the kernel by the rule the note states: "0x5" reads as 0, so the lowest value, 1, which the box shows."""
    from playwright.sync_api import expect

    panel = page.locator(".browser-explorer")
    assert (
        panel.locator(".widget-slider .widget-readout").count() == 0
        or not panel.locator(".widget-slider .widget-readout").first.is_visible()
    )
    box = panel.locator(".widget-text input").first
    box.fill("0x5")
    box.press("Enter")
    expect(box).to_have_value("1", timeout=60_000)
    expect(panel).to_contain_text("window 1 (the smallest it can be)", timeout=60_000)
    box.fill("3")
    box.press("Enter")
    expect(panel).to_contain_text("window 3,", timeout=60_000)


@pytest.mark.timeout(240)
def test_the_full_page_screenshot_holds_every_panel_whole(page):
    """Runs last, when every panel has been used: the page at its longest."""
    import struct

    path = ARTIFACTS / "panels.png"
    screenshot(page, page, path.name)
    height = struct.unpack(">I", path.read_bytes()[20:24])[0]  # the PNG header's height
    for name in ("memory", "desk", "stepper", "explorer"):
        box = page.locator(f".browser-{name}").bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, f"the {name} panel is cut"
