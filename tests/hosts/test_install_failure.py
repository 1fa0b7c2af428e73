"""`install claude-code` says what will not run and writes `onFailure: block` for a Claude
Code that has it (the version given or found on PATH, never run from the project); the
daemon writes every event it answers to the user's audit."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.bounds import eventually
from tests.hosts.project import make_project
from tests.hosts.test_daemon import RM, installed, run_command

from cli_runner import run_cli
from hookwright.config.trust import TrustStore

FAKE_CLAUDE = """#!/bin/sh
pwd > "{marker}"
echo "{version} (Claude Code)"
"""


def install(project: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": os.environ.get("PATH", "") if path is None else path}
    return run_cli(
        ["install", "claude-code", "-p", str(project), *args], env, timeout=60, cwd=project
    )


def hooks_of(project: Path) -> list[dict[str, Any]]:
    data = json.loads((project / ".claude" / "settings.local.json").read_text())
    return [hook for groups in data["hooks"].values() for g in groups for hook in g["hooks"]]


def fake_claude(folder: Path, version: str, marker: Path) -> Path:
    folder.mkdir(parents=True)
    claude = folder / "claude"
    claude.write_text(FAKE_CLAUDE.format(marker=marker, version=version))
    claude.chmod(0o755)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def test_install_on_an_untrusted_project_says_what_will_not_run_and_how_to_trust(
    project: Path,
) -> None:
    done = install(project)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f"hookwright: warning: {project} is not trusted: its hooks will not run inside Claude "
        f"Code until you run: hookwright trust {project}"
    )
    assert any("block-rm (OpenHarness, " in line for line in lines[1:])
    assert any("house-rules (Python, " in line for line in lines[1:])
    assert not any("CLAUDE-HOOK" in line or "claude_code" in line for line in lines)
    TrustStore(Path.home()).trust(project)
    assert install(project).stderr == ""


@pytest.mark.parametrize("mode", ["command", "http"])
def test_a_claude_code_with_on_failure_gets_block_on_every_installed_hook(
    project: Path, mode: str
) -> None:
    TrustStore(Path.home()).trust(project)
    done = install(project, "--mode", mode, "--claude-code-version", "2.1.332")
    assert done.returncode == 0, done.stderr
    assert "onFailure: block written" in done.stdout
    hooks = hooks_of(project)
    assert hooks and all(hook["onFailure"] == "block" for hook in hooks)
    if mode == "http":
        assert any(hook["type"] == "http" for hook in hooks)
    older = install(project, "--mode", mode, "--claude-code-version", "2.1.240")
    assert "no onFailure written (needs 2.1.295+)" in older.stdout
    assert "lets the action through" in older.stdout
    assert all("onFailure" not in hook for hook in hooks_of(project))


def test_the_version_comes_from_claude_on_path_run_in_a_neutral_folder(
    project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-in"
    found = fake_claude(tmp_path / "bin", "2.1.300", marker)
    done = install(project, path=f"{found}:/usr/bin:/bin")
    assert done.returncode == 0, done.stderr
    assert f"Claude Code 2.1.300 ({found / 'claude'})" in done.stdout
    assert marker.read_text().strip() == "/"
    assert all(hook["onFailure"] == "block" for hook in hooks_of(project))


def test_a_claude_of_the_project_or_a_relative_path_entry_is_never_run(
    project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-in"
    fake_claude(project / "bin", "9.9.999", marker)
    done = install(project, path=f"bin:.:{project / 'bin'}:/nonexistent")
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "Claude Code unknown (no `claude` on PATH)" in done.stdout
    assert all("onFailure" not in hook for hook in hooks_of(project))


def test_a_bad_version_is_a_one_line_error(project: Path) -> None:
    done = install(project, "--claude-code-version", "latest")
    assert done.returncode == 2
    assert done.stderr == (
        "hookwright: error: --claude-code-version 'latest' is not a version such as 2.1.332\n"
    )


def audit_records() -> list[dict[str, Any]]:
    path = Path.home() / ".hookwright" / "audit.jsonl"
    try:
        return [json.loads(line) for line in path.read_text().splitlines()]
    except FileNotFoundError:
        return []


def test_the_daemon_audits_each_event_it_answers(project: Path) -> None:
    hooks = installed(project, "command")
    out = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"

    def denied() -> bool:
        return any(
            r["hook"] == "block-rm" and r["decision"] == "deny" and r["tool_name"] == "Bash"
            for r in audit_records()
        )

    assert eventually(denied)
    run_command(hooks["UserPromptSubmit"], project, "UserPromptSubmit", prompt="hi")
    assert eventually(
        lambda: any(
            r["hook"] == "house-rules" and r["effect"] == "context" for r in audit_records()
        )
    )
