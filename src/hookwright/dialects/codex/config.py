"""Codex CLI hook files: what a layer's hook declarations hold.

A layer (see `layers` for which ones Codex reads, and in what order) keeps hooks in
``hooks.json`` (``{"hooks": {EVENT: [group...]}}``) and/or inline under ``[hooks]`` in its TOML
file; both are read, in that order, with a warning when one layer uses both. Every layer's
hooks run. A group is Claude Code's shape: ``{"matcher": ..., "hooks": [{"type": "command",
"command": ..., "timeout": seconds}]}``. Codex reads ``timeout`` (alias ``timeout_sec``,
default 600, at least 1; on SessionEnd and Interrupt default 1, at most 3), ``async`` and
``statusMessage``; ``prompt`` and ``agent`` handlers are skipped with a warning, as Codex
skips them.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import ParseError, read_json, read_text
from hookwright.core.events import Event

#: Also the hook's `HookSpec.source`: managed hooks (requirements, system and legacy managed
#: config) run first in a mixed project and need no review.
Layer = Literal["managed", "user", "project", "plugin"]
DEFAULT_TIMEOUT: Final = 600
#: Codex gives a SessionEnd or Interrupt hook without a timeout this one, and clamps a longer
#: one to `SESSION_END_TIMEOUT`, when it loads the hook (and reviews the hook so, measured on
#: Codex CLI 0.171.0).
SHORT_TIMEOUT_EVENTS: Final = frozenset({"SessionEnd", "Interrupt"})
#: Where Codex waits for an ``async`` hook as for any other (measured on Codex CLI 0.171.0: a
#: SessionEnd one runs to its end or its timeout before Codex exits).
AWAITED_ASYNC_EVENTS: Final = frozenset({"SessionEnd"})
SHORT_DEFAULT_TIMEOUT: Final = 1
SESSION_END_TIMEOUT: Final = 3

#: Codex's event names, in its order, and the snake-case label of its review keys.
EVENT_LABELS: Final[dict[str, str]] = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "Stop": "stop",
    "StopFailure": "stop_failure",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Interrupt": "interrupt",
    "SessionEnd": "session_end",
}
#: Codex event -> canonical event (each of the same name).
CANONICAL: Final[dict[str, Event]] = {name: Event(name) for name in EVENT_LABELS}
#: Events whose matcher Codex ignores (every group matches).
MATCHER_IGNORED: Final = frozenset({"UserPromptSubmit", "Stop", "SessionEnd", "Interrupt"})


@dataclass(frozen=True, slots=True)
class CodexHook:
    """One command handler as declared, with the place Codex's review key names.

    `source` is the path Codex names the hook by (its review key and Stop run id);
    `declared_in` the file read when that differs (a managed directory named by
    ``requirements.toml``); `key_source` replaces `source` in the review key (a plugin's
    ``<plugin id>:<file within the plugin>``); `env` is set for the command (a plugin's
    folders).
    """

    event: str
    matcher: str | None
    command: str
    timeout: int
    is_async: bool
    status_message: str | None
    source: Path
    group_index: int
    handler_index: int
    layer: Layer
    declared_in: Path | None = None
    key_source: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    #: The ``<name>@<marketplace>`` id of the plugin that declares the hook.
    plugin: str | None = None
    #: Where in its file the table declaring it is, when the file holds several (a fragment
    #: of the workspace's cloud-managed bundle: ``bundle.config_toml.enterprise_managed[0]``).
    part: str = ""

    @property
    def background(self) -> bool:
        """Whether Codex starts the hook and goes on without waiting for it (``async``)."""
        return self.is_async and self.event not in AWAITED_ASYNC_EVENTS

    @property
    def run_command(self) -> str:
        """The command Codex runs: ``${KEY}`` of `env` replaced (the review hashes `command`
        as declared)."""
        command = self.command
        for key, value in self.env.items():
            command = command.replace(f"${{{key}}}", value)
        return command

    @property
    def origin(self) -> str:
        file = self.declared_in or self.source
        part = f"{self.part}." if self.part else ""
        return f"{file}:{part}hooks.{self.event}[{self.group_index}].hooks[{self.handler_index}]"


@dataclass(frozen=True, slots=True)
class LayerFiles:
    """One layer: its folder (None: it has no `hooks.json`, as the legacy managed config),
    and its parsed TOML file (None when absent) at `toml` (default `<folder>/config.toml`).
    A layer Codex names by a path of its own (a managed preference) has `toml` that path and
    `read_from` the file read, under the key `key`."""

    layer: Layer
    folder: Path | None
    config: Mapping[str, Any] | None
    toml: Path | None = None
    read_from: Path | None = None
    key: str = ""

    @property
    def toml_path(self) -> Path:
        if self.toml is not None:
            return self.toml
        assert self.folder is not None, "a layer has a folder or a TOML file"
        return self.folder / "config.toml"

    @property
    def file_read(self) -> Path:
        """The file a report about this layer names."""
        return self.read_from or self.toml_path


def codex_home(home: Path, environ: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME``, else ``<home>/.codex``."""
    value = (os.environ if environ is None else environ).get("CODEX_HOME", "").strip()
    return Path(value) if value else home / ".codex"


