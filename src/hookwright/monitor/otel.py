"""Dispatches and hook runs as OpenTelemetry spans (``pip install 'hookwright[otel]'``).

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) set, every
engine sends its dispatches to that collector, the other standard ``OTEL_EXPORTER_OTLP_*``
variables (headers, protocol options) read by the exporter itself. Each dispatch that ran a
hook is a span (``dispatch <event>``) with one child span per hook run (``hook <event>
<hook>``); a host that runs tools wraps each call in an ``execute_tool <tool>`` span of the
GenAI agent conventions (`tool_call`, `otel_tool`), under which that call's dispatches hang;
a host that relays a call's events gets the same span across processes (`relayed_call`,
`otel_relay`).
Every span of a session is in one trace whose id is derived from the session id, so the
events of one session answered by separate processes (the Claude Code command hook) land in
one trace; the other spans hang under the session's root span (``session``, its span id
derived from the session id too), which the engine that sees the session end (SessionEnd)
sends, from the first dispatch it saw of that session. Every string of a span (its name, each
attribute, its status) is redacted with the audit's secrets, by the audit's rule
(`hookwright.core.redaction`); hookwright adds no span events. Without the variables nothing of
OpenTelemetry is imported and the engine does no extra work; the JSONL audit file is unchanged
either way."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hookwright.core import redaction
from hookwright.core.digests import sha256_function
from hookwright.core.events import TOOL_EVENTS, Event, HookInput
from hookwright.core.logs import LazyLogger
from hookwright.core.results import HookResult, Status, Verdict, effect_of
from hookwright.monitor import names_a_collector
from hookwright.monitor.otel_relay import (
    OpenCalls,
    RelayedTool,
    send_finished,
    started_at,
    tool_span_id,
)
from hookwright.monitor.otel_tool import TOOL_ERROR, ToolSpan, tool_attributes

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

    from hookwright.core.spec import HookSpec
    from hookwright.monitor.audit import AuditSink

#: Sessions whose first dispatch is remembered for their root span.
MAX_OPEN_SESSIONS = 1024
log = LazyLogger("hookwright.monitor.otel")
_lock = threading.Lock()
_tracer: Tracer | None = None

Run = tuple["HookSpec", HookResult | None, int]


def session_ids(session_id: str | None) -> tuple[int, int]:
    """The (trace id, root span id) of `session_id`'s trace."""
    digest = sha256_function()((session_id or "no-session").encode()).digest()
    return int.from_bytes(digest[:16], "big") or 1, int.from_bytes(digest[16:24], "big") or 1


def _present(values: dict[str, Any], secrets: AbstractSet[str]) -> dict[str, Any]:
    """The attributes that have a value, every string redacted (ids, names and texts alike:
    any of them may carry a secret a hook was given)."""
    return {
        name: redaction.redact(value, secrets) if isinstance(value, str) else value
        for name, value in values.items()
        if value is not None
    }


def _call_attributes(inp: HookInput) -> dict[str, Any]:
    tool = inp.event in TOOL_EVENTS
    return {
        "hookwright.event": inp.event.value,
        "hookwright.session_id": inp.session_id,
        "hookwright.turn_id": inp.turn_id,
        "hookwright.tool_name": inp.tool_name if tool else None,
        "hookwright.tool_use_id": inp.payload.get("tool_use_id") if tool else None,
    }


def _hook_attributes(spec: HookSpec, result: HookResult | None, duration_ns: int) -> dict[str, Any]:
    values: dict[str, Any] = {
        "hookwright.hook.name": spec.name,
        "hookwright.dialect": spec.dialect,
        "hookwright.source": spec.source,
        "hookwright.duration_ms": round(duration_ns / 1e6, 3),
    }
    if result is not None:
        acted = result.has_effect or result.status is not Status.ok
        values.update(
            {
                "hookwright.status": result.status.value,
                "hookwright.decision": result.decision.value if result.decision else None,
                "hookwright.effect": effect_of(result) if acted else None,
                "hookwright.exit_code": result.exit_code,
                "hookwright.reason": result.reason,
                "hookwright.error": result.error,
            }
        )
    return values


