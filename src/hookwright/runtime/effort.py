"""The model's reasoning effort level, as Claude Code reads it: settings `effortLevel`, the
user's file first, then the project's and the local one (once the folder is trusted), the last
one set winning; unset when none is (the Claude Code profile then gives the model's default).
Claude Code hooks see it as `{"level": <level>}`."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from hookwright.runtime.claude_settings import session_settings

EFFORT_LEVELS: Final = ("low", "medium", "high", "xhigh", "max")


def load_effort(
    project_dir: Path, home: Path, *, project_trusted: bool
) -> tuple[str | None, list[str]]:
    """The effort level the settings set (None: none does) and one line per unusable
    `effortLevel` value."""
    level: str | None = None
    problems: list[str] = []
    for path, data in session_settings(project_dir, home, project_trusted=project_trusted):
        value = data.get("effortLevel")
        if value is None:
            continue
        if value in EFFORT_LEVELS:
            level = value
        else:
            expected = ", ".join(EFFORT_LEVELS)
            problems.append(f"{path}: effortLevel: expected one of {expected}, got {value!r}")
    return level, problems
