"""OpenHarness hooks: `.openharness/hooks/*.yaml`, one hook per file.

Public API for hosts:

* :func:`discover` (registered as the `openharness` source; the workspace needs trust),
  :func:`discover_workspace` and :func:`load_workspace` (binds a workspace the host names);
* :func:`install`: load a workspace the host names into an engine and register its secrets
  for redaction;
* :func:`register_secrets`: what a host that registers specs itself must call;
* prompt and agent hooks ask the engine's model (`engine.services.evaluator`);
* :func:`json_schema`: the JSON Schema of one hook file.

The runtime's side (how a verdict's fields apply per event) is documented in
README.md in this package.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from hookwright.config.loading import LoadResult, register_source
from hookwright.core.spec import HookSpec
from hookwright.dialects.openharness.loader import (
    discover,
    discover_workspace,
    hook_files,
    load_workspace,
)
from hookwright.dialects.openharness.schema import json_schema
from hookwright.engine.kernel import HookEngine

DIALECT = "openharness"


def register_secrets(engine: HookEngine, specs: Iterable[HookSpec]) -> int:
    """Tell the engine's audit every resolved secret value these hooks use (it writes `***`
    instead). Returns how many values were registered."""
    values: set[str] = set()
    for spec in specs:
        values.update(spec.secrets)
    for value in values:
        engine.audit.add_secret(value)
    return len(values)


def install(
    engine: HookEngine,
    root: Path,
    *,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> LoadResult:
    """Load a workspace's hooks, register them on `engine` and their secrets with its audit."""
    result = load_workspace(root, home=home, environ=environ)
    register_secrets(engine, result.specs)
    for spec in result.specs:
        engine.register(spec)
    return result


register_source(DIALECT, discover)

__all__ = [
    "DIALECT",
    "discover",
    "discover_workspace",
    "hook_files",
    "install",
    "json_schema",
    "load_workspace",
    "register_secrets",
]
