"""Adding hookwright's hooks to a Claude Code settings file, and taking exactly them out.

Two modes: ``command`` (a command hook per event running the thin daemon client) and ``http``
(an http hook per event posting to the daemon's loopback endpoint with its token; SessionStart,
where Claude Code runs no http hooks, keeps the client, which also starts the daemon). The
token makes the settings file a secret: an http install makes the file 0600.

Install remembers the file's bytes and mode before it (under ``~/.hookwright/installs/``), so
that an uninstall that leaves the same settings writes those bytes back; otherwise the other
settings are kept and only hookwright's groups leave."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from hookwright.bridges import claude_client
from hookwright.bridges.endpoint import HOOK_PATH, ensure_endpoint
from hookwright.core.events import Event

#: How uninstall recognises its own hooks: the words of an in-process command hook (installed
#: by earlier versions), the client's file name (and where earlier installs ran it), the
#: daemon's http path.
MARK = "hookwright hook claude-code"
CLIENT_MARK = "hookwright/bridges/claude_client.py"
EARLIER_CLIENT_MARK = "hookwright/hosts/claude_client.py"
Mode = Literal["command", "http"]
MODES: tuple[Mode, ...] = ("command", "http")
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


def client_command(project: Path | None) -> str:
    """The thin client, run by path with the standard library only (`-I -S`)."""
    words = [sys.executable, "-I", "-S", claude_client.__file__]
    if project is not None:
        words += ["--project", str(project)]
    return shlex.join(words)


def http_hook(project: Path | None, home: Path) -> dict[str, Any]:
    endpoint = ensure_endpoint(home)
    query = "" if project is None else f"?project={quote(str(project), safe='/')}"
    return {
        "type": "http",
        "url": endpoint.url + query,
        "headers": {"Authorization": f"Bearer {endpoint.token}"},
    }


def hooks_for(mode: Mode, project: Path | None, home: Path) -> dict[Event, dict[str, Any]]:
    """The hook each relayed event gets (http hooks do not run at SessionStart)."""
    command = {"type": "command", "command": client_command(project)}
    if mode == "command":
        return {event: command for event in RELAYED}
    http = http_hook(project, home)
    return {event: command if event is Event.SessionStart else http for event in RELAYED}


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


def _write(path: Path, data: dict[str, Any], mode: int | None = None) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    _write_bytes(path, text.encode("utf-8"), mode)


def _write_bytes(path: Path, raw: bytes, mode: int | None = None) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.hookwright-tmp")
        temp.write_bytes(raw)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except OSError as exc:
        raise SettingsError(f"cannot write {path}: {exc.strerror}") from None


def _is_ours(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    hooks = group["hooks"]
    return bool(hooks) and all(isinstance(h, dict) and _is_our_hook(h) for h in hooks)


def _is_our_hook(hook: dict[str, Any]) -> bool:
    if hook.get("type") == "http":
        return HOOK_PATH in str(hook.get("url", ""))
    command = str(hook.get("command", ""))
    return any(mark in command for mark in (MARK, CLIENT_MARK, EARLIER_CLIENT_MARK))


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


def _mode_of(path: Path) -> int | None:
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return None


def install(target: Target, home: Path, mode: Mode = "command") -> bool:
    """Add one group per relayed event; False when it was already there."""
    raw, data = _read(target.settings)
    clean = _without_ours(data)
    hooks = dict(clean.get("hooks", {}))
    for event, hook in hooks_for(mode, target.project, home).items():
        hooks[event.value] = [*hooks.get(event.value, []), {"hooks": [hook]}]
    new = {**clean, "hooks": hooks}
    if new == data:
        return False
    backup = _backup_path(target.settings, home)
    if clean == data:
        original = {
            "settings": str(target.settings),
            "bytes": None if raw is None else raw.hex(),
            "mode": _mode_of(target.settings),
        }
        _write_bytes(backup, json.dumps(original).encode(), 0o600)
    _write(target.settings, new, 0o600 if mode == "http" else _mode_of(target.settings))
    return True


@dataclass(frozen=True, slots=True)
class _Before:
    """The settings file before install: whether that is known, its bytes (None: no file)
    and its permission bits."""

    known: bool
    raw: bytes | None = None
    mode: int | None = None


def _original(backup: Path) -> _Before:
    try:
        saved = json.loads(backup.read_text(encoding="utf-8"))
        raw = None if saved["bytes"] is None else bytes.fromhex(saved["bytes"])
        mode = saved.get("mode")
        return _Before(True, raw, mode if isinstance(mode, int) else None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return _Before(False)


def uninstall(target: Target, home: Path) -> bool:
    """Take out what `install` added; False when nothing of it was there."""
    raw, data = _read(target.settings)
    clean = _without_ours(data)
    if raw is None or clean == data:
        return False
    backup = _backup_path(target.settings, home)
    before = _original(backup)
    if before.known and before.raw is None and clean == {}:
        target.settings.unlink()
    elif before.raw is not None and _read_bytes_equal(before.raw, clean):
        _write_bytes(target.settings, before.raw, before.mode)
    else:
        _write(target.settings, clean, before.mode)
    backup.unlink(missing_ok=True)
    return True


def _read_bytes_equal(raw: bytes, data: dict[str, Any]) -> bool:
    try:
        parsed = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return bool(parsed == data)
