"""A project for `hookwright serve` with the elicitation test server as `forms` and a Claude
Code command hook that logs every Elicitation, ElicitationResult, Notification, PostToolUse and
SessionEnd input it reads to ``hooks.jsonl``; ``calls.jsonl`` gets what the server's
elicitations returned."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SERVER = Path(__file__).with_name("mcp_form_server.py")
HOOK = """\
import json, sys
from pathlib import Path
data = sys.stdin.read()
with (Path(__file__).parent.parent / "hooks.jsonl").open("a") as log:
    log.write(json.dumps(json.loads(data)) + "\\n")
"""


def elicitation_project(root: Path) -> Path:
    env = {"MCP_CALL_LOG": str(root / "calls.jsonl")}
    server = {"command": sys.executable, "args": [str(SERVER)], "env": env}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"forms": server}}))
    script = root / ".claude" / "hook.py"
    script.parent.mkdir(parents=True)
    script.write_text(HOOK)
    logging = [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]
    hooks = {
        name: logging
        for name in (
            "Elicitation",
            "ElicitationResult",
            "Notification",
            "PostToolUse",
            "SessionEnd",
        )
    }
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return root


def lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def hook_events(root: Path) -> list[tuple[str, str]]:
    """(event, notification type or tool name) of each hook input, in order."""
    return [
        (e["hook_event_name"], e.get("notification_type") or e.get("tool_name") or "")
        for e in lines(root / "hooks.jsonl")
    ]


def calling(tool: str) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": f"mcp__forms__{tool}", "arguments": {}}]},
        {"content": "Finished."},
    ]
