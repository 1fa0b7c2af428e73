"""The Gemini CLI source: `hooks` in `.gemini/settings.json` (project, needs hookwright's
trust and Gemini's folder trust), `~/.gemini/settings.json` (user) and the system settings
(`/etc/gemini-cli/settings.json`, or ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH``).

```json
{"hooksConfig": {"enabled": true, "disabled": ["guard"]},
 "hooks": {"BeforeTool": [{"matcher": "write_file|replace", "sequential": false,
   "hooks": [{"type": "command", "command": "./guard.sh", "name": "guard", "timeout": 5000}]}]}}
```

`hooksConfig.enabled` is read with Gemini's precedence (system over project over user), the
`disabled` names (a hook's `name`, else its command) are the union of every layer. System
hooks are listed as hookwright's `managed` source. Hooks of
every layer run, project first. A folder Gemini does not trust keeps its project's hooks
from running, with a warning saying so.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookwright.config.loading import (
    Diagnostic,
    DiscoveredHook,
    Discovery,
    LoadContext,
    LoadResult,
    register_source,
)
from hookwright.config.safeparse import ParseError, read_json
from hookwright.config.trust import TrustPolicy
from hookwright.core.dialect_data import DialectData
from hookwright.core.spec import HookSpec
from hookwright.dialects.gemini.codec import DEFAULT_TIMEOUT_MS, GeminiCommand, command_handler
from hookwright.dialects.gemini.events import EVENTS, matcher_for
from hookwright.dialects.gemini.trust import UNTRUSTED_EXIT, folder_trusted
from hookwright.dialects.managed_paths import Platform, gemini_system_settings, platform_of

DIALECT = "gemini"
_HOOKS_CONFIG_KEYS = frozenset({"enabled", "disabled", "notifications"})


@dataclass(frozen=True, slots=True)
class GeminiData(DialectData):
    """Gemini's own event name (BeforeModel and BeforeToolSelection share PreModelCall)."""

    event_name: str


#: Gemini events whose canonical event another Gemini event shares (PreModelCall).
SHARED_EVENTS = frozenset({"BeforeModel", "BeforeToolSelection"})


def runs_on(event_name: str, spec: HookSpec) -> bool:
    """Whether `spec` runs when Gemini fires `event_name`: a Gemini hook on its own event
    only; another dialect's hook of the canonical event at every Gemini event but
    BeforeToolSelection, as `hook gemini` relays them (BeforeModel is the PreModelCall)."""
    data = spec.dialect_data
    if isinstance(data, GeminiData):
        return data.event_name == event_name
    return event_name != "BeforeToolSelection"


@dataclass(frozen=True, slots=True)
class Layer:
    source: str
    path: Path
    trust_root: Path | None
    project: Path


def layers(ctx: LoadContext, platform: Platform | None = None) -> list[Layer]:
    """The settings files, project first; the system file is `platform`'s (default this
    machine's) in `managed_paths.MANAGED`."""
    system = Path(gemini_system_settings(platform or platform_of()))
    project = ctx.project_dir
    return [
        Layer("project", project / ".gemini" / "settings.json", project, project),
        Layer("user", ctx.home / ".gemini" / "settings.json", None, project),
        Layer("managed", system, None, project),
    ]


@dataclass(frozen=True, slots=True)
class Switches:
    """`hooksConfig` as the layers a policy trusts set it."""

    enabled: bool
    disabled: frozenset[str]


def switches(settings: Sequence[tuple[Layer, Mapping[str, Any]]], policy: TrustPolicy) -> Switches:
    enabled = True
    disabled: set[str] = set()
    for layer, data in sorted(settings, key=lambda item: _PRECEDENCE[item[0].source]):
        if not policy.trusts(layer.trust_root):
            continue
        config = data.get("hooksConfig")
        if not isinstance(config, Mapping):
            continue
        if isinstance(config.get("enabled"), bool):
            enabled = config["enabled"]
        names = config.get("disabled")
        if isinstance(names, list):
            disabled |= {name for name in names if isinstance(name, str)}
    return Switches(enabled, frozenset(disabled))


#: Later wins: user < project < system (hookwright's `managed` source).
_PRECEDENCE = {"user": 0, "project": 1, "managed": 2}


def discover(ctx: LoadContext) -> Discovery:
    discovery = Discovery()
    read: list[tuple[Layer, Mapping[str, Any]]] = []
    for layer in layers(ctx):
        data = _read(layer.path, discovery)
        if data is not None:
            read.append((layer, data))
    gemini_trusts, problem = folder_trusted(ctx.home, ctx.project_dir)
    if problem is not None:
        discovery.diagnostics.append(Diagnostic(problem, "", "unreadable", "warning"))
    for layer, data in read:
        refused = layer.source == "project" and not gemini_trusts
        if refused and data.get("hooks"):
            discovery.diagnostics.append(_untrusted_warning(layer.path, ctx.project_dir))
        _discover_layer(layer, data, read, refused, discovery)
    return discovery


def _untrusted_warning(path: Path, project: Path) -> Diagnostic:
    message = (
        f"Gemini CLI does not trust {project} (~/.gemini/trustedFolders.json): "
        f"`gemini -p` refuses to run there (exit {UNTRUSTED_EXIT}) and hookwright does not "
        "run this file's hooks; trust the folder in Gemini CLI to run them"
    )
    return Diagnostic(str(path), "hooks", message, "warning")


