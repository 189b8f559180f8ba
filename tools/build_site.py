"""Build the course's website from the lessons' stored outputs: ``make site`` (``python tools/build_site.py``).

Jupyter Book 1 (Sphinx, MyST-NB, the book theme), chosen because it builds offline (Jupyter Book 2 fetches its
theme at build time, Quarto downloads a binary when installed), renders notebooks with their stored outputs and
ipywidgets' saved state, and gives every lesson Binder and Colab launch buttons. No kernel runs (``execute:
off``): the site shows exactly what nbval checks.

The pages are found, not listed, so lessons and notes added later appear without touching this file:

* the home page is the README's student part: the text above ``<!-- end of the student part -->``, or the whole
  README when it has no such line;
* the lessons, ``notebooks/NN_*.ipynb`` in order, under "Lessons";
* every ``docs/*.md`` (the glossary, the claim map, the notes), by file name, under "Reference".

Rules for cells: every cell is shown, ``presenter-hidden`` ones included, because that tag hides the exercises
and the cells that drive a panel from code only in presenter mode (``make present``), and exercises belong on a
student's page. Cells tagged ``remove-cell`` (the Colab set-up cell, which the site's own Colab button replaces)
are left out.

Links: a picture attached to a lesson's cell (``attachment:NAME``) becomes a file beside the lesson's page; a remote
image (a badge) becomes its alt text, its link kept, since a page fetches nothing; a link to a
lesson, a ``docs/`` page or the README stays a link between pages; a link to any other file of the repository (a
module, a test) points at it on the repository's host, since the site holds only the pages.

Assets: the widgets' JavaScript (ipywidgets' HTML manager) and its fonts are copied from the npm package
``site/package-lock.json`` pins; everything else comes from the PyPI packages of ``requirements-site.lock``.
Nothing is fetched when a page is viewed: the folder works with no network (``make site-test`` checks it).
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from colab_cell import ATTACHED, BRANCH, lessons, repository_url

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
BUILD = ROOT / "build"
OUT = BUILD / "site"
STUDENT_PART_END = "<!-- end of the student part -->"
WIDGETS_DIST = SITE / "node_modules" / "@jupyter-widgets" / "html-manager" / "dist"
WIDGET_ASSETS = re.compile(r"^(embed\.js|embed\.js\.LICENSE\.txt|[0-9a-f]{20}\.(woff2?|ttf|eot|svg))$")
"""The standalone HTML manager (it needs no require.js) and the icon fonts it loads beside itself."""
LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]+)\)")
EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#|/)", re.IGNORECASE)


def student_part(readme: str) -> str:
    """The README above the end-of-student-part marker, or all of it."""
    return readme.split(STUDENT_PART_END, 1)[0].rstrip() + "\n"


def first_heading(markdown: str, fallback: str) -> str:
    found = re.search(r"^#\s+(.+)$", markdown, re.MULTILINE)
    return found.group(1).strip() if found else fallback


def slug(heading: str) -> str:
    """A heading's anchor as GitHub and MyST write it (lower case, punctuation dropped, spaces to hyphens)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def cut_anchors(home: str, repository: str) -> str:
    """Links to README sections left out of the home page point at the README on the repository's host."""
    kept = {slug(h) for h in re.findall(r"^#+\s+(.+)$", home, re.MULTILINE)}

    def fix(match: re.Match[str]) -> str:
        label, anchor = match.groups()
        if anchor in kept:
            return match.group(0)
        return f"[{label}]({repository}/blob/{BRANCH}/README.md#{anchor})"

    return re.sub(r"(?<!!)\[([^\]\n]*)\]\(#([^)\s]+)\)", fix, home)


def page_path(repo_path: str) -> str:
    """Where a repository file lands in the book: the README becomes the home page, the rest keep their place."""
    return "index.md" if repo_path == "README.md" else repo_path


