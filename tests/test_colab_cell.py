"""The lessons' Colab set-up cell (tools/colab_cell.py): silent outside Colab, and in Colab what it runs and says.

In Colab it is run here with ``google.colab`` stubbed and ``subprocess.run`` recorded: no clone and no install
really happens, so the test checks the commands, the folder it leaves the notebook in, and the restart rule.
"""

import contextlib
import importlib.metadata
import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import colab_cell  # noqa: E402


class FakeDist:
    def __init__(self, name: str, version: str):
        self.metadata, self.version = {"Name": name}, version


def run_cell(source: str) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, "colab-cell", "exec"), {"__name__": "__main__"})
    return printed.getvalue()


def test_every_lesson_starts_with_the_same_cell_without_count_or_output():
    repository = colab_cell.repository_url()
    for lesson in colab_cell.lessons():
        cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
        ours = [c for c in cells if c.get("id") == colab_cell.CELL_ID]
        assert ours == [colab_cell.colab_cell(repository)], lesson.name
        assert next(c for c in cells if c["cell_type"] == "code") is ours[0], f"{lesson.name}: not the first code cell"


def test_inserting_twice_changes_nothing_and_keeps_the_other_cells():
    lesson = json.loads(colab_cell.lessons()[2].read_text(encoding="utf-8"))
    without = {**lesson, "cells": [c for c in lesson["cells"] if c.get("id") != colab_cell.CELL_ID]}
    once = colab_cell.with_colab_cell(without, "https://github.com/a/b")
    assert colab_cell.with_colab_cell(once, "https://github.com/a/b") == once
    assert [c for c in once["cells"] if c.get("id") != colab_cell.CELL_ID] == without["cells"]
    moved = colab_cell.with_colab_cell(once, "https://github.com/c/d")
    assert "https://github.com/c/d" in "".join(moved["cells"][1]["source"]) and len(moved["cells"]) == len(
        once["cells"]
    )


def test_outside_colab_the_cell_does_nothing_and_prints_nothing(monkeypatch):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a))
    assert run_cell(colab_cell.cell_source("https://github.com/a/b")) == "" and calls == []


@pytest.fixture
def in_colab(monkeypatch, tmp_path):
    """google.colab importable, a clone folder that does not exist yet, every command recorded."""
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    clone = tmp_path / "course"
    source = colab_cell.cell_source("https://github.com/a/b").replace(colab_cell.CLONE, str(clone))
    calls: list[list[str]] = []

    def fake_run(command, check):
        calls.append(command)
        if command[:2] == ["git", "clone"]:
            (clone / "notebooks").mkdir(parents=True)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return source, clone, calls


def test_in_colab_it_clones_installs_the_course_and_works_in_its_notebooks(in_colab):
    source, clone, calls = in_colab
    said = run_cell(source)
    assert calls == [
        ["git", "clone", "--quiet", "--depth", "1", "--branch", "main", "https://github.com/a/b", str(clone)],
        [sys.executable, "-m", "pip", "install", "--quiet", "-e", str(clone)],
    ]
    assert Path(os.getcwd()) == clone / "notebooks" and sys.path[0] == str(clone)
    assert said.startswith("Ready:")
    run_cell(source)  # run again (after a restart): no second clone
    assert [c[0] for c in calls].count("git") == 1


def test_in_colab_it_asks_for_a_restart_when_pip_replaced_a_loaded_package(in_colab, monkeypatch):
    source, _, calls = in_colab
    monkeypatch.setattr(
        importlib.metadata,
        "distributions",
        lambda: [FakeDist("pytest", "9.2.0" if len(calls) > 1 else "8.0.0"), FakeDist("unloaded-x", str(len(calls)))],
    )
    monkeypatch.setattr(
        importlib.metadata, "packages_distributions", lambda: {"pytest": ["pytest"], "x": ["unloaded-x"]}
    )
    said = run_cell(source)
    assert said.startswith("Restart the runtime") and "pytest" in said and "unloaded-x" not in said
