"""The parts of `Services`: per-session counters, the hook-process I/O loop and how an engine
hands its services to handlers."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from hookwright import Event, HookEngine, HookInput, HookSpec, RunContext
from hookwright.core.results import HookResult
from hookwright.engine.services import Counters, Services
from hookwright.transports.ioloop import IoLoop, IoLoopClosed
from hookwright.transports.rpc import RpcProcess, RpcProcessError

ECHO_HOOK = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {}}) + '\\n')\n"
    "    sys.stdout.flush()\n"
)


def test_counters_number_each_owner_once_per_kind() -> None:
    class Owner:
        pass

    counters = Counters()
    first, second = Owner(), Owner()
    assert [counters.number("env", o) for o in (first, second, first)] == [1, 2, 1]
    assert counters.number("other", second) == 1
    assert Counters().number("env", second) == 1, "another session counts on its own"


async def test_each_engine_hands_its_own_services_to_handlers() -> None:
    seen: list[Services] = []

    async def handler(inp: Any, ctx: RunContext) -> HookResult | None:
        seen.append(ctx.services)
        return None

    own = Services()
    engines = [HookEngine(audit_path=None), HookEngine(audit_path=None, services=own)]
    inp = HookInput(Event.Stop, session_id="s")
    try:
        for engine in engines:
            engine.register(HookSpec(name="probe", event=Event.Stop, handler=handler))
            await engine.dispatch(inp)
    finally:
        for engine in engines:
            await engine.aclose()
    assert seen[0] is engines[0].services and seen[1] is own
    assert seen[0] is not seen[1]
    assert seen[0].inbox is not seen[1].inbox and seen[0].io is not seen[1].io


async def test_io_loop_uses_the_host_loop_and_never_closes_it() -> None:
    loop = asyncio.get_running_loop()
    io = IoLoop(loop)
    assert io.loop is loop
    io.close()
    assert not loop.is_closed()
    with pytest.raises(IoLoopClosed):
        _ = io.loop


def test_io_loop_without_a_host_runs_a_private_thread_until_closed() -> None:
    io = IoLoop()
    loop = io.loop
    assert io.loop is loop and loop.is_running()
    threads = [t for t in threading.enumerate() if t.name == "hookwright-io"]
    io.close()
    assert loop.is_closed() and not any(t.is_alive() for t in threads)


async def test_a_process_runs_on_the_loop_it_is_bound_to(tmp_path: Path) -> None:
    loop = asyncio.get_running_loop()
    io = IoLoop(loop)
    process = RpcProcess("h", [sys.executable, "-c", ECHO_HOOK])
    process.use_io(io)
    process.use_io(io)
    try:
        assert await process.call("hook.x", timeout=10) == {}
        assert process.io_loop() is loop
        with pytest.raises(RpcProcessError, match="already bound to another I/O loop"):
            process.use_io(IoLoop())
    finally:
        await process.aclose()
    io.close()
    with pytest.raises(RpcProcessError, match="closed"):
        await process.call("hook.x", timeout=10)
    assert not process.notify_nowait("hook.event")


async def test_a_process_without_a_session_loop_stops_its_own_on_close() -> None:
    process = RpcProcess("h", [sys.executable, "-c", ECHO_HOOK])
    assert await process.call("hook.x", timeout=10) == {}
    private = process.io_loop()
    assert private is not asyncio.get_running_loop()
    await process.aclose()
    await process.aclose()
    assert private.is_closed()
