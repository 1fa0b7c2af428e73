"""With hookwright as the subreaper, a run's leftovers are followed through the process tree:
a setsid child, a double-forked daemon with a cleared environment and a warm hook's sibling
made with ``clone(CLONE_PARENT)`` all end with their hook without reading every process; 20
runs in flight lose none of their own processes to each other's hunts; an orphan that
another thread's start may have made is judged once that start has named its process;
without the subreaper, the scan of /proc still ends a marked setsid child."""

from __future__ import annotations

import asyncio
import platform
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from bounds import eventually
from hookwright.transports import adoption, groups, reaper
from hookwright.transports.process import run_process
from hookwright.transports.warm import WarmPython
from procs import gone, running

WAIT = "while [ ! -s {pid} ]; do sleep 0.01; done"
#: A double fork from the shell: the subshell exits at once, so the detached `sh` (in a
#: session of its own, with an empty environment) is re-parented while the hook still runs.
DETACH = "(env -i setsid sh -c 'echo $$ > {pid}; exec sleep 300' >/dev/null 2>&1 &); "

#: A warm hook whose child is made its sibling (a child of the warm interpreter, out of the
#: hook's process tree) and leaves the hook's session, keeping the run's marker.
CLONE_PARENT = textwrap.dedent(
    """
    import ctypes, os, sys, time
    CLONE_PARENT, SIGCHLD = 0x8000, 17
    number = {"x86_64": 56, "aarch64": 220}[os.uname().machine]
    libc = ctypes.CDLL(None, use_errno=True)
    pid = libc.syscall(number, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        os.setsid()
        os.execv("/bin/sh", ["sh", "-c", "echo $$ > " + sys.argv[1] + "; exec sleep 300"])
    while not (os.path.exists(sys.argv[1]) and os.path.getsize(sys.argv[1])):
        time.sleep(0.01)
    print(pid)
    """
)


@pytest.fixture
def no_scan(monkeypatch: pytest.MonkeyPatch, subreaper: None) -> None:
    """Reading every process is an error: the hunt must follow the tree."""

    def forbidden(since: int | None = None) -> list[adoption.Proc]:
        raise AssertionError("every process was read")

    for module in (adoption, groups, reaper):
        monkeypatch.setattr(module, "processes", forbidden)
    assert adoption.tracking()


async def test_a_setsid_child_is_followed_through_the_tree(
    tmp_path: Path, no_scan: None, detached: list[int]
) -> None:
    pid_file = tmp_path / "pid"
    command = f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 300' >/dev/null 2>&1 & "
    outcome = await run_process(command=command + WAIT.format(pid=pid_file), timeout=30)
    assert outcome.exit_code == 0
    detached.append(int(pid_file.read_text()))
    assert eventually(lambda: gone(detached[0]))


async def test_a_double_forked_daemon_without_a_marker_is_followed_through_the_tree(
    tmp_path: Path, no_scan: None, detached: list[int]
) -> None:
    pid_file = tmp_path / "pid"
    command = DETACH.format(pid=pid_file) + WAIT.format(pid=pid_file)
    outcome = await run_process(command=command, timeout=30)
    assert outcome.exit_code == 0
    detached.append(int(pid_file.read_text()))
    assert eventually(lambda: gone(detached[0]))


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="raw clone call")
async def test_a_warm_hooks_sibling_made_with_clone_parent_is_found(
    tmp_path: Path, no_scan: None, warm: WarmPython, detached: list[int]
) -> None:
    (tmp_path / "hook.py").write_text(CLONE_PARENT)
    pid_file = tmp_path / "pid"
    outcome = await run_process(
        argv=[sys.executable, "hook.py", str(pid_file)], cwd=tmp_path, timeout=30, warm=warm
    )
    assert outcome.exit_code == 0, outcome.stderr
    assert warm.forked == 1
    detached.append(int(pid_file.read_text()))
    assert eventually(lambda: not running(detached[0]))  # the warm interpreter's to reap


