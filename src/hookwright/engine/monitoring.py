"""What watches the engine's dispatches: one `DispatchMonitor`, as pluggy's hook-call
monitoring wraps its call loop.

The engine calls its monitor (`HookEngine.monitor`) twice per dispatch, whatever path the
dispatch takes (no hook registered, the inline fast path, the awaited loop): `before` once the
dispatch is planned and before any hook runs, `after` with its merged verdict. The audit, the
OpenTelemetry spans and the debug trace hang off this seam (`hookwright.monitor.watch`
assembles them into the engine's default monitor); the kernel has no branch of its own for
any of them. To add a watcher, wrap the engine's monitor in one that calls it too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict
from hookwright.core.spec import HookSpec


class DispatchMonitor(Protocol):
    """Called on the dispatching thread, on every dispatch; neither method may raise (nothing
    escapes a dispatch) and both should be cheap: they sit on the hot path."""

    def before(self, inp: HookInput, registered: Mapping[Event, Sequence[HookSpec]]) -> int:
        """A dispatch of `inp` begins; `registered`: the engine's hooks by event, each list in
        run order (read it, never change it). Returns a mark `after` gets back: a
        `time.time_ns()` start for a monitor that times dispatches, else 0."""
        ...

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        """The dispatch ended with `verdict` (no runs when it selected no hook); `mark`:
        what `before` returned."""
        ...


__all__ = ["DispatchMonitor"]
