"""Claude Code skills beyond a typed ``/skill`` in the reference agent, through `python -m
hookwright run`: a legacy ``.claude/commands/NAME.md`` command, a skill the model invokes with
the ``Skill`` tool, and the hooks a SKILL.md's frontmatter declares (active once the skill is
invoked, ``once`` hooks a single time)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from conformance.skill_files import GREETING, scoped_skill

from cli_runner import run_hookwright

from . import skill_project
from .skill_project import hooks_ran, log_env, skill_hook_calls

COMMAND = """---
description: Says hello
allowed-tools: Bash(echo:*), Bash(touch:*)
---
Hello $ARGUMENTS, first $0 then $1, third $2, indexed $ARGUMENTS[1].
Status: !`echo CMD_OUT && touch cmd.txt`
"""
SKILL = scoped_skill(
    "{hook}", description="Greets", body=f"{GREETING}Status: !`echo SHELL_OUT && touch ran.txt`\n"
)
EVENTS = ("UserPromptExpansion", "PreSkillShellCommand", "PreToolUse", "PostToolUse")


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A project whose settings log every event of `EVENTS` (label ``settings``)."""
    return skill_project.project(tmp_path, files, EVENTS)


def run(
    tmp_path: Path, home: Path, prompt: str, turns: list[dict[str, Any]], mode: str
) -> list[dict[str, Any]]:
    """The hooks that ran, in order, with their inputs; asserts the run succeeded."""
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(turns, sort_keys=False))
    done = run_hookwright(
        "run",
        prompt,
        "--project",
        str(tmp_path / "repo"),
        "--trust",
        "--model",
        f"scripted:{script}",
        "--permission-mode",
        mode,
        "--claude-code-version",
        "2.1.332",
        home=home,
        env=log_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    return hooks_ran(tmp_path)


def transcript(home: Path) -> list[dict[str, Any]]:
    """The session's transcript lines (none when nothing was recorded)."""
    paths = [p for p in (home / ".hookwright").rglob("*.jsonl") if p.stem != "audit"]
    assert len(paths) <= 1
    return [json.loads(line) for path in paths for line in path.read_text().splitlines()]


def user_contents(home: Path) -> list[Any]:
    return [e["message"]["content"] for e in transcript(home) if e.get("type") == "user"]


def bash(call_id: str, command: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "Bash", "arguments": {"command": command}}]}


def skill(call_id: str, name: str, args: str) -> dict[str, Any]:
    arguments = {"skill": name, "args": args}
    return {"tool_calls": [{"id": call_id, "name": "Skill", "arguments": arguments}]}


def test_a_legacy_command_expands_its_arguments_and_runs_its_allowed_lines(
    tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path, {".claude/commands/hello.md": COMMAND})
    hooks = run(tmp_path, isolated_home, "/hello world there", [{"content": "ok"}], "default")
    assert (root / "cmd.txt").is_file(), "allowed-tools lets the line run in the default mode"
    assert user_contents(isolated_home) == [
        "<command-message>hello</command-message>\n<command-name>/hello</command-name>\n"
        "<command-args>world there</command-args>",
        "Hello world there, first world then there, third $2, indexed there.\nStatus: CMD_OUT\n",
    ]
    expansion, gate = (hook["input"] for hook in hooks)
    assert (expansion["command_name"], expansion["command_args"]) == ("hello", "world there")
    assert (gate["command_name"], gate["invoked_by"]) == ("hello", "user")


def test_a_legacy_command_without_allowed_tools_needs_permission(
    tmp_path: Path, isolated_home: Path
) -> None:
    plain = COMMAND.replace("allowed-tools: Bash(echo:*), Bash(touch:*)\n", "")
    root = project(tmp_path, {".claude/commands/hello.md": plain})
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump([{"content": "never asked"}]))
    done = run_hookwright(
        "run",
        "/hello world",
        "--project",
        str(root),
        "--trust",
        "--model",
        f"scripted:{script}",
        "--claude-code-version",
        "2.1.332",
        home=isolated_home,
        env={"HOOK_LOG": str(tmp_path / "hooks.jsonl")},
    )
    assert not (root / "cmd.txt").exists()
    assert user_contents(isolated_home) == [], "nothing reached the model"
    refusal = (
        'Shell command permission check failed for pattern "!`echo CMD_OUT && touch cmd.txt`": '
        f"touch in '{root / 'cmd.txt'}' needs approval."
    )
    assert done.returncode == 0, done.stderr
    assert refusal in done.stdout
    hooks = (tmp_path / "hooks.jsonl").read_text()
    assert "PreSkillShellCommand" not in hooks, "the permission is checked before the gate"


