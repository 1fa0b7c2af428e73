"""The child subreaper and the zombies it inherits.

With ``prctl(PR_SET_CHILD_SUBREAPER)`` (Linux) an orphaned descendant of hookwright reparents
to hookwright instead of init: a process a hook or tool detached stays within reach, and when
it dies it is hookwright's zombie to reap. The setting is process-wide, so hookwright's own
command line turns it on (`enable_subreaper`), and an embedding host decides for itself.

Reaping must never take an exit status another waiter (asyncio, ``subprocess``) expects, so a
zombie child is reaped here only when it is attributable to a process hookwright started:

* it is in the session of a process hookwright started (`started`), and is not that process
  itself (asyncio waits for it); only that process's descendants can be in its session;
* or it was seen alive, adopted, with a hookwright run marker (:data:`MARKER`) in its
  environment: only hookwright's hook and tool processes and their descendants carry one.

`sweep` does both; it runs when a hook or tool run ends. A detached process that exits
between two sweeps is reaped at the next one; one that left its session and exits before any
sweep saw it stays a zombie until hookwright exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

#: The environment variable carrying a hook or tool run's token.
MARKER = "HOOKWRIGHT_HOOK_RUN"
#: A run's token is this many random bytes, in hex.
TOKEN_BYTES = 12
_PR_SET_CHILD_SUBREAPER = 36
_ANY_MARK = f"\0{MARKER}=".encode()


def enable_subreaper(on: bool = True) -> bool:
    """Make this process the child subreaper (or stop being it); False where Linux's prctl is
    missing or refuses."""
    if not os.path.isdir("/proc/self"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True, slots=True)
class RunMark:
    """The token of one run and the environment that carries it."""

    token: str
    env: dict[str, str]


def mark_environment(env: Mapping[str, str] | None) -> RunMark:
    """`env` (or this process's environment) plus a fresh run token."""
    token = os.urandom(TOKEN_BYTES).hex()
    base = dict(os.environ) if env is None else dict(env)
    base[MARKER] = token
    return RunMark(token, base)


@dataclass(frozen=True, slots=True)
class Proc:
    """One line of ``/proc/<pid>/stat``: what the hunt and the sweep need."""

    pid: int
    ppid: int
    session: int
    zombie: bool
    group: int


def _read_stat(entry: str) -> Proc | None:
    try:
        with open(f"/proc/{entry}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 4:
        return None
    zombie = fields[0] in (b"Z", b"X")
    return Proc(int(entry), int(fields[1]), int(fields[3]), zombie, int(fields[2]))


def last_pid() -> int | None:
    """The most recently allocated pid (``/proc/loadavg``), or None."""
    try:
        with open("/proc/loadavg", "rb") as fh:
            return int(fh.read().rsplit(b" ", 1)[1])
    except (OSError, ValueError, IndexError):
        return None


def _newer(entries: list[str], since: int) -> list[str]:
    """The pids allocated after `since`, allowing for one wrap of the pid counter."""
    last = last_pid()
    if last is None:
        return entries
    if last >= since:
        return [entry for entry in entries if since < int(entry) <= last]
    return [entry for entry in entries if int(entry) > since or int(entry) <= last]


def processes(since: int | None = None) -> list[Proc]:
    """Every process but this one (empty where there is no /proc); with `since`, only those
    started after the process `since` (by pid order, so a hook run that outlasts a whole cycle
    of the pid counter is not covered)."""
    try:
        entries = [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []
    if since is not None:
        entries = _newer(entries, since)
    found = (_read_stat(entry) for entry in entries)
    return [proc for proc in found if proc is not None and proc.pid != os.getpid()]


def _children() -> list[Proc]:
    """This process's children (every thread's), read from ``/proc/<pid>/task/*/children``
    where the kernel has it, else from a scan of every process."""
    me = os.getpid()
    try:
        tasks = os.listdir(f"/proc/{me}/task")
        pids: set[str] = set()
        for task in tasks:
            with open(f"/proc/{me}/task/{task}/children", "rb") as fh:
                pids.update(fh.read().decode().split())
    except FileNotFoundError:
        return [proc for proc in processes() if proc.ppid == me]
    except OSError:
        return []
    found = (_read_stat(pid) for pid in pids)
    return [proc for proc in found if proc is not None and proc.ppid == me]


def carries(pid: int, needle: bytes) -> bool:
    """Whether the initial environment of `pid` contains `needle` (NUL-delimited)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            environ = fh.read()
    except OSError:
        return False
    return needle in b"\0" + environ


def reap(pid: int) -> bool:
    """waitpid without blocking: True when `pid` is reaped or not a child of this process."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done != 0


class _Adoptions:
    """Process-wide, like the subreaper setting itself: the processes hookwright started
    (session leaders) and the adopted marked processes seen alive."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.leaders: set[int] = set()
        self.seen: set[int] = set()
        self.starting = 0


_adoptions = _Adoptions()


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """Around starting a process, until `started` names it: no sweep records a marked child
    meanwhile (it could be this new process, which is not adopted)."""
    with _adoptions.lock:
        _adoptions.starting += 1
    try:
        yield
    finally:
        with _adoptions.lock:
            _adoptions.starting -= 1


def started(leader: int) -> None:
    """`leader` was started in a session of its own by hookwright."""
    with _adoptions.lock:
        _adoptions.leaders.add(leader)


def sweep() -> None:
    """Reap the attributable zombie children; note adopted marked processes seen alive."""
    children = _children()
    with _adoptions.lock:
        leaders, seen = _adoptions.leaders, _adoptions.seen
        record = _adoptions.starting == 0
        for proc in children:
            if proc.pid in leaders:
                continue
            if proc.zombie:
                if (proc.session in leaders or proc.pid in seen) and reap(proc.pid):
                    seen.discard(proc.pid)
            elif record and proc.pid not in seen and carries(proc.pid, _ANY_MARK):
                seen.add(proc.pid)
        sessions = {proc.session for proc in children}
        gone = {pid for pid in leaders if pid not in sessions and not _exists(pid)}
        leaders.difference_update(gone)
        seen.intersection_update(proc.pid for proc in children)


def _exists(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")
