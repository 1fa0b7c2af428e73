"""`hookwright daemon`: one process per user (and home folder) that answers Claude Code hook
events for any project, with each project's hooks kept loaded.

It listens on a Unix socket in a private directory (see `claude_client.runtime_dir`), where
it answers only processes of its own user (the peer's uid, `SO_PEERCRED`), and, when an
endpoint is stored (`install claude-code --mode http`), on 127.0.0.1 with a token. A lock
file makes a second daemon exit at once; a socket left by a killed daemon is replaced. It
exits after `idle` seconds without a request.

The http front is open to every local process; its deadlines and connection cap
(`daemon_http`) keep a flood of it from taking the descriptors and the event loop the Unix
front needs."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import json
import math
import os
import resource
import signal
import socket
import struct
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from hookwright.bridges import daemon_http
from hookwright.bridges.claude_client import SOCKET_NAME, runtime_dir
from hookwright.bridges.daemon_pool import WorkerPool, worker_count
from hookwright.bridges.endpoint import HOST, Endpoint, load_endpoint
from hookwright.bridges.projects import (
    DEFAULT_MAX_PROJECTS,
    DEFAULT_PROJECT_IDLE,
    DEFAULT_PROJECT_LIMITS,
    ProjectLimits,
    Reply,
    WarmProjects,
)
from hookwright.config.private_files import write_private

#: Seconds without a request after which the daemon exits (`HOOKWRIGHT_DAEMON_IDLE`).
DEFAULT_IDLE = 1800.0
#: How long a stopping daemon waits for the events it is answering, in seconds.
DRAIN_SECONDS = 30.0
#: The descriptor soft limit the daemon raises itself to when the hard limit is unlimited.
DESCRIPTOR_TARGET = 1 << 20
#: The environment variables bounding the loaded projects (`projects.ProjectLimits`).
PROJECTS_VARIABLE = "HOOKWRIGHT_DAEMON_PROJECTS"
PROJECT_IDLE_VARIABLE = "HOOKWRIGHT_DAEMON_PROJECT_IDLE"
_PEERCRED = struct.Struct("3i")


@dataclass(frozen=True, slots=True)
class Paths:
    """The daemon's files in its private runtime directory."""

    root: Path

    @property
    def socket(self) -> Path:
        return self.root / SOCKET_NAME

    @property
    def lock(self) -> Path:
        return self.root / "daemon.lock"

    @property
    def pid(self) -> Path:
        return self.root / "daemon.pid"

    @classmethod
    def of(cls, home: Path) -> Paths:
        return cls(runtime_dir(home))


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket."""
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
    return int(_PEERCRED.unpack(raw)[1])


def idle_seconds() -> float:
    try:
        return float(os.environ.get("HOOKWRIGHT_DAEMON_IDLE", DEFAULT_IDLE))
    except ValueError:
        return DEFAULT_IDLE


def raise_descriptor_limit() -> int:
    """Raise the soft limit on open descriptors to the hard limit (`DESCRIPTOR_TARGET` when
    that is unlimited; never lower); the soft limit in force. Each command hook in flight
    holds a few descriptors, and the http front's connections one each."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = DESCRIPTOR_TARGET if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target


def _positive(environ: Mapping[str, str], name: str, default: float) -> float:
    raw = environ.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        sys.stderr.write(
            f"hookwright daemon: {name}={raw!r} is not a positive number; using {default}\n"
        )
        return default
    return value


def project_limits(environ: Mapping[str, str]) -> ProjectLimits:
    """How many projects stay loaded and for how long (a bad value is named on stderr and the
    default kept)."""
    loaded = _positive(environ, PROJECTS_VARIABLE, DEFAULT_MAX_PROJECTS)
    return ProjectLimits(
        loaded=max(1, int(loaded)),
        idle=_positive(environ, PROJECT_IDLE_VARIABLE, DEFAULT_PROJECT_IDLE),
    )


async def evict_idle_projects(warm: WarmProjects, stopping: asyncio.Event) -> None:
    """Close the projects that answered nothing for a while, looking twice per period, until
    `stopping` is set."""
    period = max(0.05, warm.limits.idle / 2)
    while not stopping.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), period)
        await warm.evict_idle()


