"""A budget kept in the session state by an OpenHarness and a PicoClaw hook that opt in to
read it, across separate `hookwright hook claude-code` processes (one per event, as Claude
Code runs them), on SQLite (the default file) and on a real redis-server: the third call of
a session is refused, a call of another session is not."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_runner import run_hookwright
from hookwright.config.trust import TrustStore

BUDGET = 2

#: A command hook: counts the call and refuses it past the budget, from the state it reads.
OPENHARNESS_HOOK = f"""\
import json, sys
envelope = json.load(sys.stdin)
used = envelope["hookwright"]["state"].get("tool_calls", 0)
answer = {{"hookwright": {{"state": {{"incr": {{"tool_calls": 1}}}}}}}}
if used >= {BUDGET}:
    answer.update(decision="block", reason="tool-call budget spent")
print(json.dumps(answer))
"""
OPENHARNESS_YAML = """\
name: budget
events: [before_tool_dispatch]
handler:
  type: command
  command: {command}
  timeout_seconds: 20
  state: true
"""

#: A JSON-RPC process doing the same on `hook.before_tool`.
PICOCLAW_HOOK = f"""\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    result = {{"ok": True}}
    if message["method"] == "hook.before_tool":
        used = message["params"]["hookwright"]["state"].get("tool_calls", 0)
        update = {{"state": {{"incr": {{"tool_calls": 1}}}}}}
        result = {{"action": "continue", "hookwright": update}}
        if used >= {BUDGET}:
            result.update(action="deny_tool", reason="tool-call budget spent")
    reply = {{"jsonrpc": "2.0", "id": message["id"], "result": result}}
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


def openharness_project(root: Path) -> None:
    hooks = root / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    (root / "budget.py").write_text(OPENHARNESS_HOOK)
    command = f"{sys.executable} {root / 'budget.py'}"
    (hooks / "budget.yaml").write_text(OPENHARNESS_YAML.format(command=command))


def picoclaw_project(root: Path) -> None:
    (root / ".picoclaw").mkdir(parents=True)
    (root / "plugin.py").write_text(PICOCLAW_HOOK)
    process = {
        "command": [sys.executable, str(root / "plugin.py")],
        "intercept": ["before_tool"],
        "state": True,
    }
    config = {"hooks": {"enabled": True, "processes": {"budget": process}}}
    (root / ".picoclaw" / "config.json").write_text(json.dumps(config))


def pre_tool_use(project: Path, home: Path, env: dict[str, str], session: str) -> str:
    """One PreToolUse through its own `hookwright hook claude-code` process: the reason the
    hooks refused the call with, or "" when they let it run."""
    stdin = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": f"toolu_{session}",
    }
    proc = run_hookwright(
        "hook", "claude-code", "--project", str(project), home=home, env=env,
        stdin=json.dumps(stdin),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "hookwright.state" not in proc.stderr, proc.stderr
    if not proc.stdout.strip():
        return ""
    output = json.loads(proc.stdout).get("hookSpecificOutput", {})
    if output.get("permissionDecision") != "deny":
        return ""
    return str(output.get("permissionDecisionReason", ""))


@pytest.mark.parametrize(
    "write_project", [openharness_project, picoclaw_project], ids=["openharness", "picoclaw"]
)
def test_a_budget_holds_across_hook_processes(
    write_project: object, backend: dict[str, str], tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "project"
    write_project(project)  # type: ignore[operator]
    TrustStore(isolated_home).trust(project)
    answers = [pre_tool_use(project, isolated_home, backend, "s1") for _ in range(BUDGET + 1)]
    assert answers[:BUDGET] == [""] * BUDGET
    assert "tool-call budget spent" in answers[BUDGET]
    assert pre_tool_use(project, isolated_home, backend, "s2") == "", "another session's budget"
    if not backend:
        assert (isolated_home / ".hookwright" / "state.db").is_file()
