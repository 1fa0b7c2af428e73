"""A project whose hooks are not Claude Code's: an OpenHarness YAML hook that blocks `rm -rf`,
a Python hook that adds context, and a Claude Code hook that must not run twice."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

BLOCK_RM_YAML = """\
name: block-rm
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: python3 .openharness/hooks/scripts/block_rm.py
  timeout_seconds: 10
"""

BLOCK_RM_PY = """\
import json, sys
envelope = json.load(sys.stdin)
command = (envelope.get("tool_input") or {}).get("command", "")
if "rm -rf" in command:
    print(json.dumps({"decision": "block", "reason": "rm -rf is not allowed here"}))
else:
    print(json.dumps({"continue": True}))
"""

NATIVE_YAML = """\
hooks:
  - name: house-rules
    event: UserPromptSubmit
    call: rules:house_rules
"""

RULES_PY = """\
from pathlib import Path
from hookwright import add_context

Path(__file__).with_name("imported").write_text("yes")


def house_rules(inp):
    return add_context("HOUSE-RULES: answer in one line.")
"""

CLAUDE_SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": 'echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
                        '"additionalContext":"CLAUDE-HOOK-TWICE"}}\'',
                    }
                ]
            }
        ]
    }
}


def make_project(root: Path) -> Path:
    scripts = root / ".openharness" / "hooks" / "scripts"
    scripts.mkdir(parents=True)
    (root / ".openharness" / "hooks" / "block-rm.yaml").write_text(BLOCK_RM_YAML)
    (scripts / "block_rm.py").write_text(BLOCK_RM_PY)
    (root / ".hookwright").mkdir()
    (root / ".hookwright" / "hooks.yaml").write_text(NATIVE_YAML)
    (root / ".hookwright" / "rules.py").write_text(RULES_PY)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(CLAUDE_SETTINGS, indent=2))
    return root


def hook_input(project: Path, event: str, **fields: Any) -> bytes:
    """Claude Code 2.1.240's stdin for a hook: compact JSON in its key order, one line."""
    common: dict[str, Any] = {
        "session_id": "3f2a4c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
    }
    if event != "SessionStart":
        common["prompt_id"] = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"
        common["permission_mode"] = "default"
    if event in {"PreToolUse", "PostToolUse", "Stop"}:
        common["effort"] = {"level": "high"}
    data = {**common, "hook_event_name": event, **fields}
    return json.dumps(data, separators=(",", ":")).encode() + b"\n"


def run_installed(command: str, stdin: bytes, project: Path) -> subprocess.CompletedProcess[bytes]:
    """Run the installed command as Claude Code runs a command hook: `sh -c`, in the project,
    with CLAUDE_PROJECT_DIR set."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    env.pop("HOOKWRIGHT_HOOK_RUN", None)
    return subprocess.run(
        ["sh", "-c", command], input=stdin, capture_output=True, cwd=project, env=env, timeout=60
    )
