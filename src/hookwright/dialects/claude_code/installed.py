"""Plugins Claude Code installed from marketplaces, as its own files record them.

``<home>/.claude/plugins/installed_plugins.json`` maps each plugin id (``name@marketplace``) to
its installations: version 2 ``{"version": 2, "plugins": {id: [{"scope", "projectPath"?,
"installPath", "version"?, ...}]}}``; version 1 (one object per id) is read as Claude Code
reads it, the folder being ``cache/<marketplace>/<name>/<version>``. An installation counts
for a project when its scope is ``user`` or ``managed``, or its ``projectPath`` is the project
(or lies in the same git repository). Of several, the first whose folder exists is used.

The plugin's marketplace must be listed in ``known_marketplaces.json``, else Claude Code does
not load it. A plugin of a ``directory`` marketplace whose entry names a relative source
folder runs from that folder (Claude Code loads a local marketplace's plugins in place), every
other one from its install folder.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookwright.config.loading import Diagnostic
from hookwright.config.safeparse import (
    ParseError,
    is_directory,
    is_regular_file,
    read_json,
    resolve_path,
)

INSTALLED_FILE = "installed_plugins.json"
MARKETPLACES_FILE = "known_marketplaces.json"
_UNSAFE_NAME = re.compile(r"[^a-zA-Z0-9\-_]")
_UNSAFE_VERSION = re.compile(r"[^a-zA-Z0-9\-_.]")


def shown(text: str) -> str:
    """`text` for a one-line message: as is when printable, else quoted with escapes."""
    return text if text.isprintable() else repr(text)


def plugins_dir(home: Path) -> Path:
    return home / ".claude" / "plugins"


def data_dir(home: Path, plugin_id: str) -> Path:
    """``CLAUDE_PLUGIN_DATA`` of an installed plugin: ``data/<id>`` with every character other
    than letters, digits, ``-`` and ``_`` replaced by ``-`` (``fmt@tools`` -> ``fmt-tools``)."""
    return plugins_dir(home) / "data" / _UNSAFE_NAME.sub("-", plugin_id)


@dataclass(frozen=True, slots=True)
class Installed:
    """Where an installed plugin's files are, or why it cannot load (`problem`)."""

    plugin_id: str
    root: Path | None
    problem: str | None = None


def _v1_folder(home: Path, plugin_id: str, version: Any) -> Path:
    name, _, market = plugin_id.partition("@")
    safe_version = _UNSAFE_VERSION.sub("-", str(version))
    if safe_version in (".", ".."):
        safe_version = "-"
    return (
        plugins_dir(home)
        / "cache"
        / _UNSAFE_NAME.sub("-", market or "unknown")
        / _UNSAFE_NAME.sub("-", name)
        / safe_version
    )


def _git_root(path: Path) -> Path | None:
    for folder in (path, *path.parents):
        try:
            if (folder / ".git").exists():
                return folder
        except (OSError, ValueError):
            return None
    return None


def _applies(entry: Mapping[str, Any], project_dir: Path) -> bool:
    if entry.get("scope") in ("user", "managed"):
        return True
    where = entry.get("projectPath")
    if not isinstance(where, str) or not where:
        return False
    try:
        other = resolve_path(Path(where))
    except ParseError:
        return False
    if other == project_dir:
        return True
    root = _git_root(project_dir)
    return root is not None and _git_root(other) == root


def _entries(home: Path, plugin_id: str, value: Any) -> list[Mapping[str, Any]]:
    """The installations of one id in either file version (version 1: one object)."""
    if isinstance(value, list):
        return [entry for entry in value if isinstance(entry, Mapping)]
    if isinstance(value, Mapping):
        folder = _v1_folder(home, plugin_id, value.get("version"))
        return [{**value, "scope": "user", "installPath": str(folder)}]
    return []


def _install_folder(entries: list[Mapping[str, Any]], project_dir: Path) -> str | None:
    paths: list[str] = [
        entry["installPath"]
        for entry in entries
        if _applies(entry, project_dir) and isinstance(entry.get("installPath"), str)
    ]
    for path in paths:
        if is_directory(Path(path)):
            return path
    return paths[0] if paths else None


def _read_object(path: Path, diagnostics: list[Diagnostic]) -> dict[str, Any] | None:
    if not is_regular_file(path):
        return None
    try:
        data = read_json(path)
    except ParseError as exc:
        diagnostics.append(Diagnostic(str(path), "", exc.reason))
        return None
    if not isinstance(data, dict):
        diagnostics.append(Diagnostic(str(path), "", "expected a JSON object"))
        return None
    return data


def _local_source(marketplace: Mapping[str, Any], name: str) -> Path | None:
    """The folder a `directory` marketplace's entry for `name` names, if it names one."""
    source = marketplace.get("source")
    location = marketplace.get("installLocation")
    if not isinstance(source, Mapping) or source.get("source") != "directory":
        return None
    if not isinstance(location, str):
        return None
    manifest = Path(location) / ".claude-plugin" / "marketplace.json"
    try:
        listing = read_json(manifest) if is_regular_file(manifest) else None
    except ParseError:
        return None
    entries = listing.get("plugins") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name:
            relative = entry.get("source")
            if isinstance(relative, str):
                return Path(location) / relative
    return None


def installed_plugins(
    home: Path, project_dir: Path, diagnostics: list[Diagnostic]
) -> dict[str, Installed]:
    """Every plugin id installed for `project_dir`, with its folder or why it cannot load."""
    base = plugins_dir(home)
    recorded = _read_object(base / INSTALLED_FILE, diagnostics)
    plugins = recorded.get("plugins") if recorded is not None else None
    if not isinstance(plugins, dict):
        if recorded is not None:
            diagnostics.append(
                Diagnostic(str(base / INSTALLED_FILE), "plugins", "expected an object")
            )
        return {}
    markets = _read_object(base / MARKETPLACES_FILE, diagnostics) or {}
    found: dict[str, Installed] = {}
    for plugin_id, value in plugins.items():
        folder = _install_folder(_entries(home, plugin_id, value), project_dir)
        if folder is None:
            continue
        name, _, market = plugin_id.partition("@")
        marketplace = markets.get(market)
        if not isinstance(marketplace, Mapping):
            found[plugin_id] = Installed(
                plugin_id, None, f"its marketplace {market!r} is not known"
            )
            continue
        root = _local_source(marketplace, name) or Path(folder)
        if not is_directory(root):
            problem = f"its folder {shown(str(root))} does not exist"
            found[plugin_id] = Installed(plugin_id, None, problem)
            continue
        found[plugin_id] = Installed(plugin_id, root)
    return found
