"""The daemon answers each project as the Claude Code version that runs the hook: the installed
command client passes on how the CLI names itself (``AI_AGENT``, measured in 2.1.240 and
2.1.332), a project asked by another version is loaded again as that one, and a caller that
does not say is loaded as the settings choose, with a note in the daemon's log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.hosts.project import hook_input, make_project, run_installed
from tests.hosts.test_daemon import daemon_status, installed

from claude_pin import PIN_ENV
from hookwright.bridges.claude_client import runtime_dir
from hookwright.bridges.claude_version import calling_version

RM = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "toolu_01"}


def ask(
    hook: dict[str, Any], project: Path, agent: str | None, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """One PreToolUse through the installed client, run by a CLI naming itself `agent`."""
    if agent is None:
        monkeypatch.delenv("AI_AGENT", raising=False)
    else:
        monkeypatch.setenv("AI_AGENT", agent)
    done = run_installed(hook["command"], hook_input(project, "PreToolUse", **RM), project)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_the_calling_version_is_read_from_the_agent_variable() -> None:
    assert calling_version({"AI_AGENT": "claude-code_2-1-332_harness"}) == (2, 1, 332)
    assert calling_version({"AI_AGENT": "claude-code_2-1-240"}) == (2, 1, 240)
    for other in (
        "",
        "cursor_1-2-3",
        "claude-code_2-1",
        "claude-code_2-1-332x",
        "x_claude-code_2-1-3",
    ):
        assert calling_version({"AI_AGENT": other}) is None
    assert calling_version({}) is None


def test_each_project_answers_as_the_cli_that_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PIN_ENV)
    project = make_project(tmp_path / "proj")
    hook = installed(project, "command")["PreToolUse"]
    root = str(project.resolve())

    denied = ask(hook, project, "claude-code_2-1-240_harness", monkeypatch)
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert daemon_status()["claude_code"] == {root: "2.1.240"}

    ask(hook, project, "claude-code_2-1-332_harness", monkeypatch)
    assert daemon_status()["claude_code"] == {root: "2.1.332"}, "loaded again as 2.1.332"

    ask(hook, project, "claude-code_2-1-300_interactive", monkeypatch)
    assert daemon_status()["claude_code"] == {root: "2.1.295"}, "the profile 2.1.300 behaves as"

    log = runtime_dir(Path.home()) / "daemon.log"
    assert "did not name its version" not in log.read_text()
    ask(hook, project, None, monkeypatch)
    assert daemon_status()["claude_code"] == {root: "2.1.332"}, "the newest, as nothing chose"
    assert "the calling Claude Code did not name its version (no $AI_AGENT)" in log.read_text()
