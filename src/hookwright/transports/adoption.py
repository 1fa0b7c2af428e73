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

`orphans` tells which adopted processes a run's leftover hunt may claim although they carry
no marker (a process that cleared its environment after its marked ancestors exited): see
its docstring for the rule, and `own` for the processes hookwright starts that are no run.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
import os
import threading
import time
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field

from hookwright.transports.marker import MARKER as MARKER

#: A run's token is this many random bytes, in hex.
TOKEN_BYTES = 12
_PR_SET_CHILD_SUBREAPER = 36
#: The fewest leaders `sweep` looks over to forget those that are gone.
_PRUNE_FLOOR = 64
_ANY_MARK = f"\0{MARKER}=".encode()
#: Clock ticks per second, the unit of a process's start time in ``/proc/<pid>/stat``.
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_BOOT_CLOCK = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)


def enable_subreaper(on: bool = True) -> bool:
    """Make this process the child subreaper (or stop being it); False where Linux's prctl is
    missing or refuses. While it is, the leftover hunt may claim adopted processes that carry
    no marker (`orphans`)."""
    if not os.path.isdir("/proc/self"):
        return False
    import ctypes  # here: a process answering one event with in-process hooks never calls it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = int(libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
    if done:
        _adoptions.subreaper = on
    return done


def boot_ticks() -> int:
    """Now, in the clock and unit of a process's start time (ticks since boot): a process
    started after this call has a start time at least this."""
    return time.clock_gettime_ns(_BOOT_CLOCK) * _TICKS // 1_000_000_000


@dataclass(frozen=True, slots=True)
class Instant:
    """A moment processes are placed against: `boot_ticks` then, and the last pid allocated
    then (`last_pid`), which orders the processes started in the same tick."""

    tick: int
    pid: int | None

    def precedes(self, proc: Proc) -> bool:
        """Whether `proc` surely started after this moment: in a later tick, or in the same
        one with a later pid (a pid counter that wrapped within the tick errs towards no)."""
        if proc.start != self.tick:
            return proc.start > self.tick
        return self.pid is not None and proc.pid > self.pid

    def may_precede(self, proc: Proc) -> bool:
        """Whether `proc` may have started after this moment (not surely before it)."""
        return self.precedes(proc) or (proc.start == self.tick and self.pid is None)


def instant() -> Instant:
    """Now (the tick is read first: a process started between the two reads is not counted
    as started after)."""
    tick = boot_ticks()
    return Instant(tick, last_pid())


@dataclass(frozen=True, slots=True)
class RunMark:
    """The token of one run, the environment that carries it, and when the run began (taken
    before anything of the run was started)."""

    token: str
    env: dict[str, str]
    since: Instant


def mark_environment(env: Mapping[str, str] | None) -> RunMark:
    """`env` (or this process's environment) plus a fresh run token."""
    token = os.urandom(TOKEN_BYTES).hex()
    base = dict(os.environ) if env is None else dict(env)
    base[MARKER] = token
    return RunMark(token, base, instant())


@dataclass(frozen=True, slots=True)
class Proc:
    """One line of ``/proc/<pid>/stat``: what the hunt and the sweep need (`start`: the
    process's start time, in ticks since boot)."""

    pid: int
    ppid: int
    session: int
    zombie: bool
    group: int
    start: int = 0


