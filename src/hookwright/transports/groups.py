"""Process groups: every hook and tool process runs in a group of its own, so it and whatever
it spawned can be signalled together and checked for leftovers."""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Container

from hookwright.transports.adoption import (
    Proc,
    adopted,
    child_pids,
    fostered,
    last_pid,
    processes,
    read_proc,
    read_small,
    tracking,
)

log = logging.getLogger("hookwright.transports")

#: Up to this many pids allocated since a process are looked up one by one; more, and /proc
#: is listed instead.
_PROBE_PIDS = 32
#: Looks at the pids allocated since a process before `nothing_started_since` gives up.
_LOOKS = 4


def signal_group(pgid: int, sig: signal.Signals) -> bool:
    """Send `sig` to the group; False when the group no longer exists (or may not be
    signalled)."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        log.warning("not allowed to signal process group %d", pgid)
        return False
    return True


def _proc_stat_fields(entry: str) -> tuple[str, int] | None:
    """State and process group of /proc/<entry>, or None when it is gone or unreadable."""
    try:
        stat = read_small(f"/proc/{entry}/stat").decode("utf-8", errors="replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) < 3:
        return None
    return fields[0], int(fields[2])


def group_alive(pgid: int) -> bool:
    """Whether any live (non-zombie) process is in group `pgid`.

    ``killpg(pgid, 0)`` also counts zombies, which linger when the reaper (PID 1 in a
    container) does not reap; on Linux /proc tells them apart, elsewhere the `killpg` answer is
    all there is.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if tracking():
        return bool(members(pgid))
    if not os.path.isdir("/proc/self"):
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _proc_stat_fields(entry)
        if fields is not None and fields[1] == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


def others_alive(leader: int) -> tuple[bool, list[Proc] | None]:
    """Whether a live process other than `leader` is in the group `leader` leads (for a
    leader that is still exiting: it is not counted), and the processes read to find out.

    Every other member joined the group from the leader's session, so it was started after
    the leader: only processes with later pids are read.
    """
    try:
        os.killpg(leader, 0)
    except ProcessLookupError:
        return False, None
    except PermissionError:
        return True, None
    if tracking():
        return any(proc.pid != leader for proc in members(leader)), None
    if not os.path.isdir("/proc/self"):
        return True, None
    procs = processes(since=leader)
    alive = any(proc.group == leader and not proc.zombie and proc.pid != leader for proc in procs)
    return alive, procs


def members(pgid: int) -> list[Proc]:
    """The live processes of group `pgid`, found through the process tree (needs
    `adoption.tracking`): every other member joined from the leader's session, so it descends
    from the leader and is below it, or below a process of that session re-parented to this
    one (or made a warm interpreter's child). Reads the group's processes and this process's
    children, not every process."""
    seeds = [proc for proc in (read_proc(pgid),) if proc is not None]
    seeds += [proc for proc in (*adopted(), *fostered()) if proc.session == pgid]
    found: dict[int, Proc] = {}
    while seeds:
        proc = seeds.pop()
        if proc.pid in found:
            continue
        found[proc.pid] = proc
        below = (read_proc(child) for child in child_pids(proc.pid))
        seeds.extend(child for child in below if child is not None and child.ppid == proc.pid)
    return [proc for proc in found.values() if proc.group == pgid and not proc.zombie]


def nothing_started_since(leader: int, known: Container[int]) -> bool:
    """Whether every process started after `leader` (by pid order) is gone or in `known`:
    then none of `leader`'s descendants exists, in its group or out of it. False when that
    cannot be told (no /proc of this process's own pid namespace, the pid counter wrapped).

    Sound only once `leader` can start no more processes (it is dead or has a SIGKILL
    pending): every descendant was then started after it. The look is repeated over the pids
    allocated while it ran until a look ends with no new pid allocated, so a descendant that
    forks and exits while it is looked for (its successor's pid past the range looked at) is
    not missed. A thread's id counts when it is looked up by number, which only errs towards
    False.
    """
    if not _own_proc():
        return False
    since = leader
    for _ in range(_LOOKS):
        last = last_pid()
        if last is None or last < since:
            return False
        if last == since:
            return True
        if not _gone_or_known(since, last, known):
            return False
        since = last
    return False


def _gone_or_known(since: int, last: int, known: Container[int]) -> bool:
    """Whether every process whose pid is in (`since`, `last`] is gone or in `known`."""
    if last - since <= _PROBE_PIDS:
        pids = (pid for pid in range(since + 1, last + 1) if pid not in known)
        return not any(os.path.exists(f"/proc/{pid}") for pid in pids)
    try:
        entries = os.listdir("/proc")
    except OSError:
        return False
    newer = (int(entry) for entry in entries if entry.isdigit())
    return all(pid <= since or pid > last or pid in known for pid in newer)


def _own_proc() -> bool:
    """Whether /proc shows this process's pid namespace (its pids are the ones we see)."""
    try:
        return os.readlink("/proc/self") == str(os.getpid())
    except OSError:
        return False
