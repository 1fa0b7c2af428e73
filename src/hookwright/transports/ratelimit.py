"""Rate-limited warnings: a hook that floods stderr or stdout with junk gets a few log lines,
then one summary per interval with the count of the lines held back, not one line each.

The summary comes when the interval that held lines back is over (a timer on the running
event loop; without one, at the next warning or at `flush`), so a burst that stops is counted
within seconds, not when the process ends. When stderr lines were held back it also says
where to read them: a call's stderr travels with its result, into its audit record."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

#: Warnings logged at once per interval before the rest are counted instead.
BURST = 5
#: Seconds per interval.
INTERVAL = 10.0
#: Where a hook's stderr lines, shown or held back, can be read.
EVERY_STDERR_LINE = (
    "each call's stderr (its last 2000 characters) is in its audit record: "
    "`hookwright audit --session ID --json` (stderr_tail)"
)


class RateLimitedLog:
    """Warnings about one hook: the first `burst` of each `interval` are logged, the rest
    counted and reported by one summary line (when the interval is over, or at `flush`)."""

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
        #: Of the `suppressed`, how many were the hook's stderr lines.
        self.suppressed_stderr = 0
        self._timer: asyncio.TimerHandle | None = None

    def warning(self, message: str, *args: object) -> None:
        self._log(False, message, args)

    def stderr(self, message: str, *args: object) -> None:
        """A warning that shows one of the hook's stderr lines."""
        self._log(True, message, args)

    def _log(self, stderr: bool, message: str, args: tuple[object, ...]) -> None:
        now = self.clock()
        if now - self.window_start >= self.interval:
            self._new_window(now)
        if self.logged < self.burst:
            self.logged += 1
            self.logger.warning(message, *args, extra={"hook": self.hook})
            return
        self.suppressed += 1
        self.suppressed_stderr += stderr
        if self._timer is None:
            self._summary_at_window_end(now)

    def _new_window(self, now: float) -> None:
        self.flush()
        self.window_start = now
        self.logged = 0

    def _summary_at_window_end(self, now: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop to wake: the next warning or `flush` says it
        delay = max(0.0, self.window_start + self.interval - now)
        self._timer = loop.call_later(delay, self._window_over)

    def _window_over(self) -> None:
        self._timer = None
        self._new_window(self.clock())

    def flush(self) -> None:
        """Log how many warnings were held back, if any."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self.suppressed:
            return
        where = f"; {EVERY_STDERR_LINE}" if self.suppressed_stderr else ""
        self.logger.warning(
            "hook %s: %d more %s like the above suppressed%s",
            self.hook,
            self.suppressed,
            "warning" if self.suppressed == 1 else "warnings",
            where,
            extra={"hook": self.hook},
        )
        self.suppressed = 0
        self.suppressed_stderr = 0
