"""`hookwright install|uninstall claude-code`: what lands in Claude Code's settings and that
uninstall gives the file back as it was."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from cli_runner import run_cli
from hookwright.bridges.claude_settings import CLIENT_MARK, MARK, RELAYED
from hookwright.bridges.endpoint import load_endpoint


def hookwright(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(list(args), dict(os.environ), timeout=60)


def settings_of(project: Path) -> Path:
    return project / ".claude" / "settings.local.json"


def test_install_adds_one_command_group_per_relayed_event(tmp_path: Path) -> None:
    done = hookwright("install", "claude-code", "--project", str(tmp_path))
    assert done.returncode == 0, done.stderr
    hooks = json.loads(settings_of(tmp_path).read_text())["hooks"]
    assert list(hooks) == [event.value for event in RELAYED]
    for groups in hooks.values():
        [group] = groups
        [hook] = group["hooks"]
        assert hook["type"] == "command"
        assert CLIENT_MARK in hook["command"] and str(tmp_path.resolve()) in hook["command"]


def test_install_is_idempotent_and_uninstall_restores_bytes(tmp_path: Path) -> None:
    original = (
        b'{\n    "env": {"A": "1"},\n'
        b'    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}\n}'
    )
    settings_of(tmp_path).parent.mkdir()
    settings_of(tmp_path).write_bytes(original)
    assert hookwright("install", "claude-code", "--project", str(tmp_path)).returncode == 0
    once = settings_of(tmp_path).read_bytes()
    again = hookwright("install", "claude-code", "--project", str(tmp_path))
    assert "already installed" in again.stdout
    assert settings_of(tmp_path).read_bytes() == once
    data = json.loads(once)
    assert data["env"] == {"A": "1"}
    assert data["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "true"}]}
    assert hookwright("uninstall", "claude-code", "--project", str(tmp_path)).returncode == 0
    assert settings_of(tmp_path).read_bytes() == original
    second = hookwright("uninstall", "claude-code", "--project", str(tmp_path))
    assert "not installed" in second.stdout
    assert settings_of(tmp_path).read_bytes() == original


def test_uninstall_removes_a_file_install_created(tmp_path: Path) -> None:
    hookwright("install", "claude-code", "--project", str(tmp_path))
    hookwright("uninstall", "claude-code", "--project", str(tmp_path))
    assert not settings_of(tmp_path).exists()


def test_uninstall_keeps_settings_changed_since(tmp_path: Path) -> None:
    hookwright("install", "claude-code", "--project", str(tmp_path))
    data = json.loads(settings_of(tmp_path).read_text())
    data["model"] = "opus"
    settings_of(tmp_path).write_text(json.dumps(data))
    hookwright("uninstall", "claude-code", "--project", str(tmp_path))
    assert json.loads(settings_of(tmp_path).read_text()) == {"model": "opus"}


def test_user_install_goes_to_the_home_settings(isolated_home: Path) -> None:
    assert hookwright("install", "claude-code", "--user").returncode == 0
    hooks = json.loads((isolated_home / ".claude" / "settings.json").read_text())["hooks"]
    assert "--project" not in hooks["PreToolUse"][0]["hooks"][0]["command"]


def test_unreadable_settings_is_a_one_line_error(tmp_path: Path) -> None:
    settings_of(tmp_path).parent.mkdir()
    settings_of(tmp_path).write_text("{not json")
    done = hookwright("install", "claude-code", "--project", str(tmp_path))
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert (
        line.startswith("hookwright: error: ") and "settings.local.json is not valid JSON" in line
    )
    assert settings_of(tmp_path).read_text() == "{not json"


def test_needs_exactly_one_target(tmp_path: Path) -> None:
    done = hookwright("install", "claude-code")
    assert done.returncode == 2 and "--project DIR or --user" in done.stderr


def test_http_install_and_uninstall_restore_bytes_and_mode(tmp_path: Path) -> None:
    original = (
        b'{"model": "opus",\n "hooks": {"Stop": '
        b'[{"hooks": [{"type": "command", "command": "true"}]}]}}'
    )
    settings_of(tmp_path).parent.mkdir()
    settings_of(tmp_path).write_bytes(original)
    settings_of(tmp_path).chmod(0o644)
    done = hookwright("install", "claude-code", "--project", str(tmp_path), "--mode", "http")
    assert done.returncode == 0, done.stderr
    assert settings_of(tmp_path).stat().st_mode & 0o777 == 0o600
    hooks = json.loads(settings_of(tmp_path).read_text())["hooks"]
    endpoint = load_endpoint(Path.home())
    assert endpoint is not None
    [start] = hooks["SessionStart"][0]["hooks"]
    assert start["type"] == "command" and CLIENT_MARK in start["command"]
    for event in RELAYED[1:]:
        [ours] = hooks[event.value][-1]["hooks"]
        assert ours == {
            "type": "http",
            "url": f"{endpoint.url}?project={tmp_path.resolve()}",
            "headers": {"Authorization": f"Bearer {endpoint.token}"},
        }
    assert hooks["Stop"][0] == {"hooks": [{"type": "command", "command": "true"}]}
    assert hookwright("uninstall", "claude-code", "--project", str(tmp_path)).returncode == 0
    assert settings_of(tmp_path).read_bytes() == original
    assert settings_of(tmp_path).stat().st_mode & 0o777 == 0o644


def test_switching_mode_replaces_the_hooks_and_uninstall_still_restores(tmp_path: Path) -> None:
    hookwright("install", "claude-code", "--project", str(tmp_path), "--mode", "http")
    hookwright("install", "claude-code", "--project", str(tmp_path), "--mode", "command")
    hooks = json.loads(settings_of(tmp_path).read_text())["hooks"]
    assert all(len(groups) == 1 for groups in hooks.values())
    assert all(g[0]["hooks"][0]["type"] == "command" for g in hooks.values())
    hookwright("uninstall", "claude-code", "--project", str(tmp_path))
    assert not settings_of(tmp_path).exists()


def test_uninstall_recognises_in_process_hooks_of_earlier_installs(tmp_path: Path) -> None:
    old = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"python -m {MARK}"}]}]}}
    settings_of(tmp_path).parent.mkdir()
    settings_of(tmp_path).write_text(json.dumps({**old, "model": "opus"}))
    hookwright("uninstall", "claude-code", "--project", str(tmp_path))
    assert json.loads(settings_of(tmp_path).read_text()) == {"model": "opus"}


def test_unknown_mode_is_a_one_line_error(tmp_path: Path) -> None:
    done = hookwright("install", "claude-code", "--project", str(tmp_path), "--mode", "tcp")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert "unknown --mode 'tcp'" in line
    assert not settings_of(tmp_path).exists()


def test_http_install_warns_when_git_would_commit_the_token(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    done = hookwright("install", "claude-code", "--project", str(tmp_path), "--mode", "http")
    assert done.returncode == 0
    [line] = done.stderr.splitlines()
    assert line.startswith("hookwright: warning: ") and "add it to .gitignore" in line
    hookwright("uninstall", "claude-code", "--project", str(tmp_path))
    (tmp_path / ".gitignore").write_text(".claude/settings.local.json\n")
    done = hookwright("install", "claude-code", "--project", str(tmp_path), "--mode", "http")
    assert done.returncode == 0 and done.stderr == ""
