"""The daemon answering Claude Code's events for a project that holds a Codex hook and a
Gemini CLI hook: a real `hookwright daemon` started by the installed command client. The
Codex guard's block is Claude Code's deny, the Gemini hook runs with Gemini's input, and the
Codex hook nobody reviewed is reported (the daemon's log and the audit) with the review it
lacks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.codex.both import (
    GEMINI_CONTEXT,
    GUARD_NAME,
    codex_and_gemini_project,
    codex_stdin,
    gemini_stdin,
    review_entry,
)
from tests.hosts.test_daemon import installed, run_command

from hookwright.dialects.codex.layers import MANAGED_DIR_ENV


def test_the_daemon_answers_claude_code_with_the_codex_deny_and_runs_the_gemini_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime_dir: Path
) -> None:
    home, project = codex_and_gemini_project(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv(MANAGED_DIR_ENV, str(tmp_path / "no-managed-codex"))
    hooks = installed(project, "command")

    rm = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "t1"}
    out = run_command(hooks["PreToolUse"], project, "PreToolUse", **rm)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out["hookSpecificOutput"]["permissionDecisionReason"] == "codex: no deleting"
    [read] = codex_stdin(project)
    assert json.loads(read)["tool_input"] == {"command": "rm -rf build"}

    echo = {"tool_name": "Bash", "tool_input": {"command": "echo hi"}, "tool_use_id": "t2"}
    response = {"stdout": "hi", "stderr": "", "interrupted": False, "isImage": False}
    out = run_command(hooks["PostToolUse"], project, "PostToolUse", **echo, tool_response=response)
    assert out["hookSpecificOutput"]["updatedToolOutput"] == "hi" + GEMINI_CONTEXT
    [seen] = gemini_stdin(project)
    assert (seen["hook_event_name"], seen["tool_name"]) == ("AfterTool", "run_shell_command")
    assert seen["tool_response"]["llmContent"] == "hi"
    assert not (project / "unreviewed-ran.txt").exists()

    [log] = runtime_dir.glob("*/daemon.log")
    assert "not reviewed in Codex" in log.read_text()
    assert review_entry(project) in log.read_text()
    audit = home / ".hookwright" / "audit.jsonl"
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    [guard] = [r for r in records if r["hook"] == GUARD_NAME and r.get("effect") == "deny"]
    assert (guard["dialect"], guard["host"]) == ("codex", "daemon")
    assert guard["origin"].startswith(f"{project}{os.sep}.codex{os.sep}hooks.json:")
    skipped = [r for r in records if r["status"] == "not_run"]
    assert skipped and all("not reviewed in Codex" in r["reason"] for r in skipped)