class Daemon:
    def __init__(
        self,
        home: Path,
        paths: Paths,
        idle: float,
        limits: daemon_http.Limits,
        projects: ProjectLimits = DEFAULT_PROJECT_LIMITS,
        workers: int = 1,
    ) -> None:
        self.home = home
        #: How many processes serve the http front (the daemon and `workers - 1` workers).
        self.workers = workers
        self.pool: WorkerPool | None = None
        self.paths = paths
        self.idle = idle
        self.limits = limits
        self.warm = WarmProjects(home, projects)
        self.endpoint: Endpoint | None = None
        self.http: daemon_http.HttpFront | None = None
        self.started = time.time()
        self.last_request = time.monotonic()
        self.busy = 0
        self.stopping = asyncio.Event()
        self.servers: list[asyncio.Server] = []
        #: Events answered per front, HTTP connections served, and those closed as soon as
        #: accepted (over the cap, or opened by another user).
        self.counts = {
            "unix_events": 0,
            "http_events": 0,
            "http_connections": 0,
            "http_refused": 0,
        }

    async def answer(
        self, body: bytes, project: Path | None, env_project: str | None, agent: str | None = None
    ) -> Reply:
        """One hook event; `agent`: how the calling Claude Code named itself (None: an http
        hook, which cannot say)."""
        self.busy += 1
        try:
            return await self.warm.answer(body, project, env_project, agent)
        finally:
            self.busy -= 1
            self.last_request = time.monotonic()

    def status(self) -> dict[str, Any]:
        """What `daemon status` prints; the http counts are the daemon's and its workers'
        (each worker's as it last reported them, at most a second old)."""
        counts = dict(self.counts)
        for name, count in ({} if self.pool is None else self.pool.counts).items():
            counts[name] = counts.get(name, 0) + count
        return {
            "pid": os.getpid(),
            "socket": str(self.paths.socket),
            "url": None if self.endpoint is None else self.endpoint.url,
            "projects": self.warm.projects,
            "claude_code": self.warm.versions,
            "uptime": round(time.time() - self.started, 1),
            "idle_timeout": self.idle,
            "http_limits": dataclasses.asdict(self.limits),
            "http_open": 0 if self.http is None else self.http.open_connections,
            "workers": [] if self.pool is None else self.pool.pids,
            **counts,
        }

    async def on_unix(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            conn = writer.get_extra_info("socket")
            if conn is None or peer_uid(conn) != os.getuid():
                return
            data = await reader.read()
            line, _, body = data.partition(b"\n")
            header, reply = json.loads(line), Reply(1, b"", "hookwright: error: bad request\n")
            op = header.get("op") if isinstance(header, dict) else None
            if op == "hook":
                await self.ensure_http()
                named = header.get("project")
                project = Path(named) if isinstance(named, str) else None
                named_env = header.get("env_project")
                env_project = named_env if isinstance(named_env, str) else None
                named_agent = header.get("agent")
                agent = named_agent if isinstance(named_agent, str) else None
                self.counts["unix_events"] += 1
                reply = await self.answer(body, project, env_project, agent)
            elif op in ("status", "stop"):
                reply = Reply(0, json.dumps(self.status()).encode())
            head = {"exit": reply.exit, "stderr": reply.stderr}
            writer.write(json.dumps(head).encode() + b"\n" + reply.stdout)
            await writer.drain()
            if op == "stop":
                self.stopping.set()
        except (OSError, ValueError):
            return
        finally:
            writer.close()

    async def answer_http(
        self, body: bytes, project: Path | None, env_project: str | None
    ) -> Reply:
        """`answer` for the http front (which names no caller), counted; the projects' answer
        awaited here, not through `answer` (one coroutine less per event)."""
        self.counts["http_events"] += 1
        self.busy += 1
        try:
            return await self.warm.answer(body, project, env_project)
        finally:
            self.busy -= 1
            self.last_request = time.monotonic()

    async def watch_idle(self) -> None:
        while not self.stopping.is_set():
            quiet = time.monotonic() - self.last_request
            if self.busy == 0 and quiet >= self.idle:
                self.stopping.set()
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), max(0.05, self.idle - quiet))

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.stopping.set)
        try:
            write_private(self.paths.pid, f"{os.getpid()}\n".encode())
            self.paths.socket.unlink(missing_ok=True)
            unix = await asyncio.start_unix_server(self.on_unix, path=str(self.paths.socket))
            self.servers.append(unix)
            os.chmod(self.paths.socket, 0o600)
            await self.ensure_http()
            evicting = asyncio.create_task(evict_idle_projects(self.warm, self.stopping))
            await self.watch_idle()
            await evicting
        finally:
            for server in self.servers:
                server.close()
            if self.http is not None:
                self.http.close()
            self.paths.socket.unlink(missing_ok=True)
            if self.pool is not None:
                await self.pool.aclose(DRAIN_SECONDS + 5)
            await self._drain()
            self.paths.pid.unlink(missing_ok=True)
            await self.warm.aclose()

    async def _drain(self) -> None:
        """Let the events being answered finish (at most `DRAIN_SECONDS`)."""
        deadline = time.monotonic() + DRAIN_SECONDS
        while self.busy and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def ensure_http(self) -> None:
        """Listen on the stored loopback endpoint once there is one (an http install made
        after the daemon started is served from the next client request on)."""
        endpoint = load_endpoint(self.home) if self.endpoint is None else None
        if endpoint is None:
            return
        shared = self.workers > 1
        try:
            self.http = daemon_http.HttpFront.listen(
                endpoint, self.answer_http, self.limits, self.counts, reuse_port=shared
            )
        except OSError as exc:
            sys.stderr.write(f"hookwright daemon: cannot listen on {HOST}:{endpoint.port}: {exc}\n")
            return
        self.endpoint = endpoint
        if shared:
            self.pool = WorkerPool(self.workers - 1, endpoint, self._worker_answered)
            self.pool.start()

    def _worker_answered(self) -> None:
        self.last_request = time.monotonic()


def take_lock(paths: Paths) -> IO[bytes] | None:
    """The daemon's lock, held while it runs; None when another daemon holds it."""
    handle = open(paths.lock, "ab")  # noqa: SIM115 (held for the daemon's lifetime)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def serve(home: Path, idle: float | None = None) -> int:
    """Run the daemon in this process until it is stopped or idle; 0 also when another
    daemon already runs."""
    paths = Paths.of(home)
    lock = take_lock(paths)
    if lock is None:
        return 0
    limits = daemon_http.limits_from(os.environ, raise_descriptor_limit())
    daemon = Daemon(
        home,
        paths,
        idle_seconds() if idle is None else idle,
        limits,
        project_limits(os.environ),
        worker_count(os.environ),
    )
    try:
        asyncio.run(daemon.run())
    finally:
        lock.close()
    return 0
