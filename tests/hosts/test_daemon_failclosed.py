"""A hook that fails on a gate event is never answered as "no objection": the daemon (both
fronts) and `hookwright hook claude-code` answer the installed hook's own failure (status 500,
exit 1, one line naming the hook), so Claude Code shows a hook error and blocks under
`onFailure: "block"`; where the failure policy closes the hook, a deny naming the failure.
The command client whose daemon and in-process fallback both fail says so the same way, and
at SessionStart in a `systemMessage`."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.hosts.project import hook_input, make_project, run_installed
from tests.hosts.test_daemon import CONTEXT, RM, installed, post

from hookwright.bridges import claude_client
from hookwright.config.trust import TrustStore

#: An OpenHarness guard whose program does not exist: it can never start.
DEAD_GUARD_YAML = """\
name: block-rm
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: /nonexistent/guard-program
  timeout_seconds: 10
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path / "proj")
    (root / ".openharness" / "hooks" / "block-rm.yaml").write_text(DEAD_GUARD_YAML)
    return root


def close_every_hook() -> None:
    policy = Path.home() / ".hookwright" / "policy.yaml"
    policy.parent.mkdir(exist_ok=True)
    policy.write_text("rules:\n  - fail: closed\n")


def started(project: Path, mode: str) -> dict[str, Any]:
    hooks = installed(project, mode)
    start = hook_input(project, "SessionStart", source="startup")
    assert run_installed(hooks["SessionStart"]["command"], start, project).returncode == 0
    return hooks


def test_http_answers_a_failed_guard_with_500_naming_it(project: Path) -> None:
    hooks = started(project, "http")
    hook = hooks["PreToolUse"]
    status, answer = post(hook["url"], hook["headers"], hook_input(project, "PreToolUse", **RM))
    assert status == 500, answer
    assert answer.decode().startswith("hookwright: hook 'block-rm' failed, so no verdict")
    prompt = hook_input(project, "UserPromptSubmit", prompt="hi")
    status, answer = post(hooks["UserPromptSubmit"]["url"], hook["headers"], prompt)
    assert status == 200 and json.loads(answer)["hookSpecificOutput"] == CONTEXT


def test_command_client_exits_1_with_one_line_for_a_failed_guard(project: Path) -> None:
    hooks = started(project, "command")
    done = run_installed(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert done.returncode == 1 and done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hookwright: hook 'block-rm' failed")


def test_in_process_answer_exits_1_for_a_failed_guard(project: Path) -> None:
    TrustStore(Path.home()).trust(project)
    done = subprocess.run(
        [sys.executable, "-m", "hookwright", "hook", "claude-code", "--project", str(project)],
        input=hook_input(project, "PreToolUse", **RM),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.decode().splitlines()[-1].startswith("hookwright: hook 'block-rm' failed")


@pytest.mark.parametrize("mode", ["http", "command"])
def test_a_failed_guard_the_policy_closes_is_a_deny_naming_the_failure(
    project: Path, mode: str
) -> None:
    close_every_hook()
    hooks = started(project, mode)
    body = hook_input(project, "PreToolUse", **RM)
    if mode == "http":
        status, raw = post(hooks["PreToolUse"]["url"], hooks["PreToolUse"]["headers"], body)
        assert status == 200, raw
    else:
        done = run_installed(hooks["PreToolUse"]["command"], body, project)
        assert done.returncode == 0, done.stderr
        raw = done.stdout
    answer = json.loads(raw)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    reason = answer["permissionDecisionReason"]
    assert reason.startswith("hook 'block-rm' (OpenHarness, ") and "guard-program" in reason


def starved_client(command: str, stdin: bytes, project: Path) -> subprocess.CompletedProcess[bytes]:
    """The installed command with no daemon to reach (its runtime folder is a file) and too few
    descriptors to start the in-process fallback."""
    blocked = claude_client.runtime_dir(Path.home())
    blocked.rmdir()
    blocked.write_text("not a folder")

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (5, 5))

    try:
        return subprocess.run(
            ["sh", "-c", command],
            input=stdin,
            capture_output=True,
            cwd=project,
            timeout=60,
            preexec_fn=few_descriptors,
        )
    finally:
        blocked.unlink()


def test_client_without_daemon_or_fallback_fails_the_event(project: Path) -> None:
    hooks = installed(project, "command")
    body = hook_input(project, "PreToolUse", **RM)
    done = starved_client(hooks["PreToolUse"]["command"], body, project)
    assert done.returncode == 1 and done.stdout == b""
    line = done.stderr.decode().strip()
    assert line.startswith("hookwright: the hooks are not running: no daemon answered (")
    assert "the in-process fallback cannot start: [Errno 24] Too many open files" in line


def test_client_without_daemon_or_fallback_says_so_at_session_start(project: Path) -> None:
    hooks = installed(project, "command")
    body = hook_input(project, "SessionStart", source="startup")
    done = starved_client(hooks["SessionStart"]["command"], body, project)
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout)["systemMessage"]
    assert message.startswith("hookwright: the hooks are not running: no daemon answered (")
    assert "Too many open files" in message