def read_small(path: str) -> bytes:
    """The whole of a small file of /proc, in as few system calls as it takes (open, a read
    until one finds the end, close): a buffered file object costs five more (a `stat`, a
    terminal check, two seeks, another `stat`), and /proc is read several times per run."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = [os.read(fd, 4096)]
        while chunks[-1]:
            chunks.append(os.read(fd, 65536))
    finally:
        os.close(fd)
    return b"".join(chunks)


def _read_stat(entry: str) -> Proc | None:
    try:
        stat = read_small(f"/proc/{entry}/stat")
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 20:
        return None
    zombie = fields[0] in (b"Z", b"X")
    start = int(fields[19])
    return Proc(int(entry), int(fields[1]), int(fields[3]), zombie, int(fields[2]), start)


def last_pid() -> int | None:
    """The most recently allocated pid (``/proc/loadavg``), or None."""
    try:
        return int(read_small("/proc/loadavg").rsplit(b" ", 1)[1])
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
    if not lists_children():
        return [proc for proc in processes() if proc.ppid == me]
    found = (_read_stat(str(pid)) for pid in child_pids(me))
    return [proc for proc in found if proc is not None and proc.ppid == me]


@functools.cache
def lists_children() -> bool:
    """Whether the kernel lists a process's children (``/proc/<pid>/task/<tid>/children``)."""
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def child_pids(pid: int) -> list[int]:
    """The children of `pid`, every thread's (none when it is gone); needs `lists_children`."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    pids: list[int] = []
    for task in tasks:
        try:
            pids.extend(
                int(child) for child in read_small(f"/proc/{pid}/task/{task}/children").split()
            )
        except OSError:
            continue
    return pids


def tracking() -> bool:
    """Whether a run's processes can be followed through the process tree: this process is
    the subreaper (every process a run leaves behind is re-parented to it, or to a process
    of the run) and the kernel lists children."""
    return _adoptions.subreaper and lists_children()


def read_proc(pid: int) -> Proc | None:
    """`pid`'s line of ``/proc/<pid>/stat``, or None when it is gone."""
    return _read_stat(str(pid))


def adopted() -> list[Proc]:
    """This process's children that hookwright did not start (no run's leader, not `own`):
    processes re-parented here, and children other code in this process started. A child
    that only has the pid of a process hookwright started (gone, its pid reused) is one."""
    with _adoptions.lock:
        known = _adoptions.named()
    return [proc for proc in _children() if not _is_one(proc, known)]


def fostered() -> list[Proc]:
    """The children of the processes named `own` (a warm interpreter's) that are no run's
    leader: its standbys, and any process a run's process made its sibling there
    (``clone(CLONE_PARENT)``), which the run's process tree does not reach."""
    with _adoptions.lock:
        hosts = dict(_adoptions.others)
        leaders = {pid: leader.start for pid, leader in _adoptions.leaders.items()}
    hosts = {pid: start for pid, start in hosts.items() if _still(pid, start)}
    found = (read_proc(pid) for host in hosts for pid in child_pids(host))
    return [
        proc
        for proc in found
        if proc is not None and proc.ppid in hosts and not _is_one(proc, leaders)
    ]


def carries(pid: int, needle: bytes) -> bool:
    """Whether the initial environment of `pid` contains `needle` (NUL-delimited)."""
    environ = _environ(pid)
    return environ is not None and needle in environ


def _environ(pid: int) -> bytes | None:
    """The initial environment of `pid`, NUL-led (None when it cannot be read)."""
    try:
        return b"\0" + read_small(f"/proc/{pid}/environ")
    except OSError:
        return None


def _token(pid: int) -> str | None:
    """The run token in the initial environment of `pid`: "" when it has none, None when
    the environment cannot be read."""
    environ = _environ(pid)
    if environ is None:
        return None
    at = environ.find(_ANY_MARK)
    if at < 0:
        return ""
    value = environ[at + len(_ANY_MARK) :]
    return value[: value.find(b"\0")].decode("ascii", "replace") if b"\0" in value else ""


