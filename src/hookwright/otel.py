"""Hook runs as OpenTelemetry spans (``pip install 'hookwright[otel]'``).

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) set, every
engine sends one span per hook run to that collector, with the other standard
``OTEL_EXPORTER_OTLP_*`` variables (headers, protocol options) read by the exporter itself.
The spans are made from the audit records, after the audit's secret redaction, so a secret
never reaches the collector. All spans of a session share one trace, derived from the session
id: the events of one Claude Code session, answered by separate processes, land in one trace.
The JSONL audit file is unchanged."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from hookwright.audit import AuditCallback, AuditRecord

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from hookwright.engine import HookEngine

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
log = logging.getLogger("hookwright.otel")
_lock = threading.Lock()
_tracer: Tracer | None = None


def session_ids(session_id: str | None) -> tuple[int, int]:
    """The (trace id, parent span id) every span of `session_id` hangs under."""
    digest = hashlib.sha256((session_id or "no-session").encode()).digest()
    return int.from_bytes(digest[:16], "big") or 1, int.from_bytes(digest[16:24], "big") or 1


def _attributes(record: AuditRecord) -> dict[str, Any]:
    values = {
        "hookwright.event": record.event,
        "hookwright.hook": record.hook,
        "hookwright.dialect": record.dialect,
        "hookwright.source": record.source,
        "hookwright.status": record.status,
        "hookwright.decision": record.decision,
        "hookwright.effect": record.effect,
        "hookwright.duration_ms": record.duration_ms,
        "hookwright.exit_code": record.exit_code,
        "hookwright.reason": record.reason,
        "hookwright.error": record.error,
        "hookwright.tool_name": record.tool_name,
        "hookwright.tool_use_id": record.tool_use_id,
        "hookwright.session_id": record.session_id,
        "hookwright.turn_id": record.turn_id,
    }
    return {name: value for name, value in values.items() if value is not None}


def span_audit(tracer: Tracer) -> AuditCallback:
    """An audit callback that turns each hook-run record into a span of its session's trace."""
    from opentelemetry import trace

    def emit(record: AuditRecord) -> None:
        trace_id, parent_id = session_ids(record.session_id)
        parent = trace.NonRecordingSpan(
            trace.SpanContext(
                trace_id,
                parent_id,
                is_remote=True,
                trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
            )
        )
        end = int(record.ts * 1e9)
        start = end - int(record.duration_ms * 1e6)
        span = tracer.start_span(
            f"hook {record.event} {record.hook}",
            context=trace.set_span_in_context(parent),
            start_time=start,
            attributes=_attributes(record),
        )
        if record.status in ("error", "timeout"):
            span.set_status(trace.Status(trace.StatusCode.ERROR, record.error or record.status))
        span.end(end_time=end)

    return emit


def _environment_tracer() -> Tracer | None:
    """One OTLP exporter per process, made on first use; None without the extra."""
    global _tracer
    with _lock:
        if _tracer is None:
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[import-not-found, unused-ignore]
                    OTLPSpanExporter,
                )
                from opentelemetry.sdk.resources import Resource
                from opentelemetry.sdk.trace import TracerProvider
                from opentelemetry.sdk.trace.export import BatchSpanProcessor
            except ImportError:
                log.warning("OTEL_EXPORTER_OTLP_* is set but hookwright[otel] is not installed")
                return None
            provider = TracerProvider(resource=Resource.create({"service.name": "hookwright"}))
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            _tracer = provider.get_tracer("hookwright")
        return _tracer


def attach_from_environment(engine: HookEngine) -> bool:
    """Send `engine`'s hook runs to the collector the environment names, if it names one."""
    if not any(os.environ.get(name) for name in ENDPOINT_VARIABLES):
        return False
    tracer = _environment_tracer()
    if tracer is None:
        return False
    engine.add_audit_callback(span_audit(tracer))
    return True
