"""Whether the warm Python runner may fork hooks (``HOOKWRIGHT_WARM_PYTHON``), readable
without loading the runner: a session whose runner is not made yet asks this first, so a
switched-off runner is never imported."""

from __future__ import annotations

import os

SWITCH = "HOOKWRIGHT_WARM_PYTHON"
_OFF = frozenset(("0", "false", "no", "off"))


def switched_on(enabled: bool | None = None) -> bool:
    """True or False in `enabled` decides; None follows ``HOOKWRIGHT_WARM_PYTHON`` (on unless
    ``0``/``false``/``no``/``off``), read at each call."""
    if enabled is not None:
        return enabled
    return os.environ.get(SWITCH, "1").strip().lower() not in _OFF
