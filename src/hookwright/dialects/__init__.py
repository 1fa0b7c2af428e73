"""Dialects: what each hook system's config and bytes mean. Dialects never import each other."""

from __future__ import annotations

import importlib

BUILTIN = (
    "hookwright.dialects.native",
    "hookwright.dialects.claude_code.loader",
    "hookwright.dialects.openharness",
    "hookwright.dialects.picoclaw.loader",
)


def load_builtin() -> None:
    """Import the built-in dialects so their source loaders register themselves."""
    for module in BUILTIN:
        importlib.import_module(module)
