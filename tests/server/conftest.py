"""A real `hookwright serve` app on uvicorn (127.0.0.1, ephemeral port) in a thread, with the
connection guards `hookwright serve` runs it with.

The thread has its own event loop, so blocking clients (the `websockets` sync client,
Selenium) can drive it from the test. Every server started is stopped and its thread joined.
Each server has its own access token, which `LiveServer.http_url` and `LiveServer.ws_url` carry.
The page tests share one headless Chromium per test process (`tests/server/browser.py`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from selenium import webdriver

from hookwright.server import ServerSettings, create_app
from hookwright.server.access import new_token
from hookwright.server.transport import ServeConfig

from .browser import Chromium, browser_missing

STARTUP_TIMEOUT = 30.0


class LiveServer:
    def __init__(self, settings: ServerSettings) -> None:
        self.token = new_token()
        config = ServeConfig(
            create_app(settings, token=self.token),
            settings,
            port=0,
            log_level="warning",
            lifespan="off",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)

    @property
    def port(self) -> int:
        sockets = self.server.servers[0].sockets
        return int(sockets[0].getsockname()[1])

    @property
    def origin(self) -> str:
        """The origin of the served page, which the WebSocket accepts."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def http_url(self) -> str:
        """The page URL ``hookwright serve`` prints: with the token."""
        return f"{self.origin}/?token={self.token}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws?token={self.token}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self.server.started:
            self.stop()
            raise RuntimeError("uvicorn did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "uvicorn did not stop"


HookDecl = tuple[str, str, bool]


def write_skill(skills: Path, skill: str, hooks: list[HookDecl], role: str = "system") -> None:
    """``hooks`` are (name, timing, persistent); each prompt reads ``H:<name>``."""
    hooks_dir = skills / skill / "hooks"
    hooks_dir.mkdir(parents=True)
    entries: list[dict[str, Any]] = []
    for name, timing, persistent in hooks:
        entries.append(
            {
                "name": name,
                "file": f"{name}.md",
                "timing": timing,
                "role": role,
                "persistent": persistent,
            }
        )
        (hooks_dir / f"{name}.md").write_text(f"H:{name}\n", encoding="utf-8")
    (hooks_dir / "hooks.json").write_text(json.dumps({"hooks": entries}), encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with notes.txt, a persistent skill `memory` and a non-persistent skill `flow`."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("the notes\n", encoding="utf-8")
    write_skill(root / "skills", "memory", [("remember", "after_user_input", True)])
    write_skill(
        root / "skills",
        "flow",
        [("every-step", "before_each_agent", False), ("start", "after_user_input", False)],
    )
    return root


ServerFactory = Callable[..., LiveServer]


@pytest.fixture
def serve(project: Path, isolated_home: Path) -> Iterator[ServerFactory]:
    """Start a server on ``project``; keyword arguments override `ServerSettings` fields."""
    started: list[LiveServer] = []

    def start(**overrides: Any) -> LiveServer:
        settings = ServerSettings(project_dir=project, home=isolated_home, **overrides)
        server = LiveServer(settings)
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    """The test process's browser: started by the first page test, ended with the process."""
    shared = Chromium(tmp_path_factory.mktemp("chromium") / "profile")
    yield shared
    shared.quit()


@pytest.fixture
def browser(chromium: Chromium) -> Iterator[webdriver.Chrome]:
    """A blank tab of the shared browser that remembers nothing of the tests before it.

    Without the browser the test is skipped locally and fails under CI (``CI`` set), where
    ``make browser`` installs it."""
    missing = browser_missing()
    if missing:
        reason = f"{missing} not installed (run `make browser` as root)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; the page test must run under CI")
        pytest.skip(reason)
    try:
        yield chromium.tab()
    finally:
        chromium.forget()
