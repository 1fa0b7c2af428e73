"""Fixtures of the leftover tests: hookwright as the child subreaper, the pids a test
detached (killed if a hunt missed them), and a warm Python runner."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from hookwright.transports import adoption
from hookwright.transports.warm import WarmPython
from procs import running


@pytest.fixture
def subreaper() -> Iterator[None]:
    """hookwright's command line is the child subreaper; these tests are too, while they run."""
    assert adoption.enable_subreaper()
    yield
    adoption.enable_subreaper(False)


@pytest.fixture
def detached() -> Iterator[list[int]]:
    """The pids a test detached: killed at the end if the hunt missed them."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def warm() -> Iterator[WarmPython]:
    runner = WarmPython(enabled=True)
    yield runner
    runner.close()
