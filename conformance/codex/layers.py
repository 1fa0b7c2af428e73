"""A case's hooks written into the Codex layer each names, and real Codex run with them.

The managed layers live in ``/etc/codex``, which a case must not touch on the machine: Codex
runs in a mount namespace of its own (`unshare`) where an overlay on ``/etc`` adds the case's
``codex`` folder; `hookwright run` reads the same folder through
``$HOOKWRIGHT_CODEX_MANAGED_DIR``. Where no namespace can be made, such a case is skipped.
A plugin is written as ``codex plugin add`` installs one, into
``$CODEX_HOME/plugins/cache/<marketplace>/guard/1.0.0`` (marketplace ``local`` unless the case
names another), enabled in the user's config. A
``subfolder`` hook goes to ``<project>/sub/.codex/hooks.json``: the project becomes a git
repository and both agents run in ``sub``, so the project's ``.codex`` is the repository
root's. A ``worktree`` hook goes to the ``.codex`` of a linked git worktree of the project
(``git worktree add``, beside it as ``wt``), where both agents then run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

CaseLayer = Literal[
    "project", "subfolder", "worktree", "user", "requirements", "system", "legacy", "plugin"
]
SUBFOLDER: Final = "sub"
WORKTREE: Final = "wt"
#: Git run for a case: no user config, no signing, a fixed author.
GIT: Final = ("git", "-c", "user.name=case", "-c", "user.email=case@example.invalid")
MANAGED: Final = frozenset({"requirements", "system", "legacy"})
PLUGIN_ID: Final = "guard@local"


class NoNamespace(Exception):
    """No private mount namespace here: the managed layers cannot be placed for Codex."""


def managed_folder(root: Path) -> Path:
    """What stands for ``/etc/codex``: the overlay's upper ``codex`` folder."""
    return root / "etc" / "upper" / "codex"


def plugin_root(home: Path, plugin_id: str) -> Path:
    name, _, marketplace = plugin_id.partition("@")
    return home / ".codex" / "plugins" / "cache" / marketplace / name / "1.0.0"


def toml_hooks(groups: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Inline ``[hooks]`` TOML with the groups of a ``hooks.json``."""
    lines: list[str] = []
    for event, event_groups in groups.items():
        for group in event_groups:
            lines.append(f"[[hooks.{event}]]")
            if group.get("matcher") is not None:
                lines.append(f"matcher = {json.dumps(group['matcher'])}")
            for handler in group["hooks"]:
                lines.append(f"[[hooks.{event}.hooks]]")
                lines += [f"{key} = {json.dumps(value)}" for key, value in handler.items()]
    return "\n".join(lines) + "\n"


def write_layers(
    root: Path,
    home: Path,
    project: Path,
    hooks: Mapping[CaseLayer, Mapping[str, list[Any]]],
    toml: Mapping[CaseLayer, str],
    plugin_id: str = PLUGIN_ID,
) -> str:
    """Write every layer but the user's `config.toml`; the TOML lines that file needs."""
    etc = managed_folder(root)
    layered = {layer for layer in (*hooks, *toml) if layer in MANAGED}
    if layered:
        etc.mkdir(parents=True)
        (root / "etc" / "work").mkdir()
    _json(project / ".codex" / "hooks.json", _file(hooks.get("project")))
    _json(project / SUBFOLDER / ".codex" / "hooks.json", _file(hooks.get("subfolder")))
    if "worktree" in hooks:
        add_worktree(project, root / WORKTREE)
        _json(root / WORKTREE / ".codex" / "hooks.json", _file(hooks["worktree"]))
    _json(home / ".codex" / "hooks.json", _file(hooks.get("user")))
    _json(etc / "hooks.json", _file(hooks.get("system")))
    _text(project / ".codex" / "config.toml", toml.get("project", ""))
    named: tuple[tuple[CaseLayer, str], ...] = (
        ("requirements", "requirements.toml"),
        ("legacy", "managed_config.toml"),
    )
    for layer, name in named:
        text = toml.get(layer, "") + (toml_hooks(hooks[layer]) if layer in hooks else "")
        _text(etc / name, text)
    _text(etc / "config.toml", toml.get("system", ""))
    if "plugin" not in hooks:
        return toml.get("user", "")
    plugin = plugin_root(home, plugin_id)
    _json(plugin / ".codex-plugin" / "plugin.json", {"name": "guard", "version": "1.0.0"})
    _json(plugin / "hooks" / "hooks.json", _file(hooks["plugin"]))
    return toml.get("user", "") + f'\n[plugins."{plugin_id}"]\nenabled = true\n'


def working_folder(project: Path) -> Path:
    """Where both agents run: the project's linked worktree when the case made one, else the
    case's subfolder when it has one (a git repository's), else the project."""
    worktree = project.parent / WORKTREE
    if worktree.is_dir():
        return worktree
    sub = project / SUBFOLDER
    return sub if (sub / ".codex").is_dir() else project


def add_worktree(project: Path, worktree: Path) -> None:
    """The project as a git repository with one commit, and `worktree` a linked worktree of
    it (its ``.git`` a file naming ``<project>/.git/worktrees/wt``)."""
    steps = (
        ["init", "-q", str(project)],
        ["-C", str(project), "commit", "-q", "--allow-empty", "--no-gpg-sign", "-m", "case"],
        ["-C", str(project), "worktree", "add", "-q", "--detach", str(worktree)],
    )
    for step in steps:
        subprocess.run([*GIT, *step], check=True, timeout=30, capture_output=True)


def _file(events: Mapping[str, list[Any]] | None) -> dict[str, Any] | None:
    return {"hooks": dict(events)} if events else None


def _json(path: Path, data: Mapping[str, Any] | None) -> None:
    if data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1))


def _text(path: Path, text: str) -> None:
    if text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def in_namespace(root: Path, command: list[str]) -> list[str]:
    """`command` in a mount namespace whose ``/etc`` has the case's ``codex`` folder on top;
    `command` itself when the case has no managed layer."""
    if not managed_folder(root).is_dir():
        return command
    unshare = shutil.which("unshare")
    if unshare is None:
        raise NoNamespace("unshare is not on PATH")
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    upper, work = root / "etc" / "upper", root / "etc" / "work"
    mount = f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc"
    wrapper = [unshare, *flags, "sh", "-c", f'{mount} && exec "$@"', "sh"]
    probe = subprocess.run([*wrapper, "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        reason = probe.stderr.decode(errors="replace").strip() or f"exit {probe.returncode}"
        raise NoNamespace(f"unshare {' '.join(flags)} with an overlay on /etc: {reason}")
    return [*wrapper, *command]
