"""What Claude Code offers for a call that needs permission: the `permission_suggestions` of a
PermissionRequest hook's stdin, and its refusal text for a shell command that writes files.

Measured against Claude Code 2.1.240: a Bash call suggests an allow rule for its exact command in
the local settings; a command that writes files (`touch`, `mkdir`, `rm`, ...) is held back by the
working-directory check, which also suggests the file's folder and, in the default and plan
modes, accepting edits for the session. An Edit or Write call suggests accepting edits, and the
folder of a file outside the working directory.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Commands the working-directory check holds back when they write files, with the words
#: Claude Code's refusal uses for each.
WRITE_COMMANDS: dict[str, str] = {
    "touch": "create or modify files in",
    "mkdir": "create directories in",
    "rm": "remove files from",
    "rmdir": "remove directories from",
    "mv": "move files to/from",
    "cp": "copy files to/from",
}
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})
_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_ASKING_MODES = frozenset({"default", "plan"})


def written_path(command: str, cwd: Path) -> tuple[str, str] | None:
    """The first file a file-writing command of `command` names, as (command, absolute path);
    None when no part of it writes files or the command does not parse."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    start = True
    verb: str | None = None
    for word in words:
        if word in _SEPARATORS:
            start, verb = True, None
            continue
        if start:
            start = False
            verb = word if word in WRITE_COMMANDS else None
            continue
        if verb is not None and not word.startswith("-"):
            return verb, os.path.normpath(cwd / word)
    return None


def blocked_write_message(command: str, cwd: Path, *, needs_approval: bool = False) -> str | None:
    """Claude Code's refusal of a file-writing shell command nobody approved, as 2.1.240
    words it, or as 2.1.332 does (`needs_approval`; measured with `touch`)."""
    found = written_path(command, cwd)
    if found is None:
        return None
    verb, path = found
    if needs_approval:
        return (
            f"{verb} in '{path}' needs approval. The path is inside the working directories for "
            f"this session ('{cwd}'), and Claude Code asks before a shell command creates, "
            "changes or removes files there."
        )
    return (
        f"{verb} in '{path}' was blocked. For security, Claude Code may only "
        f"{WRITE_COMMANDS[verb]} the allowed working directories for this session: '{cwd}'."
    )


def permission_suggestions(
    tool: str, tool_input: Mapping[str, Any], mode: str, cwd: Path
) -> list[dict[str, Any]]:
    """The `permission_suggestions` Claude Code sends with a PermissionRequest for this call."""
    accept_edits = {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
    if tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str):
            return [_allow_rule(tool)]
        found = written_path(command, cwd)
        suggestions = [_allow_rule(tool, command)]
        if found is not None:
            suggestions.append(_directories(os.path.dirname(found[1])))
            if mode in _ASKING_MODES:
                suggestions.append(accept_edits)
        return suggestions
    if tool in _EDIT_TOOLS:
        suggestions = [accept_edits] if mode in _ASKING_MODES else []
        file_path = tool_input.get("file_path")
        if isinstance(file_path, str):
            folder = os.path.dirname(os.path.normpath(cwd / file_path))
            if not _inside(folder, cwd):
                suggestions.append(_directories(folder))
        return suggestions
    return [_allow_rule(tool)]


def _allow_rule(tool: str, content: str | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"toolName": tool}
    if content is not None:
        rule["ruleContent"] = content
    return {
        "type": "addRules",
        "rules": [rule],
        "behavior": "allow",
        "destination": "localSettings",
    }


def _directories(folder: str) -> dict[str, Any]:
    return {"type": "addDirectories", "directories": [folder], "destination": "session"}


def _inside(folder: str, cwd: Path) -> bool:
    root = os.path.normpath(cwd)
    return folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)


def allow_rule_text(tool: str, tool_input: Mapping[str, Any]) -> str:
    """A `permissions.allow` rule that lets calls like this one run unasked: a command's first
    word with any arguments (`Bash(git *)`), else the tool's name (`WebFetch`)."""
    command = tool_input.get("command") if tool == "Bash" else None
    words = command.split() if isinstance(command, str) else []
    return f"{tool}({words[0]} *)" if words else tool
