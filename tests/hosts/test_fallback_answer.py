"""The in-process answer the Claude Code client falls back to when no daemon can be reached
(`claude_client.ANSWER_BOOT`, an isolated process) answers as `hookwright hook claude-code`
does, without loading the command line: the project's guard denies `rm -rf`, a process a
hook detached with a cleared environment ends with it (the answer adopts it, as the command
line does), a bad input is one line and exit 1, unusual arguments exit 2."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.hosts.project import hook_input, make_project

from bounds import eventually
from hookwright.bridges import claude_client
from hookwright.config.trust import TrustStore
from procs import running

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


DETACH_YAML = """\
name: detach
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: sh .openharness/hooks/scripts/detach.sh
  timeout_seconds: 30
"""
DETACH_SH = """\
(env -i setsid sh -c 'echo $$ > {pid}; exec sleep 300' >/dev/null 2>&1 &)
while [ ! -s {pid} ]; do sleep 0.01; done
"""


def test_a_process_a_hook_detached_without_its_marker_ends_with_the_answer(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "proj")
    hooks = project / ".openharness" / "hooks"
    pid_file = tmp_path / "pid"
    (hooks / "detach.yaml").write_text(DETACH_YAML)
    (hooks / "scripts" / "detach.sh").write_text(DETACH_SH.format(pid=pid_file))
    TrustStore(Path.home()).trust(project)
    ls = {**RM, "tool_input": {"command": "ls", "description": "list"}}
    done = answered(hook_input(project, "PreToolUse", **ls), "--project", str(project))
    assert done.returncode == 0, done.stderr[-2000:]
    pid = int(pid_file.read_text())
    try:
        assert eventually(lambda: not running(pid))
    finally:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def test_the_fallback_refuses_a_bad_input_and_unusual_arguments(tmp_path: Path) -> None:
    bad = answered(b"not json", "--project", str(tmp_path))
    assert bad.returncode == 1 and bad.stdout == b""
    assert b"hookwright: error: stdin is not a JSON hook input" in bad.stderr
    unusual = answered(b"{}", "--verbose")
    assert unusual.returncode == 2 and unusual.stdout == b""
    assert b"usage: hookwright hook claude-code [--project DIR]" in unusual.stderr
