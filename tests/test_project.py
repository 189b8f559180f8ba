"""The project's promises about itself: two commands, pinned versions, conda list in step."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_packages() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = project["dependencies"] + project["optional-dependencies"]["test"]
    return {_name(n) for n in names}


def environment_packages() -> set[str]:
    text = (ROOT / "environment.yml").read_text().split("dependencies:", 1)[1]
    items = re.findall(r"^\s+- (\S.*)$", text, flags=re.MULTILINE)
    return {_name(i) for i in items if not i.startswith(("-e", "python", "pip"))}


def locked() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            pins[_name(name)] = version.strip()
    return pins


def test_environment_yml_lists_the_same_packages_as_pyproject():
    assert environment_packages() == pyproject_packages()


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
