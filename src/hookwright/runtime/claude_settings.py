"""The Claude Code settings files a session reads its own switches from (`effortLevel`,
`env`): the user's, then the project's and the local one once the folder is trusted, in the
order a later value wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookwright.config.safeparse import ParseError, read_json


def session_settings(
    project_dir: Path, home: Path, *, project_trusted: bool
) -> list[tuple[Path, dict[str, Any]]]:
    """Each readable settings file holding an object, with its path. An unreadable file is
    skipped: the permission loader reports it."""
    files = [home / ".claude" / "settings.json"]
    if project_trusted:
        files += [project_dir / ".claude" / "settings.json"]
        files += [project_dir / ".claude" / "settings.local.json"]
    found: list[tuple[Path, dict[str, Any]]] = []
    for path in files:
        try:
            data = read_json(path) if path.is_file() else None
        except (ParseError, OSError):
            continue
        if isinstance(data, dict):
            found.append((path, data))
    return found
