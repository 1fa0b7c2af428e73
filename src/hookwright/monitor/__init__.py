"""What watches a dispatch: the audit, OpenTelemetry, the debug trace."""
