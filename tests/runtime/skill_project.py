"""The project the reference agent's skill tests open: settings whose command hook logs each
event it is given (label ``settings``), files whose ``{hook}`` names that logging hook (a
skill's own hooks log under their own labels), and what the log says ran."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.skill_files import scoped_skill

HOOK = """\
import json, os, sys
data = json.loads(sys.stdin.read())
label = sys.argv[1] if len(sys.argv) > 1 else "settings"
with open(os.environ["HOOK_LOG"], "a") as log:
    log.write(json.dumps({"label": label, "input": data}) + "\\n")
"""
#: The skill whose frontmatter hooks log as ``skill-pre`` and ``skill-post-once``.
SCOPED = scoped_skill("{hook}")


def project(tmp_path: Path, files: dict[str, str], events: Iterable[str]) -> Path:
    """A project at ``tmp_path/repo`` whose settings log every event of `events`, with
    `files` (paths under it: text)."""
    root = tmp_path / "repo"
    hook = tmp_path / "hook.py"
    hook.write_text(HOOK)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text.replace("{hook}", str(hook)))
    command = [{"hooks": [{"type": "command", "command": f"python3 {hook}"}]}]
    settings = {"hooks": {event: command for event in events}}
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


def log_env(tmp_path: Path) -> dict[str, str]:
    """The environment the logging hook writes by."""
    return {"HOOK_LOG": str(tmp_path / "hooks.jsonl")}


def hooks_ran(tmp_path: Path) -> list[dict[str, Any]]:
    """The hooks that ran, in order, with their inputs."""
    log = tmp_path / "hooks.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def skill_hook_calls(hooks: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """Each skill hook that ran (every hook but the settings' logger) and the tool call it
    read."""
    return [(h["label"], h["input"].get("tool_use_id")) for h in hooks if h["label"] != "settings"]
