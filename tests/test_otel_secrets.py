"""No secret reaches the OpenTelemetry collector: OpenHarness `${secrets.NAME}` values placed
in a hook's name, command, environment, answer and error are absent from every span's name,
attributes, status and events (the in-memory exporter stands for the collector)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hookwright import Event, HookEngine, HookInput
from hookwright.dialects.openharness import install
from hookwright.monitor.otel import DispatchSpans
from hookwright.monitor.watch import EngineMonitor

SECRET = 'otel-tok"en\\5e1d'
#: A hook name allows no quote: a second secret for it.
NAME_SECRET = "n4me-Secret-77"

ANSWERS = """\
name: "answers-${secrets.NAME_TOKEN}"
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: >-
    echo '{"decision": "block", "reason": "refused"}'; printf '%s' "$TOKEN" >&2
  environment: {TOKEN: "${secrets.API_TOKEN}"}
  timeout_seconds: 10
"""

FAILS = """\
name: fails
events: [before_tool_dispatch]
matcher: "Bash"
handler:
  type: command
  command: "printf 'bad token %s' \\"$TOKEN\\" >&2; exit 3"
  environment: {TOKEN: "${secrets.API_TOKEN}"}
  timeout_seconds: 10
"""


def _strings(span: ReadableSpan) -> list[str]:
    """Every text of the span a collector receives."""
    texts = [span.name, span.status.description or ""]
    texts += [json.dumps(dict(span.attributes or {}))]
    for event in span.events:
        texts += [event.name, json.dumps(dict(event.attributes or {}))]
    return texts


def test_no_secret_in_any_span_name_attribute_status_or_event(
    tmp_path: Path, isolated_home: Path
) -> None:
    hooks = tmp_path / "ws" / ".openharness" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "answers.yaml").write_text(ANSWERS)
    (hooks / "0-fails.yaml").write_text(FAILS)  # first: the other one blocks the chain
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    engine = HookEngine(audit_path=None)
    engine.monitor = EngineMonitor(
        engine.audit, DispatchSpans(provider.get_tracer("test"), engine.audit)
    )
    loaded = install(
        engine,
        tmp_path / "ws",
        home=isolated_home,
        environ={"API_TOKEN": SECRET, "NAME_TOKEN": NAME_SECRET},
    )
    assert len(loaded.specs) == 2, loaded.diagnostics
    session = f"s-{SECRET}"
    payload: dict[str, Any] = {
        "tool_name": "Bash",
        "tool_input": {"command": f"curl -H 'token: {SECRET}'"},
        "tool_use_id": f"use-{SECRET}",
    }
    try:
        engine.dispatch_sync(HookInput(Event.PreToolUse, session_id=session, payload=payload))
        engine.dispatch_sync(HookInput(Event.SessionEnd, session_id=session))
    finally:
        engine.close()
    spans = exporter.get_finished_spans()
    names = sorted(span.name for span in spans)
    assert names == [
        "dispatch PreToolUse",
        "hook PreToolUse answers-***",
        "hook PreToolUse fails",
        "session",
    ]
    failed = next(span for span in spans if span.name == "hook PreToolUse fails")
    assert (failed.attributes or {})["hookwright.error"].endswith("bad token ***")
    assert (failed.status.description or "").endswith("bad token ***")
    for span in spans:
        for text in _strings(span):
            for secret in (SECRET, NAME_SECRET):
                assert secret not in text
                assert json.dumps(secret)[1:-1] not in text