def test_the_model_invokes_a_skill_with_the_skill_tool(tmp_path: Path, isolated_home: Path) -> None:
    root = project(tmp_path, {".claude/skills/greet/SKILL.md": SKILL})
    turns = [skill("toolu_a", "greet", "world"), {"content": "done"}]
    hooks = run(tmp_path, isolated_home, "go", turns, "bypassPermissions")
    assert (root / "ran.txt").is_file()
    assert [(h["label"], h["input"]["hook_event_name"]) for h in hooks] == [
        ("settings", "PreToolUse"),
        ("settings", "PreSkillShellCommand"),
        ("settings", "PostToolUse"),
    ], "the skill's own hooks match Bash only"
    pre, gate, post = (hook["input"] for hook in hooks)
    assert pre["tool_input"] == {"skill": "greet", "args": "world"}
    assert gate["tool_use_id"] == "toolu_a:preamble-0"
    assert (gate["invoked_by"], gate["command_name"]) == ("claude", "greet")
    assert post["tool_response"] == {"success": True, "commandName": "greet"}
    result, text = user_contents(isolated_home)[1:3]
    assert result[0]["content"] == "Launching skill: greet" and not result[0]["is_error"]
    folder = root / ".claude" / "skills" / "greet"
    expanded = "Greeting world.\nStatus: SHELL_OUT\n"
    assert text == f"Base directory for this skill: {folder}\n\n{expanded}"


def test_an_unknown_skill_is_an_error_for_the_model(tmp_path: Path, isolated_home: Path) -> None:
    project(tmp_path, {".claude/skills/greet/SKILL.md": SKILL})
    turns = [skill("toolu_a", "xyzzy-frobnicate", ""), {"content": "done"}]
    hooks = run(tmp_path, isolated_home, "go", turns, "bypassPermissions")
    assert hooks == [], "refused before any hook, as Claude Code refuses it"
    [result] = user_contents(isolated_home)[1]
    refused = "<tool_use_error>Unknown skill: xyzzy-frobnicate</tool_use_error>"
    assert (result["content"], result["is_error"]) == (refused, True)


