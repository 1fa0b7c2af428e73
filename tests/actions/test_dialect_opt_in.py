"""The canonical actions reach other dialects' hooks only when a hook asks (``actions: true``):
one `hookwright run` with the scripted model, a Claude Code command hook, an OpenHarness
command hook and a PicoClaw process each with and without the field, the bytes each read."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from cli_runner import run_hookwright
from hookwright.dialects.claude_code.config import parse_hooks
from hookwright.dialects.openharness.schema import HookFile
from hookwright.dialects.picoclaw.config import ProcessConfig, unknown_keys

FIELD = "hookwright_actions"

PROCESS = r"""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    with open(sys.argv[1], "a") as log:
        log.write(line)
    if "id" not in message:
        continue
    result = {"ok": True} if message["method"] == "hook.hello" else {"action": "continue"}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""

SCRIPT = """\
turns:
  - content: "writing"
    tool_calls: [{name: Bash, arguments: {command: "echo hi > out.txt"}}]
  - content: "done"
"""


def _openharness(name: str, actions: bool) -> str:
    extra = "\n  actions: true" if actions else ""
    return (
        f"name: {name}\nevents: [before_tool_dispatch]\nmatcher: Bash\nhandler:\n"
        f"  type: command\n  command: cat > {name}.json{extra}\n"
    )


def _process(log: Path, actions: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "command": [sys.executable, str(log.with_name("process.py")), str(log)],
        "intercept": ["before_tool"],
    }
    return {**entry, "actions": True} if actions else entry


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for folder in (".claude", ".openharness/hooks", ".picoclaw"):
        (project / folder).mkdir(parents=True)
    handlers = [
        {"type": "command", "command": "cat > cc-actions.json", "actions": True},
        {"type": "command", "command": "cat > cc-plain.json"},
    ]
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    for name, actions in (("oh-actions", True), ("oh-plain", False)):
        (project / ".openharness" / "hooks" / f"{name}.yaml").write_text(
            _openharness(name, actions)
        )
    (tmp_path / "process.py").write_text(PROCESS)
    processes = {
        "asks": _process(tmp_path / "pico-actions.jsonl", True),
        "plain": _process(tmp_path / "pico-plain.jsonl", False),
    }
    config = {"hooks": {"enabled": True, "processes": processes}}
    (project / ".picoclaw" / "config.json").write_text(json.dumps(config))
    (tmp_path / "script.yaml").write_text(SCRIPT)
    return project


def _before_tool(log: Path) -> dict[str, Any]:
    received = [json.loads(line) for line in log.read_text().splitlines()]
    params: dict[str, Any] = next(
        m["params"] for m in received if m.get("method") == "hook.before_tool"
    )
    return params


def test_only_hooks_that_ask_read_the_actions(tmp_path: Path, isolated_home: Path) -> None:
    project = _project(tmp_path)
    proc = run_hookwright(
        *("run", "write it", "--project", str(project), "--trust", "--json"),
        *("--model", f"scripted:{tmp_path / 'script.yaml'}"),
        *("--permission-mode", "bypassPermissions"),
        home=isolated_home,
    )
    assert proc.returncode == 0, proc.stderr
    assert "actions" not in proc.stderr  # no unknown-key diagnostic in any dialect
    written = str(project / "out.txt")
    expected = [
        {"kind": "proc.exec", "argv": ["echo", "hi"], "opaque": False},
        {"kind": "file.write", "path": written, "dynamic": False},
    ]
    for prefix in ("cc", "oh"):
        plain_bytes = (project / f"{prefix}-plain.json").read_bytes()
        asked = json.loads((project / f"{prefix}-actions.json").read_bytes())
        assert FIELD.encode() not in plain_bytes
        assert asked.pop(FIELD) == expected
        assert asked == json.loads(plain_bytes)
    if_asked = _before_tool(tmp_path / "pico-actions.jsonl")
    plain = _before_tool(tmp_path / "pico-plain.jsonl")
    assert FIELD not in plain
    assert if_asked.pop(FIELD) == expected
    assert if_asked == plain


def test_validation_knows_the_field_in_every_dialect() -> None:
    handler = {"type": "command", "command": "x"}
    for key, errors in (("actions", 0), ("actoins", 1)):
        parsed = parse_hooks({"PreToolUse": [{"hooks": [{**handler, key: True}]}]}, "s.json")
        assert len(parsed.diagnostics) == errors
    process = {"command": ["x"], "intercept": ["before_tool"]}
    assert unknown_keys("c.json", "p", {**process, "actions": True}, ProcessConfig) == []
    [typo] = unknown_keys("c.json", "p", {**process, "actoins": True}, ProcessConfig)
    assert "did you mean 'actions'" in typo.message
    hook: dict[str, Any] = {"name": "h", "events": ["before_tool_dispatch"], "handler": handler}
    assert HookFile.model_validate({**hook, "handler": {**handler, "actions": True}})
    with pytest.raises(ValidationError):
        HookFile.model_validate({**hook, "handler": {**handler, "actoins": True}})
