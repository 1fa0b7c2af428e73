"""hookwright's own settings of a Claude Code hook entry, under the ``"hookwright"`` key the
CLI itself ignores: ``"state": true`` (the hook reads the session state, `state_io`) and
``"mode": "shadow"`` (the hook runs and its answer is recorded and reported, never applied).

A ``mode`` other than ``shadow`` or ``enforce`` is read as ``enforce`` with a warning: a typo
never turns a guard off."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from hookwright.dialects.state_io import FIELD

MODES: Final = ("enforce", "shadow")


def shadow_mode(extra: Mapping[str, Any] | None) -> tuple[bool, str | None]:
    """Whether the entry runs in shadow mode, and a problem line for an unknown mode."""
    own = (extra or {}).get(FIELD)
    if not isinstance(own, Mapping) or "mode" not in own:
        return False, None
    mode = own["mode"]
    if mode in MODES:
        return mode == "shadow", None
    return False, f"expected shadow or enforce, got {str(mode)[:40]!r}; read as enforce"
