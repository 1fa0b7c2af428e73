"""Each hosts test gets its own private runtime folder (`XDG_RUNTIME_DIR`), so the daemon the
installed hooks start is the test's own; it is stopped and the folder removed afterwards."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.bounds import eventually


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def daemon_pids(runtime: Path) -> list[int]:
    pids = []
    for pid_file in runtime.glob("*/daemon.pid"):
        try:
            pids.append(int(pid_file.read_text()))
        except (OSError, ValueError):
            continue
    return pids


def reap(runtime: Path) -> None:
    """Stop every daemon of `runtime`: SIGTERM, then SIGKILL when it lingers."""
    for pid in daemon_pids(runtime):
        for signum in (signal.SIGTERM, signal.SIGKILL):
            if not alive(pid):
                break
            os.kill(pid, signum)
            eventually(lambda pid=pid: not alive(pid))


@pytest.fixture(autouse=True)
def runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A short private folder (a Unix socket path must stay under 108 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="hwd-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    try:
        yield folder
    finally:
        reap(folder)
        shutil.rmtree(folder, ignore_errors=True)
