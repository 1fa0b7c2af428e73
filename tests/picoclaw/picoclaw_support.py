"""Helpers for the PicoClaw tests: scripted hook processes, configs, inputs, process checks."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bounds import GENEROUS_BOUND
from hookwright.config.loading import LoadContext, LoadResult
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput
from hookwright.dialects.picoclaw.loader import discover
from hookwright.engine.kernel import HookEngine

HOOKPROC = Path(__file__).with_name("hookproc.py")


@dataclass
class HookProc:
    """One scripted hook process: its spec and the JSONL file it records to."""

    name: str
    spec: dict[str, Any]
    log: Path

    @property
    def argv(self) -> list[str]:
        return [sys.executable, str(HOOKPROC)]

    @property
    def env(self) -> dict[str, str]:
        return {"HOOKPROC_SPEC": json.dumps(self.spec), "HOOKPROC_LOG": str(self.log)}

    def config(self, **options: Any) -> dict[str, Any]:
        """A `hooks.processes.<name>` entry running this process."""
        return {"command": self.argv, "env": self.env, **options}

    def records(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def messages(self, method: str | None = None) -> list[dict[str, Any]]:
        return [
            r
            for r in self.records()
            if "_event" not in r and (method is None or r.get("method") == method)
        ]

    def params(self, method: str) -> list[dict[str, Any]]:
        return [m["params"] for m in self.messages(method)]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [r for r in self.records() if r.get("_event") == name]

    def pids(self) -> list[int]:
        out: list[int] = []
        for start in self.events("start"):
            out.append(start["pid"])
            if "child_pid" in start:
                out.append(start["child_pid"])
        return out


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie no longer counts)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_dead(pids: list[int], timeout: float = GENEROUS_BOUND) -> list[int]:
    """The pids still alive after waiting up to `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        left = [pid for pid in pids if alive(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


async def until(predicate: Callable[[], bool], timeout: float = GENEROUS_BOUND) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


@dataclass
class Pico:
    """A project with a PicoClaw config, an engine and the hook processes it runs."""

    root: Path
    home: Path
    engine: HookEngine = field(default_factory=lambda: HookEngine(audit_path=None))
    procs: list[HookProc] = field(default_factory=list)

    @property
    def project(self) -> Path:
        path = self.root / "project"
        path.mkdir(exist_ok=True)
        return path

    def hook(self, name: str, spec: dict[str, Any] | None = None) -> HookProc:
        proc = HookProc(name, spec or {}, self.root / f"{name}.{len(self.procs)}.jsonl")
        self.procs.append(proc)
        return proc

    def write(self, hooks: dict[str, Any], path: Path | None = None) -> Path:
        target = path or self.project / ".picoclaw" / "config.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"hooks": hooks}))
        return target

    def load(self, hooks: dict[str, Any] | None = None, *extra: Path) -> LoadResult:
        if hooks is not None:
            self.write(hooks)
        discovery = discover(LoadContext(self.project, self.home, list(extra)))
        result = discovery.bind(TrustPolicy(everything=True))
        for spec in result.specs:
            self.engine.register(spec)
        return result

    def pids(self) -> list[int]:
        return [pid for proc in self.procs for pid in proc.pids()]


def meta_input(event: Event, **payload: Any) -> HookInput:
    return HookInput(
        event,
        session_id="session-1",
        turn_id="turn-1",
        agent_id="agent-1",
        payload={"channel": "cli", "chat_id": "chat-1", **payload},
    )


def before_llm(**payload: Any) -> HookInput:
    base: dict[str, Any] = {
        "model": "claude-sonnet",
        "messages": [{"role": "user", "content": "hello"}],
        "tools": [],
        "options": {},
        "iteration": 0,
    }
    return meta_input(Event.PreModelCall, **{**base, **payload})


def after_llm(content: str = "Hi!", **payload: Any) -> HookInput:
    response: dict[str, Any] = {
        "content": content,
        "tool_calls": [],
        "finish_reason": "stop",
        "usage": None,
    }
    base: dict[str, Any] = {"model": "claude-sonnet", "response": response, "iteration": 0}
    return meta_input(Event.PostModelCall, **{**base, **payload})


def before_tool(tool: str = "echo_text", **arguments: Any) -> HookInput:
    return meta_input(
        Event.PreToolUse, tool_name=tool, tool_input=arguments, tool_use_id="tc-1", iteration=0
    )


def approve_tool(tool: str = "bash", **arguments: Any) -> HookInput:
    return meta_input(
        Event.PermissionRequest, tool_name=tool, tool_input=arguments, tool_use_id="tc-1"
    )


def after_tool(
    tool: str = "echo_text", content: str = "echoed", duration_ms: float = 15.0, **arguments: Any
) -> HookInput:
    return meta_input(
        Event.PostToolUse,
        tool_name=tool,
        tool_input=arguments,
        tool_use_id="tc-1",
        tool_response=content,
        tool_result={"content": content, "is_error": False},
        duration_ms=duration_ms,
    )
