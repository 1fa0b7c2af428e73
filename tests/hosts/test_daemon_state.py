"""The daemon keeps the session state where the user's setting says (the SQLite file, or a
Redis server), not in its own memory: a budget counted by calls the daemon answered holds
for the next call answered by a separate `hookwright hook claude-code` process."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.hosts.conftest import alive, daemon_pids
from tests.hosts.project import hook_input, run_installed
from tests.hosts.test_daemon import installed
from tests.state.redis_server import redis_server
from tests.state.test_bridge_budget import BUDGET, openharness_project

from cli_runner import run_cli_bytes

CALL = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_01"}


@pytest.fixture(params=["sqlite", "redis"])
def backend(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    if request.param == "sqlite":
        monkeypatch.delenv("HOOKWRIGHT_STATE", raising=False)
        yield request.param
        return
    with redis_server(tmp_path / "redis") as url:
        monkeypatch.setenv("HOOKWRIGHT_STATE", url)
        yield request.param


def refusal(stdout: bytes) -> str:
    if not stdout.strip():
        return ""
    output = json.loads(stdout).get("hookSpecificOutput", {})
    return str(output.get("permissionDecisionReason", "")) if output else ""


def test_a_budget_counted_by_the_daemon_holds_in_a_hook_process(
    backend: str, tmp_path: Path, runtime_dir: Path
) -> None:
    project = tmp_path / "proj"
    openharness_project(project)
    hooks = installed(project, "command")
    assert "claude_client.py" in hooks["PreToolUse"]["command"]
    body = hook_input(project, "PreToolUse", **CALL)
    for _ in range(BUDGET):
        done = run_installed(hooks["PreToolUse"]["command"], body, project)
        assert done.returncode == 0, done.stderr
        assert refusal(done.stdout) == ""
    assert [pid for pid in daemon_pids(runtime_dir) if alive(pid)], "no daemon answered"
    env = {k: v for k, v in os.environ.items() if k != "HOOKWRIGHT_HOOK_RUN"}
    one_shot = run_cli_bytes(["hook", "claude-code", "--project", str(project)], env, body, 60)
    assert one_shot.returncode == 0, one_shot.stderr
    assert "tool-call budget spent" in refusal(one_shot.stdout)
    if backend == "sqlite":
        assert (Path.home() / ".hookwright" / "state.db").is_file()
