"""The layers Codex CLI reads hooks from, in Codex's order, and the switches they set.

Measured against Codex CLI 0.171.0 (``/etc/codex`` is the platform's managed folder of
`managed_paths`, ``$HOOKWRIGHT_CODEX_MANAGED_DIR`` when set). Codex lists, and runs, hooks in
this order:

1. managed requirements: ``[hooks]`` of ``/etc/codex/requirements.toml``, then of the
   workspace's cloud-managed requirements Codex keeps in
   ``$CODEX_HOME/cloud-config-bundle-cache.json`` (`cloud`), then of the macOS managed
   preference ``requirements_toml_base64`` (`requirements` composes them; named by a
   ``managed_dir``, on Windows ``windows_managed_dir``, when one is set; no ``hooks.json`` is
   read there);
2. system (managed): ``/etc/codex/hooks.json`` and ``[hooks]`` of ``/etc/codex/config.toml``,
   then ``[hooks]`` of the workspace's cloud-managed ``config.toml`` fragments (`cloud`);
3. user: ``$CODEX_HOME`` (else ``~/.codex``) ``hooks.json`` and ``config.toml``;
4. project: ``.codex/hooks.json`` and ``config.toml`` of every folder from the project root
   (the nearest folder at or above the project holding one of ``project_root_markers``,
   default ``.git``; the project alone when there is none) down to the project, the root
   first (`root`); in a linked git worktree, the hooks of the main checkout's folders
   (`worktree`);
5. legacy managed config (managed): ``[hooks]`` of ``/etc/codex/managed_config.toml`` (not
   on Windows), then of the macOS managed preference ``config_toml_base64`` (`preferences`);
6. plugins enabled in the config (``[plugins."<name>@<marketplace>"] enabled = true``, the
   last layer's word; a project's once it is trusted):
   ``hooks/hooks.json`` of the plugin's active version under
   ``$CODEX_HOME/plugins/cache/<marketplace>/<name>/``, ``${PLUGIN_ROOT}`` and
   ``${PLUGIN_DATA}`` (and their ``CLAUDE_`` aliases) replaced in the command and set in its
   environment.

Managed hooks need no review and ``[hooks.state] enabled = false`` does not turn them off.
``allow_managed_hooks_only = true`` in ``requirements.toml`` keeps every other hook from
running. ``[features] hooks`` (alias ``codex_hooks``) is read system < user < project <
legacy managed config < the managed preference, and ``[features] hooks`` in the requirements
pins it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.dialects.codex.cloud import CACHE_FILE, applies, cloud_layers
from hookwright.dialects.codex.config import (
    CodexHook,
    Layer,
    LayerFiles,
    codex_home,
    layer_hooks,
    read_toml,
)
from hookwright.dialects.codex.marketplaces import (
    Configured,
    MarketplacePolicy,
    compose_policy,
    configured_marketplaces,
)
from hookwright.dialects.codex.preferences import (
    CONFIG_KEY,
    CONFIG_SOURCE,
    REQUIREMENTS_KEY,
    REQUIREMENTS_SOURCE,
    Preference,
    read_preferences,
)
from hookwright.dialects.codex.requirements import (
    HOOKS_FEATURE,
    PLUGINS_FEATURE,
    REMOTE_PLUGIN_FEATURE,
    RequirementLayer,
    compose,
    feature_value,
)
from hookwright.dialects.codex.root import ROOT_SEARCH_LIMIT, project_folders, root_markers
from hookwright.dialects.codex.signin import (
    AUTH_FILE,
    SignIn,
    keyring_answers,
    read_sign_in,
    stored_sign_in,
)
from hookwright.dialects.codex.worktree import LinkedWorktree, linked_worktree
from hookwright.dialects.managed_paths import (
    CODEX_MANAGED_DIR_ENV,
    MANAGED,
    Platform,
    codex_managed_dir,
    codex_managed_preferences,
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
    #: ``[features] plugins`` of each config layer, and as the requirements pin it.
    plugins_feature: tuple[Setting, ...] = ()
    plugins_pinned: Setting | None = None
    #: ``[features] remote_plugin`` of each config layer, and as the requirements pin it.
    remote_plugin_feature: tuple[Setting, ...] = ()
    remote_plugin_pinned: Setting | None = None
    #: How the user is signed in to Codex (``$CODEX_HOME/auth.json``).
    sign_in: SignIn = field(default_factory=lambda: SignIn(False, Path(AUTH_FILE)))
    #: The requirements' ``[marketplaces]`` restriction, and each layer's configured ones.
    marketplaces: MarketplacePolicy = field(default_factory=MarketplacePolicy)
    configured: tuple[Configured, ...] = ()
    #: ``$CODEX_HOME`` and the user's home: where Codex keeps its own marketplaces.
    homes: tuple[Path, Path] = (Path(), Path())
    #: When the cached cloud-managed config read expires (Unix time; None: none read).
    valid_until: float | None = None


def read_layers(
    ctx: LoadContext,
    diagnostics: list[Diagnostic],
    managed: Path | None = None,
    platform: Platform | None = None,
    preferences: Sequence[Path] | None = None,
) -> CodexLayers:
    """`managed`: the folder that stands for ``/etc/codex`` (default `managed_dir`);
    `platform`: whose row of `managed_paths.MANAGED` applies (default this machine's);
    `preferences`: the managed preference files (default the platform's)."""
    platform = platform or platform_of()
    managed = managed or Path(codex_managed_dir(platform))
    if preferences is None:
        preferences = [Path(file) for file in codex_managed_preferences(platform)]
    user = codex_home(ctx.home)
    forced = read_preferences(preferences, diagnostics)
    requirements = managed / "requirements.toml"
    ordered = _config_layers(ctx, managed, user, platform, diagnostics)
    user_layer = ordered[1]
    sign_in, stored = stored_sign_in(
        [(files.file_read, files.config) for files in ordered[:2]],
        read_sign_in(user, diagnostics),
        keyring_answers(os.environ, platform),
    )
    diagnostics.extend([stored] if stored is not None else [])
    cloud = cloud_layers(user, sign_in, requirements, diagnostics)
    requirement_layers, hook_order = _requirement_layers(
        requirements, cloud.requirements, forced, diagnostics
    )
    dir_key = MANAGED[platform].codex_hooks_dir_key
    required = compose(requirement_layers, dir_key, diagnostics, hook_order)
    ordered[1:1] = cloud.config  # the workspace's config: above the system's, below the user's
    if CONFIG_KEY in forced:
        ordered.append(_preference_layer(forced[CONFIG_KEY]))
    hooks = list(required.hooks)
    fragments = {id(files) for files in cloud.config}
    for files in ordered:
        found = layer_hooks(files, diagnostics)
        part = files.key if id(files) in fragments else ""
        hooks += [replace(hook, part=part) for hook in found] if part else found
    hooks += plugin_hooks(user, ordered, diagnostics)
    cache = [user / CACHE_FILE] if applies(sign_in) else []
    read = [requirements, *cache, *preferences, *_layer_files(ordered)]
    return CodexLayers(
        hooks=hooks,
        files=_files_read(list(dict.fromkeys(read))),
        managed_only=required.managed_only,
        feature=tuple(_feature_settings(ordered, HOOKS_FEATURE)),
        pinned=_pinned_feature(required.pinned),
        user_config=user_layer.config,
        plugins=tuple(plugin_ids(ordered)),
        plugins_feature=tuple(_feature_settings(ordered, PLUGINS_FEATURE)),
        plugins_pinned=_pinned_feature(required.plugins_pinned),
        remote_plugin_feature=tuple(_feature_settings(ordered, REMOTE_PLUGIN_FEATURE)),
        remote_plugin_pinned=_pinned_feature(required.remote_plugin_pinned),
        sign_in=sign_in,
        marketplaces=compose_policy(requirement_layers, diagnostics),
        configured=tuple(configured_marketplaces(ordered)),
        homes=(user, ctx.home),
        valid_until=cloud.expires,
    )


def _config_layers(
    ctx: LoadContext, managed: Path, user: Path, platform: Platform, diagnostics: list[Diagnostic]
) -> list[LayerFiles]:
    """The config layers held in files: system, user, the project's folders, legacy."""
    ordered = [
        LayerFiles("managed", managed, read_toml(managed / "config.toml", diagnostics, True)),
        LayerFiles("user", user, read_toml(user / "config.toml", diagnostics)),
    ]
    markers = root_markers(ordered, diagnostics)
    linked = linked_worktree(ctx.project_dir, ROOT_SEARCH_LIMIT)
    for folder in project_folders(ctx.project_dir, diagnostics, markers):
        if folder.resolve() != user.resolve():
            ordered.append(_project_layer(folder, linked, diagnostics))
    legacy_name = MANAGED[platform].codex_legacy
    if legacy_name is not None:
        legacy = managed / legacy_name
        table = read_toml(legacy, diagnostics, required=True)
        ordered.append(LayerFiles("managed", None, table, legacy))
    return ordered


def _project_layer(
    codex: Path, linked: LinkedWorktree | None, diagnostics: list[Diagnostic]
) -> LayerFiles:
    """A project folder's layer; in a linked worktree, with the main checkout's hooks."""
    config = read_toml(codex / "config.toml", diagnostics)
    hooks = codex if linked is None else linked.hooks_folder(codex)
    if hooks == codex:
        return LayerFiles("project", codex, config)
    return LayerFiles("project", hooks, config, hooks / "config.toml", codex / "config.toml")


def _requirement_layers(
    path: Path,
    cloud: Sequence[RequirementLayer],
    forced: Mapping[str, Preference],
    diagnostics: list[Diagnostic],
) -> tuple[list[RequirementLayer], list[RequirementLayer]]:
    """The requirements layers lowest precedence first, and in the order their hooks run:
    ``requirements.toml``, the workspace's cloud-managed fragments (`cloud`, in the bundle's
    order), the managed preference's requirements when set. Measured on Codex CLI 0.171.0
    (cases ``cloud_requirements_*``): a fragment's word wins over the file's and the bundle's
    first fragment's over a later one's, and the fragments' hooks run first, in the bundle's
    order, then the file's; the preference's hooks follow the file's and its word wins (from
    Codex's source; Codex reads it only on macOS)."""
    table = read_toml(path, diagnostics, required=True)
    own = [] if table is None else [RequirementLayer(path, path, table)]
    preference = []
    if REQUIREMENTS_KEY in forced:
        forced_toml = forced[REQUIREMENTS_KEY]
        preference.append(
            RequirementLayer(
                forced_toml.file, REQUIREMENTS_SOURCE, forced_toml.toml, REQUIREMENTS_KEY
            )
        )
    return [*own, *reversed(cloud), *preference], [*cloud, *own, *preference]


def _preference_layer(preference: Preference) -> LayerFiles:
    """The managed preference's config: a managed layer above every other."""
    return LayerFiles(
        "managed", None, preference.toml, CONFIG_SOURCE, preference.file, preference.key
    )


def _feature_settings(ordered: list[LayerFiles], keys: tuple[str, ...]) -> list[Setting]:
    """The feature of `keys` in Codex's precedence: system, user, project, the legacy
    managed config, the managed preference."""
    found = []
    for files in ordered:
        value = feature_value(files.config, keys)
        if value is not None:
            found.append(Setting(files.layer, files.file_read, value))
    return found


def _pinned_feature(pinned: tuple[Path, bool] | None) -> Setting | None:
    if pinned is None:
        return None
    file, value = pinned
    return Setting("managed", file, value)


def _layer_files(ordered: list[LayerFiles]) -> list[Path]:
    paths = []
    for files in ordered:
        if files.folder is not None:
            paths.append(files.folder / "hooks.json")
        paths.append(files.file_read)
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
                setting = Setting(files.layer, files.file_read, bool(entry["enabled"]))
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
