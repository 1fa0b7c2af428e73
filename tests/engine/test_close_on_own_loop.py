"""`HookEngine.close()` closes the hooks that hold resources on the engine's own loops;
called from a coroutine on one of them it would wait forever, so it says so at once. With
nothing to close there it closes as usual."""

from __future__ import annotations

import asyncio
import re

import pytest

from hookwright import HookEngine
from hookwright.core.events import Event
from hookwright.core.run_context import RunContext
from hookwright.core.spec import HookSpec
from hookwright.engine.services import Services
from hookwright.transports.ioloop import IoLoop

MESSAGE = re.escape("use `await engine.aclose()` there")


class Holding:
    """A hook handler holding a resource it closes on the engine's loop (as a hook process)."""

    def __init__(self) -> None:
        self.closed = False

    async def __call__(self, inp: object, ctx: RunContext) -> None:
        return None

    async def aclose(self) -> None:
        self.closed = True


def holding(engine: HookEngine) -> Holding:
    handler = Holding()
    engine.register(HookSpec(name="holder", event=Event.PreToolUse, handler=handler))
    return handler


async def test_close_on_the_engines_io_loop_raises() -> None:
    engine = HookEngine(audit_path=None, services=Services(io=IoLoop(asyncio.get_running_loop())))
    handler = holding(engine)
    with pytest.raises(RuntimeError, match=MESSAGE):
        engine.close()
    await asyncio.wait_for(engine.aclose(), 10)
    assert handler.closed


async def test_close_with_nothing_to_close_on_the_loop_closes_there() -> None:
    engine = HookEngine(audit_path=None, services=Services(io=IoLoop(asyncio.get_running_loop())))
    engine.close()
    assert engine.services.io.closed


def test_close_on_the_loop_of_its_async_hooks_raises() -> None:
    engine = HookEngine(audit_path=None)
    handler = holding(engine)

    async def close_there() -> None:
        engine.close()

    run = engine._loop().run
    with pytest.raises(RuntimeError, match=MESSAGE):
        run(asyncio.wait_for(close_there(), 10))
    engine.close()
    assert handler.closed


async def test_close_from_another_loop_still_closes() -> None:
    engine = HookEngine(audit_path=None)
    engine.close()
    assert engine.services.io.closed
