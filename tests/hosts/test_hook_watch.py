"""The daemon's watch over a project's hook files: a change is seen on the very next look (no
walk of the hook folders per event, and no window in which a stale hook runs), what is not a
hook file is ignored, and a layout a watch could miss changes of is stamped on every event;
loaded projects are bounded, and a project closed to make room leaves no process behind."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tests.bounds import eventually
from tests.hosts.conftest import alive
from tests.hosts.project import make_project
from tests.hosts.test_daemon import RM, daemon_status, installed, run_command

from hookwright.bridges.hook_watch import HookWatch, watch
from hookwright.config.trust import TrustStore


def _watched(project: Path, home: Path) -> HookWatch:
    hooks, _ = watch(project, home)
    assert hooks is not None
    return hooks


def test_an_edit_is_seen_at_the_next_look(tmp_path: Path) -> None:
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    home.mkdir()
    hooks = _watched(project, home)
    try:
        assert not hooks.changed()
        with open(project / ".hookwright" / "rules.py", "r+") as fh:
            fh.write("#")
        assert hooks.changed()
    finally:
        hooks.close()


@pytest.mark.parametrize(
    "name",
    [".hookwright/imported", ".hookwright/__pycache__/rules.pyc", "README.md", "notes/x.yaml"],
)
def test_what_is_no_hook_file_is_ignored(tmp_path: Path, name: str) -> None:
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    (project / ".hookwright" / "__pycache__").mkdir()
    (project / "notes").mkdir()
    home.mkdir()
    hooks = _watched(project, home)
    try:
        (project / name).write_text("data")
        assert not hooks.changed()
    finally:
        hooks.close()


@pytest.mark.parametrize(
    "name",
    [
        ".picoclaw/config.json",
        ".hookwright/more/hooks.yaml",
        "HOME/.hookwright/hooks.yaml",
        ".gemini/settings.json",
        "HOME/.gemini/settings.json",
        "HOME/.gemini/trustedFolders.json",
    ],
)
def test_a_new_hook_file_is_seen(tmp_path: Path, name: str) -> None:
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    home.mkdir()
    hooks = _watched(project, home)
    target = home / name[5:] if name.startswith("HOME/") else project / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("{}")
        assert hooks.changed()
    finally:
        hooks.close()


def test_a_hard_link_written_elsewhere_is_seen(tmp_path: Path) -> None:
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    home.mkdir()
    elsewhere = tmp_path / "other.py"
    os.link(project / ".hookwright" / "rules.py", elsewhere)
    hooks = _watched(project, home)
    try:
        with open(elsewhere, "a") as fh:
            fh.write("\n")
        assert hooks.changed()
    finally:
        hooks.close()


def test_a_project_path_naming_another_folder_is_seen(tmp_path: Path) -> None:
    first, second = make_project(tmp_path / "a"), make_project(tmp_path / "b")
    link, home = tmp_path / "current", tmp_path / "h"
    home.mkdir()
    link.symlink_to(first)
    hooks = _watched(link, home)
    try:
        link.unlink()
        link.symlink_to(second)
        assert hooks.changed()
    finally:
        hooks.close()


@pytest.mark.parametrize("layout", ["dangling", "link to a link"])
def test_links_a_watch_could_miss_are_stamped_instead(tmp_path: Path, layout: str) -> None:
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    home.mkdir()
    rules = project / ".hookwright" / "rules.py"
    (tmp_path / "real.py").write_text(rules.read_text())
    rules.unlink()
    if layout == "dangling":
        rules.symlink_to(tmp_path / "gone.py")
    else:
        (tmp_path / "middle.py").symlink_to(tmp_path / "real.py")
        rules.symlink_to(tmp_path / "middle.py")
    hooks, stamp = watch(project, home)
    assert hooks is None and any(path == str(rules) for path, _ in stamp)


def _warm_servers(daemon: int) -> set[int]:
    """The daemon's children that are warm interpreters (their template servers)."""
    found = set()
    for task in os.listdir(f"/proc/{daemon}/task"):
        with open(f"/proc/{daemon}/task/{task}/children") as fh:
            children = [int(pid) for pid in fh.read().split()]
        for pid in children:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if b"_warm" in fh.read():
                        found.add(pid)
            except OSError:
                continue
    return found


def _warm_project(root: Path) -> Path:
    """The test project, its command hook run by this interpreter (which the warm runner
    serves; a `python3` found on PATH may be a shell shim, which it does not)."""
    project = make_project(root)
    declaration = project / ".openharness" / "hooks" / "block-rm.yaml"
    text = declaration.read_text().replace("command: python3 ", f"command: {sys.executable} ")
    declaration.write_text(text)
    return project


