"""`hookwright install codex`: a command hook per relayed event in the user's Codex
`hooks.json` (``$CODEX_HOME``, else ``~/.codex``), each running `hookwright hook codex`.

The file has Claude Code's hooks shape, so it is edited by the Claude Code installer's rules
(`claude_settings.install_groups` / `uninstall`: strict JSON, only ``hooks`` rewritten, never
through a link, the bytes and mode before install written back by an uninstall that leaves the
same settings). Codex runs a non-managed hook only once the user reviewed it: `review_lines`
are the exact ``[hooks.state]`` entries that review the installed hooks (what `/hooks` in
Codex records), for the user to add to Codex's `config.toml` or to accept in `/hooks`.

``--managed`` installs into Codex's managed layer instead (``/etc/codex/hooks.json``, or
``$HOOKWRIGHT_CODEX_MANAGED_DIR``): Codex runs managed hooks without review, under
``allow_managed_hooks_only``, and the user cannot turn them off. `notes` say what keeps Codex
from running the installed hooks, or could."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any, Final

from hookwright.bridges.claude_settings import CODEX_MARK, Target, install_groups, uninstall
from hookwright.config.loading import Diagnostic, LoadContext
from hookwright.dialects.codex.config import (
    SESSION_END_TIMEOUT,
    SHORT_TIMEOUT_EVENTS,
    LayerFiles,
    codex_home,
    layer_hooks,
)
from hookwright.dialects.codex.layers import managed_dir, read_layers, trusts_no_folder
from hookwright.dialects.codex.review import review_key, trusted_hash
from hookwright.dialects.codex.switches import effective_feature

#: The Codex events relayed to the project's hooks.
RELAYED: Final = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "Interrupt",
)
#: Seconds Codex gives each relayed event (a fresh interpreter opens the project each time);
#: an Interrupt hook at most `SESSION_END_TIMEOUT` (Codex clamps a longer one, with a
#: warning at every start).
TIMEOUT: Final = 30


def target(home: Path, managed: bool = False) -> Target:
    folder = managed_dir() if managed else codex_home(home)
    return Target(folder / "hooks.json", None)


def hook_command() -> str:
    """Isolated (`-I`): the project folder Codex runs it in is not on its import path."""
    return shlex.join([sys.executable, "-I", "-m", "hookwright", "hook", "codex"])


def install_codex(home: Path, managed: bool = False) -> bool:
    """Add hookwright's hooks; False when exactly these were already there."""

    def hook(event: str) -> dict[str, Any]:
        seconds = SESSION_END_TIMEOUT if event in SHORT_TIMEOUT_EVENTS else TIMEOUT
        return {"type": "command", "command": hook_command(), "timeout": seconds}

    return install_groups(
        target(home, managed), home, lambda: {event: hook(event) for event in RELAYED}
    )


def uninstall_codex(home: Path, managed: bool = False) -> bool:
    """Take out what `install_codex` added; False when nothing of it was there."""
    return uninstall(target(home, managed), home)


def notes(home: Path, managed: bool = False) -> list[str]:
    """What keeps Codex from running the installed hooks, or what could: the user's and the
    managed layers' switches (a project's are read when Codex opens it)."""
    layers = read_layers(LoadContext(codex_home(home), home), [])
    found: list[str] = []
    if layers.managed_only is not None and not managed:
        found.append(
            f"Codex runs only managed hooks here (allow_managed_hooks_only in "
            f"{layers.managed_only}): it will not run these; install them with --managed"
        )
    feature = effective_feature(layers, trusts_no_folder)
    if feature is not None and not feature.value:
        found.append(f"[features] hooks = false in {feature.file}: Codex runs no hooks")
    elif layers.pinned is None:
        found.append(
            "a trusted project's .codex/config.toml can turn off every Codex hook, these "
            "included, with [features] hooks = false; pin [features] hooks = true in "
            f"{managed_dir() / 'requirements.toml'} to prevent it"
        )
    return found


def review_lines(home: Path) -> list[str]:
    """The ``[hooks.state]`` entries that review hookwright's installed hooks in Codex."""
    problems: list[Diagnostic] = []
    folder = codex_home(home)
    lines: list[str] = []
    for hook in layer_hooks(LayerFiles("user", folder, None), problems):
        if CODEX_MARK in hook.command:
            lines += [
                f'[hooks.state."{review_key(hook)}"]',
                f'trusted_hash = "{trusted_hash(hook)}"',
            ]
    return lines