def test_an_unknown_skill_names_the_closest_skill_or_command(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Within two edits: the project's skill before its command, then Claude Code's own
    commands; its own UI command is refused by its kind; nothing near reads as before."""
    files = {".claude/skills/zip/SKILL.md": SKILL, ".claude/commands/zap.md": "Zap.\n"}
    project(tmp_path, files)
    names = ["zop", "zpa", " /zup ", "hep", "cost", "qwertyuiop", "z" * 5000]
    calls = [
        {"id": f"toolu_{n}", "name": "Skill", "arguments": {"skill": name}}
        for n, name in enumerate(names)
    ]
    hooks = run(
        tmp_path,
        isolated_home,
        "go",
        [{"tool_calls": calls}, {"content": "done"}],
        "bypassPermissions",
    )
    assert hooks == [], "refused before any hook"
    results = [entry[0]["content"] for entry in user_contents(isolated_home)[1:8]]
    assert results == [
        f"<tool_use_error>{text}</tool_use_error>"
        for text in (
            "Unknown skill: zop. Did you mean zip?",
            "Unknown skill: zpa. Did you mean zap?",
            "Unknown skill: zup. Did you mean zip?",
            "Unknown skill: hep. Did you mean help?",
            "cost is a UI command, not a skill. Ask the user to run /cost themselves \u2014 it "
            "cannot be invoked via the Skill tool.",
            "Unknown skill: qwertyuiop",
            f"Unknown skill: {'z' * 5000}",
        )
    ]


#: What the skill's hooks read on the two Bash calls after it was invoked: its `once` hook only
#: on the first.
SCOPED_RUNS = [("skill-pre", "toolu_c"), ("skill-post-once", "toolu_c"), ("skill-pre", "toolu_d")]


def skill_hooks_after(tmp_path: Path, home: Path, *first: dict[str, Any]) -> list[tuple[str, Any]]:
    """The skill hooks that ran on two Bash calls (``toolu_c``, ``toolu_d``) the model makes
    after the `first` turns."""
    turns = [*first, bash("toolu_c", "echo during"), bash("toolu_d", "echo again")]
    hooks = run(tmp_path, home, "go", [*turns, {"content": "done"}], "bypassPermissions")
    return skill_hook_calls(hooks)


def test_a_skill_s_hooks_run_from_its_invocation_on_and_once_hooks_once(
    tmp_path: Path, isolated_home: Path
) -> None:
    project(tmp_path, {".claude/skills/greet/SKILL.md": SKILL})
    first = (bash("toolu_a", "echo before"), skill("toolu_b", "greet", "world"))
    assert skill_hooks_after(tmp_path, isolated_home, *first) == SCOPED_RUNS


def test_a_skill_invoked_again_keeps_one_set_of_hooks_and_gets_a_note(
    tmp_path: Path, isolated_home: Path
) -> None:
    root = project(tmp_path, {".claude/skills/greet/SKILL.md": SKILL})
    first = (skill("toolu_a", "greet", "one"), skill("toolu_b", "greet", "two"))
    assert skill_hooks_after(tmp_path, isolated_home, *first) == SCOPED_RUNS, (
        "not doubled, and the spent once hook is not armed again"
    )
    folder = root / ".claude" / "skills" / "greet"
    again = user_contents(isolated_home)[4:6]
    assert again == [
        "(Re-invocation of /greet \u2014 the skill instructions were previously loaded; "
        "the arguments or dynamic output below are new.)",
        f"Base directory for this skill: {folder}\n\nGreeting two.\nStatus: SHELL_OUT\n",
    ]


def test_the_skill_tool_names_no_path(tmp_path: Path, isolated_home: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "SKILL.md").parent.mkdir(parents=True)
    (outside / "SKILL.md").write_text("Status: !`touch escaped.txt`\n")
    project(tmp_path, {".claude/skills/greet/SKILL.md": SKILL})
    turns = [skill("toolu_a", "../../../outside", ""), {"content": "done"}]
    run(tmp_path, isolated_home, "go", turns, "bypassPermissions")
    assert not (tmp_path / "repo" / "escaped.txt").exists()
    [result] = user_contents(isolated_home)[1]
    refused = "<tool_use_error>Unknown skill: ../../../outside</tool_use_error>"
    assert result["is_error"] and result["content"] == refused


def test_a_hint_names_nested_commands_and_follows_no_linked_commands_folder(
    tmp_path: Path, isolated_home: Path
) -> None:
    """A project's nested command is a candidate (``sub:name``); the user's ``commands``
    folder, a link elsewhere, is not walked for hints."""
    project(tmp_path, {".claude/commands/deep/qqqqqqqqq1.md": "x\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "wwwwwwwww1.md").write_text("x\n")
    (isolated_home / ".claude").mkdir(exist_ok=True)
    (isolated_home / ".claude" / "commands").symlink_to(elsewhere)
    calls = [
        {"id": f"toolu_{n}", "name": "Skill", "arguments": {"skill": name}}
        for n, name in enumerate(["deep:qqqqqqqqq2", "wwwwwwwww2"])
    ]
    run(
        tmp_path,
        isolated_home,
        "go",
        [{"tool_calls": calls}, {"content": "done"}],
        "bypassPermissions",
    )
    results = [entry[0]["content"] for entry in user_contents(isolated_home)[1:3]]
    assert results == [
        "<tool_use_error>Unknown skill: deep:qqqqqqqqq2. Did you mean deep:qqqqqqqqq1?"
        "</tool_use_error>",
        "<tool_use_error>Unknown skill: wwwwwwwww2</tool_use_error>",
    ]
