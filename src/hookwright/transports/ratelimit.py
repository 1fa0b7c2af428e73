"""Rate-limited warnings: a hook that floods stderr or stdout with junk gets a few log lines,
then one summary per interval with the count of the lines held back, not one line each."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

#: Warnings logged at once per interval before the rest are counted instead.
BURST = 5
#: Seconds per interval.
INTERVAL = 10.0


class RateLimitedLog:
    """Warnings about one hook: the first `burst` of each `interval` are logged, the rest
    counted and reported by one summary line (at the next warning after the interval, or at
    `flush`)."""

    def __init__(
        self,
        logger: logging.Logger,
        hook: str,
        *,
        burst: int = BURST,
        interval: float = INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.hook = hook
        self.burst = burst
        self.interval = interval
        self.clock = clock
        self.window_start = clock()
        self.logged = 0
        self.suppressed = 0

    def warning(self, message: str, *args: object) -> None:
        now = self.clock()
        if now - self.window_start >= self.interval:
            self.flush()
            self.window_start = now
            self.logged = 0
        if self.logged < self.burst:
            self.logged += 1
            self.logger.warning(message, *args, extra={"hook": self.hook})
        else:
            self.suppressed += 1

    def flush(self) -> None:
        """Log how many warnings were held back, if any."""
        if self.suppressed:
            self.logger.warning(
                "hook %s: %d more warning(s) like the above suppressed",
                self.hook,
                self.suppressed,
                extra={"hook": self.hook},
            )
            self.suppressed = 0
