"""`hookwright ARGS...` in this process with its OpenTelemetry spans kept by the SDK's
in-memory exporter: ``python otel_run.py OUT MODE ARGS...``. At exit, OUT gets one JSON object:
the finished spans (name, ids, parent id, attributes) and which modules of the SDK or an
exporter (what the `otel` extra installs) were imported. MODE ``memory`` presets the
process's tracer (what `OTEL_EXPORTER_OTLP_*` would build) to the in-memory one; ``plain``
changes nothing; ``no-extra`` makes the SDK and the exporters impossible to import, as
without the extra."""

from __future__ import annotations

import atexit
import importlib.abc
import json
import sys
from typing import Any

OUT, MODE, ARGS = sys.argv[1], sys.argv[2], sys.argv[3:]
#: What the `otel` extra adds (the API package comes with the MCP client anyway).
EXTRA = ("opentelemetry.sdk", "opentelemetry.exporter")
collect: list[Any] = []


class _NoOtel(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name.startswith(EXTRA):
            raise ImportError(f"No module named {name!r}")
        return None


def _span(span: Any) -> dict[str, Any]:
    return {
        "name": span.name,
        "trace_id": span.context.trace_id,
        "span_id": span.context.span_id,
        "parent_id": span.parent.span_id if span.parent is not None else None,
        "start": span.start_time,
        "end": span.end_time,
        "status": span.status.status_code.name,
        "attributes": dict(span.attributes or {}),
    }


def _dump() -> None:
    finished = [span for source in collect for span in source()]
    imported = sorted(m for m in sys.modules if m.startswith(EXTRA))
    with open(OUT, "w", encoding="utf-8") as fh:
        json.dump({"spans": [_span(s) for s in finished], "otel_modules": imported}, fh)


if MODE == "memory":
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    import hookwright.monitor.otel

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    hookwright.monitor.otel._tracer = provider.get_tracer("hookwright")
    collect.append(exporter.get_finished_spans)
elif MODE == "no-extra":
    sys.meta_path.insert(0, _NoOtel())
atexit.register(_dump)
sys.argv = ["hookwright", *ARGS]
from hookwright.cli import main  # noqa: E402

main()
