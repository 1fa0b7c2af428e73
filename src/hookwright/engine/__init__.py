"""The kernel: HookEngine (register, select, plan stages, run, merge), selection and explain,
the services a session lends its hooks, the async inbox, the observer bus.

``from hookwright.engine import HookEngine`` keeps working: the kernel's public names load
on first use, so importing a helper of this package does not pull the kernel in."""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookwright.engine.kernel import HookEngine, ScopedHooks, apply_to_input, plan_stages

_KERNEL_NAMES = frozenset({"HookEngine", "ScopedHooks", "apply_to_input", "plan_stages"})


def __getattr__(name: str) -> Any:
    if name not in _KERNEL_NAMES:
        raise AttributeError(f"module 'hookwright.engine' has no attribute {name!r}")
    value = getattr(import_module("hookwright.engine.kernel"), name)
    globals()[name] = value
    return value


__all__ = ["HookEngine", "ScopedHooks", "apply_to_input", "plan_stages"]
