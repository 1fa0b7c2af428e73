"""A warm project's Gemini CLI files changed while a real `hookwright daemon` (started by the
installed command client, on its own Unix socket) keeps the project loaded: a Gemini guard
added to the project's `.gemini/settings.json` refuses the very next event, and
`~/.gemini/trustedFolders.json` turning the folder untrusted stops it at the next event, as
Gemini CLI would not run it there. The same daemon answers throughout (its pid, its one
loaded project): the change is seen through its watch, not by a new process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.hosts.test_daemon import daemon_status, installed, run_command

#: A Gemini CLI BeforeTool guard: it logs the input it read and denies a `rm -rf`.
GEMINI_GUARD = """\
import json, sys
data = json.load(sys.stdin)
with open("gemini-guard.jsonl", "a") as log:
    log.write(json.dumps(data) + "\\n")
if "rm -rf" in data["tool_input"].get("command", ""):
    print(json.dumps({"decision": "deny", "reason": "gemini: no deleting"}))
"""
RM = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "t1"}


def gemini_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project Gemini CLI trusts (`~/.gemini/trustedFolders.json`), with the guard's
    program in `.gemini/` but no `settings.json` yet; HOME is the test's."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "guard.py").write_text(GEMINI_GUARD)
    (home / ".gemini").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", raising=False)
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(tmp_path / "no-system.json"))
    trust_in_gemini(home, project, "TRUST_FOLDER")
    return project


def trust_in_gemini(home: Path, project: Path, level: str) -> None:
    folders = home / ".gemini" / "trustedFolders.json"
    folders.write_text(json.dumps({str(project): level}))


def add_guard(project: Path) -> None:
    guard = {"type": "command", "command": f"{sys.executable} .gemini/guard.py", "name": "guard"}
    settings = {"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [guard]}]}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))


def guard_read(project: Path) -> list[dict[str, Any]]:
    log = project / "gemini-guard.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def denial(answer: Any) -> str | None:
    output = answer.get("hookSpecificOutput") or {}
    if output.get("permissionDecision") != "deny":
        return None
    return str(output.get("permissionDecisionReason"))


def test_a_gemini_guard_added_to_a_warm_project_refuses_the_next_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = gemini_project(tmp_path, monkeypatch)
    hooks = installed(project, "command")
    assert denial(run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)) is None
    warm = daemon_status()
    assert warm["projects"] == [str(project)]

    add_guard(project)
    answer = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert denial(answer) == "gemini: no deleting"
    [read] = guard_read(project)
    assert (read["hook_event_name"], read["tool_name"]) == ("BeforeTool", "run_shell_command")
    assert read["tool_input"] == {"command": "rm -rf build"}
    now = daemon_status()
    assert (now["pid"], now["projects"]) == (warm["pid"], warm["projects"])


def test_trusted_folders_turning_the_folder_untrusted_stops_its_guard_at_the_next_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime_dir: Path
) -> None:
    project = gemini_project(tmp_path, monkeypatch)
    add_guard(project)
    hooks = installed(project, "command")
    assert denial(run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)) is not None
    assert len(guard_read(project)) == 1
    warm = daemon_status()

    trust_in_gemini(Path.home(), project, "DO_NOT_TRUST")
    answer = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert denial(answer) is None and len(guard_read(project)) == 1  # the guard did not run
    [log] = runtime_dir.glob("*/daemon.log")
    assert f"Gemini CLI does not trust {project}" in log.read_text()
    now = daemon_status()
    assert (now["pid"], now["projects"]) == (warm["pid"], warm["projects"])

    trust_in_gemini(Path.home(), project, "TRUST_FOLDER")
    again = run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    assert denial(again) == "gemini: no deleting" and len(guard_read(project)) == 2