def _read(path: Path, discovery: Discovery) -> Mapping[str, Any] | None:
    if not path.is_file():
        return None
    discovery.files.append(str(path))
    try:
        data = read_json(path)
    except ParseError as exc:
        discovery.diagnostics.append(Diagnostic(str(path), "", exc.reason))
        return None
    if not isinstance(data, dict):
        discovery.diagnostics.append(Diagnostic(str(path), "", "expected a JSON object"))
        return None
    return data


def _discover_layer(
    layer: Layer,
    data: Mapping[str, Any],
    read: Sequence[tuple[Layer, Mapping[str, Any]]],
    refused: bool,
    discovery: Discovery,
) -> None:
    hooks = data.get("hooks")
    file = str(layer.path)
    if hooks is None:
        return
    if not isinstance(hooks, Mapping):
        discovery.diagnostics.append(Diagnostic(file, "hooks", "expected an object of events"))
        return
    for event_name, groups in hooks.items():
        if event_name in _HOOKS_CONFIG_KEYS:
            continue
        where = f"hooks.{event_name}"
        if event_name not in EVENTS:
            message = f"unknown Gemini CLI event {event_name!r}; known: {', '.join(EVENTS)}"
            discovery.diagnostics.append(Diagnostic(file, where, message, "warning"))
            continue
        if not isinstance(groups, list):
            discovery.diagnostics.append(Diagnostic(file, where, "expected a list of groups"))
            continue
        for index, group in enumerate(groups):
            for hook in _group_hooks(layer, event_name, group, f"{where}[{index}]", discovery):
                discovery.hooks.append(_declared(layer, hook, read, refused))


@dataclass(frozen=True, slots=True)
class Declared:
    command: GeminiCommand
    matcher: str | None
    sequential: bool
    origin: str


def _group_hooks(
    layer: Layer, event_name: str, group: Any, where: str, discovery: Discovery
) -> list[Declared]:
    file = str(layer.path)
    if not isinstance(group, Mapping) or not isinstance(group.get("hooks"), list):
        discovery.diagnostics.append(Diagnostic(file, where, "expected {matcher?, hooks: [...]}"))
        return []
    matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
    sequential = group.get("sequential") is True
    found = []
    for index, entry in enumerate(group["hooks"]):
        at = f"{where}.hooks[{index}]"
        command = _command(entry, event_name, f"{file}: {at}", discovery)
        if command is not None:
            found.append(Declared(command, matcher, sequential, f"{file}:{at}"))
    return found


def _command(entry: Any, event_name: str, where: str, discovery: Discovery) -> GeminiCommand | None:
    file, _, at = where.partition(": ")
    if not isinstance(entry, Mapping) or entry.get("type") != "command":
        discovery.diagnostics.append(
            Diagnostic(file, f"{at}.type", "only `command` hooks run from settings files")
        )
        return None
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        discovery.diagnostics.append(Diagnostic(file, f"{at}.command", "missing command"))
        return None
    timeout = entry.get("timeout", DEFAULT_TIMEOUT_MS)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        discovery.diagnostics.append(
            Diagnostic(file, f"{at}.timeout", "expected milliseconds > 0; using 60000")
        )
        timeout = DEFAULT_TIMEOUT_MS
    env = entry.get("env")
    return GeminiCommand(
        command=command,
        event_name=event_name,
        name=entry["name"] if isinstance(entry.get("name"), str) and entry["name"] else None,
        timeout_ms=int(timeout),
        description=entry.get("description") if isinstance(entry.get("description"), str) else None,
        env={str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {},
    )


def _declared(
    layer: Layer,
    hook: Declared,
    read: Sequence[tuple[Layer, Mapping[str, Any]]],
    refused: bool,
) -> DiscoveredHook:
    command = hook.command
    binder = functools.partial(_bind, layer, hook, tuple(read), refused)
    return DiscoveredHook(
        name=command.label,
        dialect=DIALECT,
        source=layer.source,
        origin=hook.origin,
        trust_root=layer.trust_root,
        binder=binder,
        events=(EVENTS[command.event_name],),
        own_events=(command.event_name,),
        matcher=hook.matcher,
        mode="chain" if hook.sequential else "parallel",
        timeout=command.timeout_ms / 1000,
        # No note: a folder Gemini refuses is said once, by the file's warning or, where
        # hookwright trusts the folder, by the hook's off reason (`_bind`); its own event name
        # is `own_events`, shown as every system's.
        command=command.command,
    )


def _bind(
    layer: Layer,
    hook: Declared,
    read: Sequence[tuple[Layer, Mapping[str, Any]]],
    refused: bool,
    policy: TrustPolicy,
) -> LoadResult:
    command = hook.command
    state = switches(read, policy)
    if refused:
        return LoadResult(off_because=_untrusted_warning(layer.path, layer.project).message)
    if not state.enabled:
        return LoadResult(off_because="hooksConfig.enabled is false in Gemini CLI's settings")
    if command.label in state.disabled:
        why = f"{command.label!r} is in hooksConfig.disabled of Gemini CLI's settings"
        return LoadResult(off_because=why)
    spec = HookSpec(
        name=command.label,
        event=EVENTS[command.event_name],
        handler=command_handler(command, str(layer.project)),
        matcher=matcher_for(command.event_name, hook.matcher),
        source=layer.source,
        dialect=DIALECT,
        mode="chain" if hook.sequential else "parallel",
        timeout=command.timeout_ms / 1000,
        origin=hook.origin,
        description=command.description,
        dedup_key=(DIALECT, command.event_name, command.name or "", command.command),
        dialect_data=GeminiData(command.event_name),
    )
    return LoadResult(specs=[spec])


register_source(DIALECT, discover)
