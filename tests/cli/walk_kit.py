"""What the walk-through tests share: a scripted model that calls Bash, and the run summary's
table read back by hook."""

from __future__ import annotations

import json
from pathlib import Path


def scripted_bash(path: Path, *commands: str) -> Path:
    """A scripted model at `path` that runs each of `commands` with Bash, one turn each, then
    answers "ok"."""
    calls = [{"tool_calls": [{"name": "Bash", "arguments": {"command": c}}]} for c in commands]
    path.write_text(json.dumps({"model": "s", "turns": [*calls, {"content": "ok"}]}))
    return path


def summary_rows(stdout: str) -> dict[str, str]:
    """The summary table's rows by hook name, each row's lines joined."""
    table = stdout.split("─ \n", 1)[1].split("Every hook run:")[0]
    rows: dict[str, str] = {}
    name = ""
    for line in table.splitlines():
        if line[1:2].strip():
            name = line.split()[0]
        rows[name] = rows.get(name, "") + " " + " ".join(line.split())
    return rows
