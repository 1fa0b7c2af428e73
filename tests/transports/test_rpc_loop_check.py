"""Whether a JSON-RPC request runs on its process's I/O loop is read from the thread the loop
records while it runs: on it, yes; on another loop, in another thread or with no loop
running, no."""

from __future__ import annotations

import asyncio
import threading

from hookwright.transports.rpc import _runs_here


async def _answers(loop: asyncio.AbstractEventLoop) -> tuple[bool, bool]:
    other = asyncio.new_event_loop()
    try:
        return _runs_here(loop), _runs_here(other)
    finally:
        other.close()


def test_the_loop_check_says_yes_only_on_the_running_loop_in_its_own_thread() -> None:
    loop = asyncio.new_event_loop()
    seen_from_thread: list[bool] = []
    try:
        assert loop.run_until_complete(_answers(loop)) == (True, False)
        assert _runs_here(loop) is False

        async def ask_from_another_thread() -> None:
            thread = threading.Thread(target=lambda: seen_from_thread.append(_runs_here(loop)))
            thread.start()
            await asyncio.to_thread(thread.join)

        loop.run_until_complete(ask_from_another_thread())
        assert seen_from_thread == [False]
    finally:
        loop.close()
