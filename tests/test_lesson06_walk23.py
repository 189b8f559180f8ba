"""Lesson 06, walk 23 (issue 32): "density, not errors".

6. Section 4's "For that round the loop has no feedback text to record there" referred back unclearly: it names the
   iteration whose explicit messages leave no feedback text, and the table row that shows it.
7. "The code below asks `make_chat_client` for each model by the course's job name for a model (here: worker and
   judge)" was confusing: one plain sentence, which says what each of the two models does.
8. Section 7 said "here it stops after three runs" without the rule: it says what stops the middleware's loop
   (`should_continue` is `iteration < 3`), and the cell's comment says the same; both true of the run.
9. The intro linked the glossary's LoopAgentOptions entry before saying what the options are: it says it in words
   first, and the link opens the glossary at that row under `make lab` (JupyterLab, checked in Chromium).
10. `asked` was section 3's list of questions to an evaluator and, in section 6, a count: section 6's is renamed.
"""

from __future__ import annotations

import re

import pytest
from support.lesson_cells import cell_outputs, cell_source, plain_words, stored_lesson, words

from course_lib.loop_demos import run_middleware_demo
from tests.test_lab import lab  # noqa: F401  (the fixture: JupyterLab as `make lab` starts it, for finding 9)

# region 6. Section 4 names the iteration


def test_section_4_names_the_iteration_whose_messages_leave_no_feedback_text():
    said = words(cell_source("06", "cell-11"))
    assert "For that round" not in said
    assert (  # split in two by the second walk 23 (tests/test_lesson06_second_walk23.py)
        "At iteration 1 this evaluator sends messages instead of a feedback text. The feedback log still gets an "
        "entry for that iteration, with no text, so at iteration 2 the evaluator sees that entry" in said
    )
    assert "if context.iteration == 1:" in cell_source("06", "cell-12")
    table = cell_outputs("06", "cell-12")  # the evaluator's log: empty at 1, the explicit re-run's entry at 2
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.DOTALL)
    second = next(row for row in rows if re.search(r">\s*2\s*<", row))
    assert "no feedback: explicit messages" in second


# endregion

# region 7. One plain sentence on make_chat_client


def test_section_5_says_in_one_plain_sentence_what_make_chat_client_gives():
    section_5 = plain_words(cell_source("06", "8f908dd8"))
    assert (
        "The code below gets both models from `make_chat_client`, the course's model factory, each by the course's "
        'job name for a model: `"worker"` writes the note and `"judge"` judges it.' in section_5
    )
    assert "asks `make_chat_client` for each model" not in section_5
    code = cell_source("06", "cell-14")
    assert 'make_chat_client("judge"' in code and 'make_chat_client("worker"' in code


# endregion

# region 8. What stops the middleware's loop


async def test_section_7_says_what_stops_the_middlewares_loop_and_it_is_true():
    said = words(cell_source("06", "cell-15"))
    # walk 24 (tests/test_lesson05_06_second_walk24.py): a pass of the agent is an iteration
    assert "Here `should_continue` is `iteration < 3`" in said and "after the third iteration it returns false" in said
    assert "here it stops after three runs" not in said
    code = cell_source("06", "cell-16")
    assert "# run_middleware_demo: the middleware's should_continue is iteration < 3,\n" in code
    assert "# so the agent runs 3 times, then the loop stops" in code
    trace, _ = await run_middleware_demo(with_session=True)
    assert len(trace.calls) == 3
    assert "Its ``should_continue`` is ``iteration < allowed``" in (run_middleware_demo.__doc__ or "")


# endregion

# region 9. The options in words before the glossary link, and the link lands on its row


def test_the_intro_says_what_the_options_are_before_linking_their_glossary_entry():
    top = words(cell_source("06", "cell-00"))
    defined = top.index("The loop's *options* are its settings")
    linked = top.index("[LoopAgentOptions entry](../docs/glossary.md#loopagentoptions)")  # walk 24's words
    assert defined < linked
    assert "`LoopAgentOptions` holds them all." in top  # walk 24: lesson 05's first table is not named again


@pytest.mark.timeout(300)
def test_under_make_lab_the_link_opens_the_glossary_at_the_loop_agent_options_row(lab):  # noqa: F811
    from playwright.sync_api import expect, sync_playwright

    from tests.test_lab import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS, VIEWPORT

    url, _ = lab
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{url}/lab/tree/notebooks/06_loop_options_compared.ipynb", timeout=120_000)
        lesson = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)", has_text="Lesson 06").first
        link = lesson.locator(".jp-RenderedMarkdown a", has_text="LoopAgentOptions entry").first
        link.wait_for(timeout=120_000)
        link.click()
        viewer = page.locator(".jp-MarkdownViewer:not(.lm-mod-hidden)").first
        expect(viewer.locator("h1", has_text="Glossary")).to_be_attached(timeout=60_000)
        page.wait_for_timeout(2500)  # JupyterLab scrolls to the fragment once the page is rendered
        row = viewer.locator("tr", has=page.locator("td", has_text="the loop's settings:")).first
        expect(row).to_be_in_viewport(timeout=30_000)
        assert "LoopAgentOptions" in row.inner_text()
        top, at = viewer.bounding_box(), row.bounding_box()
        assert top and at and 0 <= at["y"] - top["y"] < 150, (top, at)  # at the top of the page, not just on screen
        page.screenshot(path=str(ARTIFACTS / "lab_glossary_loopagentoptions_walk23.png"))
        browser.close()


# endregion

# region 10. One name, one meaning: `asked`


def test_asked_is_only_section_3s_list_of_questions_to_an_evaluator():
    cells = [c for c in stored_lesson("06")["cells"] if c["cell_type"] == "code"]
    assigned = [c.get("id") for c in cells if re.search(r"\basked\b[^=\n]*=(?!=)", "".join(c["source"]))]
    assert assigned == ["cell-10", "cell-26"]  # section 3's list, and exercise 3 starting it afresh
    assert "[]" in re.search(r"asked = (.*)", cell_source("06", "cell-26")).group(1)
    budgets = cell_source("06", "239ee7f8")
    assert "calls, evaluations = len(budget_trace.calls), budget_trace.evaluations" in budgets
    assert '"evaluator asked": evaluations' in budgets


# endregion