#: Said of a managed file that is not read: Codex CLI 0.171.0 does not start with it (measured:
#: "Error loading config.toml: failed to parse requirements layer /etc/codex/requirements.toml:
#: TOML parse error ...", and likewise for the managed ``config.toml`` and a file that is not
#: UTF-8).
_REQUIRED: Final = "Codex does not start while it cannot read it: fix or remove it"


def read_toml(
    path: Path, diagnostics: list[Diagnostic], required: bool = False
) -> Mapping[str, Any] | None:
    """The parsed file (None when absent or unreadable: a diagnostic says why, `required`
    when it is a managed file Codex does not start without). Read with the bounds of
    `safeparse` (no FIFO, no oversized file)."""
    if not os.path.lexists(path):
        return None
    try:
        return tomllib.loads(read_text(path))
    except ParseError as exc:
        reason = exc.reason
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        reason = f"invalid TOML: {exc}"
    said = f"{reason}; {_REQUIRED}" if required else reason
    diagnostics.append(Diagnostic(str(path), "", said, required=required))
    return None


def _read_json_hooks(path: Path | None, diagnostics: list[Diagnostic]) -> Any:
    if path is None or not os.path.lexists(path):
        return None
    try:
        data = read_json(path)
    except ParseError as exc:
        diagnostics.append(Diagnostic(str(path), "", exc.reason))
        return None
    if not isinstance(data, dict):
        diagnostics.append(Diagnostic(str(path), "", "must be a JSON object"))
        return None
    return data.get("hooks")


def layer_hooks(files: LayerFiles, diagnostics: list[Diagnostic]) -> list[CodexHook]:
    """The layer's hooks: `hooks.json` first, then inline `[hooks]` of its TOML file."""
    json_path = files.folder / "hooks.json" if files.folder is not None else None
    toml_path = files.toml_path
    inline = inline_hooks(files.config)
    from_json = parse_events(
        _read_json_hooks(json_path, diagnostics), json_path or toml_path, files.layer
    )
    diagnostics.extend(from_json[1])
    from_toml = parse_events(inline or None, toml_path, files.layer)
    if files.read_from is not None:
        from_toml = _read_from(files, from_toml)
    diagnostics.extend(from_toml[1])
    if from_json[0] and from_toml[0]:
        diagnostics.append(
            Diagnostic(
                str(toml_path),
                "hooks",
                f"loading hooks from both {json_path} and {toml_path}; "
                "prefer a single representation for this layer",
                "warning",
            )
        )
    return [*from_json[0], *from_toml[0]]


def _read_from(
    files: LayerFiles, parsed: tuple[list[CodexHook], list[Diagnostic]]
) -> tuple[list[CodexHook], list[Diagnostic]]:
    """Hooks and reports of a layer read from another file than the path Codex names."""
    read = files.file_read
    hooks = [replace(hook, declared_in=read) for hook in parsed[0]]
    prefix = f"{files.key}: " if files.key else ""
    problems = [replace(p, file=str(read), path=prefix + p.path) for p in parsed[1]]
    return hooks, problems


