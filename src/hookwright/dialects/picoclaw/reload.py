"""Re-initialising PicoClaw hook processes when their config changes, as PicoClaw re-mounts its
hooks on a config reload.

`ConfigWatch` polls the config files a session loaded (every `WATCH_INTERVAL` seconds, on the
session's I/O loop; a session that started without any PicoClaw config file watches nothing).
A file whose fingerprint changed (`hookwright.config.fingerprint`: a swap for a file of the same
size and mtime, or a retargeted link, counts) is read again, and when its bytes differ it reads the
files again, trusting what the session trusted, and brings the processes in line: a process whose
settings changed (its entry, the protocol, the timeouts, the isolation settings) is stopped and
started again, a new one starts, a removed one stops (so does one whose entry became invalid), the
others keep running untouched. A file that cannot be read at all (half written, not JSON) fails the
reload, which then changes nothing. Builtins are code, not config: they are not reloaded. Each
reload is observed as ``gateway.reload.started`` and then ``gateway.reload.completed`` or
``gateway.reload.failed`` (with `duration_ms`, and `error` for a failure), the events PicoClaw's
gateway publishes around its reload."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookwright.config.fingerprint import Fingerprint, fingerprint
from hookwright.config.loading import LoadContext
from hookwright.config.trust import TrustPolicy
from hookwright.core.events import Event, HookInput
from hookwright.core.results import HookResult
from hookwright.core.run_context import RunContext
from hookwright.core.spec import HookSpec
from hookwright.dialects.picoclaw.handler import target_of
from hookwright.dialects.picoclaw.hook_process import ProcessTarget
from hookwright.dialects.picoclaw.loader import DIALECT, PicoClawSpecData, discover
from hookwright.dialects.picoclaw.observe import attach_observers
from hookwright.engine.kernel import HookEngine

log = logging.getLogger("hookwright.picoclaw")

WATCH_INTERVAL = 1.0


class ReloadError(RuntimeError):
    """A config file cannot be read (half written, not JSON): the reload changes nothing."""


@dataclass(frozen=True, slots=True)
class ReloadReport:
    """What a reload did, by process name."""

    restarted: tuple[str, ...] = ()
    started: tuple[str, ...] = ()
    stopped: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def watched_paths(ctx: LoadContext) -> list[Path]:
    """Every file a PicoClaw config can come from, whether it exists now or not."""
    paths = [ctx.home / ".picoclaw" / "config.json", ctx.project_dir / ".picoclaw" / "config.json"]
    paths += [Path(p) for p in ctx.config_files if Path(p).suffix.lower() == ".json"]
    return list(dict.fromkeys(paths))


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True, slots=True)
class _Seen:
    """A watched file as last looked at: its fingerprint and the digest of its bytes."""

    fingerprint: Fingerprint | None
    digest: str | None


def _look(path: Path, before: _Seen | None = None) -> _Seen:
    """`path` now; its bytes are read again only when its fingerprint changed (taken first,
    so bytes written after it change the next fingerprint)."""
    now = fingerprint(path)
    if before is not None and now == before.fingerprint:
        return before
    return _Seen(now, _digest(path))


def process_specs(specs: Iterable[HookSpec]) -> dict[str, list[HookSpec]]:
    """PicoClaw process specs by process name, in registration order."""
    found: dict[str, list[HookSpec]] = {}
    for spec in specs:
        if isinstance(target_of(spec.handler), ProcessTarget):
            found.setdefault(spec.name, []).append(spec)
    return found


def _fingerprint(specs: list[HookSpec] | None) -> str | None:
    data = specs[0].dialect_data if specs else None
    return data.fingerprint if isinstance(data, PicoClawSpecData) else None


def _target(specs: list[HookSpec]) -> ProcessTarget:
    target = target_of(specs[0].handler)
    assert isinstance(target, ProcessTarget)
    return target


class ConfigWatch:
    """Watches a session's PicoClaw config files and reloads its processes on a change."""

    def __init__(
        self,
        engine: HookEngine,
        ctx: LoadContext,
        trust: TrustPolicy,
        interval: float = WATCH_INTERVAL,
    ) -> None:
        self.engine = engine
        self.ctx = ctx
        self.trust = trust
        self.interval = interval
        self.paths = watched_paths(ctx)
        self._seen = [_look(p) for p in self.paths]
        self._poller: asyncio.Future[None] | concurrent.futures.Future[None] | None = None

    def start(self) -> bool:
        """Poll on the engine's I/O loop until the engine closes (the watch is registered as
        a spec that is never dispatched, so `engine.aclose()` stops it). Without any PicoClaw
        config file there is nothing to watch: False, and no watch."""
        if not any(seen.digest is not None for seen in self._seen):
            return False
        loop = self.engine.services.io.loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._poller = loop.create_task(self._poll())
        else:
            self._poller = asyncio.run_coroutine_threadsafe(self._poll(), loop)
        self.engine.register(
            HookSpec(
                name="picoclaw-config-watch",
                event=Event.Notification,
                handler=_WatchCarrier(self),
                source="in-process",
                dialect=DIALECT,
                enabled=False,
                description="PicoClaw config watch (never dispatched)",
            )
        )
        return True

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.check()
            except ReloadError as exc:
                log.warning("PicoClaw config reload failed, hooks unchanged: %s", exc)
            except Exception:
                log.exception("PicoClaw config reload failed")

    async def check(self) -> ReloadReport | None:
        """Reload when the bytes of a watched file changed since the last check; None when
        none did."""
        now = [_look(p, seen) for p, seen in zip(self.paths, self._seen, strict=True)]
        before, self._seen = self._seen, now
        if [seen.digest for seen in now] == [seen.digest for seen in before]:
            return None
        return await self.reload()

    async def reload(self) -> ReloadReport:
        started = time.monotonic()
        self._publish("gateway.reload.started", started)
        try:
            report = await self._apply()
        except Exception as exc:
            self._publish("gateway.reload.failed", started, str(exc) or type(exc).__name__)
            raise
        self._publish("gateway.reload.completed", started)
        for problem in report.problems:
            log.warning("PicoClaw config reload: %s", problem)
        return report

    def _publish(self, kind: str, started: float, error: str | None = None) -> None:
        payload: dict[str, Any] = {}
        elapsed = int((time.monotonic() - started) * 1000)
        if elapsed > 0:
            payload["duration_ms"] = elapsed
        if error is not None:
            payload["error"] = error
        self.engine.publish(
            kind,
            {
                **payload,
                "source": {"component": "gateway"},
                "attrs": dict(payload),
                "severity": "error" if error is not None else "info",
            },
        )

    def _fresh(self) -> tuple[dict[str, list[HookSpec]], list[str]]:
        """The process specs the trusted files configure now (nothing started yet)."""
        discovery = discover(self.ctx)
        unreadable = [str(d) for d in discovery.diagnostics if not d.path]
        if unreadable:
            raise ReloadError("; ".join(unreadable))
        specs: list[HookSpec] = []
        problems = [str(d) for d in discovery.diagnostics if d.severity == "error"]
        for hook in discovery.hooks:
            if ":hooks.processes." not in hook.origin or not self.trust.trusts(hook.trust_root):
                continue
            bound = hook.binder(self.trust)
            specs += bound.specs
            problems += [str(d) for d in bound.diagnostics if d.severity == "error"]
        return process_specs(specs), list(dict.fromkeys(problems))

    async def _apply(self) -> ReloadReport:
        engine = self.engine
        fresh, problems = self._fresh()
        current = process_specs(engine.hooks())
        changed = {
            name
            for name in fresh.keys() | current.keys()
            if _fingerprint(fresh.get(name)) != _fingerprint(current.get(name))
        }
        if not changed:
            return ReloadReport(problems=tuple(problems))
        # Observers see the reload start before the processes that stop go away.
        await asyncio.to_thread(engine.observers.drain, 2.0)
        for specs in current.values():
            for spec in specs:
                engine.unregister(spec)
        for name, specs in fresh.items():
            for spec in current[name] if name not in changed else specs:
                engine.register(spec)
        old = [_target(current[name]) for name in changed if name in current]
        for target in old:
            if target.observer is not None:
                engine.observers.remove(target.observer)
        await asyncio.gather(*(target.aclose() for target in old), return_exceptions=True)
        new = [_target(fresh[name]) for name in sorted(changed) if name in fresh]
        problems += await self._start(new)
        return ReloadReport(
            restarted=tuple(sorted(changed & current.keys() & fresh.keys())),
            started=tuple(sorted(changed & (fresh.keys() - current.keys()))),
            stopped=tuple(sorted(changed & (current.keys() - fresh.keys()))),
            problems=tuple(problems),
        )

    async def _start(self, targets: list[ProcessTarget]) -> list[str]:
        io = self.engine.services.io
        for target in targets:
            target.use_io(io)
        attach_observers(self.engine, targets)
        results = await asyncio.gather(*(t.start() for t in targets), return_exceptions=True)
        return [
            f"PicoClaw hook process {target.name}: cannot start: {result}"
            for target, result in zip(targets, results, strict=True)
            if isinstance(result, BaseException)
        ]

    async def aclose(self) -> None:
        poller, self._poller = self._poller, None
        if poller is None:
            return
        poller.cancel()
        if isinstance(poller, concurrent.futures.Future):
            return
        await asyncio.gather(poller, return_exceptions=True)


class _WatchCarrier:
    """Holds the watch so the engine stops it with the other hooks; never dispatched."""

    def __init__(self, watch: ConfigWatch) -> None:
        self.watch = watch

    async def __call__(self, inp: HookInput, ctx: RunContext) -> HookResult | None:
        return None

    async def aclose(self) -> None:
        await self.watch.aclose()


__all__ = ["WATCH_INTERVAL", "ConfigWatch", "ReloadError", "ReloadReport", "watched_paths"]
