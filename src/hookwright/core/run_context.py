"""`RunContext`: what a handler is handed for each of its runs on the engine's run loop (its
spec, its timeout and the session's services).

Apart from `HookSpec` (`hookwright.core.spec`): the engine makes one per hook it awaits, the
first time it does; an event whose hooks all run inline (sync Python hooks without a timeout)
makes none, so a process answering one such event does not load it.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.core.spec import HookServices, HookSpec


@dataclass(frozen=True, slots=True)
class RunContext:
    """Handed to a handler for each of its runs: the engine makes one per hook and services
    and hands the same one to every run (read it, never keep per-run state on it)."""

    spec: HookSpec
    timeout: float | None
    #: The services of the session running the hook (its model, inbox, I/O loop, counters).
    services: HookServices


__all__ = ["RunContext"]
