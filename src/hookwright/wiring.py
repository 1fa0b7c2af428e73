"""The composition root: what a bare `HookEngine()` and `Services()` are built with.

The engine knows its runners and its audit by protocols only (`transports.base`,
`engine.monitoring`); this module names the concrete ones: the session's `IoLoop`,
`WorkerPool` (made when blocking hook code first runs, `WorkersOnFirstUse`) and `WarmPython`
(made when its first hook is launched, `WarmOnFirstUse`), and
the default monitor (`monitor.watch.EngineMonitor`: the
debug trace, the OpenTelemetry spans, the audit at `default_audit_path()`). The package root
calls `install()` on import (`hookwright/__init__.py`), which Python runs before any module of
the package, so every engine gets these however it is imported. The imports wait until an
engine is built: `hookwright --version` and the CLI's light commands load none of them.
"""

from __future__ import annotations

from hookwright.engine import defaults

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, TypeVar

    from hookwright.engine.defaults import Explain
    from hookwright.engine.monitoring import AuditedMonitor, AuditTrail
    from hookwright.transports.ioloop import IoLoop
    from hookwright.transports.warm import WarmPython
    from hookwright.transports.warm_process import WarmProcess
    from hookwright.transports.workers import WorkerPool

    T = TypeVar("T")


class Defaults:
    """The shipped `engine.defaults.EngineDefaults`."""

    def io(self) -> IoLoop:
        from hookwright.transports.ioloop import IoLoop

        return IoLoop()

    def workers(self) -> WorkersOnFirstUse:
        return WorkersOnFirstUse()

    def warm_python(self) -> WarmOnFirstUse:
        return WarmOnFirstUse()

    def watch(
        self, audit_path: Path | str | None, explain: Explain
    ) -> tuple[AuditTrail, AuditedMonitor]:
        from pathlib import Path

        from hookwright.monitor import names_a_collector
        from hookwright.monitor.audit import AuditLog, default_audit_path
        from hookwright.monitor.watch import EngineMonitor

        path = default_audit_path() if audit_path is defaults.DEFAULT_AUDIT else audit_path
        audit = AuditLog(Path(path) if path is not None else None)
        if not names_a_collector():
            return audit, EngineMonitor(audit, None, explain)
        from hookwright.monitor.otel import spans_from_environment

        return audit, EngineMonitor(audit, spans_from_environment(audit), explain)


class WorkersOnFirstUse:
    """A session's `WorkerPool`, made when blocking hook code first runs on it (a sync hook
    with a timeout, a PicoClaw builtin): a process answering one event whose hooks all run
    inline never loads the pool's module. Its counters are 0 before first use; closing it
    before then has nothing to stop (a pool's `close` is not final either)."""

    def __init__(self) -> None:
        import threading  # here: `import hookwright` alone loads no thread machinery

        self._pool: WorkerPool | None = None
        self._lock = threading.Lock()

    def _made(self) -> WorkerPool:
        with self._lock:
            if self._pool is None:
                from hookwright.transports.workers import WorkerPool

                self._pool = WorkerPool()
            return self._pool

    @property
    def abandoned(self) -> int:
        """Jobs whose caller stopped waiting while they ran."""
        return self._pool.abandoned if self._pool is not None else 0

    @property
    def stuck(self) -> int:
        """Abandoned jobs still running."""
        return self._pool.stuck if self._pool is not None else 0

    @property
    def threads(self) -> int:
        return self._pool.threads if self._pool is not None else 0

    async def run(self, func: Callable[..., T], *args: Any, name: str | None = None) -> T:
        return await self._made().run(func, *args, name=name)

    def close(self) -> None:
        pool = self._pool
        if pool is not None:
            pool.close()


class WarmOnFirstUse:
    """A session's `WarmPython`, made when its first Python command hook is launched: the warm
    runner's module and what it imports (sockets, `subprocess`, the invocation checks) are
    most of what a process answering one event with in-process hooks would load for nothing.
    Closed before first use, it is made closed (it forks nothing)."""

    def __init__(self) -> None:
        import threading  # here: `import hookwright` alone loads no thread machinery

        self._runner: WarmPython | None = None
        self._closed = False
        self._lock = threading.Lock()

    def _made(self) -> WarmPython:
        with self._lock:
            if self._runner is None:
                from hookwright.transports.warm import WarmPython

                self._runner = WarmPython()
                if self._closed:
                    self._runner.close()
            return self._runner

    @property
    def forked(self) -> int:
        """Runs forked warm (0 before the first launch)."""
        return self._runner.forked if self._runner is not None else 0

    @property
    def declined(self) -> int:
        """Runs left to spawning after a warm attempt."""
        return self._runner.declined if self._runner is not None else 0

    async def launch(
        self,
        args: list[str],
        *,
        shell: bool,
        env: dict[str, str],
        cwd: str | Path | None,
        stdin_data: bytes = b"",
    ) -> WarmProcess | None:
        from hookwright.transports.warm_switch import switched_on

        if not switched_on():
            return None  # spawned, and the runner's modules never loaded
        try:
            runner = self._made()
        except ImportError as exc:  # e.g. a process that gave up the rights to read them
            from hookwright.core.logs import LazyLogger

            LazyLogger("hookwright.transports.warm").warning(
                "warm Python runner cannot load (%s); spawning", exc
            )
            return None
        return await runner.launch(args, shell=shell, env=env, cwd=cwd, stdin_data=stdin_data)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            runner = self._runner
        if runner is not None:
            runner.close()


def install() -> None:
    defaults.install(Defaults())
