"""The model's reasoning effort level, as Claude Code reads it: settings `effortLevel`, the
user's file first, then the project's and the local one (once the folder is trusted), the last
one set winning; `high` when none is. Claude Code hooks see it as `{"level": <level>}`."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from hookwright.safeparse import ParseError, read_json

DEFAULT_EFFORT: Final = "high"
EFFORT_LEVELS: Final = ("low", "medium", "high", "xhigh", "max")


def load_effort(project_dir: Path, home: Path, *, project_trusted: bool) -> tuple[str, list[str]]:
    """The effort level and one line per unusable `effortLevel` value."""
    level = DEFAULT_EFFORT
    problems: list[str] = []
    files = [home / ".claude" / "settings.json"]
    if project_trusted:
        files += [project_dir / ".claude" / "settings.json"]
        files += [project_dir / ".claude" / "settings.local.json"]
    for path in files:
        try:
            data = read_json(path) if path.is_file() else None
        except (ParseError, OSError):
            continue  # the permission loader reports an unreadable settings file
        value = data.get("effortLevel") if isinstance(data, dict) else None
        if value is None:
            continue
        if value in EFFORT_LEVELS:
            level = value
        else:
            expected = ", ".join(EFFORT_LEVELS)
            problems.append(f"{path}: effortLevel: expected one of {expected}, got {value!r}")
    return level, problems
