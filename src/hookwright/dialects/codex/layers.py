"""The layers Codex CLI reads hooks from, in Codex's order, and the switches they set.

Measured against Codex CLI 0.171.0 (``/etc/codex`` is the platform's managed folder of
`managed_paths`, ``$HOOKWRIGHT_CODEX_MANAGED_DIR`` when set). Codex lists, and runs, hooks in
this order:

1. managed requirements: ``[hooks]`` of ``/etc/codex/requirements.toml`` (named by its
   ``managed_dir``, on Windows ``windows_managed_dir``, when one is set; no ``hooks.json`` is
   read there);
2. system (managed): ``/etc/codex/hooks.json`` and ``[hooks]`` of ``/etc/codex/config.toml``;
3. user: ``$CODEX_HOME`` (else ``~/.codex``) ``hooks.json`` and ``config.toml``;
4. project: ``.codex/hooks.json`` and ``config.toml`` of every folder from the project root
   (the nearest folder at or above the project holding one of ``project_root_markers``,
   default ``.git``; the project alone when there is none) down to the project, the root
   first (`root`);
5. legacy managed config (managed): ``[hooks]`` of ``/etc/codex/managed_config.toml`` (not
   on Windows);
6. plugins enabled in the config (``[plugins."<name>@<marketplace>"] enabled = true``, the
   last layer's word; a project's once it is trusted):
   ``hooks/hooks.json`` of the plugin's active version under
   ``$CODEX_HOME/plugins/cache/<marketplace>/<name>/``, ``${PLUGIN_ROOT}`` and
   ``${PLUGIN_DATA}`` (and their ``CLAUDE_`` aliases) replaced in the command and set in its
   environment.

Managed hooks need no review and ``[hooks.state] enabled = false`` does not turn them off.
``allow_managed_hooks_only = true`` in ``requirements.toml`` keeps every other hook from
running. ``[features] hooks`` (alias ``codex_hooks``) is read system < user < project <
legacy managed config, and ``[features] hooks`` in ``requirements.toml`` pins it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.dialects.codex.config import (
    CodexHook,
    Layer,
    LayerFiles,
    codex_home,
    inline_hooks,
    layer_hooks,
    parse_events,
    read_toml,
)
from hookwright.dialects.codex.root import project_folders, root_markers
from hookwright.dialects.managed_paths import (
    CODEX_MANAGED_DIR_ENV,
    MANAGED,
    ManagedPaths,
    Platform,
    codex_managed_dir,
    platform_of,
)

MANAGED_DIR_ENV: Final = CODEX_MANAGED_DIR_ENV
_PLUGIN_MANIFEST: Final = Path(".codex-plugin") / "plugin.json"
_PLUGIN_HOOKS: Final = "hooks/hooks.json"
#: A plugin's name and marketplace as folder names: nothing that leaves the cache folder.
_SEGMENT: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
#: The version folder Codex prefers when it exists (a plugin installed from a local folder).
_LOCAL_VERSION: Final = "local"
#: Whether hookwright trusts a folder (`TrustPolicy.trusts`).
FolderTrust = Callable[[Path], bool]


def managed_dir() -> Path:
    """Codex's managed folder on this machine (`managed_paths`)."""
    return Path(codex_managed_dir(platform_of()))


@dataclass(frozen=True, slots=True)
class Setting:
    """One layer's value of a boolean config key, and the file that sets it."""

    layer: Layer
    file: Path
    value: bool

    @property
    def folder(self) -> Path:
        """The folder whose trust a project setting needs: the one holding its ``.codex``."""
        return self.file.parent.parent


@dataclass(frozen=True, slots=True)
class CodexLayers:
    """Every Codex hook declared, in Codex's order, and the switches that govern them."""

    hooks: list[CodexHook] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    #: The requirements file that sets ``allow_managed_hooks_only = true``.
    managed_only: Path | None = None
    #: ``[features] hooks`` of each config layer, lowest precedence first.
    feature: tuple[Setting, ...] = ()
    #: ``[features] hooks`` of ``requirements.toml``: it wins over every layer.
    pinned: Setting | None = None
    user_config: Mapping[str, Any] | None = None
    #: ``[plugins."<id>"] enabled`` of each layer, lowest precedence first.
    plugins: tuple[tuple[str, Setting], ...] = ()


