"""`HookEngine.close()` waits for the engine's own loops; called from a coroutine on one of
them it would wait forever, so it says so at once."""

from __future__ import annotations

import asyncio
import re

import pytest

from hookwright import HookEngine
from hookwright.engine.services import Services
from hookwright.transports.ioloop import IoLoop

MESSAGE = re.escape("use `await engine.aclose()` there")


async def test_close_on_the_engines_io_loop_raises() -> None:
    engine = HookEngine(audit_path=None, services=Services(io=IoLoop(asyncio.get_running_loop())))
    with pytest.raises(RuntimeError, match=MESSAGE):
        engine.close()
    await asyncio.wait_for(engine.aclose(), 10)


def test_close_on_the_loop_of_its_async_hooks_raises() -> None:
    engine = HookEngine(audit_path=None)

    async def close_there() -> None:
        engine.close()

    run = engine._loop().run
    with pytest.raises(RuntimeError, match=MESSAGE):
        run(asyncio.wait_for(close_there(), 10))
    engine.close()


async def test_close_from_another_loop_still_closes() -> None:
    engine = HookEngine(audit_path=None)
    engine.close()
    assert engine.services.io.closed
