"""Adding hookwright's command hook to a Claude Code settings file, and taking exactly it out.

Install remembers the file's bytes before it (under ``~/.hookwright/installs/``), so that an
uninstall that leaves the same settings writes those bytes back; otherwise the other settings
are kept and only hookwright's groups leave."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookwright.events import Event

#: The words every installed command contains: how uninstall recognises its own groups.
MARK = "hookwright hook claude-code"
#: The events relayed: those whose empty answer changes nothing in Claude Code.
RELAYED: tuple[Event, ...] = (
    Event.SessionStart,
    Event.UserPromptSubmit,
    Event.PreToolUse,
    Event.PermissionRequest,
    Event.PostToolUse,
    Event.PostToolUseFailure,
    Event.PostToolBatch,
    Event.Notification,
    Event.SubagentStart,
    Event.SubagentStop,
    Event.Stop,
    Event.StopFailure,
    Event.PreCompact,
    Event.PostCompact,
    Event.SessionEnd,
)


class SettingsError(Exception):
    """A settings file that cannot be read or written: one line naming it."""


@dataclass(frozen=True, slots=True)
class Target:
    """The settings file to change and the project the hook answers for (None: the
    project Claude Code names in ``CLAUDE_PROJECT_DIR``)."""

    settings: Path
    project: Path | None


def target_for(project: Path | None, home: Path) -> Target:
    """``--project DIR``: that project's ``.claude/settings.local.json`` (personal, not
    committed: the command names this machine's Python); ``--user``: ``~/.claude/settings.json``."""
    if project is None:
        return Target(home / ".claude" / "settings.json", None)
    project = project.resolve()
    return Target(project / ".claude" / "settings.local.json", project)


def hook_command(project: Path | None) -> str:
    words = [sys.executable, "-m", *MARK.split()]
    if project is not None:
        words += ["--project", str(project)]
    return shlex.join(words)


def _read(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SettingsError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a JSON object")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: field 'hooks' is not an object")
    return raw, data


def _write(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    _write_bytes(path, text.encode("utf-8"))


def _write_bytes(path: Path, raw: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.hookwright-tmp")
        temp.write_bytes(raw)
        os.replace(temp, path)
    except OSError as exc:
        raise SettingsError(f"cannot write {path}: {exc.strerror}") from None


def _is_ours(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    hooks = group["hooks"]
    return bool(hooks) and all(
        isinstance(h, dict) and MARK in str(h.get("command", "")) for h in hooks
    )


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept[event] = groups
            continue
        left = [g for g in groups if not _is_ours(g)]
        if left or len(left) == len(groups):
            kept[event] = left
    result = dict(data)
    if kept:
        result["hooks"] = kept
    else:
        result.pop("hooks", None)
    return result


def _backup_path(settings: Path, home: Path) -> Path:
    digest = hashlib.sha256(str(settings).encode()).hexdigest()[:16]
    return home / ".hookwright" / "installs" / f"{digest}.json"


def install(target: Target, home: Path) -> bool:
    """Add one command group per relayed event; False when it was already there."""
    raw, data = _read(target.settings)
    clean = _without_ours(data)
    command = hook_command(target.project)
    hooks = dict(clean.get("hooks", {}))
    for event in RELAYED:
        group = {"hooks": [{"type": "command", "command": command}]}
        hooks[event.value] = [*hooks.get(event.value, []), group]
    new = {**clean, "hooks": hooks}
    if new == data:
        return False
    backup = _backup_path(target.settings, home)
    if clean == data:
        original = {"settings": str(target.settings), "bytes": None if raw is None else raw.hex()}
        _write_bytes(backup, json.dumps(original).encode())
    _write(target.settings, new)
    return True


def _original(backup: Path) -> tuple[bool, bytes | None]:
    """(known, bytes): the file's bytes before install, None when there was no file."""
    try:
        saved = json.loads(backup.read_text(encoding="utf-8"))
        return True, None if saved["bytes"] is None else bytes.fromhex(saved["bytes"])
    except (OSError, ValueError, KeyError, TypeError):
        return False, None


def uninstall(target: Target, home: Path) -> bool:
    """Take out what `install` added; False when nothing of it was there."""
    raw, data = _read(target.settings)
    clean = _without_ours(data)
    if raw is None or clean == data:
        return False
    backup = _backup_path(target.settings, home)
    known, before = _original(backup)
    if known and before is None and clean == {}:
        target.settings.unlink()
    elif before is not None and _read_bytes_equal(before, clean):
        _write_bytes(target.settings, before)
    else:
        _write(target.settings, clean)
    backup.unlink(missing_ok=True)
    return True


def _read_bytes_equal(raw: bytes, data: dict[str, Any]) -> bool:
    try:
        parsed = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return bool(parsed == data)
