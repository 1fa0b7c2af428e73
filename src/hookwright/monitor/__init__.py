"""What watches a dispatch: the audit, OpenTelemetry, the debug trace."""

import os

#: The variables that name an OpenTelemetry collector (`otel.spans_from_environment`).
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def names_a_collector() -> bool:
    """Whether the environment names a collector: without one, `monitor.otel` is not loaded
    (an engine then makes no spans)."""
    return any(os.environ.get(name) for name in ENDPOINT_VARIABLES)
