"""Ending what a hook left behind outside its process group.

Every hook process starts in a process group of its own, and the group is killed when the hook
ends. A descendant that calls ``setsid`` (or double-forks into a daemon) leaves that group, so
two more things find it:

* **A marker in the environment.** Each run gets a unique token in :data:`MARKER`; every
  descendant inherits it, whatever session or group it moves to. When the hook ends, ``/proc``
  is scanned for processes whose initial environment carries the token, plus every descendant
  of those (and of the hook's own process while it is alive), so a process that cleared its
  environment is still found through a marked parent.
* **The child subreaper** (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux): orphaned descendants
  reparent to hookwright instead of init, so the processes killed here are hookwright's own
  children and are reaped here (no zombies left in a container whose PID 1 does not reap).

Limits: Linux only (elsewhere only the group is killed). A process that clears its environment
*and* whose marked ancestors have all exited before the hook ends is not found. A process
running as another user cannot be read or signalled. An orphan that exits on its own before
the scan sees it stays a zombie child of hookwright until hookwright exits: a zombie has no
environment left to attribute it by, and reaping children hookwright did not identify could
steal another waiter's exit status.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import secrets
import signal
from collections.abc import Mapping
from dataclasses import dataclass

log = logging.getLogger("hookwright.transports")

#: The environment variable carrying a hook run's token.
MARKER = "HOOKWRIGHT_HOOK_RUN"
_PR_SET_CHILD_SUBREAPER = 36
_REAP_POLL = 0.01
_MAX_ROUNDS = 20
_RESCAN_DELAY = 0.002
_subreaper: bool | None = None


def enable_subreaper() -> bool:
    """Make this process the child subreaper (once); False where Linux's prctl is missing."""
    global _subreaper
    if _subreaper is None:
        _subreaper = _prctl_subreaper()
    return _subreaper


def _prctl_subreaper() -> bool:
    if not os.path.isdir("/proc/self"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True, slots=True)
class RunMark:
    """The token of one hook run and the environment that carries it."""

    token: str
    env: dict[str, str]


def mark_environment(env: Mapping[str, str] | None) -> RunMark:
    """`env` (or this process's environment) plus a fresh run token."""
    token = secrets.token_hex(12)
    base = dict(os.environ) if env is None else dict(env)
    base[MARKER] = token
    return RunMark(token, base)


@dataclass(frozen=True, slots=True)
class _Proc:
    pid: int
    ppid: int
    session: int
    zombie: bool


def _read_stat(entry: str) -> _Proc | None:
    try:
        with open(f"/proc/{entry}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 4:
        return None
    return _Proc(int(entry), int(fields[1]), int(fields[3]), fields[0] in (b"Z", b"X"))


def _carries(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            environ = fh.read()
    except OSError:
        return False
    return needle in b"\0" + environ


def _processes() -> list[_Proc]:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = (_read_stat(entry) for entry in entries if entry.isdigit())
    return [proc for proc in found if proc is not None and proc.pid != os.getpid()]


@dataclass(slots=True)
class _Hunt:
    """One run's leftovers as found so far: `stopped` (live, SIGSTOPped so they cannot fork)
    and `zombies` (dead children of this process that belong to the run, to reap)."""

    token: str
    leader: int | None
    stopped: set[int]
    zombies: set[int]

    def _belongs(self, proc: _Proc, needle: bytes) -> bool:
        return (
            proc.pid in self.stopped
            or (self.leader is not None and proc.session == self.leader)
            or _carries(proc.pid, needle)
        )

    def scan(self) -> set[int]:
        """Live processes of the run not stopped yet: marked ones, members of the hook's
        session, and every descendant of those, of the leader and of the stopped ones."""
        procs = _processes()
        children: dict[int, list[_Proc]] = {}
        for proc in procs:
            children.setdefault(proc.ppid, []).append(proc)
        needle = f"\0{MARKER}={self.token}\0".encode()
        seeds = [proc for proc in procs if self._belongs(proc, needle)]
        for parent in (self.leader, *self.stopped):
            seeds.extend(children.get(parent or 0, ()))
        found: set[int] = set()
        while seeds:
            proc = seeds.pop()
            if proc.pid in found or proc.pid == self.leader:
                continue
            if proc.zombie:
                if proc.ppid == os.getpid():
                    self.zombies.add(proc.pid)
                continue
            found.add(proc.pid)
            seeds.extend(children.get(proc.pid, ()))
        return found - self.stopped

    async def stop_all(self) -> None:
        """Scan and SIGSTOP until two scans in a row find nothing new (a process caught in
        the middle of `exec` may not show its environment to the first)."""
        quiet = 0
        for _ in range(_MAX_ROUNDS):
            new = self.scan()
            self.stopped.update(pid for pid in new if _signal(pid, signal.SIGSTOP))
            quiet = 0 if new else quiet + 1
            if quiet == 2:
                return
            await asyncio.sleep(_RESCAN_DELAY)


def _signal(pid: int, sig: signal.Signals) -> bool:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        log.warning("not allowed to signal process %d left by a hook", pid)
        return False
    return True


def _reap(pids: set[int]) -> set[int]:
    """waitpid each without blocking; the ones still not reaped. A pid that is not this
    process's child (the subreaper is off, or its parent lives on) is someone else's to reap.
    No one else waits for any of them: they belong to this run, whose leader is never here."""
    left: set[int] = set()
    for pid in pids:
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            left.add(pid)
    return left


async def end_leftovers(token: str, leader: int | None, grace: float) -> int:
    """Kill every process the run `token` left behind and reap the adopted ones (waiting up to
    `grace` seconds for them to die). Returns how many were killed."""
    if not os.path.isdir("/proc/self"):
        return 0
    hunt = _Hunt(token, leader, set(), set())
    await hunt.stop_all()
    if hunt.stopped:
        log.debug("killing %d process(es) left by hook run %s", len(hunt.stopped), token)
    killed = {pid for pid in hunt.stopped if _signal(pid, signal.SIGKILL)}
    pending = _reap(killed | hunt.zombies)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while pending and loop.time() < deadline:
        await asyncio.sleep(_REAP_POLL)
        pending = _reap(pending)
    return len(killed)