def test_a_project_closed_to_make_room_leaves_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOKWRIGHT_DAEMON_PROJECTS", "1")
    first, second = _warm_project(tmp_path / "a"), _warm_project(tmp_path / "b")
    hooks = {project: installed(project, "command") for project in (first, second)}
    deny = run_command(hooks[first]["PreToolUse"], first, "PreToolUse", **RM)
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    status = daemon_status()
    servers = _warm_servers(status["pid"])
    assert servers and status["projects"] == [str(first.resolve())]
    deny = run_command(hooks[second]["PreToolUse"], second, "PreToolUse", **RM)
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert daemon_status()["projects"] == [str(second.resolve())]
    assert eventually(lambda: not any(alive(pid) for pid in servers))
    assert _warm_servers(status["pid"]) - servers


def test_an_idle_project_is_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKWRIGHT_DAEMON_PROJECT_IDLE", "0.2")
    project = _warm_project(tmp_path / "a")
    hooks = installed(project, "command")
    run_command(hooks["PreToolUse"], project, "PreToolUse", **RM)
    servers = _warm_servers(daemon_status()["pid"])
    assert servers
    assert eventually(lambda: daemon_status()["projects"] == [])
    assert eventually(lambda: not any(alive(pid) for pid in servers))


def test_gemini_system_settings_are_watched_from_a_folder_not_made_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI's system settings (here named by its variable) may sit in a folder that is
    not there yet: the project is still watched, and the file appearing is seen."""
    system = tmp_path / "etc" / "gemini-cli" / "settings.json"
    system.parent.parent.mkdir()
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system))
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    home.mkdir()
    hooks = _watched(project, home)
    try:
        system.parent.mkdir()
        system.write_text("{}")
        assert hooks.changed()
    finally:
        hooks.close()


def test_a_folder_above_the_project_replaced_is_seen(tmp_path: Path) -> None:
    """No `stat` of the project per look: a folder above it renamed away, and another
    project made at the same path, is a note of the watch over the folders above."""
    project, home = make_project(tmp_path / "above" / "p"), tmp_path / "h"
    home.mkdir()
    hooks = _watched(project, home)
    try:
        assert not hooks.changed()
        (tmp_path / "above").rename(tmp_path / "moved")
        make_project(project)
        assert hooks.changed()
    finally:
        hooks.close()


def test_busy_folders_above_the_project_send_no_note(tmp_path: Path) -> None:
    project, home = make_project(tmp_path / "above" / "p"), tmp_path / "h"
    home.mkdir()
    hooks = _watched(project, home)
    try:
        (tmp_path / "above" / "other").write_text("x")
        (tmp_path / "other").mkdir()
        assert not hooks.changed() and not hooks.trust_noted
    finally:
        hooks.close()


def test_a_trust_store_change_is_a_trust_note_every_time(tmp_path: Path) -> None:
    """Trusting a folder rewrites the store whole (a new file): noted as trust, not as a
    hook change (the session is kept), and noted again after `renew_trust`, also when the
    store is written in place."""
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    store = TrustStore(home)
    store.trust(project)
    hooks = _watched(project, home)
    try:
        assert hooks.trust_watched and not hooks.changed() and not hooks.trust_noted
        for step in range(3):
            hooks.renew_trust()
            assert not hooks.changed() and not hooks.trust_noted
            if step == 2:
                with open(store.path, "r+") as fh:
                    fh.write(" ")
            else:
                store.trust(tmp_path / f"other{step}")
            assert not hooks.changed() and hooks.trust_noted
    finally:
        hooks.close()


def test_the_trust_store_made_after_the_watch_is_noted(tmp_path: Path) -> None:
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    (home / ".hookwright").mkdir(parents=True)
    hooks = _watched(project, home)
    try:
        TrustStore(home).trust(project)
        assert not hooks.changed() and hooks.trust_noted
    finally:
        hooks.close()


def test_a_linked_trust_store_is_not_watched(tmp_path: Path) -> None:
    project, home = make_project(tmp_path / "p"), tmp_path / "h"
    elsewhere = TrustStore(tmp_path / "elsewhere")
    elsewhere.trust(project)
    (home / ".hookwright").mkdir(parents=True)
    TrustStore(home).path.symlink_to(elsewhere.path)
    hooks = _watched(project, home)
    try:
        assert not hooks.trust_watched
    finally:
        hooks.close()
