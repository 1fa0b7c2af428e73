"""The daemon's http workers, seen from the daemon: extra processes that serve the http front
on the same port, so a team's agents are answered on every core.

One Python process answers on one core at a time; serving http from N processes
(`HOOKWRIGHT_DAEMON_WORKERS`, by default one per core the daemon may run on, at most
`DEFAULT_MAX_WORKERS`), the daemon starts N - 1 workers (`daemon_worker`) once it serves http. Each
binds the endpoint's port itself with `SO_REUSEPORT` (the kernel spreads new connections over
the sockets of the group, and admits to the group only sockets of the same user), loads its
own projects and keeps every rule of the daemon's front (peer uid, token, deadlines,
connection cap, trust, bounded projects, descriptor limit). The Unix socket, `daemon status`
and the idle timeout stay the daemon's.

Each worker holds one end of a socket pair, the daemon the other:

* the worker sends a byte once it listens (`daemon status` lists it from then on) and one
  after it answered (at most one a second), so the daemon counts it as a request for its
  idle timeout;
* the end of the stream tells each side the other is gone: a worker whose daemon is gone (even
  killed) closes its listening socket at once, finishes the events it is answering and exits;
  a worker that died is started again after `RESPAWN_PAUSE` seconds. Its connections die with
  it: a client whose event it was answering sees the connection reset, never an answer, so
  Claude Code reports a hook error and, with `onFailure: "block"`, blocks the action.

`aclose` ends every link and waits for the workers to exit (killing those that do not within
the drain time): `daemon stop` leaves no worker behind."""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from hookwright.bridges.claude_client import NEUTRAL_CWD, hookwright_command
from hookwright.bridges.endpoint import Endpoint

#: The environment variable naming how many processes serve the http front (1: the daemon
#: alone), and the most it may name.
WORKERS_VARIABLE = "HOOKWRIGHT_DAEMON_WORKERS"
MAX_WORKERS = 64
#: The most processes the default (one per core) starts. Each loads its own projects, so N
#: processes keep up to N times `HOOKWRIGHT_DAEMON_PROJECTS` loaded (N times their memory,
#: and one inotify instance per loaded project and process, out of the kernel's per-user
#: limit, 128 by default: 4 x 32 projects reaches it, and a project the kernel will not
#: watch is stamped on every event instead).
DEFAULT_MAX_WORKERS = 4
#: Seconds before a worker that died is started again.
RESPAWN_PAUSE = 1.0
#: What a worker process runs (`python -I -c WORKER_BOOT ROOT FD DIGEST`): the worker alone, without
#: the command line.
WORKER_BOOT = """import sys
root = sys.argv[1]
if root not in sys.path:
    sys.path.append(root)
from hookwright.bridges.daemon_worker import main
sys.exit(main(sys.argv[2:]))
"""


def endpoint_digest(endpoint: Endpoint) -> str:
    """What names the daemon's endpoint to its workers on their command line, which every
    local user can read: a SHA-256 of its port and token, never the token. A worker serves
    only the stored endpoint with this digest (the same port and token as the daemon)."""
    return hashlib.sha256(f"{endpoint.port}:{endpoint.token}".encode()).hexdigest()


def default_workers() -> int:
    """One process per core this process may run on (its CPU affinity), at most
    `DEFAULT_MAX_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this system
        cores = os.cpu_count() or 1
    return max(1, min(cores, DEFAULT_MAX_WORKERS))


def worker_count(environ: Mapping[str, str]) -> int:
    """How many processes serve the http front (`WORKERS_VARIABLE`, 1 to `MAX_WORKERS`;
    `default_workers` without it); a bad value is named on stderr and the default kept."""
    raw = environ.get(WORKERS_VARIABLE)
    if raw is None:
        return default_workers()
    try:
        count = int(raw)
    except ValueError:
        count = 0
    if not 1 <= count <= MAX_WORKERS:
        default = default_workers()
        sys.stderr.write(
            f"hookwright daemon: {WORKERS_VARIABLE}={raw!r} is not a number from 1 to "
            f"{MAX_WORKERS}; using {default} (one process per core, at most "
            f"{DEFAULT_MAX_WORKERS})\n"
        )
        return default
    return count


#: What a worker sends on its link: once it listens, and after it answered (`ANSWERED`, then
#: its counts so far as `events,connections,refused` and a newline).
LISTENING = b"+"
ANSWERED = b"."
#: The counts a worker reports, in that order.
WORKER_COUNTS = ("http_events", "http_connections", "http_refused")


def answered_note(counts: dict[str, int]) -> bytes:
    """A worker's note that it answered, with its counts (what `daemon status` adds up)."""
    return ANSWERED + ",".join(str(counts[name]) for name in WORKER_COUNTS).encode() + b"\n"