def read_layers(
    ctx: LoadContext,
    diagnostics: list[Diagnostic],
    managed: Path | None = None,
    platform: Platform | None = None,
) -> CodexLayers:
    """`managed`: the folder that stands for ``/etc/codex`` (default `managed_dir`);
    `platform`: whose row of `managed_paths.MANAGED` applies (default this machine's)."""
    platform = platform or platform_of()
    managed = managed or Path(codex_managed_dir(platform))
    row = MANAGED[platform]
    user = codex_home(ctx.home)
    requirements_path = managed / "requirements.toml"
    requirements = read_toml(requirements_path, diagnostics)
    ordered = [
        LayerFiles("managed", managed, read_toml(managed / "config.toml", diagnostics)),
        LayerFiles("user", user, read_toml(user / "config.toml", diagnostics)),
    ]
    markers = root_markers(ordered, diagnostics)
    for folder in project_folders(ctx.project_dir, diagnostics, markers):
        if folder.resolve() != user.resolve():
            ordered.append(
                LayerFiles("project", folder, read_toml(folder / "config.toml", diagnostics))
            )
    if row.codex_legacy is not None:
        legacy = managed / row.codex_legacy
        ordered.append(LayerFiles("managed", None, read_toml(legacy, diagnostics), legacy))
    hooks = _requirement_hooks(requirements, requirements_path, row, diagnostics)
    for files in ordered:
        hooks += layer_hooks(files, diagnostics)
    hooks += plugin_hooks(user, ordered, diagnostics)
    return CodexLayers(
        hooks=hooks,
        files=_files_read([requirements_path, *_layer_files(ordered)]),
        managed_only=requirements_path if _flag(requirements, "allow_managed_hooks_only") else None,
        feature=tuple(_feature_settings(ordered)),
        pinned=_pinned_feature(requirements, requirements_path),
        user_config=ordered[1].config,
        plugins=tuple(plugin_ids(ordered)),
    )


def _requirement_hooks(
    requirements: Mapping[str, Any] | None,
    path: Path,
    row: ManagedPaths,
    diagnostics: list[Diagnostic],
) -> list[CodexHook]:
    """Codex names these hooks by the folder the file sets for the platform (``managed_dir``,
    on Windows ``windows_managed_dir``), when it is absolute."""
    table = requirements.get("hooks") if requirements else None
    named = table.get(row.codex_hooks_dir_key) if isinstance(table, Mapping) else None
    source = Path(named) if isinstance(named, str) and os.path.isabs(named) else path
    hooks, problems = parse_events(inline_hooks(requirements) or None, source, "managed")
    diagnostics.extend(replace(problem, file=str(path)) for problem in problems)
    return [replace(hook, declared_in=path) if source != path else hook for hook in hooks]


def _flag(config: Mapping[str, Any] | None, key: str) -> bool:
    return config is not None and config.get(key) is True


def _feature_value(config: Mapping[str, Any] | None) -> bool | None:
    features = config.get("features") if config else None
    if not isinstance(features, Mapping):
        return None
    for key in ("hooks", "codex_hooks"):
        if isinstance(features.get(key), bool):
            return bool(features[key])
    return None


def _feature_settings(ordered: list[LayerFiles]) -> list[Setting]:
    """Codex's precedence: system, user, project, then the legacy managed config."""
    found = []
    for files in ordered:
        value = _feature_value(files.config)
        if value is not None:
            found.append(Setting(files.layer, files.toml_path, value))
    return found


def _pinned_feature(requirements: Mapping[str, Any] | None, path: Path) -> Setting | None:
    value = _feature_value(requirements)
    return None if value is None else Setting("managed", path, value)


