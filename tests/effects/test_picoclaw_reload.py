"""A PicoClaw config that changes while a session runs: the processes whose settings changed are
restarted with the new ones (PicoClaw re-initialises its hooks on a config reload), the others
keep running, and observers see the reload."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from bounds import GENEROUS_BOUND
from hookwright.runtime.opening import SessionOptions, open_session

from .pico import PicoProject, alive, answer, received
from .support import call, jsonl, model, session, tool_messages

TURN: list[dict[str, Any]] = [
    {"content": "", "tool_calls": [call("Bash", command="touch ran.txt")]},
    {"content": "done"},
]


def responder(pico_project: PicoProject, name: str, text: str) -> Path:
    return pico_project.process(
        name, {"before_tool": [answer({"action": "respond", "result": {"for_llm": text}})]}
    )


def pids(log: Path) -> list[int]:
    """The process of each start logged, in order."""
    return [int(r["pid"]) for r in jsonl(log) if r.get("_event") == "start"]


async def eventually(check: Any) -> None:
    deadline = time.monotonic() + 3 * GENEROUS_BOUND
    while not check():
        assert time.monotonic() < deadline, "the config reload did not happen"
        await asyncio.sleep(0.05)


async def test_a_changed_process_restarts_with_its_new_config(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    first = responder(pico_project, "answerer", "first answer")
    watcher = pico_project.process(
        "watcher", {}, intercept=[], observe=["gateway.reload.started", "gateway.reload.completed"]
    )
    async with session(pico_project.root, isolated_home, TURN * 2) as live:
        await live.run()
        assert tool_messages(live.calls[1]) == ["first answer"]
        [watcher_pid], [old_pid] = pids(watcher), pids(first)
        # the same process, now with another answer
        responder(pico_project, "answerer", "second answer")
        await eventually(lambda: len(pids(first)) == 2 and not alive(old_pid))
        await live.run("Again.")
        assert tool_messages(live.calls[3])[-1] == "second answer"
        assert not (pico_project.root / "ran.txt").exists()
        # an unchanged process keeps running and sees the reload
        assert pids(watcher) == [watcher_pid] and alive(watcher_pid)
        await eventually(lambda: len(received(watcher, "hook.runtime_event")) == 2)
    events = received(watcher, "hook.runtime_event")
    assert [e["kind"] for e in events] == ["gateway.reload.started", "gateway.reload.completed"]
    assert {e["source"]["component"] for e in events} == {"gateway"}
    # the old process answered the first turn, the new one the second
    assert len(received(first, "hook.before_tool")) == 2
    assert len(received(first, "hook.hello")) == 2


async def test_added_and_removed_processes_start_and_stop(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    old = responder(pico_project, "old", "from old")
    async with session(pico_project.root, isolated_home, TURN * 2) as live:
        await live.run()
        [old_pid] = pids(old)
        del pico_project.processes["old"]
        new = responder(pico_project, "new", "from new")
        await eventually(lambda: bool(received(new, "hook.hello")) and not alive(old_pid))
        await live.run("Again.")
        assert tool_messages(live.calls[3])[-1] == "from new"
    assert len(received(old, "hook.before_tool")) == 1


async def test_an_untrusted_change_is_not_applied(tmp_path: Path, isolated_home: Path) -> None:
    """A project the session does not trust cannot add a hook process by editing its file."""
    project = PicoProject(tmp_path / "project")
    project.process("first", {}, intercept=[], observe=["turn_end"])
    scripted = model(TURN)
    setup = await open_session(
        SessionOptions(
            project.root, home=isolated_home, model=scripted, permission_mode="bypassPermissions"
        )
    )
    try:
        await setup.agent.start()
        added = responder(project, "intruder", "owned")
        await asyncio.sleep(2.5)
        await setup.agent.run("Do it.")
    finally:
        await setup.agent.close()
        await setup.engine.aclose()
    assert not added.exists()
    assert (project.root / "ran.txt").exists()


async def test_an_unreadable_config_fails_the_reload_and_changes_nothing(
    pico_project: PicoProject, isolated_home: Path
) -> None:
    pico_project.protocol = "current"
    first = responder(pico_project, "answerer", "first answer")
    watcher = pico_project.process("watcher", {}, intercept=[], observe=["gateway.reload.failed"])
    config = pico_project.root / ".picoclaw" / "config.json"
    async with session(pico_project.root, isolated_home, TURN * 2) as live:
        [old_pid] = pids(first)
        config.write_text(config.read_text()[:-20])  # an editor's half-written save
        await eventually(lambda: bool(received(watcher, "hook.runtime_event")))
        await live.run()
        assert tool_messages(live.calls[1]) == ["first answer"]
        assert pids(first) == [old_pid] and alive(old_pid)
    [failed] = received(watcher, "hook.runtime_event")
    assert failed["kind"] == "gateway.reload.failed" and failed["severity"] == "error"
    assert "config.json" in failed["payload"]["error"]
