"""The files course_lib reads beside its package (data/, requirements.lock, .env), from a clone or an installed copy.

An installed, non-editable copy (Binder's ``pip install .``, a wheel) has no ``data/`` above its source: it finds
the course's folder from the current one (a lesson runs in ``notebooks/``) or from ``$COURSE_ROOT``, and without
either it fails at import with a message that says what to do.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.environment import ROOT_VARIABLE, CourseFilesNotFound, course_root, is_course_root

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "from course_lib import environment, live, loop_demos, policies; "
    "print(environment.SOURCE_ROOT == environment.course_root(), policies.DEFAULT_TIMELINE, loop_demos.SEED_OUTPUT,"
    " live.ENV_FILE, len(environment.locked_versions()) > 0, sep='|')"
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A copy of the package alone in a site-packages-like folder, as ``pip install --no-deps .`` leaves it."""
    site = tmp_path_factory.mktemp("site-packages")
    shutil.copytree(ROOT / "course_lib", site / "course_lib", ignore=shutil.ignore_patterns("__pycache__"))
    return site


def run_installed(site: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != ROOT_VARIABLE} | {"PYTHONPATH": str(site)} | env
    return subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=environ, capture_output=True, text=True)


def test_a_clone_reads_its_files_beside_the_source():
    assert course_root(cwd=Path("/"), environ={}) == ROOT and is_course_root(ROOT)


def test_an_installed_copy_run_inside_a_clone_finds_the_clone(installed):
    done = run_installed(installed, cwd=ROOT / "notebooks")
    assert done.returncode == 0, done.stderr
    from_source, timeline, seed, env_file, read_lock = done.stdout.strip().split("|")
    assert from_source == "False" and read_lock == "True"
    assert (Path(timeline), Path(seed), Path(env_file)) == (
        ROOT / "data" / "timeline_demo170.json",
        ROOT / "data" / "loopagent_seed_output.json",
        ROOT / ".env",
    )


def test_an_installed_copy_outside_a_clone_is_pointed_at_the_course_root_variable(installed, tmp_path):
    done = run_installed(installed, cwd=tmp_path)
    assert done.returncode != 0
    assert "CourseFilesNotFound" in done.stderr and f"set {ROOT_VARIABLE}" in done.stderr
    assert "Run from inside a clone" in done.stderr
    named = run_installed(installed, cwd=tmp_path, **{ROOT_VARIABLE: str(ROOT)})
    assert named.returncode == 0, named.stderr
    assert named.stdout.split("|")[1] == str(ROOT / "data" / "timeline_demo170.json")


def test_a_wrong_course_root_is_an_error_not_skipped(tmp_path):
    with pytest.raises(CourseFilesNotFound, match=f"{ROOT_VARIABLE}=.* is not the course's folder"):
        course_root(environ={ROOT_VARIABLE: str(tmp_path)})
    (tmp_path / "data").mkdir()
    (tmp_path / "requirements.lock").write_text("pandas==1.0\n")
    assert course_root(environ={ROOT_VARIABLE: str(tmp_path)}) == tmp_path.resolve()


def test_an_optional_file_without_a_course_folder_is_looked_for_in_the_current_one(installed, tmp_path):
    probe = "from course_lib import live; print(live.ENV_FILE)"
    environ = {k: v for k, v in os.environ.items() if k != ROOT_VARIABLE} | {"PYTHONPATH": str(installed)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == tmp_path.resolve() / ".env"
