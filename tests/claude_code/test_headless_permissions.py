# ruff: noqa: F811
"""`hookwright run` without a person at the terminal, as Claude Code 2.1.240 ``-p`` (measured):
a PreToolUse `ask` reaches no PermissionRequest hook, a PermissionRequest hook reads Claude
Code's `permission_suggestions`, and a file-writing command nobody approved is refused with
the working-directory text. Each hook logs the stdin it read to a file of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The `project` fixture of the end-to-end tests, which each test's parameter names.
from .test_e2e_run import Project, bash_call, command, project  # noqa: F401

LOGGER = """import json, pathlib, sys
data = sys.stdin.read()
pathlib.Path(sys.argv[1]).open("a").write(data + "\\n")
answer = sys.argv[2] if len(sys.argv) > 2 else ""
if answer:
    print(answer)
"""


def logging_hook(project: Project, name: str, answer: dict[str, Any] | None = None) -> str:
    """A hook that appends its stdin to `<tmp>/<name>.log` and prints `answer`."""
    script = project.tmp / "logger.py"
    script.write_text(LOGGER)
    reply = f" '{json.dumps(answer)}'" if answer is not None else ""
    return f"python3 {script} {project.tmp / (name + '.log')}{reply}"


def logged(project: Project, name: str) -> list[dict[str, Any]]:
    path = project.tmp / f"{name}.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def ask(reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": reason,
        }
    }


ALLOW = {
    "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}
}


def test_a_hook_ask_without_a_person_fires_no_permission_request(project: Project) -> None:
    project.on("PreToolUse", command(logging_hook(project, "pre", ask("a human must say"))))
    project.on("PermissionRequest", command(logging_hook(project, "request", ALLOW)))
    project.on("PostToolUse", command(logging_hook(project, "post")))
    run = project.run(
        [
            {"content": "", "tool_calls": [bash_call("touch made.txt")]},
            {"match": "a human must say", "content": "Understood."},
        ]
    )
    [result] = run.tool_results
    assert (result["content"], result["is_error"]) == ("a human must say", True)
    assert [entry["tool_input"]["command"] for entry in logged(project, "pre")] == [
        "touch made.txt"
    ]
    assert logged(project, "request") == []  # no PermissionRequest, although a hook would allow
    assert logged(project, "post") == []
    assert not (project.root / "made.txt").exists()
    assert run.turn_end["text"] == "Understood."


def test_permission_request_reads_claude_codes_suggestions(project: Project) -> None:
    project.on("PermissionRequest", command(logging_hook(project, "request", ALLOW)))
    run = project.run(
        [
            {
                "content": "",
                "tool_calls": [bash_call("touch made.txt && echo made"), bash_call("git status")],
            },
            {"content": "done"},
        ]
    )
    touch, status = logged(project, "request")
    root = str(project.root)
    assert touch["permission_suggestions"] == [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "touch made.txt && echo made"}],
            "behavior": "allow",
            "destination": "localSettings",
        },
        {"type": "addDirectories", "directories": [root], "destination": "session"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
    ]
    assert status["permission_suggestions"] == [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "git status"}],
            "behavior": "allow",
            "destination": "localSettings",
        }
    ]
    assert (project.root / "made.txt").exists()
    assert run.turn_end["text"] == "done"


def test_unapproved_file_writing_command_meets_the_working_directory_check(
    project: Project,
) -> None:
    root = project.root
    refusal = (
        f"touch in '{root / 'made.txt'}' was blocked. For security, Claude Code may only create "
        f"or modify files in the allowed working directories for this session: '{root}'."
    )
    run = project.run(
        [
            {"content": "", "tool_calls": [bash_call("touch made.txt")]},
            {"match": "was blocked. For security", "content": "ok"},
        ]
    )
    [result] = run.tool_results
    assert (result["content"], result["is_error"]) == (refusal, True)
    assert not (Path(root) / "made.txt").exists()


def test_claude_code_2_1_332_says_the_write_needs_approval(tmp_path: Path) -> None:
    """The same refusal as the newest profile words it (measured with the real 2.1.332)."""
    from hookwright.dialects.claude_profiles import V2_1_240, V2_1_332
    from hookwright.runtime.suggestions import blocked_write_message

    assert V2_1_332.write_needs_approval and not V2_1_240.write_needs_approval
    message = blocked_write_message("touch made.txt", tmp_path, needs_approval=True)
    assert message == (
        f"touch in '{tmp_path / 'made.txt'}' needs approval. The path is inside the working "
        f"directories for this session ('{tmp_path}'), and Claude Code asks before a shell "
        "command creates, changes or removes files there."
    )
