"""A process a hook detached with `setsid` *and* a cleared environment (no run marker left)
ends with the hook, spawned or warm; a run still in flight keeps what it detached, and no
process hookwright did not get from a hook is touched."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bounds import eventually
from hookwright.transports import adoption
from hookwright.transports.process import run_process
from hookwright.transports.rpc import RpcProcess
from hookwright.transports.warm import WarmPython
from procs import gone, running

#: Detaches a process in a session of its own, with an empty environment, and waits until it
#: has written its pid (it is then `sleep`, with no marker anywhere in its environment).
DETACH = "env -i setsid sh -c 'echo $$ > {pid}; exec sleep 300' >/dev/null 2>&1 &"
WAIT = "while [ ! -s {pid} ]; do sleep 0.01; done"

#: The same from Python: a double fork, the grandchild exec'ing with an empty environment.
PY_DETACH = textwrap.dedent(
    """
    import os, sys, time
    pid_file = sys.argv[1]
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.closerange(0, 3)
            os.execve("/bin/sh", ["sh", "-c", "echo $$ > " + pid_file + "; exec sleep 300"], {})
        os._exit(0)
    os.wait()
    while not (os.path.exists(pid_file) and os.path.getsize(pid_file)):
        time.sleep(0.01)
    print(os.getppid())
    """
)


pytestmark = pytest.mark.usefixtures("subreaper")


def unmarked(pid: int) -> bool:
    """The process carries no run marker and is in a session of its own."""
    environ = Path(f"/proc/{pid}/environ").read_bytes()
    return adoption.MARKER.encode() not in environ and os.getsid(pid) == pid


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """An unrelated process the test itself started, in a session of its own, with an empty
    environment: it must survive every hunt."""
    proc = subprocess.Popen(["/bin/sleep", "300"], start_new_session=True, env={})
    yield proc
    proc.kill()
    proc.wait()


async def test_a_spawned_hook_takes_its_unmarked_detached_process(
    tmp_path: Path, detached: list[int], bystander: subprocess.Popen[bytes]
) -> None:
    pid_file = tmp_path / "pid"
    command = DETACH.format(pid=pid_file) + WAIT.format(pid=pid_file)
    outcome = await run_process(command=command, timeout=30)
    assert outcome.exit_code == 0
    detached.append(int(pid_file.read_text()))
    assert eventually(lambda: gone(detached[0]))
    assert running(bystander.pid)


async def test_a_warm_hook_takes_its_unmarked_detached_process(
    tmp_path: Path,
    warm: WarmPython,
    detached: list[int],
    bystander: subprocess.Popen[bytes],
) -> None:
    (tmp_path / "hook.py").write_text(PY_DETACH)
    pid_file = tmp_path / "pid"
    outcome = await run_process(
        argv=[sys.executable, "hook.py", str(pid_file)], cwd=tmp_path, timeout=30, warm=warm
    )
    assert outcome.exit_code == 0, outcome.stderr
    assert warm.forked == 1 and int(outcome.stdout) != os.getpid()
    detached.append(int(pid_file.read_text()))
    assert eventually(lambda: gone(detached[0]))
    assert running(bystander.pid)


async def _wait_for(path: Path) -> None:
    for _ in range(3000):
        if path.exists() and path.read_text().strip():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never written")


async def test_a_run_in_flight_keeps_what_it_detached(
    tmp_path: Path, detached: list[int], bystander: subprocess.Popen[bytes]
) -> None:
    """Run `first` starts, then `second` detaches a process that is re-parented to hookwright
    at once (its parent subshell exits) while `second` keeps running. `first` ends: the
    process could be `second`'s, which is alive, so it stays. `second` ends: it goes."""
    pid_file, go_first, go_second = tmp_path / "pid", tmp_path / "go1", tmp_path / "go2"
    hold = "while [ ! -e {go} ]; do sleep 0.01; done"
    first = asyncio.ensure_future(run_process(command=hold.format(go=go_first), timeout=60))
    detach = f"({DETACH.format(pid=pid_file)}) ; {WAIT.format(pid=pid_file)}"
    second_command = f"{detach}; {hold.format(go=go_second)}"
    second = asyncio.ensure_future(run_process(command=second_command, timeout=60))
    try:
        await _wait_for(pid_file)
        detached.append(int(pid_file.read_text()))
        assert eventually(lambda: Path(f"/proc/{detached[0]}/stat").exists())
        assert eventually(lambda: unmarked(detached[0]))
        go_first.touch()
        assert (await first).exit_code == 0
        assert running(detached[0])
        go_second.touch()
        assert (await second).exit_code == 0
    finally:
        go_first.touch()
        go_second.touch()
        await asyncio.gather(first, second, return_exceptions=True)
    assert eventually(lambda: gone(detached[0]))
    assert running(bystander.pid)


async def test_a_process_hookwright_names_as_its_own_is_never_claimed(
    tmp_path: Path, detached: list[int]
) -> None:
    """A host that made its process the subreaper names the processes it starts itself
    (`adoption.own`); one started while a hook runs, unmarked, in a session of its own,
    is left alone."""
    pid_file, go = tmp_path / "pid", tmp_path / "go"
    hook = asyncio.ensure_future(
        run_process(command=f"echo $$ > {pid_file}; while [ ! -e {go} ]; do sleep 0.01; done")
    )
    try:
        await _wait_for(pid_file)
        with adoption.starting():
            own = subprocess.Popen(["/bin/sleep", "300"], start_new_session=True, env={})
            adoption.own(own.pid)
        go.touch()
        assert (await hook).exit_code == 0
        assert running(own.pid)
    finally:
        go.touch()
        await asyncio.gather(hook, return_exceptions=True)
        own.kill()
        own.wait()


def test_a_child_started_while_a_start_is_under_way_is_judged_once_it_is_named() -> None:
    """While hookwright is starting a process it has not named yet, an unmarked child started
    since could be that process: it is not claimed until the start is over; named, it never
    is. The same child left unnamed is, as far as hookwright can tell, an orphan."""
    since = adoption.instant()
    procs = []
    try:
        for name in (True, False):
            with adoption.starting():
                proc = subprocess.Popen(["/bin/sleep", "300"], start_new_session=True, env={})
                procs.append(proc)
                during = adoption.orphans("0" * 24, since, None)
                if name:
                    adoption.own(proc.pid)
            assert during.pending and proc.pid not in {p.pid for p in during.claimed}
            after = adoption.orphans("0" * 24, since, None)
            assert not after.pending
            assert (proc.pid in {p.pid for p in after.claimed}) is not name
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


async def test_a_json_rpc_hook_process_takes_its_unmarked_detached_process(
    tmp_path: Path, detached: list[int], bystander: subprocess.Popen[bytes]
) -> None:
    pid_file = tmp_path / "pid"
    hook = textwrap.dedent(
        f"""
        import json, subprocess, sys
        request = json.loads(sys.stdin.readline())
        child = subprocess.Popen(["/bin/sleep", "300"], start_new_session=True, env={{}})
        open({str(pid_file)!r}, "w").write(str(child.pid))
        print(json.dumps({{"jsonrpc": "2.0", "id": request["id"], "result": {{"ok": True}}}}),
              flush=True)
        sys.stdin.read()
        """
    )
    process = RpcProcess("detacher", [sys.executable, "-c", hook])
    try:
        await process.start()
        await _wait_for(pid_file)
        detached.append(int(pid_file.read_text()))
        assert unmarked(detached[0])
    finally:
        await process.aclose()
    assert eventually(lambda: gone(detached[0]))
    assert running(bystander.pid)
