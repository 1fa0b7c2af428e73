from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from picoclaw_support import Pico, wait_dead


@pytest.fixture
def pico(tmp_path: Path, isolated_home: Path) -> Iterator[Pico]:
    """A project, an engine and its hook processes; every process must be gone afterwards."""
    harness = Pico(tmp_path, isolated_home)
    yield harness
    harness.engine.close()
    assert wait_dead(harness.pids()) == [], "hook processes left behind"
