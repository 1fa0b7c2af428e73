"""A Codex project on disk for the tests: `.codex/hooks.json`, and the user's `config.toml`
with Codex's review entry for every hook (or for the ones asked)."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from hookwright.dialects.codex.config import LayerFiles, layer_hooks
from hookwright.dialects.codex.review import review_key, trusted_hash


def write_project(
    tmp_path: Path, hooks: Mapping[str, Any], *, unreviewed: Collection[str] = ()
) -> tuple[Path, Path]:
    """(home, project); the hooks whose command contains a word of `unreviewed` are left
    unreviewed."""
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    (project / ".codex").mkdir(parents=True)
    (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    declared = layer_hooks(LayerFiles("project", project / ".codex", None), [])
    lines = [
        f'[hooks.state.{json.dumps(review_key(hook))}]\ntrusted_hash = "{trusted_hash(hook)}"\n'
        for hook in declared
        if not any(word in hook.command for word in unreviewed)
    ]
    (home / ".codex" / "config.toml").write_text("".join(lines))
    return home, project


def command(text: str, matcher: str | None = None, timeout: int = 10) -> list[dict[str, Any]]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": text, "timeout": timeout}]}
    return [{"matcher": matcher, **group} if matcher is not None else group]


def script(path: Path, turns: list[dict[str, Any]]) -> Path:
    """`path`, holding the scripted model's `turns`."""
    path.write_text(json.dumps(turns))
    return path


def bash(command_line: str, call_id: str = "call_1") -> dict[str, Any]:
    call = {"id": call_id, "name": "Bash", "arguments": {"command": command_line}}
    return {"tool_calls": [call]}
