"""The fuzz run's total: how many generated inputs reached a property, and in how long."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from .budget import RUN_COUNTS

_started = time.monotonic()


@pytest.fixture(autouse=True)
def quiet_warnings() -> Iterator[None]:
    """Hostile input makes the decoders warn on nearly every example; thousands of captured
    records per property would cost more than the properties."""
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    total = sum(RUN_COUNTS.values())
    if not total:
        return
    elapsed = time.monotonic() - _started
    terminalreporter.write_sep("-", "fuzz inputs")
    for name, count in sorted(RUN_COUNTS.items()):
        terminalreporter.write_line(f"{count:>9,}  {name}")
    terminalreporter.write_line(
        f"{total:>9,}  generated inputs in {len(RUN_COUNTS)} properties "
        f"({elapsed:.0f} s of this run)"
    )
