"""Presenter mode, ``make present``: the lessons in Voila, code hidden, and the ``docs/`` pages they link to.

Voila renders notebooks only. A lesson's glossary link, ``../docs/glossary.md``, resolves from a lesson's page
(``/voila/render/NN_x.ipynb``) to ``/voila/docs/glossary.md``, where plain Voila answers 404. This launcher is
Voila with one more route there: ``/voila/docs/NAME.md`` is the Markdown file of ``docs/`` rendered as a page (the
same renderer nbconvert gives a notebook's Markdown), ``/voila/docs/NAME.png`` (or another picture) the file
itself, so the glossary's course map shows too. A page's links to another ``docs/`` page keep working (they are
relative), and a link to a lesson (``../notebooks/NN_x.ipynb``) is pointed at that lesson's Voila page. The README
is served the same way, at ``/voila/README.md``, where a lesson's ``../README.md`` link lands (lesson 03's does).

The same ``../docs/glossary.md`` link works unchanged under ``make lab`` (JupyterLab serves the repository) and on
the website (``tools/build_site.py`` turns it into a link between pages).
"""

from __future__ import annotations

import html
import mimetypes
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
ROUTE = r"/voila/docs/([\w.-]+)"
"""Where a lesson's ``../docs/NAME`` link lands when Voila serves ``notebooks/``."""
PICTURE = re.compile(r"\.(png|jpe?g|gif|svg)$", re.IGNORECASE)
README_ROUTE = r"/voila/(README\.md)"
"""Where a lesson's ``../README.md`` link lands; the README's own links (``docs/...``) resolve from there."""
LESSON_LINK = re.compile(r'href="(?:\.\./)?notebooks/([\w.-]+\.ipynb)')
PAGE_STYLE = (
    "body { max-width: 52em; margin: 2em auto; padding: 0 1em; font-family: sans-serif; line-height: 1.5 }"
    " th, td { text-align: left; vertical-align: top; padding: 0.2em 0.6em } a.anchor-link { display: none }"
)


def doc_file(name: str, docs: Path = DOCS) -> Path | None:
    """The ``docs/`` file a route names: a Markdown page or a picture directly in ``docs/``, else None."""
    if "/" in name or name.startswith(".") or not (name.endswith(".md") or PICTURE.search(name)):
        return None
    found = docs / name
    return found if found.is_file() else None


def doc_page(markdown: str, title: str, lessons: str = "../render/") -> str:
    """A ``docs/`` Markdown file (or the README) as a whole HTML page, its links to lessons pointed at their Voila
    pages: ``lessons`` is where those pages are from the page's own place (``render/`` from the README)."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    body = LESSON_LINK.sub(rf'href="{lessons}\1', markdown2html_mistune(markdown))
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{PAGE_STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def markdown_page(path: Path, lessons: str) -> str:
    """``path`` rendered by :func:`doc_page`, titled by its first heading."""
    text = path.read_text(encoding="utf-8")
    heading = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
    return doc_page(text, heading.group(1).strip() if heading else path.stem, lessons)


def main(argv: list[str] | None = None) -> None:
    from jupyter_server.utils import url_path_join
    from tornado.web import HTTPError, RequestHandler
    from voila.app import Voila

    class DocsHandler(RequestHandler):  # type: ignore[misc]
        def get(self, name: str) -> None:
            found = doc_file(name)
            if found is None:
                raise HTTPError(404, f"docs/{name}: no such page or picture in docs/")
            if found.suffix == ".md":
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.finish(markdown_page(found, "../render/"))
            else:
                self.set_header("Content-Type", mimetypes.guess_type(found.name)[0] or "application/octet-stream")
                self.finish(found.read_bytes())

    class ReadmeHandler(RequestHandler):  # type: ignore[misc]
        def get(self, name: str) -> None:
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(markdown_page(ROOT / name, "render/"))

    class Present(Voila):  # type: ignore[misc]
        def init_handlers(self) -> list[object]:
            docs = (url_path_join(self.server_url, ROUTE), DocsHandler)
            readme = (url_path_join(self.server_url, README_ROUTE), ReadmeHandler)
            return [docs, readme, *super().init_handlers()]

    arguments = sys.argv[1:] if argv is None else argv
    Present.launch_instance(argv=[str(NOTEBOOKS), "--strip_sources=True", *arguments])


if __name__ == "__main__":
    main()