REMOTE_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(https?://[^)\s]+\)")
REMOTE_HTML_IMAGE = re.compile(r"<img\b[^>]*\bsrc=[\"']https?://[^>]*>", re.IGNORECASE)


def drop_remote_images(text: str) -> str:
    """A remote image (a README badge) becomes its alt text, any link around it kept: a page fetches nothing."""
    text = REMOTE_IMAGE.sub(lambda m: m.group(1), text)
    return REMOTE_HTML_IMAGE.sub(lambda m: (re.findall(r"\balt=[\"']([^\"']*)", m.group(0)) or [""])[0], text)


def html_anchor_only(page: Path, anchor: str) -> bool:
    """Whether ``anchor`` is an ``<a id>`` of a Markdown page and no heading's: the glossary's entries are table rows.

    MyST resolves a link's ``#anchor`` against the page's headings only and fails the build on any other; the page
    still has the id, so such a link is written as HTML, which the browser follows to the row.
    """
    if page.suffix != ".md":
        return False
    text = page.read_text(encoding="utf-8")
    headings = {slug(h) for h in re.findall(r"^#+\s+(.+)$", text, re.MULTILINE)}
    return anchor not in headings and f'<a id="{anchor}"></a>' in text


def own_id(page: Path, anchor: str) -> bool:
    """Whether ``page`` (a lesson or a Markdown page) holds an explicit ``<a id="anchor">`` for a link within it."""
    if not page.is_file():
        return False
    text = page.read_text(encoding="utf-8")
    return f'<a id="{anchor}">' in text or f'<a id=\\"{anchor}\\">' in text


def rewrite_links(text: str, source: str, pages: set[str], repository: str, images: set[str]) -> str:
    """Keep links between pages, point links to other repository files at the host, collect local images."""
    text = drop_remote_images(text)

    def fix(match: re.Match[str]) -> str:
        bang, label, target = match.groups()
        if target.startswith("#") and own_id(ROOT / source, target[1:]):
            return f'<a href="{target}">{html.escape(label)}</a>'  # MyST resolves headings only; the browser, ids
        if EXTERNAL.match(target):
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if resolved.startswith("..") or not (ROOT / resolved).exists():
            return match.group(0)  # Sphinx reports it: a broken link stays visible
        if bang:
            images.add(resolved)
            return match.group(0)
        if resolved in pages:
            here = posixpath.dirname(page_path(source)) or "."
            target = posixpath.relpath(page_path(resolved), here)
            if anchor and html_anchor_only(ROOT / resolved, anchor):
                page = posixpath.splitext(target)[0] + ".html"
                return f'<a href="{page}#{anchor}">{html.escape(label)}</a>'
            return f"[{label}]({target}{hash_}{anchor})"
        kind = "tree" if (ROOT / resolved).is_dir() else "blob"
        return f"[{label}]({repository}/{kind}/{BRANCH}/{resolved}{hash_}{anchor})"

    return LINK.sub(fix, text)


def detach_attachments(cell: dict, staged_notebook: Path) -> str:
    """The cell's Markdown with each ``attachment:NAME`` picture written as a file beside the staged lesson.

    A lesson carries its pictures as cell attachments (tools/colab_cell.py), which JupyterLab, Voila and Colab show;
    the book's Markdown reader looks for files, so each becomes ``attachments/<lesson>-NAME`` and the cell loses it.
    """
    text = "".join(cell["source"])
    attached = cell.pop("attachments", {})
    folder = staged_notebook.parent / "attachments"

    def to_file(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in attached:
            return match.group(0)  # Sphinx reports it: a missing picture stays visible
        data = next(iter(attached[name].values()))
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{staged_notebook.stem}-{name}"
        target.write_bytes(base64.b64decode(data))
        return f"](attachments/{target.name})"

    return ATTACHED.sub(to_file, text)


def stage(book: Path, repository: str) -> dict[str, list[str]]:
    """Copy the pages into ``book`` (links rewritten) and return the table of contents' parts."""
    lesson_paths = [p.relative_to(ROOT).as_posix() for p in lessons()]
    doc_paths = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))
    pages = {"README.md", *lesson_paths, *doc_paths}
    images: set[str] = set()
    home = cut_anchors(student_part((ROOT / "README.md").read_text(encoding="utf-8")), repository)
    (book / "index.md").write_text(rewrite_links(home, "README.md", pages, repository, images), encoding="utf-8")
    for path in doc_paths:
        text = (ROOT / path).read_text(encoding="utf-8")
        (book / path).parent.mkdir(parents=True, exist_ok=True)
        (book / path).write_text(rewrite_links(text, path, pages, repository, images), encoding="utf-8")
    for path in lesson_paths:
        notebook = json.loads((ROOT / path).read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell["cell_type"] == "markdown":
                text = detach_attachments(cell, book / path)
                cell["source"] = rewrite_links(text, path, pages, repository, images)
        (book / path).parent.mkdir(parents=True, exist_ok=True)
        (book / path).write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    for path in images:
        (book / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, book / path)
    return {"Lessons": lesson_paths, "Reference": doc_paths}


def copy_widget_assets(book: Path) -> None:
    if not WIDGETS_DIST.is_dir():
        raise SystemExit(f"{WIDGETS_DIST} is missing: run `npm ci --prefix site` (make site does)")
    target = book / "_static" / "widgets"
    target.mkdir(parents=True)
    copied = [p for p in WIDGETS_DIST.iterdir() if WIDGET_ASSETS.match(p.name)]
    if not any(p.name == "embed.js" for p in copied):
        raise SystemExit(f"{WIDGETS_DIST} holds no embed.js: is @jupyter-widgets/html-manager 1.x installed?")
    for path in copied:
        shutil.copy2(path, target / path.name)


def config(title: str, repository: str) -> dict[str, object]:
    """Jupyter Book's _config.yml (JSON is YAML)."""
    return {
        "title": title,
        "author": "the course's authors",
        "copyright": time.strftime("%Y"),
        "only_build_toc_files": True,
        "execute": {"execute_notebooks": "off"},
        "repository": {"url": repository, "branch": BRANCH, "path_to_book": ""},
        "launch_buttons": {
            "notebook_interface": "jupyterlab",
            "binderhub_url": "https://mybinder.org",
            "colab_url": "https://colab.research.google.com",
        },
        "html": {"use_repository_button": True, "use_issues_button": False, "use_edit_page_button": False},
        "parse": {"myst_enable_extensions": ["colon_fence", "linkify", "substitution"]},
        "sphinx": {
            "config": {
                # Jupyter Book's own list less sphinx_thebe (live code cells from a CDN, unused here, whose set-up
                # script is added twice and raises on every page).
                "extensions": [
                    *("sphinx_togglebutton", "sphinx_copybutton", "myst_nb", "jupyter_book", "sphinx_comments"),
                    *("sphinx_external_toc", "sphinx.ext.intersphinx", "sphinx_design", "sphinx_book_theme"),
                ],
                "html_static_path": ["_static"],
                # The widgets' manager from this folder, not a CDN (MyST-NB's default loads it and require.js remotely).
                "nb_ipywidgets_js": {"widgets/embed.js": {}},
                "html_show_copyright": False,
                "myst_heading_anchors": 6,  # a README link to #a-section works as on the repository's host
                "suppress_warnings": ["myst.header"],
            }
        },
    }


def toc(parts: dict[str, list[str]]) -> dict[str, object]:
    def entry(path: str) -> dict[str, str]:
        return {"file": posixpath.splitext(path)[0]}

    return {
        "format": "jb-book",
        "root": "index",
        "parts": [{"caption": caption, "chapters": [entry(p) for p in paths]} for caption, paths in parts.items()],
    }


def build(out: Path = OUT) -> Path:
    repository = repository_url()
    book = BUILD / "site-src"
    for folder in (book, BUILD / "site-work", out):
        shutil.rmtree(folder, ignore_errors=True)
    book.mkdir(parents=True)
    parts = stage(book, repository)
    copy_widget_assets(book)
    title = first_heading((ROOT / "README.md").read_text(encoding="utf-8"), "The course")
    (book / "_config.yml").write_text(json.dumps(config(title, repository), indent=1), encoding="utf-8")
    (book / "_toc.yml").write_text(json.dumps(toc(parts), indent=1), encoding="utf-8")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    command = [
        str(jupyter_book),
        "build",
        str(book),
        "--path-output",
        str(BUILD / "site-work"),
        "--warningiserror",
        "--quiet",
    ]
    subprocess.run(command, check=True, env={**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"})
    shutil.move(BUILD / "site-work" / "_build" / "html", out)
    (out / ".nojekyll").touch()  # GitHub Pages serves folders starting with "_" (_static) only with this file
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"the site's folder (default {OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    out = build(args.out.resolve())
    print(f"site: {out}/index.html, {len(list(out.rglob('*.html')))} pages, {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
