"""Which Claude Code version a session imitates: ``--claude-code-version``, else
``$HOOKWRIGHT_CLAUDE_CODE_VERSION``, else the ``claudeCodeVersion`` key of
`<project>/.hookwright/settings.json` (once the folder is trusted), else of
`~/.hookwright/settings.json`, else the newest profile.

A project's choice waits for trust because a profile decides fail-closed behaviour (an older
version has no `onFailure`): a repository must not pick it for itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from hookwright.config.hookwright_settings import SETTINGS_FILE, read_setting
from hookwright.dialects.claude_profiles import NEWEST, ClaudeCodeProfile, named_profile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

KEY: Final = "claudeCodeVersion"
ENV: Final = "HOOKWRIGHT_CLAUDE_CODE_VERSION"


def choose_profile(
    given: str | None,
    project_dir: Path,
    home: Path,
    *,
    project_trusted: bool,
    environ: Mapping[str, str] = os.environ,
) -> tuple[ClaudeCodeProfile, list[str]]:
    """The profile, and one line per unusable setting (a bad `given` raises ValueError)."""
    if given is not None:
        return named_profile(given), []
    problems: list[str] = []
    chosen = environ.get(ENV, "").strip()
    if chosen:
        try:
            return named_profile(chosen), problems
        except ValueError as exc:
            problems.append(f"${ENV}: {exc}")
    places = [project_dir, home] if project_trusted else [home]
    for folder in places:
        path = folder / SETTINGS_FILE
        value, problem = read_setting(path, KEY)
        if value is not None and not isinstance(value, str):
            problem = f'{path}: {KEY}: expected a version string such as "2.1.332"'
        if problem is not None:
            problems.append(problem)
        elif isinstance(value, str):
            try:
                return named_profile(value), problems
            except ValueError as exc:
                problems.append(f"{path}: {KEY}: {exc}")
    return NEWEST, problems
