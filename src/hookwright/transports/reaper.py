"""Ending what a hook left behind outside its process group.

Every hook process starts in a process group of its own, and the group is killed when the hook
ends. A descendant that calls ``setsid`` (or double-forks into a daemon) leaves that group; it
is found by the run's marker (:mod:`hookwright.transports.adoption`): each run gets a unique
token in its environment, which every descendant inherits whatever session or group it moves
to. One that cleared its environment and whose marked ancestors have all exited was
re-parented to hookwright (the subreaper): it is claimed when no other run still alive can
have started it (`adoption.orphans` gives the rule), with its descendants. They are stopped
first (so none can fork while the look repeats), then killed, and reaped when they are
hookwright's children (the subreaper made them so).

How the run's processes are looked for:

* When hookwright is the subreaper (`adoption.tracking`), through the process tree: the
  children of the hook's process and of those stopped, and hookwright's own adopted children
  that are the run's (members of the hook's session, marked, or claimed orphans), each with
  its descendants (``/proc/<pid>/task/*/children``). Whatever a run leaves is re-parented to
  one of its own processes or to hookwright, so the look reads the run's processes and
  hookwright's children, however many other runs are in flight.
* Otherwise (a library host that did not turn the subreaper on, a kernel that does not list
  children), ``/proc`` is scanned for processes started after the hook's whose initial
  environment carries the token, the members of the hook's session, and every descendant of
  those (and of the hook's own process while it is alive), so a process that cleared its
  environment is still found through a marked parent.

Limits: Linux only (elsewhere only the group is killed). Without the subreaper (a library
host that did not turn it on), a process that clears its environment *and* whose marked
ancestors have all exited before the hook ends is not found; with it, such a process is left
running while a process of another run that started before it is alive (see `orphans`). A
process running as another user cannot be read or signalled.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hookwright.transports.adoption import (
    MARKER,
    Instant,
    Proc,
    adopted,
    carries,
    child_pids,
    fostered,
    orphans,
    processes,
    read_proc,
    reap,
    starts_open,
    sweep,
    tracking,
)

log = logging.getLogger("hookwright.transports")

_REAP_POLL = 0.01
_MAX_ROUNDS = 20
_RESCAN_DELAY = 0.0
#: How long a hunt waits, at most, for the starts under way elsewhere in hookwright that keep
#: an adopted child from being judged (a start ends in milliseconds; this bounds a hung one).
_PENDING_WAIT = 30.0


@dataclass(slots=True)
class _Hunt:
    """One run's leftovers as found so far: `stopped` (live, SIGSTOPped so they cannot fork)
    and `zombies` (dead children of this process that belong to the run, to reap).
    `since`: when the run began (`RunMark.since`), None to claim no unmarked orphan;
    `pending`: the starts under way that kept the last scan from judging an orphan."""

    token: str
    leader: int | None
    stopped: set[int]
    zombies: set[int]
    since: Instant | None = None
    pending: frozenset[int] = frozenset()

    def _orphans(self, children: list[Proc] | None = None) -> list[Proc]:
        if self.since is None:
            return []
        found = orphans(self.token, self.since, self.leader, children)
        self.pending = found.pending
        return list(found.claimed)

    def _belongs(self, proc: Proc, needle: bytes) -> bool:
        return (
            proc.pid in self.stopped
            or (self.leader is not None and proc.session == self.leader)
            or carries(proc.pid, needle)
        )

    def scan(self, procs: list[Proc] | None = None) -> set[int]:
        """Live processes of the run not stopped yet: marked ones, members of the hook's
        session, and every descendant of those, of the leader and of the stopped ones."""
        if tracking():
            return self._follow()
        if procs is None:
            procs = processes(since=self.leader)
        children: dict[int, list[Proc]] = {}
        for proc in procs:
            children.setdefault(proc.ppid, []).append(proc)
        needle = f"\0{MARKER}={self.token}\0".encode()
        seeds = [proc for proc in procs if self._belongs(proc, needle)]
        seeds += self._orphans()
        for parent in (self.leader, *self.stopped):
            seeds.extend(children.get(parent or 0, ()))
        return self._descend(seeds, lambda proc: children.get(proc.pid, ()))

    def _follow(self) -> set[int]:
        """`scan` through the process tree (this process is the subreaper): what the leader
        and the stopped processes have as children, this process's adopted children that are
        the run's (in the hook's session, marked, or claimed as orphans) and such children of
        a warm interpreter (`fostered`), with all their descendants. A process whose parent
        exits while it is looked at is re-parented here and found by the next scan. Reads the
        run's processes and this process's children, whatever else runs on the machine."""
        seeds: list[Proc] = []
        for parent in (self.leader, *self.stopped):
            seeds.extend(_live_children(parent or 0))
        adopted_now = adopted()
        needle = f"\0{MARKER}={self.token}\0".encode()
        seeds += [proc for proc in adopted_now if self._belongs(proc, needle)]
        seeds += [proc for proc in fostered() if self._belongs(proc, needle)]
        seeds += self._orphans(adopted_now)
        return self._descend(seeds, lambda proc: _live_children(proc.pid))

    def _descend(self, seeds: list[Proc], below: Callable[[Proc], Iterable[Proc]]) -> set[int]:
        """The live processes among `seeds` and their descendants (`below` gives a process's
        children), the leader and those stopped already left out; dead children of this
        process met on the way are noted to reap."""
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
            seeds.extend(below(proc))
        return found - self.stopped

    async def stop_all(self, seen: list[Proc] | None = None) -> None:
        """Scan and SIGSTOP until two scans in a row find nothing new (a process caught in
        the middle of `exec` may not show its environment to the first)."""
        quiet = 0
        for _ in range(_MAX_ROUNDS):
            new = self.scan(seen)
            seen = None
            self.stopped.update(pid for pid in new if _signal(pid, signal.SIGSTOP))
            quiet = 0 if new else quiet + 1
            if quiet == 2:
                return
            await asyncio.sleep(_RESCAN_DELAY)


async def _await_pending(hunt: _Hunt) -> None:
    """Look again each time the starts that kept an orphan pending have all ended, until no
    orphan is pending: the answer depends on which process each start made, not on how long
    a start took. Only a start hung for `_PENDING_WAIT` seconds leaves the orphan running
    (logged as a warning)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _PENDING_WAIT
    while hunt.pending:
        if loop.time() >= deadline:
            log.warning("hook run %s: an orphan left running, a start elsewhere hung", hunt.token)
            return
        if starts_open(hunt.pending):
            await asyncio.sleep(_REAP_POLL)
            continue
        await hunt.stop_all()