async def test_runs_in_flight_keep_their_processes_while_20_runs_hunt(
    tmp_path: Path, subreaper: None, detached: list[int]
) -> None:
    """Ten runs each wait for a worker they double-forked (re-parented to hookwright, no
    marker, its own session) while ten others exit at once leaving such a process behind:
    every worker finishes its work, and every leftover ends."""

    def waiter(n: int) -> str:
        done = tmp_path / f"done{n}"
        worker = f"sleep 1.5; echo ok > {done}"
        return (
            f"(env -i setsid sh -c '{worker}' >/dev/null 2>&1 &); i=0; "
            f'while [ ! -s {done} ] && [ "$i" -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; '
            f"cat {done}"
        )

    def leaver(n: int) -> str:
        pid_file = tmp_path / f"left{n}"
        return "sleep 0.2; " + DETACH.format(pid=pid_file) + WAIT.format(pid=pid_file)

    commands = [waiter(n) if n % 2 == 0 else leaver(n) for n in range(20)]
    outcomes = await asyncio.gather(*(run_process(command=c, timeout=60) for c in commands))
    detached.extend(int((tmp_path / f"left{n}").read_text()) for n in range(1, 20, 2))
    assert [o.stdout.strip() for o in outcomes[0::2]] == ["ok"] * 10
    assert all(outcome.exit_code == 0 for outcome in outcomes)
    assert eventually(lambda: all(gone(pid) for pid in detached))


async def test_an_orphan_pending_on_another_threads_start_ends_once_that_start_is_named(
    tmp_path: Path, subreaper: None, detached: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another thread begins a start before the hook run; the hook leaves a double-forked
    orphan; while the hunt waits on that start (the injected hook point), the thread forks its
    process, unmarked and in a session of its own like the orphan, and names it only after
    several of the hunt's looks. The hunt claims the orphan and never touches the other."""
    opened, fork, forked, name = (threading.Event() for _ in range(4))
    elsewhere: list[subprocess.Popen[bytes]] = []

    def start_elsewhere() -> None:
        with adoption.starting():
            opened.set()
            fork.wait(30)
            elsewhere.append(
                subprocess.Popen(["/bin/sleep", "300"], start_new_session=True, env={})
            )
            forked.set()
            name.wait(30)
            adoption.own(elsewhere[0].pid)

    looks: list[frozenset[int]] = []

    def hook_point(starts: frozenset[int]) -> bool:
        looks.append(starts)
        if len(looks) == 1:
            fork.set()
            assert forked.wait(30)
        assert running(elsewhere[0].pid) and not _stopped(elsewhere[0].pid)
        if len(looks) == 5:
            name.set()
            thread.join(30)
        return real_starts_open(starts)

    thread = threading.Thread(target=start_elsewhere)
    thread.start()
    real_starts_open = reaper.starts_open
    monkeypatch.setattr(reaper, "starts_open", hook_point)
    try:
        assert opened.wait(30)
        pid_file = tmp_path / "pid"
        command = DETACH.format(pid=pid_file) + WAIT.format(pid=pid_file)
        outcome = await run_process(command=command, timeout=30)
        assert outcome.exit_code == 0
        detached.append(int(pid_file.read_text()))
        assert len(looks) == 5 and all(len(starts) == 1 for starts in looks)
        assert eventually(lambda: gone(detached[0]))
        assert running(elsewhere[0].pid) and not _stopped(elsewhere[0].pid)
    finally:
        fork.set()
        name.set()
        thread.join(30)
        for proc in elsewhere:
            proc.kill()
            proc.wait()


def _stopped(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rfind(")") + 2] == "T"


async def test_without_the_subreaper_a_marked_setsid_child_is_found_by_the_scan(
    tmp_path: Path, detached: list[int]
) -> None:
    assert not adoption.tracking()
    pid_file = tmp_path / "pid"
    command = f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 300' >/dev/null 2>&1 & "
    outcome = await run_process(command=command + WAIT.format(pid=pid_file), timeout=30)
    assert outcome.exit_code == 0
    detached.append(int(pid_file.read_text()))
    assert eventually(lambda: not running(detached[0]))
