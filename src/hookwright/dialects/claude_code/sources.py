"""Where Claude Code hooks come from, and the policy switches that govern them (spec §1.2).

Settings files, all merged (never overridden), with their HookSpec source:

* managed: ``managed-settings.json`` then ``managed-settings.d/*.json`` (sorted) in
  ``/etc/claude-code``, or in ``$HOOKWRIGHT_CLAUDE_MANAGED_DIR`` when set;
* user: ``<home>/.claude/settings.json``;
* project: ``<project>/.claude/settings.json``;
* local: ``<project>/.claude/settings.local.json``;
* flag (source ``project``): each ``--config FILE`` that is Claude Code settings JSON (Claude
  Code's ``--settings``).

Plugins, each with ``hooks/hooks.json`` and/or a ``.claude-plugin/plugin.json`` manifest
naming hooks files or inline hooks:

* installed by Claude Code (see `installed`): on only when ``enabledPlugins`` maps its id
  ``name@marketplace`` to true (merged local > project > user, as Claude Code does); data
  directory ``<home>/.claude/plugins/data/<id with @ and other unsafe characters as ->``. An
  enabled id that cannot load (not installed, folder gone, marketplace unknown) is a warning
  naming the settings file that enables it;
* plugin folders, hookwright's own convention: every directory directly under
  ``<home>/.claude/plugins/`` or ``<project>/.claude/plugins/``; on unless ``enabledPlugins``
  sets its ``name`` or ``name@marketplace`` to anything but true; data directory
  ``<home>/.claude/plugins/data/<name>``.

A plugin whose folder lies in the project runs only when that folder is trusted, wherever its
manifest points.

Policy, resolved at bind time from the files whose folder is trusted (a project's or local
settings file in a folder that is not trusted changes nothing: see `trusted_files`), with
settings precedence managed > flag > local > project > user:

* ``disableAllHooks``: the highest-precedence file that sets it decides; it turns off managed
  hooks only when that file is a managed one;
* ``allowManagedHooksOnly`` (read from managed files only): only managed hooks load;
* ``allowedHttpHookUrls`` and ``httpHookAllowedEnvVars``: lists concatenated across files;
  unset everywhere means no restriction;
* ``hookwrightDedupAcrossSources`` (hookwright's own, default true): see `loader`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.config.safeparse import ParseError, load_json_text, read_text, resolve_path
from hookwright.config.trust import NOT_APPLIED, TrustPolicy
from hookwright.dialects.claude_code.http import HttpPolicy
from hookwright.dialects.claude_code.installed import (
    Installed,
    data_dir,
    installed_plugins,
    plugins_dir,
    shown,
)
from hookwright.dialects.claude_code.tables import EVENT_NAMES

MANAGED_DIR_ENV = "HOOKWRIGHT_CLAUDE_MANAGED_DIR"
DEFAULT_MANAGED_DIR = Path("/etc/claude-code")

SettingsKind = Literal["managed", "flag", "local", "project", "user"]
#: Highest precedence first.
PRECEDENCE: tuple[SettingsKind, ...] = ("managed", "flag", "local", "project", "user")
SPEC_SOURCE: dict[SettingsKind, str] = {
    "managed": "managed",
    "flag": "project",
    "local": "local",
    "project": "project",
    "user": "user",
}
DEDUP_SETTING = "hookwrightDedupAcrossSources"
#: The switches that govern hooks other than the file's own.
POLICY_KEYS = (
    "disableAllHooks",
    "allowManagedHooksOnly",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
    "enabledPlugins",
    DEDUP_SETTING,
)


@dataclass(frozen=True, slots=True)
class SettingsFile:
    path: Path
    kind: SettingsKind
    data: dict[str, Any]
    #: The project folder for project and local settings; None: the file needs no trust.
    trust_root: Path | None = None


HooksBlock = tuple[Path, Any, str]


def hooks_block(path: Path, data: Any, diagnostics: list[Diagnostic]) -> HooksBlock | None:
    """The `hooks` object of a hooks file (``{"description"?, "hooks": {...}}``)."""
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        diagnostics.append(
            Diagnostic(str(path), "hooks", "expected an object with a 'hooks' object")
        )
        return None
    return path, data["hooks"], "hooks"


@dataclass(frozen=True, slots=True)
class Plugin:
    root: Path
    name: str
    data_dir: Path
    #: (file, hooks object, field path of that object) for each place the plugin declares hooks.
    hooks: tuple[HooksBlock, ...]
    #: The plugin's own folder when it lies in the project (its hooks run only once that is
    #: trusted, wherever its manifest points); None for the user's plugins.
    trust_root: Path | None
    #: ``name@marketplace`` of a plugin Claude Code installed; None for a plugin folder.
    plugin_id: str | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    disable_all: bool = False
    disable_managed: bool = False
    managed_only: bool = False
    allowed_http_urls: tuple[str, ...] | None = None
    #: The files that set ``allowedHttpHookUrls`` (named when a URL is refused).
    allowed_http_urls_from: tuple[str, ...] = ()
    http_allowed_env_vars: frozenset[str] | None = None
    dedup_across_sources: bool = True
    #: ``enabledPlugins`` merged by precedence: key -> whether its value is exactly true.
    enabled_plugins: dict[str, bool] = field(default_factory=dict)

    def allows(self, source: str) -> bool:
        """Whether hooks from `source` (a HookSpec source label) may load."""
        if source == "managed":
            return not self.disable_managed
        return not (self.disable_all or self.managed_only)

    @property
    def http(self) -> HttpPolicy:
        return HttpPolicy(
            self.allowed_http_urls, self.http_allowed_env_vars, self.allowed_http_urls_from
        )

    def plugin_enabled(self, plugin: Plugin | None) -> bool:
        """Whether `enabledPlugins` lets `plugin` load (None: not a plugin's hook). An installed
        plugin needs its id set to true; a plugin folder is on unless its name is set off."""
        if plugin is None:
            return True
        if plugin.plugin_id is not None:
            return self.enabled_plugins.get(plugin.plugin_id, False)
        for key, enabled in self.enabled_plugins.items():
            if key == plugin.name or key.split("@", 1)[0] == plugin.name:
                return enabled
        return True


def managed_dir() -> Path:
    override = os.environ.get(MANAGED_DIR_ENV)
    return Path(override) if override else DEFAULT_MANAGED_DIR


def read_json(path: Path) -> tuple[Any, Diagnostic | None]:
    """The JSON value of `path` (an empty file is an empty object), or one diagnostic."""
    try:
        text = read_text(path)
        return (load_json_text(text) if text.strip() else {}), None
    except ParseError as exc:
        return None, Diagnostic(str(path), "", exc.reason)


def is_claude_settings(data: Any) -> bool:
    """Whether a `--config` JSON file is Claude Code settings: a top-level `hooks` object keyed
    by Claude Code event names (PicoClaw's `hooks` object has other keys)."""
    if not isinstance(data, dict):
        return False
    hooks = data.get("hooks")
    return isinstance(hooks, dict) and any(name in EVENT_NAMES for name in hooks)


def _candidates(ctx: LoadContext) -> list[tuple[Path, SettingsKind]]:
    managed = managed_dir()
    found: list[tuple[Path, SettingsKind]] = [(managed / "managed-settings.json", "managed")]
    dropins = managed / "managed-settings.d"
    if dropins.is_dir():
        found += [(p, "managed") for p in sorted(dropins.glob("*.json")) if p.is_file()]
    found += [
        (ctx.home / ".claude" / "settings.json", "user"),
        (ctx.project_dir / ".claude" / "settings.json", "project"),
        (ctx.project_dir / ".claude" / "settings.local.json", "local"),
    ]
    return found


def read_settings(ctx: LoadContext) -> tuple[list[SettingsFile], list[Diagnostic]]:
    files: list[SettingsFile] = []
    diagnostics: list[Diagnostic] = []
    seen: set[Path] = set()

    def add(path: Path, kind: SettingsKind, data: Any) -> None:
        if not isinstance(data, dict):
            diagnostics.append(Diagnostic(str(path), "", "expected a JSON object"))
            return
        root = ctx.project_dir if kind in ("project", "local") else None
        files.append(SettingsFile(path, kind, data, root))

    for path, kind in _candidates(ctx):
        # A name that is there but cannot be read (a dangling link, a folder, no permission)
        # is a settings file whose hooks would silently be lost: read it for its error.
        if not (path.exists() or path.is_symlink()) or path.resolve() in seen:
            continue
        seen.add(path.resolve())
        data, problem = read_json(path)
        if problem is not None:
            diagnostics.append(problem)
            continue
        add(path, kind, data)
    for raw in ctx.config_files:
        path = Path(raw)
        if path.suffix != ".json" or not path.is_file() or path.resolve() in seen:
            continue
        seen.add(path.resolve())
        data, problem = read_json(path)
        if problem is not None:
            diagnostics.append(problem)
        elif is_claude_settings(data):
            add(path, "flag", data)
    return files, diagnostics


def by_precedence(files: Iterable[SettingsFile]) -> list[SettingsFile]:
    """Highest precedence first; within a kind the later file (a drop-in) first."""
    ordered = list(files)
    ranked = sorted(enumerate(ordered), key=lambda item: (PRECEDENCE.index(item[1].kind), -item[0]))
    return [f for _, f in ranked]


def _scalar(
    files: list[SettingsFile], key: str, diagnostics: list[Diagnostic]
) -> tuple[bool, SettingsFile] | None:
    for settings in by_precedence(files):
        if key not in settings.data:
            continue
        value = settings.data[key]
        if not isinstance(value, bool):
            diagnostics.append(
                Diagnostic(str(settings.path), key, "expected true or false; ignored", "warning")
            )
            continue
        return value, settings
    return None


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _setting_files(files: list[SettingsFile], key: str) -> tuple[str, ...]:
    """The files that set `key` to a list of strings (the ones `_concat` joins)."""
    return tuple(str(f.path) for f in files if key in f.data and _string_list(f.data[key]))


def _concat(files: list[SettingsFile], key: str, diagnostics: list[Diagnostic]) -> list[str] | None:
    values: list[str] | None = None
    for settings in files:
        if key not in settings.data:
            continue
        value = settings.data[key]
        if not _string_list(value):
            diagnostics.append(
                Diagnostic(str(settings.path), key, "expected a list of strings; ignored")
            )
            continue
        values = [*(values or []), *value]
    return values


def enabled_plugins(
    files: list[SettingsFile], diagnostics: list[Diagnostic]
) -> dict[str, tuple[bool, SettingsFile]]:
    """``enabledPlugins`` merged key by key, the higher precedence file winning: each key ->
    (its value is exactly true, the file that decided)."""
    merged: dict[str, tuple[bool, SettingsFile]] = {}
    for settings in reversed(by_precedence(files)):
        value = settings.data.get("enabledPlugins")
        if value is None:
            continue
        if not isinstance(value, dict):
            diagnostics.append(
                Diagnostic(str(settings.path), "enabledPlugins", "expected an object; ignored")
            )
            continue
        merged.update({str(k): (v is True, settings) for k, v in value.items()})
    return merged


def trusted_files(
    files: list[SettingsFile], trust: TrustPolicy, diagnostics: list[Diagnostic]
) -> list[SettingsFile]:
    """The files whose folder `trust` trusts; a warning per switch an untrusted file sets.
    Claude Code ignores a folder's settings until the folder is trusted."""
    kept: list[SettingsFile] = []
    for settings in files:
        if trust.trusts(settings.trust_root):
            kept.append(settings)
            continue
        diagnostics += [
            Diagnostic(str(settings.path), key, NOT_APPLIED, "warning")
            for key in POLICY_KEYS
            if key in settings.data
        ]
    return kept


def resolve_policy(files: list[SettingsFile]) -> tuple[Policy, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    disable = _scalar(files, "disableAllHooks", diagnostics)
    managed = [f for f in files if f.kind == "managed"]
    for settings in files:
        if settings.kind != "managed" and "allowManagedHooksOnly" in settings.data:
            diagnostics.append(
                Diagnostic(
                    str(settings.path),
                    "allowManagedHooksOnly",
                    "only honoured in managed settings; ignored",
                    "warning",
                )
            )
    managed_only = _scalar(managed, "allowManagedHooksOnly", diagnostics)
    dedup = _scalar(files, DEDUP_SETTING, diagnostics)
    urls = _concat(files, "allowedHttpHookUrls", diagnostics)
    env_vars = _concat(files, "httpHookAllowedEnvVars", diagnostics)
    disabled = disable is not None and disable[0]
    policy = Policy(
        disable_all=disabled,
        disable_managed=disabled and disable is not None and disable[1].kind == "managed",
        managed_only=managed_only is not None and managed_only[0],
        allowed_http_urls=tuple(urls) if urls is not None else None,
        allowed_http_urls_from=_setting_files(files, "allowedHttpHookUrls"),
        http_allowed_env_vars=frozenset(env_vars) if env_vars is not None else None,
        dedup_across_sources=True if dedup is None else dedup[0],
        enabled_plugins={k: on for k, (on, _) in enabled_plugins(files, diagnostics).items()},
    )
    return policy, diagnostics


def _manifest_hooks(
    root: Path, manifest: Path, diagnostics: list[Diagnostic]
) -> tuple[str | None, list[HooksBlock]]:
    data, problem = read_json(manifest)
    if problem is not None:
        diagnostics.append(problem)
        return None, []
    if not isinstance(data, dict):
        diagnostics.append(Diagnostic(str(manifest), "", "expected a JSON object"))
        return None, []
    name = data.get("name") if isinstance(data.get("name"), str) else None
    declared = data.get("hooks")
    found: list[HooksBlock] = []
    if isinstance(declared, dict):
        if isinstance(declared.get("hooks"), dict):
            found.append((manifest, declared["hooks"], "hooks.hooks"))
        else:
            found.append((manifest, declared, "hooks"))
    elif declared is not None:
        paths = [declared] if isinstance(declared, str) else declared
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            diagnostics.append(
                Diagnostic(str(manifest), "hooks", "expected a path, a list of paths or an object")
            )
            return name, []
        default = root / "hooks" / "hooks.json"
        with contextlib.suppress(ParseError):  # a broken default is reported when it is read
            default = resolve_path(default)
        for index, rel in enumerate(paths):
            field = f"hooks[{index}]" if isinstance(declared, list) else "hooks"
            try:
                path = resolve_path(root / rel)
            except ParseError as exc:
                diagnostics.append(Diagnostic(str(manifest), field, exc.reason))
                continue
            if path == default:
                diagnostics.append(
                    Diagnostic(
                        str(manifest),
                        field,
                        "Duplicate hooks file detected: hooks/hooks.json is loaded by default",
                    )
                )
                continue
            data_file, problem = read_json(path)
            if problem is not None:
                diagnostics.append(problem)
            elif (block := hooks_block(path, data_file, diagnostics)) is not None:
                found.append(block)
    return name, found


def _plugin(
    root: Path,
    home: Path,
    trust_root: Path | None,
    diagnostics: list[Diagnostic],
    plugin_id: str | None = None,
) -> Plugin | None:
    """The plugin in `root` if it declares hooks or MCP servers (`plugin_id`: installed under
    that id)."""
    default = root / "hooks" / "hooks.json"
    manifest = root / ".claude-plugin" / "plugin.json"
    if not default.is_file() and not manifest.is_file() and not (root / ".mcp.json").is_file():
        return None
    name: str | None = None
    hooks: list[HooksBlock] = []
    if manifest.is_file():
        name, hooks = _manifest_hooks(root, manifest, diagnostics)
    if default.is_file():
        data_file, problem = read_json(default)
        if problem is not None:
            diagnostics.append(problem)
        elif (block := hooks_block(default, data_file, diagnostics)) is not None:
            hooks.insert(0, block)
    name = name or (plugin_id.partition("@")[0] if plugin_id else root.name)
    return Plugin(
        root=root,
        name=name,
        data_dir=data_dir(home, plugin_id) if plugin_id else plugins_dir(home) / "data" / name,
        hooks=tuple(hooks),
        trust_root=trust_root,
        plugin_id=plugin_id,
    )


#: Claude Code's own folders under ``<home>/.claude/plugins/``, never plugin folders.
CLAUDE_PLUGIN_FOLDERS = frozenset({"cache", "data", "marketplaces"})


def _in_project(root: Path, project_dir: Path) -> Path | None:
    """`root` when it lies in the project (then it needs trust), else None."""
    try:
        resolved, project = resolve_path(root), resolve_path(project_dir)
    except ParseError:
        return root
    return root if resolved == project or project in resolved.parents else None


def _folders(ctx: LoadContext) -> list[tuple[Path, Path | None]]:
    """Plugin folders and their trust roots: the home's (none) and the project's (their own)."""
    found: list[tuple[Path, Path | None]] = []
    bases = ((plugins_dir(ctx.home), False), (ctx.project_dir / ".claude" / "plugins", True))
    for base, in_project in bases:
        if not base.is_dir():
            continue
        for root in sorted(p for p in base.iterdir() if p.is_dir()):
            if in_project or root.name not in CLAUDE_PLUGIN_FOLDERS:
                found.append((root, root if in_project else None))
    return found


def find_plugins(
    ctx: LoadContext, files: list[SettingsFile]
) -> tuple[list[Plugin], list[Diagnostic]]:
    """Every plugin with hooks, installed ones first; `enabledPlugins` is applied when binding.
    An id `files` enable that cannot load is a warning."""
    plugins: list[Plugin] = []
    diagnostics: list[Diagnostic] = []
    seen: set[Path] = set()
    installed = installed_plugins(ctx.home, ctx.project_dir, diagnostics)
    candidates: list[tuple[Path, Path | None, str | None]] = [
        (item.root, _in_project(item.root, ctx.project_dir), item.plugin_id)
        for item in installed.values()
        if item.root is not None
    ]
    folders = _folders(ctx)
    candidates += [(root, trust_root, None) for root, trust_root in folders]
    for root, trust_root, plugin_id in candidates:
        if root.resolve() in seen:
            continue
        seen.add(root.resolve())
        plugin = _plugin(root, ctx.home, trust_root, diagnostics, plugin_id)
        if plugin is not None:
            plugins.append(plugin)
    diagnostics += _missing(files, installed, {root.name for root, _ in folders})
    return plugins, diagnostics


def _missing(
    files: list[SettingsFile], installed: dict[str, Installed], folders: set[str]
) -> list[Diagnostic]:
    """A warning per plugin id set to true that cannot load, naming the deciding file."""
    warnings: list[Diagnostic] = []
    for key, (on, settings) in enabled_plugins(files, []).items():
        name, at, _ = key.partition("@")
        item = installed.get(key)
        if not on or not at or name in folders or (item is not None and item.root is not None):
            continue
        why = item.problem if item is not None else "it is not installed for this project"
        warnings.append(
            Diagnostic(
                str(settings.path),
                f"enabledPlugins.{shown(key)}",
                f"plugin {shown(key)} is enabled but {why}; its hooks do not run",
                "warning",
            )
        )
    return warnings
