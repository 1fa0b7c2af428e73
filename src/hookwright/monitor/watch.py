"""The engine's default `DispatchMonitor` (`hookwright.engine.monitoring`): the debug trace,
the OpenTelemetry spans and the JSONL audit, watching every dispatch.

* the debug trace (`hookwright --debug`, ``HOOKWRIGHT_DEBUG=1``): the selection before the
  hooks run, each result after (`tracing`); one attribute read per dispatch when off;
* the spans (`otel.DispatchSpans`), when the environment names a collector: a span tree per
  dispatch that ran a hook, and the session's root span at SessionEnd;
* the audit (`audit.AuditLog`, or any `audit.AuditSink`): one record per hook run.

`hookwright.wiring` builds one for every new engine.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from hookwright.core.events import Event, HookInput
from hookwright.core.results import Verdict
from hookwright.core.spec import HookSpec
from hookwright.monitor.debug import state as debug

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookwright.monitor import tracing
    from hookwright.monitor.audit import AuditSink
    from hookwright.monitor.otel import DispatchSpans


class EngineMonitor:
    """The trace, the spans (None: no collector) and the audit of one engine."""

    __slots__ = ("audit", "explain", "spans")

    def __init__(
        self, audit: AuditSink, spans: DispatchSpans | None, explain: tracing.Explain | None = None
    ) -> None:
        self.audit = audit
        self.spans = spans
        #: The engine's selection rules, for the trace's "run"/"skip" lines (None: the trace
        #: counts the registered hooks only).
        self.explain = explain

    def use_audit(self, audit: AuditSink) -> None:
        """Write to `audit` from now on (the engine's audit was replaced)."""
        self.audit = audit

    def before(self, inp: HookInput, registered: Mapping[Event, Sequence[HookSpec]]) -> int | None:
        if debug.on:
            from hookwright.monitor import tracing  # here: the trace is off unless asked for

            tracing.selection(registered.get(inp.event, ()), inp, self.explain)
        elif self.spans is None and not self.audit.active:
            # Nothing to trace, time or record: the engine skips `after`.
            return None
        return time.time_ns() if self.spans is not None else 0

    def after(self, inp: HookInput, verdict: Verdict, mark: int) -> None:
        if not verdict.runs:
            if self.spans is not None:
                self.spans.quiet(inp, verdict)
            return
        if debug.on:
            from hookwright.monitor import tracing

            tracing.results(verdict)
        if self.spans is not None:
            self.spans.dispatch(inp, verdict, mark)
        self.audit.submit(verdict, inp.session_id, inp)
