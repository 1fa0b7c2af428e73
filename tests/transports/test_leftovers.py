"""Processes a hook detaches from its group (setsid, double fork) end with the hook, and the
child subreaper's zombies are reaped."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from pathlib import Path

import pytest

from bounds import eventually
from hookwright.runtime.tools.bash import run_shell
from hookwright.transports.adoption import sweep
from hookwright.transports.process import run_process
from hookwright.transports.rpc import RpcProcess
from procs import gone, running

pytestmark = pytest.mark.usefixtures("subreaper")


async def read_pid(path: Path) -> int:
    for _ in range(500):
        if path.exists() and path.read_text().strip():
            return int(path.read_text().split()[0])
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never got a pid")


DOUBLE_FORK = textwrap.dedent(
    """
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.closerange(0, 3)
            with open(sys.argv[1], "w") as fh:
                fh.write(str(os.getpid()))
            time.sleep(120)
        os._exit(0)
    os.wait()
    while not os.path.getsize(sys.argv[1]) if os.path.exists(sys.argv[1]) else True:
        time.sleep(0.01)
    """
)


async def test_a_setsid_process_ends_when_the_hook_returns(tmp_path: Path) -> None:
    outcome = await run_process(command="setsid sleep 120 >/dev/null 2>&1 & echo $!", timeout=20)
    assert outcome.exit_code == 0
    pid = int(outcome.stdout)
    assert eventually(lambda: gone(pid))


async def test_a_setsid_process_holding_stdout_ends_when_the_hook_times_out(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pid"
    outcome = await run_process(
        command=f"setsid sleep 120 & echo $! > {pids}; sleep 60", timeout=0.5
    )
    pid = await read_pid(pids)
    assert outcome.timed_out
    assert eventually(lambda: gone(pid))


async def test_a_double_forked_daemon_ends_with_the_hook(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    outcome = await run_process(argv=[sys.executable, "-c", DOUBLE_FORK, str(pids)], timeout=20)
    assert outcome.exit_code == 0
    pid = await read_pid(pids)
    assert eventually(lambda: gone(pid))


async def test_a_child_with_a_cleared_environment_is_found_through_its_parent(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pid"
    outcome = await run_process(
        command=f"setsid sh -c 'env -i sleep 120 & echo $! > {pids}; wait' >/dev/null 2>&1 & "
        f"while [ ! -s {pids} ]; do sleep 0.01; done",
        timeout=20,
    )
    assert outcome.exit_code == 0
    pid = await read_pid(pids)
    assert eventually(lambda: not running(pid))


async def test_an_rpc_hook_takes_its_setsid_children_with_it(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    hook = textwrap.dedent(
        f"""
        import json, subprocess, sys
        request = json.loads(sys.stdin.readline())
        child = subprocess.Popen(["sleep", "120"], start_new_session=True)
        open({str(pids)!r}, "w").write(str(child.pid))
        print(json.dumps({{"jsonrpc": "2.0", "id": request["id"], "result": {{"ok": True}}}}),
              flush=True)
        sys.stdin.read()
        """
    )
    process = RpcProcess("detacher", [sys.executable, "-c", hook])
    try:
        await process.start()
        pid = await read_pid(pids)
        assert running(pid)
    finally:
        await process.aclose()
    assert eventually(lambda: gone(pid))


async def test_killed_group_members_are_not_left_as_zombies() -> None:
    outcome = await run_process(command="sleep 120 >/dev/null 2>&1 & echo $!", timeout=20)
    pid = int(outcome.stdout)
    assert eventually(lambda: gone(pid))


async def test_a_detached_tool_process_that_exits_later_is_reaped(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    result = await run_shell(
        f"setsid sh -c 'echo $$ > {pids}; sleep 1' >/dev/null 2>&1 & "
        f"while [ ! -s {pids} ]; do sleep 0.01; done",
        cwd=tmp_path,
        env=dict(os.environ),
        timeout_s=20,
    )
    assert result.exit_code == 0
    pid = await read_pid(pids)
    assert running(pid)  # a tool may leave a process running on purpose
    assert Path(f"/proc/{pid}/status").read_text().count(f"PPid:\t{os.getpid()}\n") == 1

    def swept_away() -> bool:
        sweep()
        return gone(pid)

    assert eventually(swept_away)


def test_zombies_of_processes_hookwright_did_not_start_are_left_alone() -> None:
    """A child started elsewhere in the process is its starter's to wait for."""
    child = os.fork()
    if child == 0:
        os._exit(7)
    assert eventually(lambda: not running(child))
    sweep()
    assert Path(f"/proc/{child}").exists()
    assert os.waitpid(child, 0) == (child, 7 << 8)
