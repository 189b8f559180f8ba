"""Shared fixtures: a fixed UTC clock for the store; a developer's own .env never reaches a test."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def t0():
    return T0


@pytest.fixture(autouse=True)
def no_developer_env_file(monkeypatch):
    """Point the live settings at an absent .env: tests set the variables they mean."""
    monkeypatch.setattr("course_lib.live.ENV_FILE", Path(__file__).parent / "absent.env")
