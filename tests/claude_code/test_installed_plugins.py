"""Plugins Claude Code installed (measured against Claude Code 2.1.240): found through
`~/.claude/plugins/installed_plugins.json`, on only when `enabledPlugins` sets their
`name@marketplace` id to true, run from their install folder with Claude Code's variables."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from hookwright.config.loading import LoadContext
from hookwright.config.trust import TrustPolicy
from hookwright.dialects.claude_code.loader import discover

from .conftest import Harness, cmd, group

STAMP = "2026-01-01T00:00:00.000Z"


class Installer:
    """Writes what `claude plugin marketplace add` + `claude plugin install` leave in a home."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.base = h.home / ".claude" / "plugins"
        self.records: dict[str, Any] = {}
        self.markets: dict[str, Any] = {}

    def market(self, name: str, source: dict[str, Any] | None = None) -> Path:
        location = self.base / "marketplaces" / name
        self.markets[name] = {
            "source": source or {"source": "github", "repo": f"example/{name}"},
            "installLocation": str(location),
            "lastUpdated": STAMP,
        }
        self.save()
        return location

    def plugin(self, plugin_id: str, *, folder: Path | None = None, **entry: Any) -> Path:
        """Install `plugin_id` (a logging Stop hook) into its cache folder or `folder`."""
        name, _, market = plugin_id.partition("@")
        if market not in self.markets:
            self.market(market)
        root = folder or self.base / "cache" / market / name / "1.0.0"
        write_plugin(root, name, self.h)
        record = {"scope": "user", "installPath": str(root), "version": "1.0.0", **entry}
        record.update(installedAt=STAMP, lastUpdated=STAMP)
        self.records.setdefault(plugin_id, []).append(record)
        self.save()
        return root

    def save(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        installed = {"version": 2, "plugins": self.records}
        (self.base / "installed_plugins.json").write_text(json.dumps(installed))
        (self.base / "known_marketplaces.json").write_text(json.dumps(self.markets))


def write_plugin(root: Path, name: str, h: Harness) -> None:
    """A plugin whose Stop hook logs its name, `${CLAUDE_PLUGIN_ROOT}` (substituted) and the
    CLAUDE_PLUGIN_ROOT / CLAUDE_PLUGIN_DATA it was given."""
    log = h.project / "plugins.log"
    line = f'{name} ${{CLAUDE_PLUGIN_ROOT}} "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA"'
    hooks = group("Stop", cmd(f"cat > /dev/null; echo {line} >> {log}"))
    (root / "hooks").mkdir(parents=True, exist_ok=True)
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    (root / ".claude-plugin").mkdir(exist_ok=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name}))


def plugin_runs(h: Harness) -> list[list[str]]:
    log = h.project / "plugins.log"
    return [line.split() for line in log.read_text().splitlines()] if log.exists() else []


async def stop(h: Harness) -> list[list[str]]:
    await h.fire("Stop", stop_hook_active=False)
    return plugin_runs(h)


@pytest.fixture
def installer(h: Harness) -> Installer:
    return Installer(h)


async def test_an_enabled_installed_plugin_runs_from_its_install_folder(
    h: Harness, installer: Installer
) -> None:
    root = installer.plugin("fmt@tools")
    h.settings(None, kind="user", enabledPlugins={"fmt@tools": True})
    h.load()
    data = h.home / ".claude" / "plugins" / "data" / "fmt-tools"
    assert await stop(h) == [["fmt", str(root), str(root), str(data)]]
    assert data.is_dir()
    assert [spec.source for spec in h.engine.hooks("Stop")] == ["plugin"]


@pytest.mark.parametrize(
    "enabled",
    [None, {"fmt@tools": False}, {"fmt": True}, {"fmt@tools": "yes"}, {"fmt@tools": 1}],
    ids=["no-entry", "false", "bare-name", "string", "number"],
)
async def test_an_installed_plugin_is_off_unless_its_id_is_set_to_true(
    h: Harness, installer: Installer, enabled: dict[str, Any] | None
) -> None:
    installer.plugin("fmt@tools")
    if enabled is not None:
        h.settings(None, kind="user", enabledPlugins=enabled)
    h.load()
    assert await stop(h) == []


@pytest.mark.parametrize(
    ("by_kind", "runs"),
    [
        ({"user": True, "project": False}, False),
        ({"user": False, "project": True}, True),
        ({"project": True, "local": False}, False),
        ({"project": False, "local": True}, True),
    ],
)
async def test_enabled_plugins_precedence_is_local_over_project_over_user(
    h: Harness, installer: Installer, by_kind: dict[str, bool], runs: bool
) -> None:
    installer.plugin("fmt@tools")
    for kind, value in by_kind.items():
        h.settings(None, kind=kind, enabledPlugins={"fmt@tools": value})
    h.load()
    assert len(await stop(h)) == (1 if runs else 0)


async def test_a_project_scoped_installation_counts_only_in_its_project(
    h: Harness, installer: Installer, tmp_path: Path
) -> None:
    installer.plugin("here@tools", scope="project", projectPath=str(h.project))
    installer.plugin("there@tools", scope="project", projectPath=str(tmp_path / "other"))
    settings = h.settings(None, enabledPlugins={"here@tools": True, "there@tools": True})
    h.load()
    assert [run[0] for run in await stop(h)] == ["here"]
    assert (
        f"warning: {settings}: enabledPlugins.there@tools: plugin there@tools is enabled but "
        "it is not installed for this project; its hooks do not run"
    ) in h.diagnostics