def _live_children(pid: int) -> list[Proc]:
    """The children of `pid` as /proc shows them now (none when `pid` is gone)."""
    found = (read_proc(child) for child in child_pids(pid))
    return [proc for proc in found if proc is not None and proc.ppid == pid]


def _signal(pid: int, sig: signal.Signals) -> bool:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        log.warning("not allowed to signal process %d left by a hook", pid)
        return False
    return True


async def end_leftovers(
    token: str,
    leader: int | None,
    grace: float,
    seen: list[Proc] | None = None,
    *,
    since: Instant | None = None,
) -> int:
    """Kill every process the run `token` left behind and reap the adopted ones (waiting up to
    `grace` seconds for them to die). Returns how many were killed. `seen`: the processes
    started after `leader`, read just before (saves the first read of /proc). `since`: when
    the run began (`RunMark.since`); with it, adopted processes that dropped the run's token
    are claimed too (`adoption.orphans`), once the starts under way elsewhere in hookwright
    that may have made them have ended (`_await_pending`)."""
    if not os.path.isdir("/proc/self"):
        return 0
    loop = asyncio.get_running_loop()
    hunt = _Hunt(token, leader, set(), set(), since)
    await hunt.stop_all(seen)
    await _await_pending(hunt)
    if hunt.stopped:
        log.debug("killing %d process(es) left by hook run %s", len(hunt.stopped), token)
    killed = {pid for pid in hunt.stopped if _signal(pid, signal.SIGKILL)}
    pending = {pid for pid in killed | hunt.zombies if not reap(pid)}
    deadline = loop.time() + grace
    while pending and loop.time() < deadline:
        await asyncio.sleep(_REAP_POLL)
        pending = {pid for pid in pending if not reap(pid)}
    sweep()
    return len(killed)
