"""Pin tests to the Claude Code version whose wording their expectations were measured on, so
the default profile can move on: the environment (`PIN_ENV`, set for every test) or, for runs
that clear hookwright's variables, a HOME's `.hookwright/settings.json`."""

from __future__ import annotations

import json
from pathlib import Path

MEASURED_ON = "2.1.240"
PIN_ENV = "HOOKWRIGHT_CLAUDE_CODE_VERSION"


def pin_claude_code(home: Path, version: str = MEASURED_ON) -> None:
    folder = home / ".hookwright"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"claudeCodeVersion": version}) + "\n")
