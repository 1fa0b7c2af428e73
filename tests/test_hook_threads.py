"""Timed sync hooks on the session's bounded worker pool, and hooks raising BaseException.

Hung hooks here wait on an event the test sets at the end, so every thread they hold returns.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from hookwright import Event, HookEngine, HookInput, Status, deny
from hookwright.engine.services import Services
from hookwright.transports.workers import WorkerPool

#: Generous bound for anything that should take well under a second.
WAIT = 30.0


class Hung:
    """Sync hooks that block until `release()`; counts how many are inside."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.entered = 0
        self._lock = threading.Lock()

    def __call__(self, inp: HookInput) -> None:
        with self._lock:
            self.entered += 1
        self.gate.wait(WAIT)

    def release(self, engine: HookEngine) -> None:
        self.gate.set()
        deadline = time.monotonic() + WAIT
        while engine.services.workers.stuck and time.monotonic() < deadline:
            time.sleep(0.01)
        assert engine.services.workers.stuck == 0


@pytest.fixture
def engine() -> Iterator[HookEngine]:
    eng = HookEngine(audit_path=None)
    yield eng
    eng.close()


@pytest.fixture
def hung(engine: HookEngine) -> Iterator[Hung]:
    gate = Hung()
    yield gate
    gate.release(engine)


def notification() -> HookInput:
    return HookInput(Event.Notification, payload={"message": "hi"})


def bash(command: str = "ls") -> HookInput:
    return HookInput(
        Event.PreToolUse, payload={"tool_name": "Bash", "tool_input": {"command": command}}
    )


async def abandon(engine: HookEngine, hung: Hung, count: int) -> None:
    """Register `count` hung timed hooks on Notification and let one dispatch time them out."""
    for index in range(count):
        engine.add(hung, Event.Notification, timeout=0.2, name=f"hung{index}")
    verdict = await engine.dispatch(notification())
    assert [result.status for _, result, _ in verdict.runs if result] == [Status.timeout] * count
    assert all(r.error == "timed out after 0.2s" for _, r, _ in verdict.runs if r)


async def test_hung_timed_hooks_do_not_starve_other_timed_hooks(
    engine: HookEngine, hung: Hung
) -> None:
    await abandon(engine, hung, 8)
    assert hung.entered == 8
    workers = engine.services.workers
    assert (workers.abandoned, workers.stuck) == (8, 8)

    seen: list[str] = []

    def guard(inp: HookInput) -> Any:
        seen.append(inp.tool_input["command"])
        return deny(f"no {inp.tool_input['command']}")

    engine.add(guard, Event.PreToolUse, timeout=10, name="guard")
    verdicts = await asyncio.gather(*(engine.dispatch(bash(f"cmd{i}")) for i in range(4)))
    assert [v.reason for v in verdicts] == [f"no cmd{i}" for i in range(4)]
    assert sorted(seen) == [f"cmd{i}" for i in range(4)]
    assert workers.abandoned == 8


async def test_the_default_executor_is_not_used_for_timed_hooks(engine: HookEngine) -> None:
    used: list[str] = []

    class Spy(ThreadPoolExecutor):
        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
            used.append(getattr(fn, "__name__", repr(fn)))
            return super().submit(fn, *args, **kwargs)

    spy = Spy(max_workers=1)
    asyncio.get_running_loop().set_default_executor(spy)
    engine.add(lambda inp: deny("threaded"), Event.PreToolUse, timeout=5)
    verdict = await engine.dispatch(bash())
    assert verdict.reason == "threaded"
    assert used == []


async def test_saturated_pool_fails_fast_with_a_clear_error() -> None:
    engine = HookEngine(audit_path=None, services=Services(workers=WorkerPool(max_threads=2)))
    hung = Hung()
    try:
        await abandon(engine, hung, 2)
        engine.add(lambda inp: deny("never"), Event.PreToolUse, timeout=60, name="late")
        started = time.monotonic()
        verdict = await engine.dispatch(bash())
        assert time.monotonic() - started < 10
        [(_, result, _)] = verdict.runs
        assert result is not None and result.status is Status.error
        assert result.error is not None
        assert "all 2 are held by hooks that timed out and never returned" in result.error
        assert verdict.decision is None
    finally:
        hung.release(engine)
        engine.close()
    again = HookEngine(audit_path=None, services=engine.services)
    again.add(lambda inp: deny("back"), Event.PreToolUse, timeout=10)
    try:
        assert (await again.dispatch(bash())).reason == "back"
    finally:
        again.close()


