"""Write the course's JupyterLab settings into the Python environment that runs it: ``python tools/lab_settings.py``.

JupyterLab reads ``<prefix>/share/jupyter/lab/settings/overrides.json`` as the defaults of the environment it runs
in, below any setting the user changed. The course sets there what a student should not meet on a first open:

* the "Would you like to get notified about official Jupyter news?" pop-up (``fetchNews``), which covers part of
  every lesson's first screen, is answered "no";
* the check for a newer JupyterLab, a request to a website, is off: the course runs offline;
* a Markdown file a lesson links to (the glossary) opens rendered, as a page to read, not as text to edit;
* every cell of a notebook is rendered (``windowingMode`` "none"): JupyterLab 4's default leaves out the cells far
  from the viewport, and scrolling to the end of a long lesson sometimes showed a blank area;
* a notebook scrolls no further than its last cell (``scrollPastEnd`` off): with it on, scrolling to the end of a
  lesson pushes the last cell off the top and leaves the student an empty panel.

* every kernel the environment starts loads ``course_lib.exercises`` as an IPython extension
  (``<prefix>/etc/ipython/ipython_kernel_config.json``): a cell run first after a restart, before the imports cell,
  says "X is not defined in this kernel yet: … run the cells above first" rather than Python's raw traceback
  (lesson 03's walk 24).

The file belongs to the environment (``.venv`` for ``make lab``, the image's for Binder, the container's for the
dev container), never to the student's home. Settings already in the file are kept: only these keys are set.
Idempotent.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

OVERRIDES: dict[str, dict[str, object]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Markdown Preview"}},
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none", "scrollPastEnd": False},
}
"""Each plugin's settings the course fixes; the values are JupyterLab's own (``fetchNews`` is the text "false")."""


def overrides_path(prefix: Path) -> Path:
    """Where JupyterLab in the environment at ``prefix`` reads its overrides."""
    return prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def merged(existing: dict[str, object]) -> dict[str, object]:
    """``existing`` with the course's keys set, every other key of every plugin kept."""
    result = dict(existing)
    for plugin, settings in OVERRIDES.items():
        current = result.get(plugin)
        result[plugin] = {**(current if isinstance(current, dict) else {}), **settings}
    return result


def write(prefix: Path) -> Path:
    """Write the overrides for the environment at ``prefix``; a file that is not a JSON object is refused by name."""
    path = overrides_path(prefix)
    existing: object = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if not isinstance(existing, dict):
        raise SystemExit(f"{path}: JupyterLab's overrides must be a JSON object; fix or remove the file")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(merged(existing), indent=2) + "\n", encoding="utf-8")
    return path


KERNEL_EXTENSION = "course_lib.exercises"
"""The IPython extension every kernel of the environment loads at its start."""


def kernel_config_path(prefix: Path) -> Path:
    """Where IPython kernels run from the environment at ``prefix`` read their configuration (``sys.prefix``)."""
    return prefix / "etc" / "ipython" / "ipython_kernel_config.json"


def write_kernel_config(prefix: Path) -> Path:
    """Add the course's extension to the kernels' configuration at ``prefix``, every other setting kept."""
    path = kernel_config_path(prefix)
    existing: object = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if not isinstance(existing, dict):
        raise SystemExit(f"{path}: IPython's kernel configuration must be a JSON object; fix or remove the file")
    app = existing.get("InteractiveShellApp")
    app = dict(app) if isinstance(app, dict) else {}
    extensions = [e for e in app.get("extensions", []) if e != KERNEL_EXTENSION] + [KERNEL_EXTENSION]
    config = {**existing, "InteractiveShellApp": {**app, "extensions": extensions}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix), help="the environment (default: this one)")
    args = parser.parse_args(argv)
    print(f"JupyterLab settings for the course written to {write(args.prefix)}")
    print(f"Kernels load {KERNEL_EXTENSION} at start: {write_kernel_config(args.prefix)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
