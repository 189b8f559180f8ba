"""Lesson 00's environment check: the lock is read line by line and compared with what is installed."""

from importlib import metadata

from course_lib.environment import check_environment, locked_versions, python_supported


def test_the_lock_is_read_without_comments_or_blanks(tmp_path):
    lock = tmp_path / "requirements.lock"
    lock.write_text("# pinned\npandas==2.0.0  # the tables\n\nno-such-package-xyz==1.0\n", encoding="utf-8")
    assert locked_versions(lock) == {"pandas": "2.0.0", "no-such-package-xyz": "1.0"}


def test_a_different_or_missing_package_is_named(tmp_path):
    lock = tmp_path / "requirements.lock"
    installed = metadata.version("pandas")
    lock.write_text(f"pandas=={installed}\npydantic==0.0.1\nno-such-package-xyz==1.0\n", encoding="utf-8")
    rows = check_environment(lock).set_index("package")
    assert rows["as locked"].to_dict() == {"pandas": True, "pydantic": False, "no-such-package-xyz": False}
    assert rows.loc["no-such-package-xyz", "installed"] == "missing"


def test_this_environment_is_the_locked_one():
    assert python_supported()
    differ = check_environment()
    assert differ[~differ["as locked"]].empty, differ[~differ["as locked"]]
