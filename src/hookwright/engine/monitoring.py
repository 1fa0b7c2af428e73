"""What watches the engine's dispatches: one `DispatchMonitor`, as pluggy's hook-call
monitoring wraps its call loop.

The engine calls its monitor (`HookEngine.monitor`) twice per dispatch, whatever path the
dispatch takes (no hook registered, the inline fast path, the awaited loop): `before` once the
dispatch is planned and before any hook runs, `after` with its merged verdict, unless `before`
said there is nothing to watch (None: no trace, no spans, an audit that records nothing). The
audit, the OpenTelemetry spans and the debug trace hang off this seam (`hookwright.monitor.watch`
assembles them into the engine's default monitor, which `hookwright.wiring` gives every new
engine); the kernel has no branch of its own for any of them. To add a watcher, wrap the
engine's monitor in one that calls it too.

The engine knows its audit by `AuditTrail` only: what it and its hosts call on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Protocol

from hookwright.core.audit_record import AuditCallback, AuditRecord
from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict
from hookwright.core.spec import HookSpec


class DispatchMonitor(Protocol):
    """Called on the dispatching thread, on every dispatch; neither method may raise (nothing
    escapes a dispatch) and both should be cheap: they sit on the hot path."""

    def before(self, inp: HookInput, registered: Mapping[Event, Sequence[HookSpec]]) -> int | None:
        """A dispatch of `inp` begins; `registered`: the engine's hooks by event, each list in
        run order (read it, never change it). Returns a mark `after` gets back: a
        `time.time_ns()` start for a monitor that times dispatches, else 0; or None when this
        dispatch's end is of no interest to it: `after` is then not called."""
        ...

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        """The dispatch ended with `verdict` (no runs when it selected no hook); `mark`:
        what `before` returned."""
        ...


class AuditTrail(Protocol):
    """The audit of an engine (`HookEngine.audit`; by default `hookwright.monitor.audit.
    AuditLog`): one record per hook run, with the secret values it never writes."""

    @property
    def path(self) -> Path | None:
        """The file it writes; None: none (callbacks only)."""
        ...

    @property
    def secrets(self) -> AbstractSet[str]:
        """The values redacted wherever they show (a live view: values added later count)."""
        ...

    @property
    def active(self) -> bool:
        """Whether it records anything (a file, a callback)."""
        ...

    def add_secret(self, value: str) -> None: ...

    def add_callback(self, callback: AuditCallback) -> None: ...

    def submit(
        self, verdict: Verdict, session_id: str | None, inp: HookInput | None = None
    ) -> None:
        """Record every hook run of `verdict`, off the dispatching thread; never raises."""
        ...

    def note(self, record: AuditRecord) -> None:
        """Record something that is not a hook run (a host's effect it could not apply)."""
        ...

    def describe(
        self, *, project: str | None = None, host: str | None = None, model: str | None = None
    ) -> None:
        """Say which project, host and model every record from now on belongs to."""
        ...

    def flush(self, timeout: float = 5.0) -> None: ...

    def close(self) -> None: ...


class AuditedMonitor(DispatchMonitor, Protocol):
    """A monitor writing to the engine's audit, which follows the engine when its audit is
    replaced (`engine.audit = AuditLog(...)`)."""

    def use_audit(self, audit: AuditTrail) -> None: ...


__all__ = ["AuditTrail", "AuditedMonitor", "DispatchMonitor"]
