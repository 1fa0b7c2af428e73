"""What an engine's observers receive (`RuntimeEvent`) and how each is registered (`Observer`).

Apart from the bus (`hookwright.engine.observers.ObserverBus`), which every engine has: they
load with the first observer added, and an engine without any (most) makes neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookwright.engine.observers import ObserverFunc


@dataclass(slots=True, frozen=True)
class RuntimeEvent:
    """One thing the engine reports to its observers: a kind and its payload."""

    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    time: float = 0.0
    seq: int = 0


@dataclass(slots=True)
class Observer:
    """An observer as registered: the function, the kinds it takes, how to call it."""

    func: ObserverFunc
    kinds: frozenset[str] | None
    is_async: bool
    name: str


__all__ = ["Observer", "RuntimeEvent"]
