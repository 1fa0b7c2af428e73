"""Fixtures for the OpenHarness tests."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from hookwright import HookEngine

from .helpers import HookServer, Workspace, server_handler


@pytest.fixture
def ws(tmp_path: Path, isolated_home: Path) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    return Workspace(root, isolated_home)


@pytest.fixture
async def engine() -> AsyncIterator[HookEngine]:
    eng = HookEngine(audit_path=None)
    yield eng
    await eng.aclose()


@pytest.fixture
def http_server() -> Iterator[HookServer]:
    holder: dict[str, HookServer] = {}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), server_handler(holder))
    httpd.daemon_threads = True
    host, port = httpd.server_address[:2]
    server = HookServer(url=f"http://{host!s}:{port}")
    holder["server"] = server
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
