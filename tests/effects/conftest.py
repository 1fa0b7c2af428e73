from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .pico import PicoProject, left_behind


@pytest.fixture
def pico_project(tmp_path: Path) -> Iterator[PicoProject]:
    """A project running PicoClaw hook processes; afterwards every one of them must be gone."""
    yield PicoProject(tmp_path / "project")
    assert left_behind(tmp_path) == [], "hook processes left behind"
