"""A skill's ``!`command` `` lines in the reference agent, through `python -m hookwright run`:
PreSkillShellCommand gates each (allow, deny, a rewrite blocks), the command's output (or why it
did not run) is what the model gets, and a Claude Code profile without the event runs it
ungated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_hookwright

from .hook_log import ANSWERING_LOG_HOOK

SKILL = """---
description: Greets
---
Greeting $ARGUMENTS.
Status: !`echo SHELL_OUT && touch ran.txt`
End.
"""
EVENTS = ("UserPromptSubmit", "UserPromptExpansion", "PreSkillShellCommand")


def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".claude" / "skills" / "greet").mkdir(parents=True)
    (root / ".claude" / "skills" / "greet" / "SKILL.md").write_text(SKILL)
    (tmp_path / "hook.py").write_text(ANSWERING_LOG_HOOK)
    command = [{"hooks": [{"type": "command", "command": f"python3 {tmp_path / 'hook.py'}"}]}]
    settings = {"hooks": {event: command for event in EVENTS}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "script.json").write_text(json.dumps([{"content": "ok"}]))
    return root


def run(
    tmp_path: Path,
    home: Path,
    *args: str,
    answers: dict[str, Any] | None = None,
    version: str = "2.1.332",
) -> list[dict[str, Any]]:
    """The run's hook inputs; asserts it succeeded."""
    done = run_hookwright(
        "run",
        "/greet world",
        "--project",
        str(tmp_path / "repo"),
        "--model",
        f"scripted:{tmp_path / 'script.json'}",
        "--claude-code-version",
        version,
        *args,
        home=home,
        env={"HOOK_LOG": str(tmp_path / "hooks.jsonl"), "ANSWERS": json.dumps(answers or {})},
    )
    assert done.returncode == 0, done.stderr
    log = tmp_path / "hooks.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def user_texts(home: Path) -> list[str]:
    """What the user side of the conversation said, from the session's transcript."""
    texts = []
    for path in (home / ".hookwright").rglob("*.jsonl"):
        if path.stem == "audit":
            continue
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry.get("type") == "user":
                texts.append(entry["message"]["content"])
    return texts


def expanded(root: Path, status: str) -> list[str]:
    return [
        "<command-message>greet</command-message>\n<command-name>/greet</command-name>\n"
        "<command-args>world</command-args>",
        f"Base directory for this skill: {root / '.claude' / 'skills' / 'greet'}\n\n"
        f"Greeting world.\nStatus: {status}\nEnd.\n",
    ]


def test_the_command_runs_and_its_output_reaches_the_model(
    tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path)
    inputs = run(tmp_path, isolated_home, "--trust", "--permission-mode", "bypassPermissions")
    assert (root / "ran.txt").is_file()
    assert user_texts(isolated_home) == expanded(root, "SHELL_OUT")
    assert [i["hook_event_name"] for i in inputs] == list(EVENTS)
    assert inputs[0]["prompt"] == "/greet world"
    expansion, gate = inputs[1], inputs[2]
    assert list(expansion)[5:] == [
        "hook_event_name",
        "expansion_type",
        "command_name",
        "command_args",
        "command_source",
        "prompt",
    ]
    assert (expansion["command_name"], expansion["command_args"]) == ("greet", "world")
    assert list(gate)[5:] == [
        "effort",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
        "command_name",
        "command_source",
        "invoked_by",
    ], "Claude Code 2.1.332's fields and order"
    assert gate["tool_input"] == {"command": "echo SHELL_OUT && touch ran.txt"}
    assert gate["tool_use_id"].endswith(":inner:preamble-0")
    assert (gate["command_source"], gate["invoked_by"]) == ("projectSettings", "user")


def test_a_deny_keeps_the_command_from_running(tmp_path: Path, isolated_home: Path) -> None:
    root = project(tmp_path)
    deny = {
        "PreSkillShellCommand": {"permissionDecision": "deny", "permissionDecisionReason": "NOPE"}
    }
    run(tmp_path, isolated_home, "--trust", "--permission-mode", "bypassPermissions", answers=deny)
    assert not (root / "ran.txt").exists()
    assert user_texts(isolated_home) == expanded(root, "[not run: blocked by hook: NOPE]")


def test_a_rewrite_is_never_run_and_blocks(tmp_path: Path, isolated_home: Path) -> None:
    root = project(tmp_path)
    rewrite = {"PreSkillShellCommand": {"updatedInput": {"command": "touch rewritten.txt"}}}
    args = ("--trust", "--permission-mode", "bypassPermissions")
    run(tmp_path, isolated_home, *args, answers=rewrite)
    assert not (root / "ran.txt").exists() and not (root / "rewritten.txt").exists()
    refused = (
        "[not run: blocked by hook: A PreSkillShellCommand hook answered updatedInput, "
        "which is never applied; the command is blocked]"
    )
    assert user_texts(isolated_home) == expanded(root, refused)


def test_an_older_profile_runs_the_command_without_the_gate(
    tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path)
    deny = {"PreSkillShellCommand": {"permissionDecision": "deny"}}
    args = ("--trust", "--permission-mode", "bypassPermissions")
    inputs = run(tmp_path, isolated_home, *args, answers=deny, version="2.1.240")
    assert (root / "ran.txt").is_file()
    assert [i["hook_event_name"] for i in inputs] == ["UserPromptExpansion", "UserPromptSubmit"]


def test_the_command_needs_permission_to_run_bash(tmp_path: Path, isolated_home: Path) -> None:
    """Measured in Claude Code 2.1.332 ``-p``: checked before PreSkillShellCommand; nothing of
    the skill reaches the model and the turn ends with the refusal."""
    root = project(tmp_path)
    inputs = run(tmp_path, isolated_home, "--trust", "--permission-mode", "default")
    assert not (root / "ran.txt").exists()
    assert user_texts(isolated_home) == []
    assert [i["hook_event_name"] for i in inputs] == ["UserPromptSubmit", "UserPromptExpansion"]


def test_an_untrusted_project_has_no_skills(tmp_path: Path, isolated_home: Path) -> None:
    root = project(tmp_path)
    run(tmp_path, isolated_home, "--permission-mode", "bypassPermissions")
    assert not (root / "ran.txt").exists()
    assert user_texts(isolated_home) == ["/greet world"]


def test_chat_runs_a_skill_line(tmp_path: Path, isolated_home: Path) -> None:
    root = project(tmp_path)
    done = run_hookwright(
        "chat",
        "--project",
        str(root),
        "--trust",
        "--model",
        f"scripted:{tmp_path / 'script.json'}",
        "--permission-mode",
        "bypassPermissions",
        "--claude-code-version",
        "2.1.332",
        home=isolated_home,
        stdin="/greet world\n/nosuchskill\n",
        env={"HOOK_LOG": str(tmp_path / "hooks.jsonl")},
    )
    assert done.returncode == 0, done.stderr
    assert (root / "ran.txt").is_file()
    assert "unknown command /nosuchskill" in done.stdout
    assert user_texts(isolated_home) == expanded(root, "SHELL_OUT")
