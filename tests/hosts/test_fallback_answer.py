"""The in-process answer the Claude Code client falls back to when no daemon can be reached
(`claude_client.ANSWER_BOOT`, an isolated process) answers as `hookwright hook claude-code`
does, without loading the command line: the project's guard denies `rm -rf`, a bad input is
one line and exit 1, unusual arguments exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.hosts.project import hook_input, make_project

from hookwright.bridges import claude_client
from hookwright.config.trust import TrustStore

RM = {
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build", "description": "clean"},
    "tool_use_id": "toolu_01",
}


def answered(stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    command = claude_client.hookwright_command(
        sys.executable, *args, boot=claude_client.ANSWER_BOOT
    )
    command.insert(1, "-Ximporttime")
    return subprocess.run(command, input=stdin, capture_output=True, cwd="/", timeout=120)


def loaded(done: subprocess.CompletedProcess[bytes]) -> set[str]:
    lines = done.stderr.decode().splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def test_the_fallback_denies_through_the_projects_guard_without_the_command_line(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "proj")
    TrustStore(Path.home()).trust(project)
    done = answered(hook_input(project, "PreToolUse", **RM), "--project", str(project))
    assert done.returncode == 0, done.stderr[-2000:]
    assert b'"permissionDecision":"deny"' in done.stdout
    assert b"rm -rf is not allowed here" in done.stdout
    modules = loaded(done)
    assert "hookwright.bridges.claude_hook" in modules
    assert not {"typer", "hookwright.cli", "rich"} & modules


def test_the_fallback_refuses_a_bad_input_and_unusual_arguments(tmp_path: Path) -> None:
    bad = answered(b"not json", "--project", str(tmp_path))
    assert bad.returncode == 1 and bad.stdout == b""
    assert b"hookwright: error: stdin is not a JSON hook input" in bad.stderr
    unusual = answered(b"{}", "--verbose")
    assert unusual.returncode == 2 and unusual.stdout == b""
    assert b"usage: hookwright hook claude-code [--project DIR]" in unusual.stderr
