"""Hook runs as OpenTelemetry spans, through the SDK's in-memory exporter: what a collector
would receive."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hookwright import Event, HookEngine, HookInput, HookResult, add_context, deny
from hookwright.otel import attach_from_environment, session_ids, span_audit


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def traced_engine(exporter: InMemorySpanExporter) -> HookEngine:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    engine = HookEngine(audit_path=None)
    engine.add_audit_callback(span_audit(provider.get_tracer("test")))
    return engine


def test_each_hook_run_is_a_span_of_the_sessions_trace(exporter: InMemorySpanExporter) -> None:
    engine = traced_engine(exporter)

    @engine.on(Event.PreToolUse, matcher="Bash", name="no-rm")
    def no_rm(inp: HookInput) -> HookResult:
        return deny("no rm")

    @engine.on(Event.PreToolUse, name="note")
    def note(inp: HookInput) -> HookResult:
        return add_context("careful")

    inp = HookInput(
        Event.PreToolUse,
        session_id="sess-1",
        turn_id="turn-1",
        payload={"tool_name": "Bash", "tool_input": {"command": "rm -rf x"}, "tool_use_id": "t1"},
    )
    engine.dispatch_sync(inp)
    engine.audit.flush()
    spans = {span.attributes["hookwright.hook"]: span for span in exporter.get_finished_spans()}
    assert set(spans) == {"no-rm", "note"}
    denied = spans["no-rm"].attributes
    assert denied["hookwright.event"] == "PreToolUse"
    assert denied["hookwright.decision"] == "deny"
    assert denied["hookwright.reason"] == "no rm"
    assert denied["hookwright.tool_name"] == "Bash"
    assert denied["hookwright.session_id"] == "sess-1"
    assert denied["hookwright.turn_id"] == "turn-1"
    assert denied["hookwright.dialect"] == "python"
    assert "hookwright.duration_ms" in denied
    trace_id, parent_id = session_ids("sess-1")
    for span in spans.values():
        assert span.context.trace_id == trace_id
        assert span.parent is not None and span.parent.span_id == parent_id


def test_secrets_never_reach_the_collector(exporter: InMemorySpanExporter) -> None:
    engine = traced_engine(exporter)
    engine.audit.add_secret("hunter2")

    @engine.on(Event.Stop, name="leaky")
    def leaky(inp: HookInput) -> HookResult:
        return HookResult(decision=None, reason="token hunter2 used")

    engine.dispatch_sync(HookInput(Event.Stop, session_id="s"))
    engine.audit.flush()
    [span] = exporter.get_finished_spans()
    assert span.attributes["hookwright.reason"] == "token *** used"


def test_no_collector_without_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    engine = HookEngine(audit_path=None)
    assert not attach_from_environment(engine)
    assert not engine.audit.active
