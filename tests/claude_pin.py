"""Pin a test's HOME to the Claude Code version whose wording its expectations were measured
on (`~/.hookwright/settings.json`, `claudeCodeVersion`), so the default profile can move on."""

from __future__ import annotations

import json
from pathlib import Path

MEASURED_ON = "2.1.240"


def pin_claude_code(home: Path, version: str = MEASURED_ON) -> None:
    folder = home / ".hookwright"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"claudeCodeVersion": version}) + "\n")
