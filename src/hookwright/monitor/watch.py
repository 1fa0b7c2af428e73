"""The engine's default `DispatchMonitor` (`hookwright.engine.monitoring`): the debug trace,
the OpenTelemetry spans and the JSONL audit, watching every dispatch.

* the debug trace (`hookwright --debug`, ``HOOKWRIGHT_DEBUG=1``): the selection before the
  hooks run, each result after (`tracing`); one attribute read per dispatch when off;
* the spans (`otel.DispatchSpans`), when the environment names a collector: a span tree per
  dispatch that ran a hook, and the session's root span at SessionEnd;
* the audit (`audit.AuditLog`): one record per hook run.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict
from hookwright.core.spec import HookSpec
from hookwright.monitor import tracing
from hookwright.monitor.audit import AuditLog, default_audit_path
from hookwright.monitor.debug import state as debug
from hookwright.monitor.otel import DispatchSpans, spans_from_environment

#: `EngineMonitor.open`'s audit path when the caller names none: the default audit file.
DEFAULT_AUDIT: Any = object()


class EngineMonitor:
    """The trace, the spans (None: no collector) and the audit of one engine."""

    __slots__ = ("audit", "explain", "spans")

    def __init__(
        self, audit: AuditLog, spans: DispatchSpans | None, explain: tracing.Explain | None = None
    ) -> None:
        self.audit = audit
        self.spans = spans
        #: The engine's selection rules, for the trace's "run"/"skip" lines (None: the trace
        #: counts the registered hooks only).
        self.explain = explain

    @classmethod
    def open(
        cls, audit_path: Path | str | None = DEFAULT_AUDIT, explain: tracing.Explain | None = None
    ) -> EngineMonitor:
        """The monitor of a new engine: its audit at `audit_path` (None: no file; by default
        `default_audit_path()`), spans when the environment names a collector."""
        path = default_audit_path() if audit_path is DEFAULT_AUDIT else audit_path
        audit = AuditLog(Path(path) if path is not None else None)
        return cls(audit, spans_from_environment(audit), explain)

    def before(self, inp: HookInput, registered: Mapping[Event, Sequence[HookSpec]]) -> int:
        if debug.on:
            tracing.selection(registered.get(inp.event, ()), inp, self.explain)
        return time.time_ns() if self.spans is not None else 0

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        if not verdict.runs:
            if self.spans is not None and inp.event is Event.SessionEnd:
                self.spans.session_end(inp)
            return
        if debug.on:
            tracing.results(verdict)
        if self.spans is not None:
            self.spans.dispatch(inp, verdict, mark)
        self.audit.submit(verdict, inp.session_id, inp)
