"""Fixtures shared by the state tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .redis_server import redis_server


@pytest.fixture(params=["sqlite", "redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment that chooses the state backend: the default SQLite file, or a real
    redis-server started for the test (skipped where none is installed)."""
    if request.param == "sqlite":
        yield {}
        return
    with redis_server(tmp_path / "redis") as url:
        yield {"HOOKWRIGHT_STATE": url}
