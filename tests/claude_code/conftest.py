"""A real project, home and managed-settings directory per test, hooks loaded by the Claude Code
loader into a real `HookEngine`, and a check that no hook process outlives its test."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bounds import GENEROUS_BOUND, SLOW
from hookwright import Event, HookEngine, HookInput, Verdict
from hookwright.config.loading import LoadContext, LoadResult
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.claude_code.loader import LoaderOptions, discover
from hookwright.engine.inbox import AsyncInbox
from hookwright.engine.services import ModelEvaluator

MARK = "HOOKWRIGHT_TEST_MARK"
SETTINGS = {
    "user": ".claude/settings.json",
    "project": ".claude/settings.json",
    "local": ".claude/settings.local.json",
}


def leftover_processes(mark: str) -> list[int]:
    """Live processes whose environment carries `mark` (every hook process and its children)."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if needle in environ.split(b"\0") and stat[stat.rfind(")") + 2] not in "ZX":
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def group(event: str, *handlers: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    """A settings `hooks` object with one matcher group."""
    entry: dict[str, Any] = {"hooks": list(handlers)}
    if matcher is not None:
        entry["matcher"] = matcher
    return {event: [entry]}


def cmd(command: str, **fields: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **fields}


@dataclass
class Harness:
    project: Path
    home: Path
    managed: Path
    audit_path: Path
    engine: HookEngine
    scripts: Path
    result: LoadResult | None = None
    config_files: list[Path] = field(default_factory=list)
    _count: int = 0

    @property
    def inbox(self) -> AsyncInbox:
        return self.engine.services.inbox

    def use_model(self, evaluator: ModelEvaluator | None) -> None:
        """The model prompt and agent hooks of this engine ask."""
        self.engine.services = replace(self.engine.services, evaluator=evaluator)

    # Writing hooks -------------------------------------------------------------------------

    def _name(self, suffix: str) -> Path:
        self._count += 1
        return self.scripts / f"hook{self._count}{suffix}"

    def py(self, body: str) -> str:
        """A Python hook script; returns the shell command that runs it."""
        path = self._name(".py")
        path.write_text("import json, os, sys\n" + body)
        return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"

    def sh(self, body: str) -> str:
        """A bash hook script; returns the shell command that runs it."""
        path = self._name(".sh")
        path.write_text("#!/usr/bin/env bash\n" + body)
        return f"bash {shlex.quote(str(path))}"

    def emit(self, stdout: Any = "", stderr: str = "", code: int = 0) -> str:
        """A Python hook that reads stdin and prints fixed output (JSON for a dict)."""
        text = stdout if isinstance(stdout, str) else json.dumps(stdout)
        return self.py(
            "sys.stdin.read()\n"
            f"sys.stdout.write({text!r})\n"
            f"sys.stderr.write({stderr!r})\n"
            f"sys.exit({code})\n"
        )

    def settings(
        self, hooks: dict[str, Any] | None = None, kind: str = "project", **keys: Any
    ) -> Path:
        data: dict[str, Any] = dict(keys)
        if hooks is not None:
            data["hooks"] = hooks
        if kind == "managed":
            path = self.managed / "managed-settings.json"
        elif kind == "user":
            path = self.home / SETTINGS["user"]
        else:
            path = self.project / SETTINGS[kind]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
        return path

    def plugin(self, name: str, hooks: dict[str, Any], *, where: str = "project") -> Path:
        base = self.project if where == "project" else self.home
        root = base / ".claude" / "plugins" / name
        (root / "hooks").mkdir(parents=True, exist_ok=True)
        (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        return root

    # Loading and firing --------------------------------------------------------------------

    def load(self, **options: Any) -> LoadResult:
        ctx = LoadContext(self.project, self.home, self.config_files)
        discovery = discover(ctx, LoaderOptions(**options))
        result = discovery.bind(TrustPolicy(everything=True))
        for spec in result.specs:
            self.engine.register(spec)
        self.result = result
        return result

    def hooks(self, hooks: dict[str, Any], **options: Any) -> LoadResult:
        """Write project settings with `hooks` and load them."""
        self.settings(hooks)
        return self.load(**options)

    def input(self, event: Event | str, /, session: str = "s1", **payload: Any) -> HookInput:
        return HookInput(Event(event), session_id=session, cwd=str(self.project), payload=payload)

    async def fire(self, event: Event | str, /, session: str = "s1", **payload: Any) -> Verdict:
        return await self.dispatch(self.input(event, session, **payload))

    async def dispatch(self, inp: HookInput) -> Verdict:
        return await asyncio.wait_for(self.engine.dispatch(inp), 60)

    async def fire_tool(
        self, event: Event | str = Event.PreToolUse, tool: str = "Bash", **tool_input: Any
    ) -> Verdict:
        payload: dict[str, Any] = {"tool_name": tool, "tool_input": tool_input}
        if event != Event.PermissionRequest:
            payload["tool_use_id"] = "toolu_1"
        return await self.fire(event, **payload)

    def audit(self) -> list[dict[str, Any]]:
        self.engine.audit.flush()
        if not self.audit_path.exists():
            return []
        return [json.loads(line) for line in self.audit_path.read_text().splitlines()]

    @property
    def diagnostics(self) -> list[str]:
        assert self.result is not None
        return [str(d) for d in self.result.diagnostics]


@pytest.fixture
async def h(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Harness]:
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK, mark)
    managed = tmp_path / "managed"
    managed.mkdir()
    monkeypatch.setenv("HOOKWRIGHT_CLAUDE_MANAGED_DIR", str(managed))
    monkeypatch.delenv("HOOKWRIGHT_CLAUDE_EXIT_RULES", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", raising=False)
    project = tmp_path / "project"
    scripts = project / ".claude" / "hooks"
    scripts.mkdir(parents=True)
    engine = HookEngine(audit_path=tmp_path / "audit.jsonl")
    harness = Harness(
        project=project,
        home=isolated_home,
        managed=managed,
        audit_path=tmp_path / "audit.jsonl",
        engine=engine,
        scripts=scripts,
    )
    try:
        yield harness
    finally:
        await engine.services.inbox.aclose()
        await engine.aclose()
        deadline = time.monotonic() + GENEROUS_BOUND
        while leftover_processes(mark) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert leftover_processes(mark) == [], "hook processes were left behind"


# A real HTTP hook endpoint --------------------------------------------------------------------


@dataclass
class Endpoint:
    base: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    #: path -> (status, body, headers)
    replies: dict[str, tuple[int, str, dict[str, str]]] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)

    def reply(self, path: str, body: Any = "", status: int = 200, **headers: str) -> str:
        text = body if isinstance(body, str) else json.dumps(body)
        self.replies[path] = (status, text, headers)
        return self.base + path


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    endpoint: Endpoint


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        endpoint = self.server.endpoint
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        endpoint.requests.append(
            {"path": self.path, "headers": dict(self.headers.items()), "body": json.loads(body)}
        )
        if self.path == "/slow":
            endpoint.release.wait(SLOW)
        if self.path == "/endless":
            self._endless(endpoint.release)
            return
        status, text, headers = endpoint.replies.get(self.path, (404, "", {}))
        data = text.encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _endless(self, release: threading.Event) -> None:
        """200 with a body without length until the client goes away (at most a minute)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline and not release.is_set():
                self.wfile.write(b" " * 65536)
        except OSError:
            pass


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.endpoint = Endpoint(f"http://127.0.0.1:{httpd.server_address[1]}")
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield httpd.endpoint
    finally:
        httpd.endpoint.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
        assert not thread.is_alive()