def reap(pid: int) -> bool:
    """waitpid without blocking: True when `pid` is reaped or not a child of this process."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done != 0


@dataclass(frozen=True, slots=True)
class _Leader:
    """A run's leader as `started` named it: the moment before it was started, and its own
    start time (None when it was gone already), which tells it from a later process that was
    given its pid once it was gone."""

    moment: Instant
    start: int | None


@dataclass(slots=True)
class _Adoptions:
    """Process-wide, like the subreaper setting itself: the processes hookwright started
    (session leaders of hook and tool runs, and `others`), the adopted marked processes seen
    alive, and when each start still under way began (`opened`, by the start's number)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Each run's leader, with the moment before it was started and its start time.
    leaders: dict[int, _Leader] = field(default_factory=dict)
    #: The processes named `own`, with their start times.
    others: dict[int, int | None] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)
    opened: dict[int, Instant] = field(default_factory=dict)
    numbers: Iterator[int] = field(default_factory=itertools.count)
    subreaper: bool = False
    #: `sweep` forgets the leaders that are gone once there are this many.
    prune_at: int = _PRUNE_FLOOR

    def named(self) -> dict[int, int | None]:
        """Every process hookwright started, run leaders and `own` alike, with its start
        time (call it holding `lock`)."""
        return {pid: leader.start for pid, leader in self.leaders.items()} | self.others


_adoptions = _Adoptions()
#: The moment the innermost `starting` of this task or thread began.
_start: contextvars.ContextVar[Instant | None] = contextvars.ContextVar("_start", default=None)


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """Around starting a process, until `started` or `own` names it: no sweep records a
    marked child meanwhile, and no hunt claims a child started since (it could be this new
    process, which is not adopted)."""
    moment = instant()
    token = _start.set(moment)
    with _adoptions.lock:
        number = next(_adoptions.numbers)
        _adoptions.opened[number] = moment
    try:
        yield
    finally:
        with _adoptions.lock:
            del _adoptions.opened[number]
        _start.reset(token)


def starts_open(starts: Collection[int]) -> bool:
    """Whether any of `starts` (numbers `Orphans.pending` gave) is still under way."""
    with _adoptions.lock:
        return any(number in _adoptions.opened for number in starts)


def started(leader: int) -> None:
    """`leader` was started in a session of its own by hookwright, for a hook or tool run
    (called inside `starting`, whose beginning is when the run's processes may start)."""
    moment = _start.get() or Instant(0, None)
    named = _Leader(moment, _start_time(leader))
    with _adoptions.lock:
        _adoptions.leaders[leader] = named


def own(pid: int) -> None:
    """`pid` was started by this process and is no hook or tool run (a warm interpreter, a
    probe; a host that made this process the subreaper names here the processes it starts in
    sessions of their own): the leftover hunt never claims it. Call it inside `starting`."""
    start = _start_time(pid)
    with _adoptions.lock:
        _adoptions.others[pid] = start


def sweep() -> None:
    """Reap the attributable zombie children; note adopted marked processes seen alive."""
    children = adopted()
    with _adoptions.lock:
        leaders, seen = _adoptions.leaders, _adoptions.seen
        record = not _adoptions.opened
        led = {pid: leader.start for pid, leader in leaders.items()}
        for proc in children:
            if _is_one(proc, led):
                continue
            if proc.zombie:
                if (proc.session in leaders or proc.pid in seen) and reap(proc.pid):
                    seen.discard(proc.pid)
            elif record and proc.pid not in seen and carries(proc.pid, _ANY_MARK):
                seen.add(proc.pid)
        seen.intersection_update(proc.pid for proc in children)
        if len(leaders) >= _adoptions.prune_at:
            _prune(leaders, {proc.session for proc in children})
        others = _adoptions.others
        _adoptions.others = {pid: at for pid, at in others.items() if _still(pid, at)}


def _prune(leaders: dict[int, _Leader], sessions: set[int]) -> None:
    """Forget the leaders that are gone and whose session nothing adopted is in. Done once
    the table has doubled since the last time, so a sweep costs the same however many runs
    are in flight; a dead leader kept meanwhile only attributes its session's zombies."""
    gone = [pid for pid, run in leaders.items() if not _still(pid, run.start, zombie=True)]
    for pid in (pid for pid in gone if pid not in sessions):
        del leaders[pid]
    _adoptions.prune_at = max(_PRUNE_FLOOR, 2 * len(leaders))


