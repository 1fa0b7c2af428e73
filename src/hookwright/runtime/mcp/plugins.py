"""The MCP servers of the Claude Code plugins a session enables: a plugin's `.mcp.json` (its
`mcpServers`, or the servers at its top level) and the `mcpServers` of its
`.claude-plugin/plugin.json` (an object, a path relative to the plugin, or a list of those).
A plugin counts when its settings enable it (`enabledPlugins`, from trusted settings files) and
its folder is trusted where it lies in the project, as for its hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookwright.config.loading import LoadContext
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.claude_code.sources import (
    Plugin,
    find_plugins,
    read_settings,
    resolve_policy,
    trusted_files,
)
from hookwright.runtime.mcp.config import PluginServers

_PROJECT_FILE = ".mcp.json"


def plugin_servers(project_dir: Path, home: Path, trust: TrustPolicy) -> list[PluginServers]:
    ctx = LoadContext(project_dir, home)
    files, _ = read_settings(ctx)
    policy, _ = resolve_policy(trusted_files(files, trust, []))
    plugins, _ = find_plugins(ctx, files)
    found: list[PluginServers] = []
    for plugin in plugins:
        if trust.trusts(plugin.trust_root) and policy.plugin_enabled(plugin):
            found += _declared(plugin)
    return found


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _entry(plugin: Plugin, file: Path, data: Any) -> PluginServers:
    return PluginServers(plugin.name, plugin.root, plugin.data_dir, file, data)


def _from_file(plugin: Plugin, path: Path) -> list[PluginServers]:
    data = _read(path)
    if isinstance(data, dict) and isinstance(data.get("mcpServers"), dict):
        data = data["mcpServers"]
    return [_entry(plugin, path, data)] if data is not None else []


def _declared(plugin: Plugin) -> list[PluginServers]:
    found: list[PluginServers] = []
    default = plugin.root / _PROJECT_FILE
    if default.is_file():
        found += _from_file(plugin, default)
    manifest = plugin.root / ".claude-plugin" / "plugin.json"
    data = _read(manifest) if manifest.is_file() else None
    declared = data.get("mcpServers") if isinstance(data, dict) else None
    items = declared if isinstance(declared, list) else [declared]
    for item in items:
        if isinstance(item, dict):
            found.append(_entry(plugin, manifest, item))
        elif isinstance(item, str) and (plugin.root / item).resolve() != default.resolve():
            found += _from_file(plugin, plugin.root / item)
    return found