async def test_a_pool_with_stuck_threads_still_serves_through_the_rest() -> None:
    pool = WorkerPool(max_threads=3)
    gate = threading.Event()
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await pool.run(gate.wait, WAIT)
        assert (pool.abandoned, pool.stuck) == (1, 1)
        answers = await asyncio.gather(*(pool.run(lambda n=n: n * n) for n in range(10)))
        assert answers == [n * n for n in range(10)]
        assert pool.threads <= 3
    finally:
        gate.set()
        pool.close()


class CustomStop(BaseException):
    pass


RAISED: list[tuple[str, BaseException, str]] = [
    ("SystemExit", SystemExit(3), "SystemExit: 3"),
    ("GeneratorExit", GeneratorExit(), "GeneratorExit"),
    ("custom", CustomStop("halt"), "CustomStop: halt"),
]


def raiser(exc: BaseException) -> Callable[[HookInput], Any]:
    def hook(inp: HookInput) -> Any:
        raise exc

    return hook


def async_raiser(exc: BaseException) -> Callable[[HookInput], Any]:
    async def hook(inp: HookInput) -> Any:
        await asyncio.sleep(0)
        raise exc

    return hook


KINDS: dict[str, tuple[Callable[[BaseException], Callable[[HookInput], Any]], float | None]] = {
    "sync-inline": (raiser, None),
    "sync-timed": (raiser, 10.0),
    "async": (async_raiser, None),
    "async-timed": (async_raiser, 10.0),
}


def register_raising(engine: HookEngine, kind: str, exc: BaseException) -> None:
    make, timeout = KINDS[kind]
    engine.add(make(exc), Event.PreToolUse, timeout=timeout, name="raiser")
    engine.add(lambda inp: deny("second hook ran"), Event.PreToolUse, name="after", priority=1)


def check_error(verdict: Any, text: str) -> None:
    [result] = [r for spec, r, _ in verdict.runs if spec.name == "raiser"]
    assert result is not None and result.status is Status.error
    assert result.error == text
    assert verdict.reason == "second hook ran"


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(("exc", "text"), [r[1:] for r in RAISED], ids=[r[0] for r in RAISED])
async def test_base_exception_is_an_error_result_via_dispatch(
    engine: HookEngine, kind: str, exc: BaseException, text: str
) -> None:
    register_raising(engine, kind, exc)
    check_error(await asyncio.wait_for(engine.dispatch(bash()), WAIT), text)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(("exc", "text"), [r[1:] for r in RAISED], ids=[r[0] for r in RAISED])
def test_base_exception_is_an_error_result_via_dispatch_sync(
    engine: HookEngine, kind: str, exc: BaseException, text: str
) -> None:
    register_raising(engine, kind, exc)
    with ThreadPoolExecutor(1) as caller:
        verdict = caller.submit(engine.dispatch_sync, bash()).result(WAIT)
    check_error(verdict, text)
    # The engine's loop thread survived: the next dispatch works too.
    with ThreadPoolExecutor(1) as caller:
        check_error(caller.submit(engine.dispatch_sync, bash()).result(WAIT), text)


def test_keyboard_interrupt_of_the_host_propagates(engine: HookEngine) -> None:
    engine.add(raiser(KeyboardInterrupt()), Event.PreToolUse)
    with pytest.raises(KeyboardInterrupt):
        engine.dispatch_sync(bash())


@pytest.mark.parametrize("kind", ["sync-timed", "async"])
def test_keyboard_interrupt_off_the_main_thread_is_the_hooks_own(
    engine: HookEngine, kind: str
) -> None:
    """A worker or the engine's loop thread never receives the host's Ctrl-C: a
    KeyboardInterrupt there was raised by the hook."""
    register_raising(engine, kind, KeyboardInterrupt())
    check_error(engine.dispatch_sync(bash()), "KeyboardInterrupt")


async def test_cancelling_the_dispatch_propagates(engine: HookEngine) -> None:
    started = asyncio.Event()

    async def slow(inp: HookInput) -> None:
        started.set()
        await asyncio.sleep(WAIT)

    engine.add(slow, Event.PreToolUse, timeout=WAIT)
    task = asyncio.ensure_future(engine.dispatch(bash()))
    await asyncio.wait_for(started.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_hook_raising_cancelled_error_itself_is_an_error(engine: HookEngine) -> None:
    register_raising(engine, "async", asyncio.CancelledError("by the hook"))
    check_error(
        await asyncio.wait_for(engine.dispatch(bash()), WAIT), "CancelledError: by the hook"
    )