async def test_a_project_installation_counts_in_another_folder_of_the_same_repository(
    h: Harness, installer: Installer
) -> None:
    (h.project / ".git").mkdir()
    (h.project / "sub").mkdir()
    installer.plugin("repo@tools", scope="local", projectPath=str(h.project / "sub"))
    h.settings(None, kind="user", enabledPlugins={"repo@tools": True})
    h.load()
    assert [run[0] for run in await stop(h)] == ["repo"]


async def test_the_first_installation_whose_folder_exists_is_used(
    h: Harness, installer: Installer, tmp_path: Path
) -> None:
    installer.records["fmt@tools"] = [
        {"scope": "user", "installPath": str(tmp_path / "gone"), "version": "0.9.0"}
    ]
    root = installer.plugin("fmt@tools")
    h.settings(None, kind="user", enabledPlugins={"fmt@tools": True})
    h.load()
    assert [run[1] for run in await stop(h)] == [str(root)]


async def test_version_1_records_use_the_cache_folder_of_their_version(
    h: Harness, installer: Installer
) -> None:
    installer.market("tools")
    root = h.home / ".claude" / "plugins" / "cache" / "tools" / "fmt" / "2.0.0"
    write_plugin(root, "fmt", h)
    record = {"version": "2.0.0", "installedAt": STAMP, "installPath": "/elsewhere"}
    (installer.base / "installed_plugins.json").write_text(
        json.dumps({"version": 1, "plugins": {"fmt@tools": record}})
    )
    h.settings(None, kind="user", enabledPlugins={"fmt@tools": True})
    h.load()
    assert [run[1] for run in await stop(h)] == [str(root)]


async def test_a_directory_marketplace_plugin_runs_from_its_source_folder(
    h: Harness, installer: Installer, tmp_path: Path
) -> None:
    source = tmp_path / "market"
    installer.market("local", {"source": "directory", "path": str(source)})
    installer.markets["local"]["installLocation"] = str(source)
    listing = {
        "name": "local",
        "owner": {"name": "me"},
        "plugins": [{"name": "dev", "source": "./dev"}],
    }
    (source / ".claude-plugin").mkdir(parents=True)
    (source / ".claude-plugin" / "marketplace.json").write_text(json.dumps(listing))
    write_plugin(source / "dev", "dev", h)
    installer.plugin("dev@local")
    h.settings(None, kind="user", enabledPlugins={"dev@local": True})
    h.load()
    assert [run[1] for run in await stop(h)] == [str(source / "dev")]


@pytest.mark.parametrize("problem", ["not-installed", "folder-gone", "unknown-marketplace"])
async def test_an_enabled_plugin_that_cannot_load_is_one_warning(
    h: Harness, installer: Installer, problem: str
) -> None:
    if problem != "not-installed":
        root = installer.plugin("fmt@tools")
    if problem == "folder-gone":
        shutil.rmtree(root)
    if problem == "unknown-marketplace":
        installer.markets.clear()
        installer.save()
    settings = h.settings(None, kind="user", enabledPlugins={"fmt@tools": True})
    h.load()
    why = {
        "not-installed": "it is not installed for this project",
        "folder-gone": f"its folder {h.home}/.claude/plugins/cache/tools/fmt/1.0.0 does not exist",
        "unknown-marketplace": "its marketplace 'tools' is not known",
    }[problem]
    warnings = [d for d in h.diagnostics if "fmt@tools" in d]
    assert warnings == [
        f"warning: {settings}: enabledPlugins.fmt@tools: plugin fmt@tools is enabled but "
        f"{why}; its hooks do not run"
    ]
    assert await stop(h) == []


async def test_broken_plugin_records_are_reported_and_the_rest_loads(
    h: Harness, installer: Installer
) -> None:
    installer.base.mkdir(parents=True)
    (installer.base / "installed_plugins.json").write_text("{not json")
    h.settings(group("Stop", cmd("true")), kind="user")
    h.load()
    assert any(
        d.startswith(f"error: {installer.base / 'installed_plugins.json'}") for d in h.diagnostics
    )
    assert len(h.engine.hooks("Stop")) == 1


@pytest.mark.parametrize("trusted", [False, True])
async def test_an_untrusted_project_cannot_enable_an_installed_plugin(
    h: Harness, installer: Installer, trusted: bool
) -> None:
    installer.plugin("fmt@tools")
    h.settings(None, enabledPlugins={"fmt@tools": True})
    policy = TrustPolicy().with_folder(h.project) if trusted else TrustPolicy()
    for spec in discover(LoadContext(h.project, h.home)).bind(policy).specs:
        h.engine.register(spec)
    assert len(await stop(h)) == (1 if trusted else 0)


async def test_an_installed_plugin_inside_the_project_needs_the_project_trusted(
    h: Harness, installer: Installer
) -> None:
    installer.plugin("vendored@tools", folder=h.project / "vendor" / "plugin")
    h.settings(None, kind="user", enabledPlugins={"vendored@tools": True})
    discovery = discover(LoadContext(h.project, h.home))
    assert [hook.trust_root for hook in discovery.hooks] == [h.project / "vendor" / "plugin"]
    assert discovery.bind(TrustPolicy()).specs == []
