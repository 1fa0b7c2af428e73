"""PicoClaw effect tests: a project whose `.picoclaw/config.json` runs scripted hook processes
(tests/picoclaw/hookproc.py, which logs every message it reads), and helpers to read those logs."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from .support import jsonl

HOOKPROC = Path(__file__).parent.parent / "picoclaw" / "hookproc.py"

PLUGIN_TOOL = {
    "type": "function",
    "function": {
        "name": "my_plugin_tool",
        "description": "Plugin provided tool",
        "parameters": {"type": "object", "properties": {"input": {"type": "string"}}},
    },
}


class PicoProject:
    """A project whose `.picoclaw/config.json` runs scripted hook processes (hookproc.py)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.processes: dict[str, Any] = {}
        #: The `protocol` key of the config (None: left out).
        self.protocol: str | None = "seed"

    def process(
        self,
        name: str,
        methods: dict[str, list[dict[str, Any]]],
        *,
        intercept: list[str] | None = None,
        hello: dict[str, Any] | None = None,
        **options: Any,
    ) -> Path:
        """Add a hook process answering `methods` (and `hook.hello` with the `hello` rule:
        hookproc rules); returns its message log."""
        log = self.root.parent / f"{name}.jsonl"
        spec: dict[str, Any] = {"methods": {f"hook.{m}": rules for m, rules in methods.items()}}
        if hello is not None:
            spec["hello"] = hello
        self.processes[name] = {
            "command": [sys.executable, str(HOOKPROC)],
            "env": {"HOOKPROC_SPEC": json.dumps(spec), "HOOKPROC_LOG": str(log)},
            "intercept": intercept if intercept is not None else list(methods),
            **options,
        }
        hooks: dict[str, Any] = {"processes": self.processes}
        if self.protocol is not None:
            hooks["protocol"] = self.protocol
        config = {"hooks": hooks}
        path = self.root / ".picoclaw" / "config.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(config))
        return log


def left_behind(logs: Path) -> list[int]:
    """The hook processes (logged in `logs/*.jsonl`) still running after 5 s."""
    pids = [r["pid"] for log in logs.glob("*.jsonl") for r in jsonl(log) if "pid" in r]
    assert pids, "no hook process started"
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [pid for pid in pids if alive(pid)]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def received(log: Path, method: str) -> list[dict[str, Any]]:
    """The params of every `hook.<method>` (or notification) the process read."""
    return [m["params"] for m in jsonl(log) if m.get("method") == method]


def echo(wrap: str, action: str = "modify", **edits: Any) -> list[dict[str, Any]]:
    """One rule: answer with the params edited (hookproc's `set`/`append`/`prefix`/`push`)."""
    return [{"echo": {"action": action, "wrap": wrap, **edits}}]


def answer(result: Any, **when: Any) -> dict[str, Any]:
    rule: dict[str, Any] = {"result": result}
    if when:
        rule["when"] = when
    return rule
