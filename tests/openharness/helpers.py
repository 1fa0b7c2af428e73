"""Helpers for the OpenHarness tests: a workspace on disk, canonical inputs, hook scripts and
a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import yaml

from hookwright import Event, HookEngine, HookInput
from hookwright.config.loading import LoadResult
from hookwright.dialects.openharness import install

PY = sys.executable


class Workspace:
    """A project directory with `.openharness/hooks/`."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home
        self.hooks = root / ".openharness" / "hooks"
        self.hooks.mkdir(parents=True)
        (self.hooks / "scripts").mkdir()

    def hook(self, file: str, doc: dict[str, Any] | str) -> Path:
        path = self.hooks / file
        text = doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False)
        path.write_text(text, encoding="utf-8")
        return path

    def agent(self, name: str, text: str) -> Path:
        """An agent definition, `.openharness/agents/<name>.md`."""
        folder = self.root / ".openharness" / "agents"
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.md"
        path.write_text(text, encoding="utf-8")
        return path

    def script(self, name: str, body: str) -> str:
        """Write a Python hook script; returns the command that runs it."""
        path = self.hooks / "scripts" / name
        path.write_text(body, encoding="utf-8")
        return f'"{PY}" ./.openharness/hooks/scripts/{name}'

    def command_hook(
        self,
        file: str,
        name: str,
        events: list[str],
        body: str,
        *,
        matcher: str | None = None,
        capabilities: list[str] | None = None,
        **handler: Any,
    ) -> Path:
        """A command hook whose handler is the Python script `body`."""
        doc: dict[str, Any] = {"name": name, "events": events}
        if matcher is not None:
            doc["matcher"] = matcher
        doc["handler"] = {
            "type": "command",
            "command": self.script(f"hook_{name}.py", body),
            **handler,
        }
        if capabilities is not None:
            doc["capabilities"] = capabilities
        return self.hook(file, doc)

    def kind(self, kind: str) -> None:
        (self.root / ".openharness" / "workspace.yaml").write_text(f"kind: {kind}\n")


def install_ws(engine: HookEngine, ws: Workspace, **options: Any) -> LoadResult:
    result = install(engine, ws.root, home=ws.home, **options)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert not errors, errors
    return result


# Canonical inputs (docs/payloads.md) -----------------------------------------------------


def tool_call(name: str = "Bash", **tool_input: Any) -> HookInput:
    return HookInput(
        Event.PreToolUse,
        session_id="s-1",
        turn_id="run-1",
        payload={"tool_name": name, "tool_input": tool_input, "tool_use_id": "call-1"},
    )


def tool_result(output: Any, name: str = "Bash", **tool_input: Any) -> HookInput:
    return HookInput(
        Event.PostToolUse,
        session_id="s-1",
        turn_id="run-1",
        payload={
            "tool_name": name,
            "tool_input": tool_input,
            "tool_use_id": "call-1",
            "tool_response": output,
            "tool_result": {"content": json.dumps(output), "is_error": False},
        },
    )


MESSAGES = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "hello"},
]


def model_call(model_ref: str = "platform/openai-default", **options: Any) -> HookInput:
    return HookInput(
        Event.PreModelCall,
        session_id="s-1",
        turn_id="run-1",
        payload={
            "model": "gpt-4o",
            "model_ref": model_ref,
            "messages": list(MESSAGES),
            "tools": [],
            "options": options,
            "iteration": 0,
        },
    )


def model_reply(text: str = "hi there", model_ref: str = "platform/openai-default") -> HookInput:
    return HookInput(
        Event.PostModelCall,
        session_id="s-1",
        turn_id="run-1",
        payload={
            "model": "gpt-4o",
            "model_ref": model_ref,
            "messages": list(MESSAGES),
            "options": {"temperature": 0.2},
            "iteration": 0,
            "response": {
                "content": text,
                "tool_calls": [],
                "finish_reason": "stop",
                "usage": {},
            },
        },
    )


def context_event(event: Event, messages: list[dict[str, Any]] | None = None) -> HookInput:
    return HookInput(
        event,
        session_id="s-1",
        turn_id="run-1",
        payload={"messages": list(messages or MESSAGES), "iteration": 0},
    )


def run_end(event: Event = Event.Stop, trigger_type: str = "message") -> HookInput:
    status = "completed" if event is Event.Stop else "failed"
    return HookInput(
        event,
        session_id="s-1",
        turn_id="run-1",
        payload={
            "trigger_type": trigger_type,
            "run_status": status,
            "last_assistant_message": "done",
        },
    )


# Hook scripts --------------------------------------------------------------------------

RECORD = """\
import json, os, sys
data = json.load(sys.stdin)
with open(os.environ["RECORD_TO"], "a") as fh:
    fh.write(json.dumps(data) + "\\n")
"""


def reply_script(output: dict[str, Any], *, record: bool = False) -> str:
    """A script that optionally records its envelope and prints `output`."""
    head = RECORD if record else "import json, sys\nsys.stdin.read()\n"
    return head + f"print({json.dumps(json.dumps(output))})\n"


def read_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


# A real HTTP server ---------------------------------------------------------------------


@dataclass
class Reply:
    status: int = 200
    body: str = ""
    delay: float = 0.0


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class HookServer:
    url: str
    replies: dict[str, Reply] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def reply(self, path: str, body: dict[str, Any] | str = "", status: int = 200) -> str:
        text = body if isinstance(body, str) else json.dumps(body)
        self.replies[path] = Reply(status, text)
        return self.url + path


def stream_endlessly(handler: BaseHTTPRequestHandler, release: threading.Event) -> None:
    """Answer 200 with a body without length until the client goes away (at most a minute)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.end_headers()
    chunk = b"{" * 65536
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and not release.is_set():
            handler.wfile.write(chunk)
    except OSError:
        pass


def server_handler(holder: dict[str, HookServer]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            server = holder["server"]
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            server.requests.append(
                Request(self.command, self.path, dict(self.headers.items()), body)
            )
            if self.path == "/hang":
                server.release.wait(30)
            if self.path == "/endless":
                stream_endlessly(self, server.release)
                return
            reply = server.replies.get(self.path, Reply(404, "no such hook"))
            data = reply.body.encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
