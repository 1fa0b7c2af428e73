"""Gemini CLI's hook inputs as Gemini 0.61.0 writes them (compact JSON, no trailing newline,
its field order), and a project holding a Claude Code guard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: A Claude Code guard: refuses `rm -rf`, rewrites `echo unsafe` to `echo safe`, and adds
#: context after each command.
GUARD_PY = """\
import json, sys
data = json.load(sys.stdin)
command = (data.get("tool_input") or {}).get("command", "")
event = data["hook_event_name"]
if event == "PreToolUse" and "rm -rf" in command:
    print("no deleting here", file=sys.stderr)
    sys.exit(2)
if event == "PreToolUse" and command == "echo unsafe":
    out = {"permissionDecision": "allow", "updatedInput": {"command": "echo safe"}}
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **out}}))
if event == "PostToolUse":
    seen = data.get("tool_response")
    context = f"CHECKED {data['tool_name']} {seen}"
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                             "additionalContext": context}}))
"""


def guarded_project(root: Path) -> Path:
    """A project whose `.claude/settings.json` runs the guard on every Bash call."""
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "guard.py").write_text(GUARD_PY)
    hook = {"type": "command", "command": "python3 .claude/guard.py"}
    groups = [{"matcher": "Bash", "hooks": [hook]}]
    settings = {"hooks": {"PreToolUse": groups, "PostToolUse": groups}}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def gemini_input(project: Path, event: str, **fields: Any) -> str:
    common = {
        "session_id": "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9",
        "transcript_path": str(project / "session.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-11-27T09:00:00.000Z",
    }
    return json.dumps({**common, **fields}, separators=(",", ":"))


def shell_call(project: Path, command: str, event: str = "BeforeTool", **fields: Any) -> str:
    tool_input = {"command": command, "description": "run it"}
    return gemini_input(
        project, event, tool_name="run_shell_command", tool_input=tool_input, **fields
    )
