"""Time in tests: the one wall-clock upper bound tests may assert, and a clock moved by hand.

A test that proves a timeout or a kill cut something short asserts that it ended within
`GENEROUS_BOUND`, while the thing cut short would take far longer (`SLOW`) if the cut did not
work. Nothing tighter is asserted: a loaded 2-core machine stalls for a second now and then.
A signalled process is gone a moment after the signal, not at once: a test checks that with
`eventually`. Where the length of a wait is the point (a restart backoff), the code under test
reads a `FakeClock` and the test moves it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: The tightest wall-clock upper bound a test asserts, in seconds.
GENEROUS_BOUND = 5.0

#: How long a hook, endpoint or process that should be cut short takes when it is not, in seconds.
SLOW = 60.0


class FakeClock:
    """A monotonic clock that stands still until `advance` moves it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def eventually(predicate: Callable[[], bool], within: float = GENEROUS_BOUND) -> bool:
    """Whether `predicate` holds at some point in the next `within` seconds (polled)."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