def _layer_files(ordered: list[LayerFiles]) -> list[Path]:
    paths = []
    for files in ordered:
        if files.folder is not None:
            paths.append(files.folder / "hooks.json")
        paths.append(files.toml_path)
    return paths


def _files_read(paths: list[Path]) -> list[Path]:
    return [path for path in paths if path.is_file()]


def plugin_ids(ordered: list[LayerFiles]) -> list[tuple[str, Setting]]:
    """``[plugins."<id>"] enabled`` of each layer, lowest precedence first."""
    found: list[tuple[str, Setting]] = []
    for files in ordered:
        table = files.config.get("plugins") if files.config else None
        if not isinstance(table, Mapping):
            continue
        for plugin_id, entry in table.items():
            if isinstance(entry, Mapping) and isinstance(entry.get("enabled"), bool):
                setting = Setting(files.layer, files.toml_path, bool(entry["enabled"]))
                found.append((plugin_id, setting))
    return found


def counts(setting: Setting, trusts: FolderTrust) -> bool:
    """A project folder's setting counts once hookwright trusts that folder."""
    return setting.layer != "project" or trusts(setting.folder)


def plugin_enabled(
    settings: Sequence[tuple[str, Setting]], plugin_id: str, trusts: FolderTrust
) -> bool:
    """The last layer's word on `plugin_id` (a project folder's counts once it is trusted)."""
    counted = [
        setting.value
        for named, setting in settings
        if named == plugin_id and counts(setting, trusts)
    ]
    return bool(counted) and counted[-1]


def trusts_every_folder(folder: Path) -> bool:
    return True


def trusts_no_folder(folder: Path) -> bool:
    return False


def enabled_plugins(ordered: list[LayerFiles]) -> list[str]:
    """Plugin ids enabled with or without the project's config, in the order first named."""
    settings = plugin_ids(ordered)
    named = dict.fromkeys(plugin_id for plugin_id, _ in settings)
    return [
        plugin_id
        for plugin_id in named
        if plugin_enabled(settings, plugin_id, trusts_every_folder)
        or plugin_enabled(settings, plugin_id, trusts_no_folder)
    ]


def plugin_root(home: Path, plugin_id: str) -> Path | None:
    """The active version's folder: the plugin folder itself when it holds a manifest, else
    the ``local`` version, else the last version folder by name; None when not installed."""
    name, _, marketplace = plugin_id.partition("@")
    if not (_SEGMENT.fullmatch(name) and _SEGMENT.fullmatch(marketplace)):
        return None
    base = home / "plugins" / "cache" / marketplace / name
    if (base / _PLUGIN_MANIFEST).is_file():
        return base
    try:
        versions = sorted(
            entry.name
            for entry in os.scandir(base)
            if entry.is_dir() and _SEGMENT.fullmatch(entry.name)
        )
    except OSError:
        return None
    if not versions:
        return None
    return base / (_LOCAL_VERSION if _LOCAL_VERSION in versions else versions[-1])


def plugin_hooks(
    home: Path, ordered: list[LayerFiles], diagnostics: list[Diagnostic]
) -> list[CodexHook]:
    found: list[CodexHook] = []
    for plugin_id in enabled_plugins(ordered):
        root = plugin_root(home, plugin_id)
        if root is None:
            continue
        name, _, marketplace = plugin_id.partition("@")
        env = {
            "PLUGIN_ROOT": str(root),
            "CLAUDE_PLUGIN_ROOT": str(root),
            "PLUGIN_DATA": str(home / "plugins" / "data" / f"{name}-{marketplace}"),
        }
        env["CLAUDE_PLUGIN_DATA"] = env["PLUGIN_DATA"]
        files = LayerFiles("plugin", root / "hooks", None, root / _PLUGIN_HOOKS)
        key_source = f"{plugin_id}:{_PLUGIN_HOOKS}"
        found += [
            replace(hook, key_source=key_source, env=env, plugin=plugin_id)
            for hook in layer_hooks(files, diagnostics)
        ]
    return found
