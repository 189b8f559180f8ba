"""Is this the environment the lessons were tested in? Lesson 00 compares the installed packages with the lock.

``requirements.lock`` pins every package at the version ``make test`` ran with. A different version is not
necessarily broken, but a stored notebook output may then differ from what a cell prints: this check says
which packages differ before a student wonders why.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pandas as pd

LOCK_FILE = Path(__file__).resolve().parent.parent / "requirements.lock"
MIN_PYTHON = (3, 11)


def locked_versions(lock: Path = LOCK_FILE) -> dict[str, str]:
    """``name -> version`` for every ``name==version`` line of the lock (comments and blanks skipped)."""
    pins = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep:
            pins[name.strip()] = version.strip()
    return pins


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def check_environment(lock: Path = LOCK_FILE) -> pd.DataFrame:
    """One row per locked package: locked and installed version, and whether they agree."""
    rows = [
        {"package": name, "locked": version, "installed": installed or "missing", "as locked": installed == version}
        for name, version in locked_versions(lock).items()
        for installed in [installed_version(name)]
    ]
    return pd.DataFrame(rows, columns=["package", "locked", "installed", "as locked"])


def python_supported() -> bool:
    """The lessons need Python 3.11 or newer (the Makefile refuses older ones too)."""
    return sys.version_info[:2] >= MIN_PYTHON
