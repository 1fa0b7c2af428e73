"""A hook file that does not load is never passed over in silence by the hook commands: real
`hookwright hook claude-code|codex|gemini` subprocesses and the installed client with its
daemon, on a project whose `.hookwright/hooks.yaml` (or OpenHarness hook file) is broken."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.cli_runner import run_hookwright
from tests.gemini.project import shell_call
from tests.hosts.project import hook_input, make_project, run_installed
from tests.hosts.test_daemon import DENY, RM, installed

GUARD_YAML = """\
hooks:
  - name: no-rm
    event: PreToolUse
    call: guard:no_rm
"""
GUARD_PY = """\
from hookwright import deny


def no_rm(inp):
    if "rm -rf" in str(inp.tool_input):
        return deny("no rm -rf here")
"""
BROKEN = "hooks: [\n"
POLICY = "rules:\n  - fail: closed\n    events: [PreToolUse]\n"


def guarded(root: Path, text: str = GUARD_YAML) -> Path:
    (root / ".hookwright").mkdir(parents=True)
    (root / ".hookwright" / "hooks.yaml").write_text(text)
    (root / ".hookwright" / "guard.py").write_text(GUARD_PY)
    return root


def hooks_file(project: Path) -> str:
    return str(project.resolve() / ".hookwright" / "hooks.yaml")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def trusted(project: Path, home: Path) -> Path:
    assert run_hookwright("trust", str(project), home=home).returncode == 0
    return project


def ask(
    home: Path, project: Path, event: str, host: str = "claude-code", **fields: object
) -> subprocess.CompletedProcess[str]:
    stdin = hook_input(project, event, **fields).decode()
    return run_hookwright("hook", host, "--project", str(project), home=home, stdin=stdin)


def test_a_broken_hooks_yaml_fails_the_gate_event_naming_the_file(
    tmp_path: Path, home: Path
) -> None:
    project = trusted(guarded(tmp_path / "p", BROKEN), home)
    asked = ask(home, project, "PreToolUse", **RM)
    assert (asked.returncode, asked.stdout) == (1, "")
    line = asked.stderr.strip()
    assert f"the Python hooks of {hooks_file(project)} did not load: invalid YAML:" in line
    assert "hookwright hooks validate" in line and "\n" not in line
    records = [
        json.loads(r) for r in (home / ".hookwright" / "audit.jsonl").read_text().split("\n") if r
    ]
    [record] = [r for r in records if r["status"] == "not_loaded"]
    assert (record["event"], record["hook"]) == ("PreToolUse", hooks_file(project))
    assert record["error"].startswith("invalid YAML:")


def test_a_broken_hooks_yaml_is_named_at_session_start(tmp_path: Path, home: Path) -> None:
    project = trusted(guarded(tmp_path / "p", BROKEN), home)
    asked = ask(home, project, "SessionStart", source="startup")
    assert asked.returncode == 0, asked.stderr
    message = json.loads(asked.stdout)["systemMessage"]
    assert f"the Python hooks of {hooks_file(project)} did not load: invalid YAML:" in message
    assert message.endswith("(check it with: hookwright hooks validate)")


@pytest.mark.parametrize("level", ["project", "user"])
def test_a_policy_that_closes_the_event_denies_with_the_reason(
    tmp_path: Path, home: Path, level: str
) -> None:
    project = trusted(guarded(tmp_path / "p", BROKEN), home)
    folder = project / ".hookwright" if level == "project" else home / ".hookwright"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "policy.yaml").write_text(POLICY)
    asked = ask(home, project, "PreToolUse", **RM)
    assert asked.returncode == 0, asked.stderr
    decision = json.loads(asked.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    reason = decision["permissionDecisionReason"]
    assert f"{hooks_file(project)} did not load" in reason
    assert f"{folder / 'policy.yaml'}: rules[0]" in reason


def test_a_valid_hooks_yaml_answers_as_before(tmp_path: Path, home: Path) -> None:
    project = trusted(guarded(tmp_path / "p"), home)
    asked = ask(home, project, "PreToolUse", **RM)
    assert (asked.returncode, asked.stderr) == (0, "")
    decision = json.loads(asked.stdout)["hookSpecificOutput"]
    assert decision["permissionDecisionReason"] == "no rm -rf here"
    started = ask(home, project, "SessionStart", source="startup")
    assert (started.returncode, json.loads(started.stdout)) == (0, {})


def test_an_untrusted_broken_project_gets_the_untrusted_notice_alone(
    tmp_path: Path, home: Path
) -> None:
    project = guarded(tmp_path / "p", BROKEN)
    started = ask(home, project, "SessionStart", source="startup")
    assert started.returncode == 0, started.stderr
    message = json.loads(started.stdout)["systemMessage"]
    assert "not trusted" in message and "did not load" not in message
    asked = ask(home, project, "PreToolUse", **RM)
    assert (asked.returncode, json.loads(asked.stdout), asked.stderr) == (0, {}, "")


def test_a_broken_openharness_hook_file_fails_the_gate_event(tmp_path: Path, home: Path) -> None:
    project = make_project(tmp_path / "p")
    broken = project / ".openharness" / "hooks" / "block-rm.yaml"
    broken.write_text("name: [\n")
    trusted(project, home)
    asked = ask(home, project, "PreToolUse", **RM)
    assert (asked.returncode, asked.stdout) == (1, "")
    assert f"{broken.resolve()}" in asked.stderr and "invalid YAML" in asked.stderr


def test_codex_s_hook_command_fails_the_gate_event(tmp_path: Path, home: Path) -> None:
    project = trusted(guarded(tmp_path / "p", BROKEN), home)
    asked = ask(home, project, "PreToolUse", "codex", **RM)
    assert (asked.returncode, asked.stdout) == (1, "")
    assert f"the Python hooks of {hooks_file(project)} did not load" in asked.stderr


def test_gemini_s_hook_command_fails_the_gate_event(tmp_path: Path, home: Path) -> None:
    project = trusted(guarded(tmp_path / "p", BROKEN), home)
    stdin = shell_call(project, "rm -rf build")
    asked = run_hookwright("hook", "gemini", "--project", str(project), home=home, stdin=stdin)
    assert (asked.returncode, asked.stdout) == (1, "")
    assert f"the Python hooks of {hooks_file(project)} did not load" in asked.stderr


def test_the_daemon_fails_the_gate_event_and_names_the_file_at_session_start(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "proj")
    hooks = installed(project, "command")
    ok = run_installed(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert ok.returncode == 0 and json.loads(ok.stdout)["hookSpecificOutput"] == DENY
    broken = project / ".openharness" / "hooks" / "block-rm.yaml"
    broken.write_text("name: [\n")
    done = run_installed(
        hooks["PreToolUse"]["command"], hook_input(project, "PreToolUse", **RM), project
    )
    assert (done.returncode, done.stdout) == (1, b"")
    assert f"the OpenHarness hooks of {broken.resolve()} did not load" in done.stderr.decode()
    stdin = hook_input(project, "SessionStart", source="startup")
    started = run_installed(hooks["SessionStart"]["command"], stdin, project)
    assert started.returncode == 0, started.stderr
    assert "did not load" in json.loads(started.stdout)["systemMessage"]


def test_hooks_validate_names_the_broken_file_once(tmp_path: Path, home: Path) -> None:
    project = trusted(guarded(tmp_path / "p", BROKEN), home)
    checked = run_hookwright("hooks", "validate", "--project", str(project), home=home)
    assert checked.returncode == 1
    lines = checked.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if ".hookwright/hooks.yaml" in line)
    assert lines[at + 1].strip().startswith("error: invalid YAML: expected the node content")
