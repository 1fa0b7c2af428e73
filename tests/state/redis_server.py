"""A throwaway redis-server for the state tests: on 127.0.0.1 at a free port, its files in a
temporary folder, no persistence; stopped and reaped when the test ends. Tests that need one
skip when redis-server is not installed."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

START_TIMEOUT = 15.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """The URL of a running redis-server started for the caller."""
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not installed")
    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    argv = [exe, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder)]
    argv += ["--save", "", "--appendonly", "no", "--logfile", str(folder / "redis.log")]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                log = (folder / "redis.log").read_text(errors="replace")[-500:]
                raise RuntimeError(f"redis-server did not start: {log}")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with redis_server(tmp_path / "redis") as url:
        yield url
