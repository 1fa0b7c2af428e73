"""`hookwright run` with what Claude Code 2.1.240 (`-p`) does with settings `env`, a
SessionStart `initialUserMessage` and a `sessionTitle` (measured with the real CLI): the
variables reach Bash, hooks and the Stop cap; the initial message is a prompt of its own before
the user's; later prompts carry `session_title`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from cli_runner import run_hookwright

LOG = (
    "#!/usr/bin/env bash\n"
    'in=$(cat); printf \'%s\\n\' "$in" >> "$CLAUDE_PROJECT_DIR/.claude/stdin.log"\n'
    'echo "MARK_VAR=$MARK_VAR" >> "$CLAUDE_PROJECT_DIR/.claude/env.log"\n'
)


def project_with(tmp_path: Path, settings: dict[str, Any], turns: list[dict[str, Any]]) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    log = project / ".claude" / "log.sh"
    log.write_text(LOG)
    log.chmod(0o755)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "model.yaml").write_text(yaml.safe_dump({"turns": turns}, sort_keys=False))
    return project


def hook(command: str) -> list[dict[str, Any]]:
    return [{"hooks": [{"type": "command", "command": command}]}]


def run(project: Path, home: Path) -> list[dict[str, Any]]:
    proc = run_hookwright(
        "run", "go", "--project", str(project), "--trust", "--json",
        "--model", f"scripted:{project.parent / 'model.yaml'}",
        "--permission-mode", "bypassPermissions",
        home=home,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def logged(project: Path) -> list[dict[str, Any]]:
    lines = (project / ".claude" / "stdin.log").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_settings_env_reaches_bash_hooks_and_the_stop_cap(tmp_path: Path) -> None:
    log = '"$CLAUDE_PROJECT_DIR"/.claude/log.sh'
    block = "echo 'MARK again' >&2; exit 2"
    settings = {
        "env": {"MARK_VAR": "from-settings", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "2"},
        "hooks": {"PreToolUse": hook(log), "Stop": hook(block)},
    }
    turns = [
        {"tool_calls": [{"id": "a", "name": "Bash", "arguments": {"command": "echo $MARK_VAR"}}]},
        {"content": "first"},
        {"content": "second"},
        {"content": "third"},
        {"content": "never"},
    ]
    project = project_with(tmp_path, settings, turns)
    events = run(project, tmp_path / "home")
    results = [e for e in events if e.get("type") == "tool_result"]
    assert [r["content"] for r in results] == ["from-settings"]
    assert (project / ".claude" / "env.log").read_text() == "MARK_VAR=from-settings\n"
    answers = [e["text"] for e in events if e.get("type") == "assistant"]
    assert answers[-1] == "third"  # two blocks honoured, the third answer ends the turn


def test_initial_user_message_is_a_prompt_of_its_own_and_the_title_follows(
    tmp_path: Path,
) -> None:
    log = '"$CLAUDE_PROJECT_DIR"/.claude/log.sh'
    start = {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "initialUserMessage": "MARK first",
            "sessionTitle": "MARK title",
        }
    }
    settings = {
        "hooks": {
            "SessionStart": hook(f"echo '{json.dumps(start)}'"),
            "UserPromptSubmit": hook(log),
        }
    }
    project = project_with(tmp_path, settings, [{"content": "one"}, {"content": "two"}])
    run(project, tmp_path / "home")
    prompts = logged(project)
    assert [(p["prompt"], p["session_title"]) for p in prompts] == [
        ("MARK first", "MARK title"),
        ("go", "MARK title"),
    ]
    assert prompts[0]["prompt_id"] != prompts[1]["prompt_id"]
    assert list(prompts[1])[-2:] == ["prompt", "session_title"]


def test_an_untrusted_projects_settings_env_is_not_used(tmp_path: Path) -> None:
    settings = {"env": {"MARK_VAR": "from-settings"}}
    turns = [
        {"tool_calls": [{"id": "a", "name": "Bash", "arguments": {"command": "echo $MARK_VAR"}}]},
        {"content": "done"},
    ]
    project = project_with(tmp_path, settings, turns)
    proc = run_hookwright(
        "run", "go", "--project", str(project), "--json",
        "--model", f"scripted:{project.parent / 'model.yaml'}",
        "--permission-mode", "bypassPermissions",
        home=tmp_path / "home",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    results = [e["content"] for e in events if e.get("type") == "tool_result"]
    assert results == ["(Bash completed with no output)"]
