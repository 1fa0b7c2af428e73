"""What a bare `HookEngine()` and `Services()` are built with, supplied from above the engine.

The engine names no concrete runner or monitor (the layering rule: it imports only the data
model, the configuration and the transports' interface), yet `HookEngine()` must audit, trace
and fork Python hooks warm like any other. So the engine asks this slot, and the package root
fills it: `hookwright/__init__.py` installs `hookwright.wiring` when any part of hookwright is
first imported, before this module can be used (Python runs a package's `__init__` before
any of its modules). Installing is cheap: the wiring imports the runners and the monitor only
when an engine is built.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any, Protocol

    from hookwright.core.events import HookInput
    from hookwright.core.spec import HookSpec
    from hookwright.engine.monitoring import AuditedMonitor, AuditTrail
    from hookwright.engine.selection import Candidate
    from hookwright.transports.base import IoRunner, WarmRunner, WorkerRunner

    #: The engine's selection rules, for the debug trace's "run"/"skip" lines.
    Explain = Callable[[Sequence[HookSpec], HookInput], tuple[list[Candidate], list[str]]]

#: `HookEngine(audit_path=...)` when the caller names none: the default audit file.
DEFAULT_AUDIT: Any = object()


#: A protocol, for the type checker alone (a process that answers one event loads no
#: `typing`); the shipped one is `hookwright.wiring.Defaults`.
if TYPE_CHECKING:

    class EngineDefaults(Protocol):
        """Builds what an engine gets when its caller gives none."""

        def io(self) -> IoRunner:
            """A session's own I/O loop for hook processes."""
            ...

        def workers(self) -> WorkerRunner:
            """A session's own worker pool for blocking hook code."""
            ...

        def warm_python(self) -> WarmRunner:
            """A session's own warm runner for Python command hooks."""
            ...

        def watch(
            self, audit_path: Path | str | None, explain: Explain
        ) -> tuple[AuditTrail, AuditedMonitor]:
            """A new engine's audit at `audit_path` (None: no file; `DEFAULT_AUDIT`: the default
            file) and the monitor that writes to it."""
            ...


_installed: EngineDefaults | None = None


def install(defaults: EngineDefaults) -> None:
    """Make `defaults` what every engine and `Services` built from now on gets."""
    global _installed
    _installed = defaults


def engine_defaults() -> EngineDefaults:
    if _installed is None:
        raise RuntimeError("hookwright's engine defaults are not installed (import hookwright)")
    return _installed


__all__ = ["DEFAULT_AUDIT", "engine_defaults", "install"]
