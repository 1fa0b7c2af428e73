"""A flow rule and a budget on the session state, written as Python hooks and as a Claude Code
command hook, through the real `hookwright run` with a scripted model, across `--resume`, on
SQLite (the default file) and on a real redis-server.

The rule: after reading a secret file (`.env`), no network call this session. The budget: at
most three tool calls per session. The effects are files the Bash tool would create."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from cli_runner import run_hookwright as hookwright

PYTHON_RULES = """\
import os

BUDGET = 3


def flow(inp, *, state):
    for action in inp.actions:
        if action.kind == "file.read" and os.path.basename(action.path).startswith(".env"):
            state.set("secret_read", True)
        if action.kind == "net.fetch" and state.has("secret_read"):
            return {"decision": "deny", "reason": "no network after reading a secret"}
    return None


def budget(inp, *, state):
    if state.incr("tool_calls") > BUDGET:
        return {"decision": "deny", "reason": "tool-call budget spent"}
    return None
"""

PYTHON_HOOKS = """\
hooks:
  - {name: flow, event: PreToolUse, call: "rules:flow"}
  - {name: budget, event: PreToolUse, call: "rules:budget"}
"""

COMMAND_RULES = """\
import json, os, sys

data = json.load(sys.stdin)
state = data["hookwright"]["state"]
tool, args = data["tool_name"], data["tool_input"]
update = {"incr": {"tool_calls": 1}}
reason = None
if tool == "Read" and os.path.basename(args.get("file_path", "")).startswith(".env"):
    update["set"] = {"secret_read": True}
if tool == "Bash" and "curl " in args.get("command", "") and state.get("secret_read"):
    reason = "no network after reading a secret"
elif state.get("tool_calls", 0) + 1 > 3:
    reason = "tool-call budget spent"
answer = {"hookwright": {"state": update}}
if reason:
    answer["hookSpecificOutput"] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }
print(json.dumps(answer))
"""

FETCH = "touch {flag} && curl -s -m 1 http://127.0.0.1:9/ || true"


def python_project(root: Path) -> None:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(PYTHON_HOOKS)
    (root / ".hookwright" / "rules.py").write_text(PYTHON_RULES)


def command_project(root: Path) -> None:
    (root / ".claude").mkdir(parents=True)
    (root / "rules_hook.py").write_text(COMMAND_RULES)
    entry = {
        "type": "command",
        "command": f"{sys.executable} {root / 'rules_hook.py'}",
        "hookwright": {"state": True},
    }
    settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [entry]}]}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))


def script(folder: Path, name: str, calls: list[dict[str, object]]) -> str:
    turns = [{"content": "working", "tool_calls": [call]} for call in calls]
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"turns": [*turns, {"content": "done"}]}))
    return f"scripted:{path}"


def bash(command: str) -> dict[str, object]:
    return {"name": "Bash", "arguments": {"command": command}}


@pytest.mark.parametrize(
    "write_project", [python_project, command_project], ids=["python", "claude_code"]
)
def test_flow_rule_and_budget_hold_across_resume(
    write_project: object, backend: dict[str, str], tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "project"
    write_project(project)  # type: ignore[operator]
    (project / ".env").write_text("TOKEN=secret\n")
    scripts = tmp_path / "scripts"
    scripts.mkdir()

    def run(prompt: str, model: str, *extra: str) -> None:
        proc = hookwright(
            "run",
            prompt,
            "-p",
            str(project),
            "--model",
            model,
            "--trust",
            "--permission-mode",
            "bypassPermissions",
            *extra,
            home=isolated_home,
            env=backend,
        )
        assert proc.returncode == 0, proc.stderr
        shown = proc.stdout + proc.stderr
        assert "): error" not in shown and "hookwright.state" not in shown, shown

    run(
        "read the secret",
        script(scripts, "first", [{"name": "Read", "arguments": {"file_path": ".env"}}]),
    )
    listed = hookwright("sessions", "-p", str(project), "--json", home=isolated_home)
    session = json.loads(listed.stdout)[0]["session_id"]
    resumed = [bash(FETCH.format(flag="fetched.flag")), bash("touch a.flag"), bash("touch b.flag")]
    run("go on", script(scripts, "second", resumed), "--resume", session)
    run("fresh", script(scripts, "fresh", [bash(FETCH.format(flag="fresh.flag"))]))

    assert not (project / "fetched.flag").exists(), "network call after reading .env ran"
    assert (project / "a.flag").exists(), "the third call is within the budget"
    assert not (project / "b.flag").exists(), "the fourth call passed the budget"
    assert (project / "fresh.flag").exists(), "another session has its own state"
    if not backend:
        state_file = isolated_home / ".hookwright" / "state.db"
        assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
