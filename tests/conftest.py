"""Shared fixtures: a fixed UTC clock for the store, and a desk wired with the offline models."""

from datetime import UTC, datetime

import pytest

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def t0():
    return T0
