"""Dialects: what each hook system's config and bytes mean. Dialects never import each other.

Importing this package tells discovery (`hookwright.config.loading`) which dialects exist,
without importing any of them: a dialect is imported when a project has its files. Callers
that discover a project's hooks take `discover` from here, so the dialects are always known."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Collection
from pathlib import Path

from hookwright.config.loading import LoadContext, SourceCatalogue, discover, register_catalogue
from hookwright.dialects.managed_paths import (
    codex_managed_dir,
    codex_managed_preferences,
    gemini_system_settings,
    platform_of,
)

#: Each built-in dialect's source name and the module that registers it, in discovery order
#: (which orders hooks of equal priority across dialects).
BUILTIN = {
    "claude_code": "hookwright.dialects.claude_code.loader",
    "picoclaw": "hookwright.dialects.picoclaw.loader",
    "native": "hookwright.dialects.native",
    "openharness": "hookwright.dialects.openharness",
    "gemini": "hookwright.dialects.gemini.loader",
    "codex": "hookwright.dialects.codex.loader",
}


def load_builtin(skip: Collection[str] = ()) -> None:
    """Import the built-in dialects (except those named in `skip`) so their source loaders
    register themselves."""
    for name, module in BUILTIN.items():
        if name not in skip:
            importlib.import_module(module)


def _claude_code_reads(ctx: LoadContext) -> list[Path]:
    managed = os.environ.get("HOOKWRIGHT_CLAUDE_MANAGED_DIR") or "/etc/claude-code"
    return [Path(managed), ctx.home / ".claude", ctx.project_dir / ".claude"]


def _gemini_reads(ctx: LoadContext) -> list[Path]:
    system = Path(gemini_system_settings(platform_of()))
    return [system, ctx.home / ".gemini" / "settings.json", ctx.project_dir / ".gemini"]


def _codex_reads(ctx: LoadContext) -> list[Path]:
    user = os.environ.get("CODEX_HOME", "").strip()
    managed = Path(codex_managed_dir(platform_of()))
    forced = [Path(file) for file in codex_managed_preferences(platform_of())]
    home = Path(user) if user else ctx.home / ".codex"
    return [managed, *forced, home, ctx.project_dir / ".codex"]


#: What each built-in dialect's discovery reads besides `--config` files: when none of these
#: exists, it finds no hook and reports no problem (tests/test_dialect_presence.py holds each
#: dialect to this).
_READS: dict[str, Callable[[LoadContext], list[Path]]] = {
    "native": lambda ctx: [
        ctx.home / ".hookwright" / "hooks.yaml",
        ctx.project_dir / ".hookwright" / "hooks.yaml",
    ],
    "claude_code": _claude_code_reads,
    "codex": _codex_reads,
    "openharness": lambda ctx: [ctx.project_dir / ".openharness"],
    "picoclaw": lambda ctx: [
        ctx.home / ".picoclaw" / "config.json",
        ctx.project_dir / ".picoclaw" / "config.json",
    ],
    "gemini": _gemini_reads,
}
#: Environment variables a dialect reports a problem about even when it has no file.
_WARNS_ABOUT = {"claude_code": ("HOOKWRIGHT_CLAUDE_EXIT_RULES",)}


def absent(ctx: LoadContext, of: Collection[str] | None = None) -> set[str]:
    """The built-in dialects (of those named in `of`; None: of all) that certainly find
    nothing in `ctx`, checked without importing them (a command that only reads a project's
    hooks then loads only the dialects it uses)."""
    if ctx.config_files:
        return set()
    return {
        name
        for name, reads in _READS.items()
        if (of is None or name in of)
        and not any(os.path.lexists(path) for path in reads(ctx))
        and not any(os.environ.get(variable) for variable in _WARNS_ABOUT.get(name, ()))
    }


register_catalogue(SourceCatalogue(tuple(BUILTIN), load_builtin, absent))

__all__ = ["BUILTIN", "LoadContext", "absent", "discover", "load_builtin"]
