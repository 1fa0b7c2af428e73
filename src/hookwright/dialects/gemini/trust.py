"""Gemini CLI's folder trust: `~/.gemini/trustedFolders.json` (or
``$GEMINI_CLI_TRUSTED_FOLDERS_PATH``) maps folders to TRUST_FOLDER, TRUST_PARENT (the folder's
parent) or DO_NOT_TRUST; the longest rule containing the project decides. With
`security.folderTrust.enabled` (default true) a headless `gemini -p` in a folder no rule
trusts exits 55 and loads none of its hooks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hookwright.config.safeparse import ParseError, read_json

UNTRUSTED_EXIT = 55


def trusted_folders_file(home: Path) -> Path:
    given = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(given) if given else home / ".gemini" / "trustedFolders.json"


def folder_trusted(home: Path, project: Path) -> tuple[bool, str | None]:
    """(Gemini trusts `project`, a problem reading the file or None)."""
    path = trusted_folders_file(home)
    if not path.is_file():
        return False, None
    try:
        rules: Any = read_json(path)
    except ParseError as exc:
        return False, f"{path}: {exc.reason}"
    if not isinstance(rules, dict):
        return False, f"{path}: expected an object of folder -> trust level"
    target = project.resolve()
    best, level = -1, None
    for rule, trust in rules.items():
        base = Path(rule).parent if trust == "TRUST_PARENT" else Path(rule)
        base = base.resolve()
        if (target == base or base in target.parents) and len(rule) > best:
            best, level = len(rule), trust
    return level in ("TRUST_FOLDER", "TRUST_PARENT"), None
