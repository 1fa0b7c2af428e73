"""A bounded pool of daemon threads for blocking hook code (`Services.workers`).

Timed sync Python hooks and PicoClaw sync builtins run here, never on the event loop's default
executor, so hooks that never return cannot starve the loop's own thread work or each other
beyond this pool. A caller that stops waiting (its hook timed out) *abandons* the job: Python
cannot kill a thread, so the thread keeps running it and is out of service until it returns.
`abandoned` counts such jobs and `stuck` the ones still running. When every thread is stuck,
`run` fails at once with `PoolExhausted` instead of queueing behind hooks that may never
return. Idle threads exit after `idle_seconds`, so a quiet pool holds none.

Whatever a job raises reaches the caller as an ordinary exception: a `BaseException`
(`SystemExit`, `KeyboardInterrupt` raised by the hook, ...) arrives wrapped in `HookCrashed`,
so it can neither stop the event loop nor pass for an interrupt of the host.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from hookwright.core.logs import LazyLogger
from hookwright.core.spec import HookCrashed

if TYPE_CHECKING:
    import asyncio

log = LazyLogger("hookwright.workers")

T = TypeVar("T")

JobState = Literal["queued", "running", "abandoned", "done", "dropped"]

#: Threads of one session's pool: hooks stuck past their timeout hold one each.
DEFAULT_MAX_THREADS = 16


class PoolExhausted(RuntimeError):
    """Every thread of the pool is held by a job whose caller gave up on it."""


@dataclass(slots=True, eq=False)
class _Job:
    """One callable handed to the pool, and where its caller waits for it."""

    func: Callable[..., Any]
    args: tuple[Any, ...]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    name: str
    state: JobState = "queued"
    outcome: tuple[bool, Any] = field(default=(False, None))


class WorkerPool:
    """Runs blocking callables for async callers on at most `max_threads` threads."""

    def __init__(
        self,
        max_threads: int = DEFAULT_MAX_THREADS,
        *,
        name: str = "hookwright-hook",
        idle_seconds: float = 30.0,
    ) -> None:
        if max_threads < 1:
            raise ValueError(f"max_threads must be >= 1, got {max_threads}")
        self.max_threads = max_threads
        self.name = name
        self.idle_seconds = idle_seconds
        self._cond = threading.Condition()
        self._queue: deque[_Job] = deque()
        self._threads = 0
        self._idle = 0
        self._stuck = 0
        self._abandoned = 0
        self._retire = False

    @property
    def abandoned(self) -> int:
        """Jobs whose caller stopped waiting while they ran (ever, in this pool)."""
        return self._abandoned

    @property
    def stuck(self) -> int:
        """Abandoned jobs still running: each holds one thread."""
        return self._stuck

    @property
    def threads(self) -> int:
        return self._threads

    async def run(self, func: Callable[..., T], *args: Any, name: str | None = None) -> T:
        """`func(*args)` on a pool thread. Cancelling the await abandons a running job (or
        drops a queued one). Raises `PoolExhausted` when every thread is stuck."""
        import asyncio  # loaded: this is awaited

        loop = asyncio.get_running_loop()
        job = _Job(func, args, loop, loop.create_future(), name or _name_of(func))
        self._submit(job)
        try:
            return await job.future  # type: ignore[no-any-return]
        except asyncio.CancelledError:
            self._abandon(job)
            raise

    def close(self) -> None:
        """Let idle threads exit now (queued jobs still run; a later `run` starts threads
        again). Stuck threads cannot be ended: they are daemon threads."""
        with self._cond:
            self._retire = True
            self._cond.notify_all()

    def _submit(self, job: _Job) -> None:
        with self._cond:
            if self._stuck >= self.max_threads:
                raise PoolExhausted(
                    f"no {self.name} thread is free: all {self.max_threads} are held by hooks "
                    f"that timed out and never returned ({self._abandoned} abandoned so far)"
                )
            self._retire = False
            self._queue.append(job)
            if self._idle < len(self._queue) and self._threads < self.max_threads:
                self._threads += 1
                threading.Thread(target=self._work, name=self.name, daemon=True).start()
            else:
                self._cond.notify()

    def _abandon(self, job: _Job) -> None:
        with self._cond:
            if job.state == "queued":
                job.state = "dropped"
                self._queue.remove(job)
                return
            if job.state != "running":
                return
            job.state = "abandoned"
            self._stuck += 1
            self._abandoned += 1
            stuck = self._stuck
        log.warning(
            "hook %s did not return in time; its thread is abandoned (%d of %d %s threads stuck)",
            job.name,
            stuck,
            self.max_threads,
            self.name,
        )

    def _next_job(self) -> _Job | None:
        with self._cond:
            self._idle += 1
            try:
                while not self._queue:
                    idle_over = self._retire or not self._cond.wait(self.idle_seconds)
                    if idle_over and not self._queue:
                        self._threads -= 1
                        return None
            finally:
                self._idle -= 1
            job = self._queue.popleft()
            job.state = "running"
            return job

    def _work(self) -> None:
        while (job := self._next_job()) is not None:
            job.outcome = _call(job)
            with self._cond:
                abandoned = job.state == "abandoned"
                job.state = "done"
                if abandoned:
                    self._stuck -= 1
            if abandoned:
                log.warning("abandoned hook %s returned; its thread is back", job.name)
            else:
                _deliver(job)


def _call(job: _Job) -> tuple[bool, Any]:
    try:
        return True, job.func(*job.args)
    except Exception as exc:
        return False, exc
    except BaseException as exc:
        text = str(exc)
        crashed = HookCrashed(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)
        crashed.__cause__ = exc
        return False, crashed


def _deliver(job: _Job) -> None:
    ok, value = job.outcome
    future = job.future

    def settle() -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    with contextlib.suppress(RuntimeError):
        job.loop.call_soon_threadsafe(settle)


def _name_of(func: Callable[..., Any]) -> str:
    return str(getattr(func, "__qualname__", None) or repr(func))


__all__ = ["DEFAULT_MAX_THREADS", "HookCrashed", "PoolExhausted", "WorkerPool"]
