"""The audit answers who allowed a call: `hookwright run` with a scripted model leaves one
``Permission`` record per outcome naming its source; `hooks test` records are marked."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from cli_runner import run_cli

ALLOW_WRITE = (
    'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
    '"permissionDecision": "allow"}}\''
)
SCRIPT = """
turns:
  - tool_calls:
      - name: Bash
        arguments: {command: "rm -rf build"}
  - tool_calls:
      - name: Write
        arguments: {file_path: "out.txt", content: "x"}
  - tool_calls:
      - name: Bash
        arguments: {command: "echo hi"}
  - content: done
"""


def write_project(root: Path) -> Path:
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    (project / "build").mkdir()
    hook = {"type": "command", "command": ALLOW_WRITE}
    settings = {
        "permissions": {"deny": ["Bash(rm *)"]},
        "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [hook]}]},
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (root / "script.yaml").write_text(SCRIPT)
    return project


def hookwright(audit: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOOKWRIGHT_AUDIT_LOG": str(audit)}
    return run_cli(list(args), env)


def permission_records(audit: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    return [record for record in records if record["event"] == "Permission"]


def run(tmp_path: Path, audit: Path, *options: str) -> list[dict[str, Any]]:
    project = write_project(tmp_path)
    model = f"scripted:{tmp_path / 'script.yaml'}"
    done = hookwright(audit, "run", "-p", str(project), "-m", model, "--trust", *options, "go")
    assert done.returncode == 0, done.stderr
    assert (project / "build").is_dir()
    return permission_records(audit)


def test_each_permission_outcome_names_its_source(tmp_path: Path, isolated_home: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    records = run(tmp_path, audit)
    by_call = {record["tool_use_id"]: record for record in records}
    assert len(records) == 3 == len(by_call)
    rm, write, echo = (by_call[f"call_{n}"] for n in (1, 2, 3))
    settings = str(tmp_path / "project" / ".claude" / "settings.json")
    assert (rm["decision"], rm["tool_input"]) == ("deny", {"command": "rm -rf build"})
    assert rm["permission"] == {
        "by": "rule",
        "name": "Bash(rm *)",
        "mode": "default",
        "file": settings,
    }
    assert write["decision"] == "allow"
    assert write["permission"]["by"] == "hook"
    assert write["permission"]["name"].startswith("command:echo")
    assert (echo["decision"], echo["permission"]["by"]) == ("deny", "mode")
    assert not any("test" in record for record in records)


def test_a_bypass_permissions_run_names_the_mode(tmp_path: Path, isolated_home: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    records = run(tmp_path, audit, "--permission-mode", "bypassPermissions")
    echo = next(record for record in records if record["tool_use_id"] == "call_3")
    assert echo["decision"] == "allow"
    assert echo["permission"] == {
        "by": "mode",
        "name": "bypassPermissions",
        "mode": "bypassPermissions",
        "file": None,
    }
    rm = next(record for record in records if record["tool_use_id"] == "call_1")
    assert (rm["decision"], rm["permission"]["by"]) == ("deny", "rule")


def test_hooks_test_records_are_marked_and_hidden_by_default(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = write_project(tmp_path)
    audit = tmp_path / "audit.jsonl"
    payload = tmp_path / "input.json"
    payload.write_text(json.dumps({"tool_name": "Write", "tool_input": {"file_path": "a"}}))
    done = hookwright(audit, "hooks", "test", "PreToolUse", "-p", str(project), "-i", str(payload))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert len(records) == 1 and records[0]["test"] is True
    shown = hookwright(audit, "audit", "--file", str(audit))
    assert shown.stdout == ""
    with_tests = hookwright(audit, "audit", "--file", str(audit), "--tests")
    assert "[test] PreToolUse" in with_tests.stdout


def test_the_audit_viewer_says_who_decided_each_call(tmp_path: Path, isolated_home: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    run(tmp_path, audit)
    done = hookwright(audit, "audit", "--file", str(audit))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if " Permission " in line]
    assert len(lines) == 3
    rm, write, echo = lines
    assert "Permission Bash(rm *) (by rule, .claude/settings.json): denied Bash rm -rf" in rm
    assert "(by hook): allowed Write" in write
    assert "Permission default (by mode): denied Bash echo hi" in echo
    assert "(host" not in done.stdout
