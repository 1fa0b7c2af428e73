"""`hookwright run --json` on a project whose `.claude/settings.json` holds given hooks, with
a scripted model, as one Claude Code version: what several test files run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from cli_runner import run_hookwright


def run_as(
    version: str,
    tmp_path: Path,
    home: Path,
    hooks: dict[str, Any],
    turns: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The run's JSON events; the project is `tmp_path / "project"`, the model's script
    `tmp_path / "model.yaml"`."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    model = tmp_path / "model.yaml"
    model.write_text(yaml.safe_dump({"turns": turns}, sort_keys=False))
    proc = run_hookwright(
        "run",
        "go",
        "--project",
        str(project),
        "--model",
        f"scripted:{model}",
        "--trust",
        "--permission-mode",
        "bypassPermissions",
        "--claude-code-version",
        version,
        "--json",
        home=home,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def tool_result(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's one tool result."""
    [result] = [e for e in events if e["type"] == "tool_result"]
    return result
