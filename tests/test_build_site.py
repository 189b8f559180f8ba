"""The website's page rules (tools/build_site.py), checked without building it: which part of the README is the
home page, and where each kind of link points. ``make site-test`` builds the site and opens it in Chromium."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402

REPO = "https://github.com/o/n"
PAGES = {"README.md", "notebooks/01_contract_and_store.ipynb", "docs/seed-claims.md"}


def rewrite(text: str, source: str) -> tuple[str, set[str]]:
    images: set[str] = set()
    return build_site.rewrite_links(text, source, PAGES, REPO, images), images


def test_the_home_page_is_the_readme_above_the_marker_or_all_of_it():
    readme = f"# Course\n\nFor students.\n\n{build_site.STUDENT_PART_END}\n\n## For maintainers\n"
    assert build_site.student_part(readme) == "# Course\n\nFor students.\n"
    assert build_site.student_part("# Course\n\nAll.\n") == "# Course\n\nAll.\n"


def test_links_between_pages_stay_relative_and_the_readme_becomes_the_home_page():
    text, _ = rewrite("[claims](../docs/seed-claims.md) and [home](../README.md)", "notebooks/01_x.ipynb")
    assert text == "[claims](../docs/seed-claims.md) and [home](../index.md)"
    # a claim's row is an <a id> in a table, not a heading: the link is written as HTML, still relative
    text, _ = rewrite("[claim F01](../docs/seed-claims.md#f01)", "notebooks/01_x.ipynb")
    assert text == '<a href="../docs/seed-claims.html#f01">claim F01</a>'
    text, _ = rewrite("[lesson 01](notebooks/01_contract_and_store.ipynb)", "README.md")
    assert text == "[lesson 01](notebooks/01_contract_and_store.ipynb)"


def test_links_to_other_repository_files_point_at_the_host_and_the_rest_is_left_alone():
    text, _ = rewrite(
        "[memory](course_lib/memory.py), [data](data), [web](https://x.org), [gone](nope.py)", "README.md"
    )
    assert text == (
        f"[memory]({REPO}/blob/main/course_lib/memory.py), [data]({REPO}/tree/main/data), "
        "[web](https://x.org), [gone](nope.py)"
    )


def test_a_local_image_is_kept_and_copied():
    text, images = rewrite("![costs](../benchmarks/policy_costs.png)", "docs/x.md")
    assert text == "![costs](../benchmarks/policy_costs.png)"
    assert images == ({"benchmarks/policy_costs.png"} if (ROOT / "benchmarks/policy_costs.png").exists() else set())


def test_a_readme_anchor_cut_from_the_home_page_points_at_the_readme_on_the_host():
    home = "# Course\n\n## Two commands\n\nSee [two](#two-commands) and [instructors](#for-instructors).\n"
    assert build_site.cut_anchors(home, REPO) == home.replace(
        "(#for-instructors)", f"({REPO}/blob/main/README.md#for-instructors)"
    )


def test_a_remote_image_becomes_its_alt_text_and_its_link_stays():
    badge = "[![Open in Colab](https://colab.example/badge.svg)](https://colab.example/github/o/n) and "
    html = '<a href="https://x.org"><img alt="Binder" src="https://x.org/b.svg"></a>'
    text, images = rewrite(badge + html, "README.md")
    assert text == '[Open in Colab](https://colab.example/github/o/n) and <a href="https://x.org">Binder</a>'
    assert images == set()


def test_a_link_to_an_explicit_id_of_the_same_lesson_is_written_as_html(tmp_path):
    """Lesson 05 links to its own ``<a id="seed-contradictions">``: MyST resolves a ``#`` link against headings only
    and failed the site's build; written as HTML, the browser follows it to the id."""
    text, _ = rewrite("see [under the hood](#seed-contradictions).", "notebooks/05_loop_agent_traced.ipynb")
    assert text == 'see <a href="#seed-contradictions">under the hood</a>.'
    text, _ = rewrite("see [two](#no-such-id).", "notebooks/05_loop_agent_traced.ipynb")
    assert text == "see [two](#no-such-id)."
