"""Every ``#anchor`` link of the docs, the README and the lessons lands on its target in every place students read.

JupyterLab gives a heading the id of its text with spaces turned into '-', case kept (``Where-this-comes-from``);
GitHub and the site lowercase it and drop punctuation (``where-this-comes-from``). A link works everywhere only when
it names an explicit ``<a id="...">`` of its target, or a heading whose id is the same in both schemes (issue 32).
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]*#[^)\s]+)\)|href=\"([^\"]*#[^\"]+)\"")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
EXPLICIT = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
LIST_ITEM_ANCHOR = re.compile(r"\s*[*-] (?:<span[^>]*>)?<a\s+(?:id|name)=\"[^\"]+\"\s*>\s*</a>")
"""An anchor that opens a list item, the first thing on its line: a link lands on the item (issue 32)."""


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "notebooks").glob("*.ipynb"))]


def markdown_of(page: Path) -> str:
    if page.suffix != ".ipynb":
        return page.read_text(encoding="utf-8")
    cells = json.loads(page.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def heading_text(markdown: str) -> str:
    """A heading as a browser shows it: no emphasis or code marks, a link's label only."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"<[^>]+>|[*`_]", "", text).strip()


def lab_id(heading: str) -> str:
    return heading.replace(" ", "-")


def github_id(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def ids_everywhere(markdown: str) -> set[str]:
    """The anchors every renderer gives this text: explicit ids, and headings whose two ids agree."""
    headings = [heading_text(h) for h in HEADING.findall(markdown)]
    return set(EXPLICIT.findall(markdown)) | {lab_id(h) for h in headings if lab_id(h) == github_id(h)}


def anchor_links() -> list[tuple[str, Path, str]]:
    links = []
    for page in pages():
        for match in LINK.finditer(markdown_of(page)):
            target = match.group(1) or match.group(2)
            if re.match(r"[a-z]+:", target):
                continue  # another site's anchor is that site's business
            path, _, anchor = target.partition("#")
            links.append(
                (f"{page.relative_to(ROOT)} -> {target}", (page.parent / path).resolve() if path else page, anchor)
            )
    return links


def test_the_rule_tells_a_heading_that_works_everywhere_from_one_that_does_not():
    assert ids_everywhere("## Where this comes from") == set()  # JupyterLab: Where-this-comes-from
    assert ids_everywhere('<a id="where-this-comes-from"></a>\n\n## Where this comes from') == {"where-this-comes-from"}
    assert ids_everywhere("## the `loop` half") == {"the-loop-half"}


def test_there_are_anchor_links_to_check():
    assert any("glossary.md#ep013" in where for where, _, _ in anchor_links())


@pytest.mark.parametrize(("where", "target", "anchor"), [pytest.param(*link, id=link[0]) for link in anchor_links()])
def test_an_anchor_link_names_an_id_every_renderer_gives_its_target(where, target, anchor):
    assert target.exists(), f"{where}: the page does not exist"
    assert anchor in ids_everywhere(markdown_of(target)), (
        f'{where}: no <a id="{anchor}"></a> there, and no heading whose id is {anchor!r} in JupyterLab and on GitHub'
    )


def test_an_explicit_anchor_outside_a_table_stands_alone_right_above_its_heading():
    """A link to ``#live-models`` lands where the anchor is: inside a paragraph it lands mid-text under the heading,
    on its own line above the heading it lands on the heading (issue 32)."""
    misplaced = []
    for page in pages():
        lines = markdown_of(page).splitlines()
        for number, line in enumerate(lines):
            if not EXPLICIT.search(line) or line.lstrip().startswith("|"):
                continue  # a glossary row's anchor lands on its row
            if LIST_ITEM_ANCHOR.match(line):
                continue  # an anchor opening a list item lands on that item (performance.md#memo-repeatability)
            after = next((rest for rest in lines[number + 1 :] if rest.strip()), "")
            if re.sub(r"<a\s+(?:id|name)=\"[^\"]+\"\s*>\s*</a>", "", line).strip() or not HEADING.match(after):
                misplaced.append(f"{page.relative_to(ROOT)}: {line[:60]!r}")
    assert not misplaced
