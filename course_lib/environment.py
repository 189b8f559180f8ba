"""Is this the environment the lessons were tested in, and where are the course's own files?

``requirements.lock`` pins every package at the version ``make test`` ran with. A different version is not
necessarily broken, but a stored notebook output may then differ from what a cell prints: this check says
which packages differ before a student wonders why.

The library reads a few files that live beside it in the repository, not inside the package: ``data/`` (the
timelines, the seed's recorded output), ``requirements.lock`` and the optional ``.env``. :func:`course_root`
finds that folder both from a clone (``make lab``, an editable install) and from an installed, non-editable copy
run inside a clone (Binder, a ``pip install .``), and says what to do when there is none.
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from .frames import rows_frame

if TYPE_CHECKING:  # pandas loads when the table is made: the modules that only need course_file() stay quick
    import pandas as pd

__all__ = [
    "MARKERS",
    "MIN_PYTHON",
    "PACKAGE_COLUMNS",
    "ROOT_VARIABLE",
    "SOURCE_ROOT",
    "CourseFilesNotFound",
    "check_environment",
    "course_file",
    "course_root",
    "installed_version",
    "is_course_root",
    "lock_file",
    "locked_versions",
    "optional_course_file",
    "python_supported",
]


ROOT_VARIABLE = "COURSE_ROOT"
"""Names the course's folder explicitly, for an installed copy used outside a clone."""
MARKERS = ("requirements.lock", "data")
"""What makes a folder the course's: the lock and the data folder side by side."""
SOURCE_ROOT = Path(__file__).resolve().parent.parent
"""Where a clone's (or an editable install's) course files are: the folder above ``course_lib/``."""
MIN_PYTHON = (3, 11)


class CourseFilesNotFound(FileNotFoundError):
    """No course folder was found: the message says where the library looked and what to do."""


def is_course_root(folder: Path) -> bool:
    return all((folder / marker).exists() for marker in MARKERS)


def course_root(cwd: Path | None = None, environ: dict[str, str] | None = None) -> Path:
    """The folder holding ``data/`` and ``requirements.lock``, looked for in this order:

    1. ``$COURSE_ROOT`` when set (and then it must be right: a wrong value is an error, never skipped);
    2. the folder above this source file (a clone, or an editable install);
    3. the current folder or one of its parents (an installed copy run from a clone's ``notebooks/``).
    """
    environ = dict(os.environ) if environ is None else environ
    named = environ.get(ROOT_VARIABLE)
    if named:
        if is_course_root(Path(named)):
            return Path(named).resolve()
        raise CourseFilesNotFound(
            f"{ROOT_VARIABLE}={named} is not the course's folder: it must hold {' and '.join(MARKERS)} "
            "(the top folder of a clone of the course repository)."
        )
    here = (cwd or Path.cwd()).resolve()
    for folder in (SOURCE_ROOT, here, *here.parents):
        if is_course_root(folder):
            return folder
    raise CourseFilesNotFound(
        f"course_lib is installed at {SOURCE_ROOT / 'course_lib'} without the course's files "
        f"({', '.join(MARKERS)}), and neither {here} nor a folder above it holds them. Run from inside a clone "
        f"of the course repository (its top folder or notebooks/), or set {ROOT_VARIABLE} to the clone's folder."
    )


def course_file(*parts: str) -> Path:
    """A path inside the course's folder (``course_file("data")``); :class:`CourseFilesNotFound` if there is none."""
    return course_root().joinpath(*parts)


def optional_course_file(*parts: str) -> Path:
    """Like :func:`course_file` for a file that may be absent (``.env``): without a course folder, the current one."""
    try:
        return course_file(*parts)
    except CourseFilesNotFound:
        return Path.cwd().joinpath(*parts)


def lock_file() -> Path:
    return course_file("requirements.lock")


def locked_versions(lock: Path | None = None) -> dict[str, str]:
    """``name -> version`` for every ``name==version`` line of the lock (comments and blanks skipped)."""
    pins = {}
    for line in (lock or lock_file()).read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep:
            pins[name.strip()] = version.strip()
    return pins


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


PACKAGE_COLUMNS = ("package", "locked", "installed", "as locked")
"""The columns of :func:`check_environment`'s table."""


def check_environment(lock: Path | None = None) -> pd.DataFrame:
    """One row per locked package: locked and installed version, and whether they agree."""
    rows = [
        dict(zip(PACKAGE_COLUMNS, (name, version, installed or "missing", installed == version), strict=True))
        for name, version in locked_versions(lock).items()
        for installed in [installed_version(name)]
    ]
    return rows_frame(rows, PACKAGE_COLUMNS)


def python_supported() -> bool:
    """The lessons need Python 3.11 or newer (the Makefile refuses older ones too)."""
    return sys.version_info[:2] >= MIN_PYTHON
