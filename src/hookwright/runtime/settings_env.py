"""Claude Code settings `env`: variables the session runs with, as Claude Code reads them: the
user's settings first, then the project's and the local ones (once the folder is trusted), a
later file's value winning. Claude Code puts them in its own environment, so Bash commands,
hooks and its own switches (e.g. `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`) see them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hookwright.runtime.claude_settings import session_settings

STOP_CAP_VARIABLE = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"


def load_settings_env(
    project_dir: Path, home: Path, *, project_trusted: bool
) -> tuple[dict[str, str], list[str]]:
    """The variables and one line per unusable entry (a value that is not a string)."""
    env: dict[str, str] = {}
    problems: list[str] = []
    for path, data in session_settings(project_dir, home, project_trusted=project_trusted):
        section = data.get("env")
        if section is None:
            continue
        if not isinstance(section, dict):
            problems.append(f"warning: {path}: env: expected an object; ignored")
            continue
        for name, value in section.items():
            if isinstance(value, str):
                env[str(name)] = value
            else:
                problems.append(f"warning: {path}: env.{name}: expected a string; ignored")
    return env, problems


def stop_block_cap(settings_env: Mapping[str, str], default: int) -> int:
    """The Stop-hook block cap from settings `env`, else `default` (the process environment's)."""
    value = settings_env.get(STOP_CAP_VARIABLE, "").strip()
    return int(value) if value.isdigit() else default
