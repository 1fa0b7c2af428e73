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
from typing import Final

from hookwright.config.safeparse import ParseError, load_json_text
from hookwright.dialects.claude_profiles import NEWEST, ClaudeCodeProfile, named_profile

SETTINGS_FILE: Final = Path(".hookwright") / "settings.json"
KEY: Final = "claudeCodeVersion"
ENV: Final = "HOOKWRIGHT_CLAUDE_CODE_VERSION"
#: Larger settings files are refused, not read.
MAX_SETTINGS_BYTES: Final = 1 << 20


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
        value, problem = _setting(path)
        if problem is not None:
            problems.append(problem)
        elif value is not None:
            try:
                return named_profile(value), problems
            except ValueError as exc:
                problems.append(f"{path}: {KEY}: {exc}")
    return NEWEST, problems


def _setting(path: Path) -> tuple[str | None, str | None]:
    """The key's value in `path` (None when the file or key is absent), or a problem line."""
    try:
        if not path.is_file():
            return None, None
        data = path.read_bytes()[: MAX_SETTINGS_BYTES + 1]
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror}"
    if len(data) > MAX_SETTINGS_BYTES:
        return None, f"{path}: larger than {MAX_SETTINGS_BYTES} bytes; not read"
    try:
        parsed = load_json_text(data)
    except ParseError as exc:
        return None, f"{path}: {exc.reason}"
    if not isinstance(parsed, dict):
        return None, f"{path}: expected a JSON object"
    value = parsed.get(KEY)
    if value is None or isinstance(value, str):
        return value, None
    return None, f'{path}: {KEY}: expected a version string such as "2.1.332"'
