"""Adding hookwright's hooks to a Claude Code settings file, and taking exactly them out.

Two modes: ``command`` (a command hook per event running the thin daemon client) and ``http``
(an http hook per event posting to the daemon's loopback endpoint with its token; SessionStart,
where Claude Code runs no http hooks, keeps the client, which also starts the daemon). The
token makes the settings file a secret: an http install makes the file 0600.

The file is read as strict JSON (`settings_json`) and only its ``hooks`` member is rewritten;
every file is written by `private_files` (never through a link, 0600 from the first byte). A
settings file that is a link is edited where it points (a regular file of this user; in a
project, inside the project) and stays a link.

Install remembers the file's bytes and mode before it (under ``~/.hookwright/installs/``), so
that an uninstall that leaves the same settings writes those bytes back; otherwise the other
settings are kept and only hookwright's groups leave."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import stat
import sys
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from hookwright.bridges import quick_claude_client
from hookwright.bridges.endpoint import HOOK_PATH, ensure_endpoint
from hookwright.bridges.settings_json import (
    EMPTY,
    DocumentError,
    Settings,
    parse_settings,
    with_hooks,
)
from hookwright.config.private_files import FILE_MODE, write_private
from hookwright.config.safeparse import MAX_TEXT_CHARS, ParseError, read_json
from hookwright.core.events import Event

#: How uninstall recognises its own hooks: the words of an in-process command hook (installed
#: by earlier versions), the client's file name (and where earlier installs ran the full
#: client), the daemon's http path.
MARK = "hookwright hook claude-code"
#: The words of the command hook `install codex` writes into Codex's `hooks.json`.
CODEX_MARK = "hookwright hook codex"
#: The words of the command hook `install gemini` writes into a Gemini `settings.json`.
GEMINI_MARK = "hookwright hook gemini"
CLIENT_MARK = "hookwright/bridges/quick_claude_client.py"
EARLIER_CLIENT_MARKS = ("hookwright/bridges/claude_client.py", "hookwright/hosts/claude_client.py")
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
    """The quick client, run by path with the interpreter's own modules only (`-I -S`); it
    hands what it does not answer to the full client beside it. `exec`: the shell Claude Code
    runs the command in becomes the client instead of forking it and waiting (dash, the usual
    `/bin/sh`, forks for a lone command; bash and zsh exec it anyway). `-X utf8`: the
    interpreter decodes its own paths itself instead of through the C library's locale
    functions (about 6% of the client's instructions); under a locale that is not UTF-8 the
    client starts again without it (`quick_exchange.utf8_locale`)."""
    words = [sys.executable, "-I", "-S", "-X", "utf8", quick_claude_client.__file__]
    if project is not None:
        words += ["--project", str(project)]
    return "exec " + shlex.join(words)


def http_hook(project: Path | None, home: Path) -> dict[str, Any]:
    endpoint = ensure_endpoint(home)
    query = "" if project is None else f"?project={quote(str(project), safe='/')}"
    return {
        "type": "http",
        "url": endpoint.url + query,
        "headers": {"Authorization": f"Bearer {endpoint.token}"},
    }


def hooks_for(
    mode: Mode, project: Path | None, home: Path, block_on_failure: bool = False
) -> dict[Event, dict[str, Any]]:
    """The hook each relayed event gets (http hooks do not run at SessionStart). With
    `block_on_failure` (Claude Code 2.1.295+), each carries ``"onFailure": "block"``: a hook
    that cannot answer (a dead daemon, a client that crashes) blocks the action."""
    failing = {"onFailure": "block"} if block_on_failure else {}
    command = {"type": "command", "command": client_command(project), **failing}
    if mode == "command":
        return {event: command for event in RELAYED}
    http = {**http_hook(project, home), **failing}
    return {event: command if event is Event.SessionStart else http for event in RELAYED}


def _real_path(target: Target) -> Path:
    """The file to read and replace: the settings file, or the file its link (or a link to
    its folder) names. In a project, a link may not lead out of the project: a repository
    could otherwise point the file at the user's own settings."""
    settings = target.settings
    try:
        folder, real = settings.parent.resolve(), settings.resolve()
    except (OSError, RuntimeError) as exc:
        raise SettingsError(f"cannot resolve {settings}: {exc}") from None
    if target.project is not None:
        if not folder.is_relative_to(target.project):
            raise SettingsError(
                f"{settings.parent} is a link leaving the project (to {folder}); nothing written"
            )
        if not real.is_relative_to(target.project):
            raise SettingsError(
                f"{settings} is a link leaving the project (to {real}); nothing written"
            )
    return real


@dataclass(frozen=True, slots=True)
class _Found:
    """The settings file as found: the file really written (`real`, a link's target), its
    bytes (None: no file yet), permission bits and parsed settings."""

    real: Path
    raw: bytes | None
    mode: int | None
    settings: Settings


def _read(target: Target) -> _Found:
    real = _real_path(target)
    raw, mode = _read_owned(real, target.settings)
    if raw is None:
        return _Found(real, None, None, EMPTY)
    try:
        return _Found(real, raw, mode, parse_settings(raw, where=str(target.settings)))
    except DocumentError as exc:
        raise SettingsError(str(exc)) from None


def _read_owned(real: Path, settings: Path) -> tuple[bytes | None, int | None]:
    """The bytes and mode of `real`, which must be a regular file of this user (opened
    without following a link and without blocking on a FIFO); (None, None) when missing."""
    named = str(settings) if real == settings else f"{settings} (a link to {real})"
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(real, flags)
    except FileNotFoundError:
        if os.path.islink(settings):
            raise SettingsError(f"{settings} is a link to {real}, which does not exist") from None
        return None, None
    except OSError as exc:
        raise SettingsError(f"cannot read {named}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SettingsError(f"{named} is not a regular file")
        if info.st_uid != os.getuid():
            raise SettingsError(f"{named} belongs to another user (uid {info.st_uid})")
        try:
            raw = handle.read(MAX_TEXT_CHARS + 1)
        except OSError as exc:
            raise SettingsError(f"cannot read {named}: {exc.strerror}") from None
    return raw, stat.S_IMODE(info.st_mode)


def _store(path: Path, raw: bytes, mode: int, shown: Path) -> None:
    try:
        write_private(path, raw, mode)
    except OSError as exc:
        raise SettingsError(f"cannot write {shown}: {exc.strerror or exc}") from None


def _is_ours(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    hooks = group["hooks"]
    return bool(hooks) and all(isinstance(h, dict) and _is_our_hook(h) for h in hooks)


def _is_our_hook(hook: dict[str, Any]) -> bool:
    if hook.get("type") == "http":
        return HOOK_PATH in str(hook.get("url", ""))
    command = str(hook.get("command", ""))
    marks = (MARK, CODEX_MARK, GEMINI_MARK, CLIENT_MARK, *EARLIER_CLIENT_MARKS)
    return any(mark in command for mark in marks)


def _without_ours(
    hooks: dict[str, list[Any]], keep_empty: Container[str] = ()
) -> dict[str, list[Any]]:
    """`hooks` without hookwright's groups; an event left with none is dropped, unless it is
    in `keep_empty` (it was there, empty, before install)."""
    kept: dict[str, list[Any]] = {}
    for event, groups in hooks.items():
        left = [g for g in groups if not _is_ours(g)]
        if left or len(left) == len(groups) or event in keep_empty:
            kept[event] = left
    return kept


def _backup_path(settings: Path, home: Path) -> Path:
    digest = hashlib.sha256(os.fsencode(settings)).hexdigest()[:16]
    return home / ".hookwright" / "installs" / f"{digest}.json"


def install(
    target: Target, home: Path, mode: Mode = "command", block_on_failure: bool = False
) -> bool:
    """Add one group per relayed event (replacing hookwright's earlier ones); False when
    exactly these were already there."""

    def ours() -> dict[str, dict[str, Any]]:
        hooks = _ours(mode, target, home, block_on_failure)
        return {event.value: hook for event, hook in hooks.items()}

    return install_groups(target, home, ours, private=mode == "http")


def install_groups(
    target: Target,
    home: Path,
    ours: Callable[[], Mapping[str, dict[str, Any]]],
    *,
    private: bool = False,
) -> bool:
    """Add one group per event of `ours()` (event name -> hook; asked once the file was
    found fit to edit), replacing hookwright's earlier ones, to a file of Claude Code's hooks
    shape (a settings file, Codex's `hooks.json`); False when exactly these were already
    there. `private`: the file holds a secret and becomes 0600."""
    found = _read(target)
    current = found.settings.hooks
    clean = _without_ours(current or {})
    hooks = dict(clean)
    for event, hook in ours().items():
        hooks[event] = [*hooks.get(event, []), {"hooks": [hook]}]
    if hooks == current:
        return False
    text = _spliced(found, hooks, target.settings)
    backup = _backup_path(target.settings, home) if clean == (current or {}) else None
    if backup is not None:
        original = {"settings": str(target.settings), "bytes": _hex(found.raw), "mode": found.mode}
        _store(backup, json.dumps(original).encode(), FILE_MODE, backup)
    new_mode = FILE_MODE if private or found.mode is None else found.mode
    try:
        _store(found.real, text, new_mode, target.settings)
    except SettingsError:
        _forget(backup)
        raise
    return True


def _ours(
    mode: Mode, target: Target, home: Path, block_on_failure: bool
) -> dict[Event, dict[str, Any]]:
    try:
        return hooks_for(mode, target.project, home, block_on_failure)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise SettingsError(f"cannot store the daemon's endpoint{where}: {exc.strerror}") from None


def _forget(backup: Path | None) -> None:
    if backup is not None:
        with contextlib.suppress(OSError):
            backup.unlink()


def _hex(raw: bytes | None) -> str | None:
    return None if raw is None else raw.hex()


def _spliced(found: _Found, hooks: dict[str, list[Any]] | None, shown: Path) -> bytes:
    try:
        return with_hooks(found.settings, hooks).encode("utf-8")
    except UnicodeEncodeError:
        raise SettingsError(f"{shown}: a path in the hooks is not valid UTF-8") from None


@dataclass(frozen=True, slots=True)
class _Before:
    """The settings file before install: whether that is known, its bytes (None: no file),
    its permission bits and its parsed settings."""

    known: bool
    raw: bytes | None = None
    mode: int | None = None
    settings: Settings = EMPTY


def _original(backup: Path) -> _Before:
    try:
        saved = read_json(backup)
        raw = None if saved["bytes"] is None else bytes.fromhex(saved["bytes"])
        mode = saved.get("mode")
        settings = EMPTY if raw is None else parse_settings(raw, where=str(backup))
    except (ParseError, DocumentError, ValueError, KeyError, TypeError, AttributeError):
        return _Before(False)
    return _Before(True, raw, mode if isinstance(mode, int) else None, settings)


def uninstall(target: Target, home: Path) -> bool:
    """Take out what `install` added; False when nothing of it was there."""
    found = _read(target)
    current = found.settings.hooks
    backup = _backup_path(target.settings, home)
    before = _original(backup)
    had = before.settings.hooks
    hooks = None if current is None else _without_ours(current, had or ())
    if hooks == current:
        return False
    keep_member = bool(hooks) or had is not None
    text = _spliced(found, hooks if keep_member else None, target.settings)
    left = parse_settings(text, where=str(target.settings)).data
    mode = next(m for m in (before.mode, found.mode, FILE_MODE) if m is not None)
    if before.raw is not None and left == before.settings.data:
        _store(found.real, before.raw, mode, target.settings)
    elif before.known and before.raw is None and left == {} and not target.settings.is_symlink():
        _remove(found.real)
    else:
        _store(found.real, text, mode, target.settings)
    _forget(backup)
    return True


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError as exc:
        raise SettingsError(f"cannot remove {path}: {exc.strerror}") from None
