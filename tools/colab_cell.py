"""Give every lesson its Colab set-up cell: ``python tools/colab_cell.py`` (``make colab``); ``--check`` only checks.

The cell is the first code cell of each lesson, right after its title. In Google Colab it clones the course
repository, installs the course's runtime packages (``pip install -e`` of the clone: pyproject.toml's
dependencies, not requirements.lock's Jupyter server pins, which fight Colab's own), changes into
``notebooks/`` and says when a runtime restart is needed. Anywhere else it does nothing and prints nothing, so
nbval's stored output for it is empty.

The cell is collapsed where a student meets it: JupyterLab shows it folded (``jupyter.source_hidden``), Colab as
its one-line title (``cellView: form`` and the ``# @title`` line); a click unfolds it. Folded, JupyterLab 4 still
shows the cell's first line, the ``# @title`` line, followed by three dots: that line is the title, not the code
(tests/test_lesson00_walk15.py opens every lesson in JupyterLab and checks the fold).

The same run attaches the course's pictures to the lessons that show them: a Markdown image of a file in
``docs/`` (``![map](../docs/course_map.png)``) becomes a cell attachment (``![map](attachment:course_map.png)``)
holding the file, refreshed from ``docs/`` on every run. A picture inside the notebook shows the same in JupyterLab
(whatever folder it serves), Voila, Colab and the website, where a path to ``../docs/`` breaks in some of them.

Idempotent, and safe to re-run after a merge: a lesson that already has the cell (found by its id) gets it
rewritten in place, nothing else in the notebook changes, and the cell carries no execution count and no output,
so the other cells' stored counts stay as they are. The repository address is one setting,
``[project.urls] Repository`` in pyproject.toml; the site's launch buttons read the same one.
"""

from __future__ import annotations

import argparse
import base64
import json
import mimetypes
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CELL_ID = "colab-setup"
TAGS = ["colab-setup", "remove-cell"]
"""``remove-cell``: the website leaves the cell out (it has its own Colab button); Jupyter and Voila ignore the tag."""
BRANCH = "main"
CLONE = "/content/agent-memory-workbook"

DOCS = ROOT / "docs"
DOCS_IMAGE = re.compile(r"(!\[[^\]\n]*\]\()\.\./docs/([\w.-]+\.(?:png|jpg|jpeg|gif|svg))\)")
"""A Markdown image of a file in docs/, as a lesson writes it: ``![alt](../docs/NAME.png)``."""
ATTACHED = re.compile(r"\]\(attachment:([\w.-]+)\)")

CELL_TEMPLATE = """\
# @title Set-up for Google Colab only (elsewhere this cell does nothing): click to see the code
import sys

if "google.colab" in sys.modules:
    import importlib
    import importlib.metadata as metadata
    import os
    import subprocess

    REPOSITORY = "{repository}"
    CLONE = "{clone}"
    if not os.path.isdir(CLONE):
        clone = ["git", "clone", "--quiet", "--depth", "1", "--branch", "{branch}", REPOSITORY, CLONE]
        subprocess.run(clone, check=True)
    before = {{d.metadata["Name"]: d.version for d in metadata.distributions()}}
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", CLONE], check=True)
    after = {{d.metadata["Name"]: d.version for d in metadata.distributions()}}
    owners = metadata.packages_distributions()
    loaded = {{d for module in list(sys.modules) for d in owners.get(module, [])}}
    replaced = sorted(name for name in loaded if name in before and before[name] != after.get(name))
    sys.path.insert(0, CLONE)
    importlib.invalidate_caches()
    os.chdir(os.path.join(CLONE, "notebooks"))
    if replaced:
        print("Restart the runtime (Runtime > Restart session), then run this cell again.")
        print("pip replaced packages this session had already loaded:", ", ".join(replaced))
    else:
        print("Ready: the course is in", CLONE, "and this notebook runs in its notebooks/ folder.")
"""


def repository_url(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The course repository's address: ``[project.urls] Repository`` in pyproject.toml, the one place it is set."""
    urls = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"].get("urls", {})
    url = urls.get("Repository", "").rstrip("/")
    if not url.startswith("https://github.com/") or url.count("/") != 4:
        raise SystemExit(
            f"{pyproject}: [project.urls] Repository must be https://github.com/OWNER/NAME "
            f"(Colab and Binder open a GitHub repository), found {url!r}"
        )
    return url


def cell_source(repository: str) -> str:
    return CELL_TEMPLATE.format(repository=repository, clone=CLONE, branch=BRANCH)


def colab_cell(repository: str) -> dict[str, object]:
    lines = cell_source(repository).rstrip("\n").splitlines(keepends=True)  # as Jupyter stores a cell: no final newline
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": CELL_ID,
        "metadata": {"cellView": "form", "jupyter": {"source_hidden": True}, "tags": TAGS},
        "outputs": [],
        "source": lines,
    }


def with_colab_cell(notebook: dict, repository: str) -> dict:
    """The notebook with its set-up cell (replaced if present), placed after a leading title cell."""
    cells = [c for c in notebook["cells"] if c.get("id") != CELL_ID]
    first = cells[0] if cells else None
    titled = first is not None and first["cell_type"] == "markdown" and "".join(first["source"]).startswith("#")
    position = 1 if titled else 0
    return {**notebook, "cells": [*cells[:position], colab_cell(repository), *cells[position:]]}


def with_attached_images(notebook: dict, docs: Path = DOCS) -> dict:
    """The notebook with every Markdown image of a ``docs/`` file turned into a cell attachment holding that file.

    An attachment named like a file of ``docs/`` is refreshed from it, so a picture redrawn there reaches every
    lesson on the next run; an image whose file is missing is refused by name.
    """
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            cells.append(cell)
            continue
        text = DOCS_IMAGE.sub(lambda m: f"{m.group(1)}attachment:{m.group(2)})", "".join(cell["source"]))
        attachments = dict(cell.get("attachments", {}))
        for name in ATTACHED.findall(text):
            if (docs / name).is_file():
                kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
                attachments[name] = {kind: base64.b64encode((docs / name).read_bytes()).decode("ascii")}
            elif name not in attachments:
                raise SystemExit(f"a lesson shows {name}, which is neither attached nor a file of docs/")
        if text == "".join(cell["source"]) and attachments == cell.get("attachments", {}):
            cells.append(cell)
            continue
        lines = [line for line in re.split(r"(?<=\n)", text) if line]  # as Jupyter stores a cell: split at \n only
        cells.append({**cell, "source": lines, **({"attachments": attachments} if attachments else {})})
    return {**notebook, "cells": cells}


def dump(notebook: dict) -> str:
    """The notebook written as Jupyter writes it (one-space indent, non-ASCII kept, final newline)."""
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def lessons(folder: Path = NOTEBOOKS) -> list[Path]:
    return sorted(folder.glob("[0-9][0-9]_*.ipynb"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a lesson lacks the current cell; write nothing")
    args = parser.parse_args(argv)
    repository = repository_url()
    stale = []
    for path in lessons():
        text = path.read_text(encoding="utf-8")
        wanted = dump(with_attached_images(with_colab_cell(json.loads(text), repository)))
        if wanted != text:
            stale.append(path.name)
            if not args.check:
                path.write_text(wanted, encoding="utf-8")
    verb = "lack the current Colab cell or pictures (run make colab)" if args.check else "updated"
    print(f"{len(stale)} of {len(lessons())} lessons {verb}{': ' + ', '.join(stale) if stale else ''}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
