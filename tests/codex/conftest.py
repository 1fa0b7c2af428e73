from __future__ import annotations

from pathlib import Path

import pytest

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV
from hookwright.dialects.managed_paths import CODEX_MANAGED_PREFERENCES_ENV


@pytest.fixture(autouse=True)
def managed_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Codex's managed folder (``/etc/codex``) for the test: empty unless a test writes it,
    so no test reads the machine's."""
    folder = tmp_path / "etc-codex"
    folder.mkdir()
    monkeypatch.setenv(MANAGED_DIR_ENV, str(folder))
    monkeypatch.delenv(CODEX_MANAGED_PREFERENCES_ENV, raising=False)
    return folder
