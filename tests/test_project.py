"""The project's promises about itself: two commands, pinned versions, conda list in step."""

import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_packages() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = project["dependencies"] + [n for extra in project["optional-dependencies"].values() for n in extra]
    return {_name(n) for n in names}


def environment_pins() -> dict[str, str]:
    """``name -> pinned version`` for each package environment.yml lists (python, pip and ``-e .`` left out)."""
    text = (ROOT / "environment.yml").read_text().split("dependencies:", 1)[1]
    items = [i.split("#", 1)[0].strip() for i in re.findall(r"^\s+- (\S.*)$", text, flags=re.MULTILINE)]
    listed = [i for i in items if not i.startswith(("-e", "python", "pip"))]
    return {_name(i): i.partition("==")[2] for i in listed}


def environment_packages() -> set[str]:
    return set(environment_pins())


def locked() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            pins[_name(name)] = version.strip()
    return pins


def test_environment_yml_lists_the_same_packages_as_pyproject():
    assert environment_packages() == pyproject_packages()


def test_environment_yml_pins_each_package_at_the_locked_version():
    pins, listed = locked(), environment_pins()
    differ = {name: (version, pins.get(name)) for name, version in listed.items() if version != pins.get(name)}
    assert not differ, f"environment.yml (left) differs from requirements.lock (right): {differ}"


def test_binder_builds_exactly_the_lock_on_the_tested_python():
    binder = ROOT / "binder"
    assert (binder / "runtime.txt").read_text().strip() == "python-3.11"
    assert (binder / "requirements.txt").read_text().split("#")[0].split() == ["-r", "../requirements.lock"]
    post_build = (binder / "postBuild").read_text()
    assert "pip install --no-deps" in post_build and post_build.startswith("#!")
    assert (binder / "postBuild").stat().st_mode & 0o111, "repo2docker runs postBuild only when it is executable"


def test_the_dev_container_runs_the_install_make_lab_runs():
    container = json.loads((ROOT / ".devcontainer" / "devcontainer.json").read_text())
    assert container["postCreateCommand"] == "make install"
    makefile = (ROOT / "Makefile").read_text()
    install = re.search(r"^install: (.+)$", makefile, re.M)
    lab = re.search(r"^lab: (.+)$", makefile, re.M)
    assert install and lab and install.group(1) == lab.group(1) == "$(STAMP) $(LAB_SETTINGS) trust"  # the same install


def test_every_lesson_has_the_current_colab_cell():
    """tools/colab_cell.py writes it (make colab); a lesson merged or added without it fails here."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "tools/colab_cell.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_direct_dependency_is_pinned_in_the_lock():
    pins = locked()
    assert pyproject_packages() <= set(pins)
    assert pins["agent-framework-core"].startswith("1.23.")


def test_readme_gives_the_two_commands_on_its_first_screen():
    first_screen = "\n".join((ROOT / "README.md").read_text().splitlines()[:40])
    assert "make lab" in first_screen and "make test" in first_screen


def test_ci_calls_the_readme_test_command_and_checks_the_solutions():
    assert "make test\nmake solutions" in (ROOT / ".ci" / "run").read_text()


def test_every_lesson_is_listed_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    lessons = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert lessons, "no lesson found"
    assert all(name in readme for name in lessons)


def test_loading_jsonschema_builds_no_parser_at_import():
    """Every nbval worker, Voila and JupyterLab load jsonschema; from 4.25 it imports rfc3987-syntax (2.6 s here)."""
    import subprocess
    import sys

    probe = "import sys, nbformat.validator; print(sorted({'lark', 'rfc3987_syntax'} & set(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", f"jsonschema loaded {loaded.strip()}: keep it below 4.25 in requirements.lock"
    major, minor = (int(part) for part in locked()["jsonschema"].split(".")[:2])
    assert "rfc3987-syntax" not in locked() and (major, minor) < (4, 25)