def _last_counts(lines: list[bytes]) -> dict[str, int] | None:
    """The counts of the last whole note in `lines`; None when they hold none."""
    for line in reversed(lines):
        fields = line.rpartition(ANSWERED)[2].split(b",")
        if len(fields) == len(WORKER_COUNTS) and all(field.isdigit() for field in fields):
            return dict(zip(WORKER_COUNTS, map(int, fields), strict=True))
    return None


@dataclass(slots=True)
class _Worker:
    proc: subprocess.Popen[bytes]
    link: socket.socket
    listening: bool = False
    #: Its counts as it last reported them.
    counts: dict[str, int] = field(default_factory=dict)
    #: The start of a note whose end has not come yet (a stream may cut a note in two).
    partial: bytes = b""


class WorkerPool:
    """The daemon's `extra` worker processes; `on_activity` is called when one answered."""

    def __init__(self, extra: int, endpoint: Endpoint, on_activity: Callable[[], None]) -> None:
        self.extra = extra
        self.digest = endpoint_digest(endpoint)
        self._on_activity = on_activity
        self._loop = asyncio.get_running_loop()
        self._workers: list[_Worker] = []
        #: Workers whose link ended, not reaped yet.
        self._ended: list[subprocess.Popen[bytes]] = []
        self._closing = False

    @property
    def counts(self) -> dict[str, int]:
        """The running workers' counts as they last reported them, added up."""
        return {
            name: sum(worker.counts.get(name, 0) for worker in self._workers)
            for name in WORKER_COUNTS
        }

    @property
    def pids(self) -> list[int]:
        """The workers listening now."""
        return [worker.proc.pid for worker in self._workers if worker.listening]

    def start(self) -> None:
        for _ in range(self.extra):
            self._spawn()

    def _spawn(self) -> None:
        if self._closing:
            return
        ours, theirs = socket.socketpair()
        try:
            proc = subprocess.Popen(
                hookwright_command(
                    sys.executable, str(theirs.fileno()), self.digest, boot=WORKER_BOOT
                ),
                stdin=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                cwd=NEUTRAL_CWD,
            )
        except OSError as exc:
            ours.close()
            sys.stderr.write(f"hookwright daemon: cannot start an http worker: {exc}\n")
            self._loop.call_later(RESPAWN_PAUSE, self._spawn)
            return
        finally:
            theirs.close()
        ours.setblocking(False)
        worker = _Worker(proc, ours)
        self._workers.append(worker)
        self._loop.add_reader(ours.fileno(), self._on_link, worker)

    def _on_link(self, worker: _Worker) -> None:
        try:
            data = worker.link.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            worker.listening = worker.listening or LISTENING in data
            if ANSWERED in data:
                *lines, rest = (worker.partial + data).split(b"\n")
                worker.partial = rest[-64:]
                worker.counts = _last_counts(lines) or worker.counts
                self._on_activity()
            return
        self._forget(worker)
        self._ended.append(worker.proc)
        self._loop.call_later(RESPAWN_PAUSE, self._replace, worker.proc)

    def _replace(self, proc: subprocess.Popen[bytes]) -> None:
        """Reap a worker whose link ended (killing it if it still runs: without its link it
        would outlive the daemon) and start another."""
        if proc not in self._ended:
            return
        self._ended.remove(proc)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sys.stderr.write(
            f"hookwright daemon: http worker {proc.pid} ended (exit {proc.returncode}); "
            "starting another\n"
        )
        self._spawn()

    def _forget(self, worker: _Worker) -> None:
        self._loop.remove_reader(worker.link.fileno())
        worker.link.close()
        self._workers.remove(worker)

    async def aclose(self, seconds: float) -> None:
        """End every link (each worker finishes what it answers, then exits) and wait for the
        workers, at most `seconds`; kill those still running."""
        self._closing = True
        procs = [worker.proc for worker in self._workers] + self._ended
        for worker in list(self._workers):
            self._forget(worker)
        self._ended = []
        deadline = time.monotonic() + seconds
        while any(proc.poll() is None for proc in procs) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


__all__ = [
    "ANSWERED",
    "DEFAULT_MAX_WORKERS",
    "LISTENING",
    "MAX_WORKERS",
    "WORKERS_VARIABLE",
    "WorkerPool",
    "default_workers",
    "endpoint_digest",
    "worker_count",
]
