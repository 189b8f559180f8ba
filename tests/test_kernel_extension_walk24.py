"""Every kernel of the course's environment gives the restart guidance from its first cell (lesson 03's walk 24).

A cell run first after a restart, before the imports cell, showed Python's raw ``NameError`` traceback, while the
same mistake after the imports cell got "X is not defined in this kernel yet: … run the cells above first".
``tools/lab_settings.py`` (run by ``make lab`` and ``make test``) makes every kernel of ``.venv`` load
``course_lib.exercises`` at start.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import lab_settings


def test_the_kernel_config_adds_the_extension_and_keeps_every_other_setting(tmp_path: Path) -> None:
    path = lab_settings.kernel_config_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"InteractiveShellApp": {"extensions": ["other"]}, "IPKernelApp": {"x": 1}}))
    lab_settings.write_kernel_config(tmp_path)
    lab_settings.write_kernel_config(tmp_path)  # idempotent: the extension is listed once
    config = json.loads(path.read_text())
    assert config["InteractiveShellApp"]["extensions"] == ["other", "course_lib.exercises"]
    assert config["IPKernelApp"] == {"x": 1}


def test_a_config_that_is_not_an_object_is_refused_by_name(tmp_path: Path) -> None:
    path = lab_settings.kernel_config_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("[]")
    with pytest.raises(SystemExit, match="must be a JSON object"):
        lab_settings.write_kernel_config(tmp_path)


@pytest.mark.skipif(
    not lab_settings.kernel_config_path(Path(sys.prefix)).exists(), reason="the environment's settings are not written"
)
def test_a_kernel_of_this_environment_explains_a_missing_name_in_its_first_cell() -> None:
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        said: list[str] = []
        client.execute_interactive(
            "desks.handle('hello')", timeout=60, output_hook=lambda m: said.append(str(m["content"]))
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    text = "\n".join(said)
    assert "is not defined in this kernel yet" in text and "Traceback" not in text