def inline_hooks(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The events under ``[hooks]`` of a parsed TOML file, without its non-event keys."""
    hooks = config.get("hooks") if config else None
    if not isinstance(hooks, Mapping):
        return {}
    return {key: value for key, value in hooks.items() if key not in _NOT_EVENTS}


#: Keys of a ``[hooks]`` table that are not events: review state, requirements' directories.
_NOT_EVENTS: Final = frozenset({"state", "managed_dir", "windows_managed_dir"})


def parse_events(
    hooks: Any, source: Path, layer: Layer
) -> tuple[list[CodexHook], list[Diagnostic]]:
    """Every command handler of one `hooks` table, in event then declaration order."""
    found: list[CodexHook] = []
    problems: list[Diagnostic] = []
    if hooks is None:
        return found, problems
    if not isinstance(hooks, Mapping):
        return found, [Diagnostic(str(source), "hooks", "must be a table of events")]
    for event, groups in hooks.items():
        if event not in EVENT_LABELS:
            problems.append(
                Diagnostic(str(source), f"hooks.{event}", "not a Codex event; ignored", "warning")
            )
            continue
        if not isinstance(groups, list):
            problems.append(Diagnostic(str(source), f"hooks.{event}", "must be a list of groups"))
            continue
        for group_index, group in enumerate(groups):
            where = f"hooks.{event}[{group_index}]"
            found += _group(group, event, group_index, source, layer, where, problems)
    return found, problems


def _group(
    group: Any,
    event: str,
    group_index: int,
    source: Path,
    layer: Layer,
    where: str,
    problems: list[Diagnostic],
) -> list[CodexHook]:
    if not isinstance(group, Mapping) or not isinstance(group.get("hooks", []), list):
        problems.append(Diagnostic(str(source), where, "must be {matcher?, hooks: [...]}"))
        return []
    matcher = group.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        problems.append(Diagnostic(str(source), f"{where}.matcher", "must be a string"))
        return []
    handlers = []
    for handler_index, handler in enumerate(group.get("hooks", [])):
        spot = f"{where}.hooks[{handler_index}]"
        parsed = _handler(handler, str(source), spot, problems)
        if parsed is not None:
            command, declared, is_async, status = parsed
            handlers.append(
                CodexHook(
                    event,
                    None if event in MATCHER_IGNORED else matcher,
                    command,
                    effective_timeout(event, declared),
                    is_async,
                    status,
                    source,
                    group_index,
                    handler_index,
                    layer,
                )
            )
    return handlers


def effective_timeout(event: str, declared: int | None) -> int:
    """The seconds Codex gives a hook of `event` whose ``timeout`` is `declared` (None: not
    set)."""
    if event in SHORT_TIMEOUT_EVENTS:
        seconds = SHORT_DEFAULT_TIMEOUT if declared is None else declared
        return min(max(seconds, 1), SESSION_END_TIMEOUT)
    return max(DEFAULT_TIMEOUT if declared is None else declared, 1)


def _handler(
    handler: Any, file: str, where: str, problems: list[Diagnostic]
) -> tuple[str, int | None, bool, str | None] | None:
    if not isinstance(handler, Mapping):
        problems.append(Diagnostic(file, where, "must be a table"))
        return None
    kind = handler.get("type")
    if kind in ("prompt", "agent"):
        problems.append(
            Diagnostic(file, where, f"{kind} hooks are not supported by Codex; skipped", "warning")
        )
        return None
    if kind != "command":
        problems.append(Diagnostic(file, f"{where}.type", f"unknown hook type {kind!r}"))
        return None
    command = handler.get("command")
    if not isinstance(command, str) or not command.strip():
        problems.append(Diagnostic(file, f"{where}.command", "empty hook command; skipped"))
        return None
    timeout = handler.get("timeout", handler.get("timeout_sec"))
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0
    ):
        problems.append(Diagnostic(file, f"{where}.timeout", "must be whole seconds"))
        return None
    status = handler.get("statusMessage")
    return (
        command,
        timeout,
        handler.get("async") is True,
        status if isinstance(status, str) else None,
    )
