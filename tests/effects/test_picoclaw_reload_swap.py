"""A PicoClaw config swapped for one of the same size and mtime is reloaded; a config whose
times change but not its bytes is not (no restart, no reload event)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from hookwright.dialects.picoclaw.reload import WATCH_INTERVAL

from .pico import PicoProject, alive, received
from .support import session, tool_messages
from .test_picoclaw_reload import TURN, eventually, pids, responder


def swap_keeping_size_and_mtime(path: Path, text: str) -> None:
    old = path.stat()
    assert len(text.encode()) == old.st_size
    fresh = path.with_name(path.name + ".new")
    fresh.write_text(text)
    os.utime(fresh, ns=(old.st_atime_ns, old.st_mtime_ns))
    os.replace(fresh, path)


async def test_a_config_swapped_with_the_same_size_and_mtime_is_reloaded(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    first = responder(pico_project, "answerer", "first answer")
    config = pico_project.root / ".picoclaw" / "config.json"
    async with session(pico_project.root, isolated_home, TURN * 2) as live:
        await live.run()
        [old_pid] = pids(first)
        swap_keeping_size_and_mtime(
            config, config.read_text().replace("first answer", "FIRST ANSWER")
        )
        await eventually(lambda: len(pids(first)) == 2 and not alive(old_pid))
        await live.run("Again.")
        assert tool_messages(live.calls[3])[-1] == "FIRST ANSWER"


async def test_new_times_on_the_same_bytes_reload_nothing(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    first = responder(pico_project, "answerer", "first answer")
    watcher = pico_project.process(
        "watcher", {}, intercept=[], observe=["gateway.reload.started", "gateway.reload.failed"]
    )
    config = pico_project.root / ".picoclaw" / "config.json"
    async with session(pico_project.root, isolated_home, TURN) as live:
        [old_pid] = pids(first)
        swap_keeping_size_and_mtime(config, config.read_text())
        os.utime(config)
        await asyncio.sleep(3 * WATCH_INTERVAL)
        await live.run()
        assert tool_messages(live.calls[1]) == ["first answer"]
        assert pids(first) == [old_pid] and alive(old_pid)
    assert received(watcher, "hook.runtime_event") == []
