"""Shared fixtures: a fixed UTC clock for the store; a developer's own .env never reaches a test."""

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests judge behaviour, not speed: a loaded machine must not fail them on Hypothesis's 200 ms
# deadline. In CI the quick sample is also fixed (derandomized), so a run is reproducible; `make stress`
# explores at scale with its own settings.
settings.register_profile(
    "course",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") == "true",
    database=None if os.environ.get("CI") == "true" else settings.default.database,
)
settings.load_profile("course")

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def t0():
    return T0


@pytest.fixture(autouse=True)
def no_developer_env_file(monkeypatch):
    """Point the live settings at an absent .env: tests set the variables they mean."""
    monkeypatch.setattr("course_lib.live.ENV_FILE", Path(__file__).parent / "absent.env")
