"""Observers: receive runtime events and never block the host.

`publish` puts the event on a bounded queue and returns at once; when the queue is full the
event is dropped and counted. One worker thread delivers events to observers in order, each
call bounded by `timeout` for async observers. The events and the observers' records
(`hookwright.engine.observed`) load with the first observer.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import threading
import time
from collections.abc import Callable, Collection

from hookwright.core.logs import LazyLogger

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    import queue
    from typing import Any, TypeAlias

    from hookwright.engine.observed import Observer, RuntimeEvent

log = LazyLogger("hookwright.engine.observers")

ObserverFunc: TypeAlias = "Callable[[RuntimeEvent], Any]"


_STOP = object()


class ObserverBus:
    def __init__(self, *, capacity: int = 1024, timeout: float = 0.5) -> None:
        self.capacity = capacity
        self.timeout = timeout
        self.dropped = 0
        self.delivered = 0
        self.failed = 0
        self._observers: list[Observer] = []
        #: Made with the first observer: an engine without any (most) loads no `queue`.
        self._queue: queue.Queue[Any] | None = None
        #: `RuntimeEvent`, taken with the first observer (as the queue is made).
        self._event: type[RuntimeEvent] | None = None
        self._seq = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def add(
        self,
        func: ObserverFunc,
        kinds: Collection[str] | None = None,
        name: str | None = None,
    ) -> None:
        """Observe `kinds` (None, or one of "*", "all", "": every kind)."""
        wanted = None if kinds is None or {"*", "all", ""} & set(kinds) else frozenset(kinds)
        is_async = inspect.iscoroutinefunction(func)
        label = name or str(getattr(func, "__qualname__", repr(func)))
        if self._queue is None:
            import queue

            self._queue = queue.Queue(maxsize=self.capacity)
        from hookwright.engine.observed import Observer, RuntimeEvent

        self._event = RuntimeEvent
        self._observers.append(Observer(func, wanted, is_async, label))

    def remove(self, func: ObserverFunc) -> None:
        self._observers = [o for o in self._observers if o.func is not func]

    @property
    def active(self) -> bool:
        return bool(self._observers)

    def publish(self, kind: str, payload: dict[str, Any] | None = None) -> bool:
        """Queue an event for the observers; False when it was dropped."""
        events, made = self._queue, self._event
        if not self._observers or events is None or made is None:
            return False
        import queue

        event = made(kind, payload or {}, time.time(), next(self._seq))
        try:
            events.put_nowait(event)
        except queue.Full:
            self.dropped += 1
            return False
        if self._thread is None:
            self._start()
        return True

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="hookwright-observers", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        import asyncio

        events = self._queue
        assert events is not None  # the thread starts with the first published event
        loop = asyncio.new_event_loop()
        try:
            while True:
                item = events.get()
                try:
                    if item is _STOP:
                        return
                    self._deliver(loop, item)
                finally:
                    events.task_done()
        finally:
            loop.close()

    def _deliver(self, loop: asyncio.AbstractEventLoop, event: RuntimeEvent) -> None:
        for observer in list(self._observers):
            if observer.kinds is not None and event.kind not in observer.kinds:
                continue
            try:
                if observer.is_async:
                    from asyncio import wait_for

                    loop.run_until_complete(wait_for(observer.func(event), self.timeout))
                else:
                    observer.func(event)
                self.delivered += 1
            except Exception as exc:
                self.failed += 1
                log.warning("observer %s failed on %s: %s", observer.name, event.kind, exc)

    def drain(self, timeout: float = 5.0) -> None:
        """Wait until every queued event has been delivered (tests, shutdown)."""
        events = self._queue
        if self._thread is None or events is None:
            return
        deadline = time.monotonic() + timeout
        while events.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.002)

    def close(self) -> None:
        thread, events = self._thread, self._queue
        if thread is None or events is None:
            return
        import queue

        self.drain(timeout=2.0)
        with contextlib.suppress(queue.Full):
            events.put(_STOP, timeout=1.0)
        thread.join(timeout=2.0)
        self._thread = None
