"""The project a newcomer's walk starts from: one Claude Code PreToolUse hook on Bash, and a
scripted model that calls Bash once, then says done."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def bash_guard_project(project: Path, program: str) -> dict[str, Any]:
    """`project` with a `.claude/settings.json` whose PreToolUse hook on Bash runs the Python
    `program`; the hook's entry."""
    (project / ".claude").mkdir(parents=True)
    hook = {"type": "command", "command": f'{sys.executable} -c "{program}"'}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return hook


def bash_script(path: Path, command: str) -> Path:
    """A scripted model at `path` calling Bash with `command`, then saying done."""
    call = {"name": "Bash", "arguments": {"command": command}}
    turns = [{"content": "one", "tool_calls": [call]}, {"content": "done"}]
    path.write_text(json.dumps({"model": "s", "turns": turns}))
    return path
