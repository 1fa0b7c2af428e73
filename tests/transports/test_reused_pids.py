"""A run's leader or a process hookwright named as its own is known by its pid *and* its start
time: once it is gone and the kernel gives its pid to a later process (the pid counter wraps
every few minutes on a busy machine), that process is not taken for it. Otherwise a live
stranger at a dead leader's pid held back every orphan the later runs left (each looked as if
that run, alive and older, might have made it), and an orphan given a dead leader's pid was
never claimed."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bounds import eventually
from hookwright.transports import adoption
from hookwright.transports.process import run_process
from procs import gone, running
from reused_pid import start_at

DETACH = "(env -i setsid sh -c 'echo $$ > {pid}; exec sleep 300' >/dev/null 2>&1 &); "
WAIT = "while [ ! -s {pid} ]; do sleep 0.01; done"

pytestmark = pytest.mark.usefixtures("subreaper")


@pytest.fixture
def gone_leader() -> int:
    """The pid of a run's leader hookwright started and named, that has exited and been
    reaped: free for the kernel to give to another process."""
    with adoption.starting():
        leader = subprocess.Popen(["/bin/true"], start_new_session=True)
        adoption.started(leader.pid)
    leader.wait()
    return leader.pid


@pytest.fixture
def strangers() -> Iterator[list[int]]:
    """Processes a test started at a chosen pid: killed and reaped at the end."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


async def test_a_stranger_at_a_gone_leaders_pid_holds_back_no_orphan(
    tmp_path: Path, gone_leader: int, strangers: list[int], detached: list[int]
) -> None:
    strangers.append(start_at(gone_leader, ["/bin/sleep", "300"]))
    assert running(gone_leader)
    pid_file = tmp_path / "pid"
    outcome = await run_process(command=DETACH.format(pid=pid_file) + WAIT.format(pid=pid_file))
    assert outcome.exit_code == 0
    detached.append(int(pid_file.read_text()))
    assert eventually(lambda: gone(detached[0]))
    assert running(gone_leader)


def test_an_orphan_at_a_gone_leaders_pid_is_claimed(gone_leader: int, strangers: list[int]) -> None:
    since = adoption.instant()
    strangers.append(start_at(gone_leader, ["/bin/sleep", "300"], new_session=True))
    assert gone_leader in {proc.pid for proc in adoption.adopted()}
    found = adoption.orphans("0" * 24, since, None)
    assert [proc.pid for proc in found.claimed] == [gone_leader] and not found.pending
