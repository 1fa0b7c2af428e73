"""Codex's requirements layers, composed as Codex composes them: ``requirements.toml`` of the
managed folder, then the macOS managed preference ``requirements_toml_base64`` (`preferences`).

From Codex's requirements composition (``requirements_layers``): hook events are appended
layer after layer (a later layer's groups follow the earlier ones' in each event);
``managed_dir`` (on Windows ``windows_managed_dir``) names the folder the hooks are keyed by,
and two layers naming different folders stop Codex from starting (hookwright keeps the first
and reports the second in one error line); a switch (``allow_managed_hooks_only``,
``[features] hooks``) set by a layer of higher precedence wins. Hooks one layer declares are
named by that layer (the file, or the preference's synthetic path); hooks of two layers by
``/<requirements-composition>/requirements.toml``. The workspace's cloud-managed requirements
are read from the copy Codex keeps on disk (`cloud`): their fragments win over the file (the
bundle's first fragment over a later one), and their hooks run before the file's (measured).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from hookwright.config.loading import Diagnostic
from hookwright.dialects.codex.config import CodexHook, inline_hooks, parse_events

COMPOSITE_SOURCE: Final = Path("/<requirements-composition>/requirements.toml")
#: ``[features]`` keys: the hooks feature (and its old name), the plugins feature.
HOOKS_FEATURE: Final = ("hooks", "codex_hooks")
PLUGINS_FEATURE: Final = ("plugins",)
REMOTE_PLUGIN_FEATURE: Final = ("remote_plugin",)


@dataclass(frozen=True, slots=True)
class RequirementLayer:
    """One requirements layer: the file read, the path Codex names its hooks by, its
    TOML, and the key of the file it is under (a managed preference's; '' for a file)."""

    file: Path
    source: Path
    table: Mapping[str, Any]
    key: str = ""

    def where(self, path: str) -> str:
        return f"{self.key}: {path}" if self.key else path


@dataclass(frozen=True, slots=True)
class Requirements:
    """What the composed requirements decide."""

    hooks: list[CodexHook] = field(default_factory=list)
    #: The file whose ``allow_managed_hooks_only = true`` wins.
    managed_only: Path | None = None
    #: ``[features] hooks`` as pinned, and the file that pins it.
    pinned: tuple[Path, bool] | None = None
    #: ``[features] plugins`` as pinned, and the file that pins it.
    plugins_pinned: tuple[Path, bool] | None = None
    #: ``[features] remote_plugin`` as pinned, and the file that pins it.
    remote_plugin_pinned: tuple[Path, bool] | None = None


def compose(
    layers: Sequence[RequirementLayer],
    dir_key: str,
    diagnostics: list[Diagnostic],
    hook_order: Sequence[RequirementLayer] | None = None,
) -> Requirements:
    """`layers` lowest precedence first; `hook_order`: the same layers in the order their
    hooks run (None: `layers`' order); `dir_key`: the platform's ``managed_dir`` key."""
    running = list(layers if hook_order is None else hook_order)
    named = _hooks_folder(running, dir_key, diagnostics)
    contributing = [layer for layer in running if _hook_table(layer)]
    if named is not None:
        source = named
    elif len(contributing) == 1:
        source = contributing[0].source
    else:
        source = COMPOSITE_SOURCE
    hooks: list[CodexHook] = []
    for layer in running:
        hooks += _layer_hooks(layer, source, hooks, diagnostics)
    return Requirements(
        hooks=_in_event_order(hooks),
        managed_only=_managed_only(layers),
        pinned=_pinned(layers, HOOKS_FEATURE),
        plugins_pinned=_pinned(layers, PLUGINS_FEATURE),
        remote_plugin_pinned=_pinned(layers, REMOTE_PLUGIN_FEATURE),
    )


def _hook_table(layer: RequirementLayer) -> Mapping[str, Any]:
    table = layer.table.get("hooks")
    return table if isinstance(table, Mapping) else {}


def _hooks_folder(
    layers: Sequence[RequirementLayer], dir_key: str, diagnostics: list[Diagnostic]
) -> Path | None:
    """The absolute folder the first layer naming one names; a different one later is an
    error Codex stops on."""
    chosen: tuple[RequirementLayer, Any] | None = None
    for layer in layers:
        value = _hook_table(layer).get(dir_key)
        if value is None:
            continue
        if chosen is None:
            chosen = (layer, value)
        elif value != chosen[1]:
            message = (
                f"{value!r:.80} conflicts with {chosen[1]!r:.80} of {chosen[0].file}: Codex "
                "CLI does not start with both; hookwright keeps the first"
            )
            diagnostics.append(
                Diagnostic(str(layer.file), layer.where(f"hooks.{dir_key}"), message)
            )
    if chosen is None or not isinstance(chosen[1], str) or not os.path.isabs(chosen[1]):
        return None
    return Path(chosen[1])


def _layer_hooks(
    layer: RequirementLayer,
    source: Path,
    earlier: Sequence[CodexHook],
    diagnostics: list[Diagnostic],
) -> list[CodexHook]:
    """The layer's hooks named by `source`, each group placed after the earlier layers'
    groups of its event."""
    found, problems = parse_events(inline_hooks(layer.table) or None, source, "managed")
    diagnostics.extend(
        replace(problem, file=str(layer.file), path=layer.where(problem.path))
        for problem in problems
    )
    offsets: dict[str, int] = {}
    for hook in earlier:
        offsets[hook.event] = max(offsets.get(hook.event, 0), hook.group_index + 1)
    declared = layer.file if source != layer.file else None
    return [
        replace(
            hook,
            group_index=hook.group_index + offsets.get(hook.event, 0),
            declared_in=declared,
        )
        for hook in found
    ]


def _in_event_order(hooks: list[CodexHook]) -> list[CodexHook]:
    """Each event's hooks together, the events in the order first declared."""
    order = {event: place for place, event in enumerate(dict.fromkeys(h.event for h in hooks))}
    return sorted(hooks, key=lambda hook: order[hook.event])


def _managed_only(layers: Sequence[RequirementLayer]) -> Path | None:
    """The file of the last layer setting ``allow_managed_hooks_only``, when it sets true."""
    settings = [
        (layer.file, value)
        for layer in layers
        if isinstance(value := layer.table.get("allow_managed_hooks_only"), bool)
    ]
    return settings[-1][0] if settings and settings[-1][1] else None


def _pinned(layers: Sequence[RequirementLayer], keys: tuple[str, ...]) -> tuple[Path, bool] | None:
    pins = [
        (layer.file, value)
        for layer in layers
        if (value := feature_value(layer.table, keys)) is not None
    ]
    return pins[-1] if pins else None


def feature_value(
    config: Mapping[str, Any] | None, keys: tuple[str, ...] = HOOKS_FEATURE
) -> bool | None:
    """``[features] hooks`` (alias ``codex_hooks``), or the feature of `keys`, of one layer;
    None when not set."""
    features = config.get("features") if config else None
    if not isinstance(features, Mapping):
        return None
    for key in keys:
        if isinstance(features.get(key), bool):
            return bool(features[key])
    return None