def _start_time(pid: int) -> int | None:
    """The start time of `pid` (a zombie's too), None when it is gone."""
    proc = _read_stat(str(pid))
    return None if proc is None else proc.start


def _is_one(proc: Proc, named: Mapping[int, int | None]) -> bool:
    """Whether `proc` is one of the processes `named` (pid to start time): the same pid and
    the same start, not a later process that was given the pid of one that is gone."""
    return proc.pid in named and named[proc.pid] == proc.start


def _still(pid: int, start: int | None, zombie: bool = False) -> bool:
    """Whether the process `pid` that started at `start` is alive (`zombie`: or unreaped),
    not gone with its pid free or given to a later process."""
    proc = _read_stat(str(pid))
    return proc is not None and proc.start == start and (zombie or not proc.zombie)


@dataclass(frozen=True, slots=True)
class Orphans:
    """What `orphans` found: the processes a run may claim, and the starts under way that
    keep some other child from being judged yet (`pending`: it may be the process such a
    start has not named). Once those starts have ended, a new look decides that child: a
    start begun later cannot have started it."""

    claimed: tuple[Proc, ...] = ()
    pending: frozenset[int] = frozenset()


def orphans(
    token: str, since: Instant, leader: int | None, children: list[Proc] | None = None
) -> Orphans:
    """The adopted children the run `token` (begun at `since`, led by `leader`) may claim
    although they carry no run token.

    A child of this process that hookwright did not start (no run's leader, not `own`), out
    of this process's session (no hook's descendant can join it), whose environment carries
    no run token and that started after `since` was re-parented here when the processes
    between it and hookwright exited: it descends from a run whose token it dropped. It is
    this run's when no other run can have started it: no live process of another run (a
    run's leader, or an adopted child carrying another token: the top of whatever that run
    still has running) may have begun before it. A leader's run begins when `starting` began
    for it (a warm interpreter's child is older than its run). Otherwise the child is left to
    the hunt of the last such run to end, whose own `since` precedes it too. A child that a
    start still under way may have made (it started after that start began) is not judged:
    that start is named in `Orphans.pending`, and the hunt looks again once it has ended
    (starts begun after the child cannot have made it, so no later start delays it). Nothing is
    claimed unless this process is the subreaper (`enable_subreaper`): without it no orphan
    is re-parented here, and every child is this process's own. `children`: what `adopted`
    just returned, if the caller has it (the names are looked up after it was read, so a
    process named meanwhile is not taken for an adopted one)."""
    if not _adoptions.subreaper:
        return Orphans()
    if children is None:
        children = adopted()
    with _adoptions.lock:
        known = _adoptions.named()
        runs = [(pid, run) for pid, run in _adoptions.leaders.items() if pid != leader]
        opened = dict(_adoptions.opened)
    own_session = os.getsid(0)
    candidates: list[Proc] = []
    owners: list[Instant] = []
    for proc in children:
        if _is_one(proc, known) or proc.session == own_session:
            continue
        mark = _token(proc.pid)
        if mark == "" and since.precedes(proc):
            candidates.append(proc)
        elif mark and mark != token and not proc.zombie:
            owners.append(Instant(proc.start, proc.pid - 1))
    if not candidates:
        return Orphans()
    owners += [run.moment for pid, run in runs if _still(pid, run.start)]
    ours = [proc for proc in candidates if not any(o.may_precede(proc) for o in owners)]
    return _settle(ours, opened)


def _settle(ours: list[Proc], opened: dict[int, Instant]) -> Orphans:
    """`ours` claimed but those that a start under way in `opened` may have made, and the
    starts that keep them pending."""
    settled: list[Proc] = []
    pending: set[int] = set()
    for proc in ours:
        under_way = {number for number, begun in opened.items() if begun.may_precede(proc)}
        pending |= under_way
        if not under_way:
            settled.append(proc)
    return Orphans(tuple(settled), frozenset(pending))