def _stages(runs: list[Run]) -> list[list[Run]]:
    """The runs grouped as the engine ran them: parallel hooks of one stage side by side."""
    stages: list[list[Run]] = []
    for run in runs:
        if run[0].mode == "parallel" and stages and stages[-1][0][0].mode == "parallel":
            stages[-1].append(run)
        else:
            stages.append([run])
    return stages


class DispatchSpans:
    """Turns each dispatch of an engine into a span tree of its session's trace."""

    def __init__(self, tracer: Tracer, audit: AuditSink) -> None:
        from opentelemetry import trace

        self._trace = trace
        self.tracer = tracer
        self.audit = audit
        self._first_seen: OrderedDict[str, int] = OrderedDict()
        #: The `execute_tool` spans open now, by (session id, tool call id).
        self._tools: dict[tuple[str, str], ToolSpan | RelayedTool] = {}
        #: Relayed calls whose PreToolUse this engine answered (`otel_relay`).
        self._open_calls = OpenCalls()
        self._lock = threading.Lock()

    def _session_context(self, session_id: str | None) -> Any:
        trace = self._trace
        trace_id, root_id = session_ids(session_id)
        flags = trace.TraceFlags(trace.TraceFlags.SAMPLED)
        root = trace.NonRecordingSpan(trace.SpanContext(trace_id, root_id, True, flags))
        return trace.set_span_in_context(root)

    def _seen(self, session_id: str | None, started: int) -> None:
        key = session_id or ""
        with self._lock:
            if key not in self._first_seen:
                self._first_seen[key] = started
                if len(self._first_seen) > MAX_OPEN_SESSIONS:
                    self._first_seen.popitem(last=False)

    @contextmanager
    def tool_call(self, session_id: str | None, tool_name: str, call_id: str) -> Iterator[None]:
        """The `execute_tool` span of one tool call, open while the block runs: the call's
        hook events are dispatched inside it (`otel_tool`)."""
        started = time.time_ns()
        self._seen(session_id, started)
        secrets = self.audit.secrets
        span = self.tracer.start_span(
            redaction.redact(f"execute_tool {tool_name}", secrets),
            context=self._session_context(session_id),
            start_time=started,
            attributes=_present(tool_attributes(tool_name, call_id, session_id), secrets),
        )
        key = (session_id or "", call_id)
        with self._lock:
            self._tools[key] = ToolSpan(span, self._trace.set_span_in_context(span))
        try:
            yield
        finally:
            with self._lock:
                self._tools.pop(key, None)
            span.end()

    @contextmanager
    def relayed_call(self, tool: RelayedTool) -> Iterator[None]:
        """One event of a tool call a relaying host runs (`otel_relay`), dispatched inside
        the block: its dispatch hangs under the call's `execute_tool` span, which is sent
        whole when this event ends the call."""
        tool.started = time.time_ns()
        self._seen(tool.session_id, tool.started)
        trace = self._trace
        trace_id, _ = session_ids(tool.session_id)
        span_id = tool_span_id(tool.session_id, tool.call_id)
        flags = trace.TraceFlags(trace.TraceFlags.SAMPLED)
        stand_in = trace.NonRecordingSpan(trace.SpanContext(trace_id, span_id, True, flags))
        tool.context = trace.set_span_in_context(stand_in)
        with self._lock:
            self._tools[tool.key] = tool
        try:
            yield
        finally:
            self._settle(tool)

    def _settle(self, tool: RelayedTool) -> None:
        """Remember an open call's PreToolUse; send the span of one that ended."""
        with self._lock:
            self._tools.pop(tool.key, None)
            if not tool.ends_call:
                if tool.event is Event.PreToolUse:
                    self._open_calls.opened(tool)
                return
            opened = self._open_calls.ended(tool.key)
        decision, reason = (opened[1], opened[2]) if opened is not None else (None, None)
        error = TOOL_ERROR if tool.failed else None
        attributes = {
            **tool_attributes(tool.tool_name, tool.call_id, tool.session_id),
            "hookwright.decision": tool.decision or decision,
            "hookwright.reason": tool.reason or reason,
            "error.type": error,
        }
        trace_id, root_id = session_ids(tool.session_id)
        secrets = self.audit.secrets
        send_finished(
            self.tracer,
            redaction.redact(f"execute_tool {tool.tool_name}", secrets),
            (trace_id, tool_span_id(tool.session_id, tool.call_id), root_id),
            (started_at(opened, tool), time.time_ns()),
            _present(attributes, secrets),
            error,
        )

    def _tool_of(self, inp: HookInput) -> ToolSpan | RelayedTool | None:
        """The open `execute_tool` span `inp` belongs to, if any."""
        if not self._tools or inp.event not in TOOL_EVENTS:
            return None
        call_id = inp.payload.get("tool_use_id")
        return self._tools.get((inp.session_id or "", call_id)) if call_id else None

    def quiet(self, inp: HookInput, verdict: Verdict) -> None:
        """A dispatch that ran no hook: no span of its own, but the tool call it belongs to
        learns of it, and SessionEnd still ends the session's root."""
        tool = self._tool_of(inp)
        if tool is not None:
            tool.note(inp, verdict, self.audit.secrets)
        if inp.event is Event.SessionEnd:
            self.session_end(inp)

    def dispatch(self, inp: HookInput, verdict: Verdict, started: int) -> None:
        """One dispatch (`started`: its `time.time_ns()`), ending now."""
        ended = time.time_ns()
        started = started or ended
        self._seen(inp.session_id, started)
        secrets = self.audit.secrets
        tool = self._tool_of(inp)
        if tool is not None:
            tool.note(inp, verdict, secrets)
        attributes = _call_attributes(inp)
        decision = verdict.decision.value if verdict.decision else None
        span = self.tracer.start_span(
            f"dispatch {inp.event.value}",
            context=self._session_context(inp.session_id) if tool is None else tool.context,
            start_time=started,
            attributes=_present(
                {
                    **attributes,
                    "hookwright.decision": decision,
                    "hookwright.reason": verdict.reason,
                    "hookwright.hooks": len(verdict.runs),
                    "hookwright.duration_ms": round((ended - started) / 1e6, 3),
                },
                secrets,
            ),
        )
        self._hook_spans(span, verdict.runs, attributes, started, ended)
        span.end(end_time=ended)
        if inp.event is Event.SessionEnd:
            self.session_end(inp)

    def _hook_spans(
        self, parent: Span, runs: list[Run], common: dict[str, Any], start: int, end: int
    ) -> None:
        trace = self._trace
        context = trace.set_span_in_context(parent)
        secrets = self.audit.secrets
        for stage in _stages(runs):
            longest = 0
            for spec, result, duration in stage:
                span = self.tracer.start_span(
                    redaction.redact(f"hook {common['hookwright.event']} {spec.name}", secrets),
                    context=context,
                    start_time=start,
                    attributes=_present(
                        {**common, **_hook_attributes(spec, result, duration)}, secrets
                    ),
                )
                if result is not None and result.status in (Status.error, Status.timeout):
                    text = redaction.redact(result.error or result.status.value, secrets)
                    span.set_status(trace.Status(trace.StatusCode.ERROR, text))
                span.end(end_time=min(start + duration, end))
                longest = max(longest, duration)
            start = min(start + longest, end)

    def session_end(self, inp: HookInput) -> None:
        """The session's root span, from the first dispatch of it this engine saw."""
        ended = time.time_ns()
        with self._lock:
            started = self._first_seen.pop(inp.session_id or "", ended)
        trace_id, root_id = session_ids(inp.session_id)
        attributes = _present({"hookwright.session_id": inp.session_id}, self.audit.secrets)
        ids = (trace_id, root_id, None)
        send_finished(self.tracer, "session", ids, (started, ended), attributes)


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


def spans_from_environment(audit: AuditSink) -> DispatchSpans | None:
    """The spans of an engine whose environment names a collector, else None (and nothing of
    OpenTelemetry imported)."""
    if not names_a_collector():
        return None
    tracer = _environment_tracer()
    return None if tracer is None else DispatchSpans(tracer, audit)
