"""One http worker of the daemon (see `daemon_pool`): the http front on the endpoint's port,
shared with the daemon and its other workers (`SO_REUSEPORT`), answering from projects of its
own.

It keeps every rule of the daemon's front: it raises its descriptor soft limit, takes its
connection cap and deadlines from the same environment, bounds its loaded projects the same
way, and answers with the same `WarmProjects`. It stops when the daemon's end of its link
ends (the daemon stopped or died), or on SIGTERM: it stops listening at once, finishes the
events it is answering (at most `daemon.DRAIN_SECONDS`) and closes its projects."""

from __future__ import annotations

import asyncio
import hmac
import os
import signal
import socket
import sys
import time
from pathlib import Path

from hookwright.bridges import daemon_http
from hookwright.bridges.daemon import (
    DRAIN_SECONDS,
    evict_idle_projects,
    project_limits,
    raise_descriptor_limit,
)
from hookwright.bridges.daemon_pool import LISTENING, answered_note, endpoint_digest
from hookwright.bridges.endpoint import HOST, load_endpoint
from hookwright.bridges.projects import ProjectLimits, Reply, WarmProjects
from hookwright.core.home import user_home

#: At most one note of activity to the daemon per this many seconds.
BEACON_EVERY = 1.0


class Worker:
    def __init__(
        self,
        home: Path,
        link: socket.socket,
        digest: str,
        limits: daemon_http.Limits,
        projects: ProjectLimits,
    ) -> None:
        self.home = home
        self.link = link
        self.digest = digest
        self.limits = limits
        self.warm = WarmProjects(home, projects)
        self.busy = 0
        self.stopping = asyncio.Event()
        self.counts = {"http_events": 0, "http_connections": 0, "http_refused": 0}
        self._noted = -BEACON_EVERY
        self._told_later = False

    async def answer(self, body: bytes, project: Path | None, env_project: str | None) -> Reply:
        self.counts["http_events"] += 1
        self.busy += 1
        try:
            return await self.warm.answer(body, project, env_project)
        finally:
            self.busy -= 1
            self._note_activity()

    def _note_activity(self) -> None:
        """Tell the daemon this worker answered (its idle timeout counts it) and its counts
        (`daemon status` adds them up), at most once every `BEACON_EVERY` seconds; answers in
        between are told once that time is up, so the last count always reaches it."""
        now = time.monotonic()
        if now - self._noted >= BEACON_EVERY:
            self._noted = now
            self._send(answered_note(self.counts))
        elif not self._told_later:
            self._told_later = True
            asyncio.get_running_loop().call_later(
                self._noted + BEACON_EVERY - now, self._tell_later
            )

    def _tell_later(self) -> None:
        self._told_later = False
        self._noted = time.monotonic()
        self._send(answered_note(self.counts))

    def _send(self, note: bytes) -> None:
        try:
            self.link.send(note)
        except OSError:
            return

    def _on_link(self) -> None:
        """The daemon sends nothing: readable means its end is gone."""
        try:
            if self.link.recv(64):
                return
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self.stopping.set()

    def _listen(self) -> daemon_http.HttpFront | None:
        """The front on the daemon's endpoint (the stored one, when its digest is the
        daemon's); None (said on stderr) when the stored endpoint changed since the daemon
        read it, or its port cannot be bound."""
        endpoint = load_endpoint(self.home)
        if endpoint is None or not hmac.compare_digest(endpoint_digest(endpoint), self.digest):
            sys.stderr.write("hookwright http worker: the stored endpoint changed; not serving\n")
            return None
        try:
            return daemon_http.HttpFront.listen(
                endpoint, self.answer, self.limits, self.counts, reuse_port=True
            )
        except OSError as exc:
            sys.stderr.write(
                f"hookwright http worker: cannot listen on {HOST}:{endpoint.port}: {exc}\n"
            )
            return None

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.stopping.set)
        self.link.setblocking(False)
        loop.add_reader(self.link.fileno(), self._on_link)
        front = self._listen()
        if front is None:
            await self.stopping.wait()  # exiting would only have the daemon start another
            return
        self._send(LISTENING)
        evicting = asyncio.create_task(evict_idle_projects(self.warm, self.stopping))
        try:
            await self.stopping.wait()
        finally:
            front.close()
            await evicting
            deadline = time.monotonic() + DRAIN_SECONDS
            while self.busy and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await self.warm.aclose()


def main(args: list[str]) -> int:
    """`WORKER_BOOT`'s entry: `args` are the descriptor of the worker's end of its link and
    the digest of the daemon's endpoint (`daemon_pool.endpoint_digest`; the token itself is
    read from the stored endpoint, never passed on a command line every local user can
    read)."""
    link = socket.socket(fileno=int(args[0]))
    limits = daemon_http.limits_from(os.environ, raise_descriptor_limit())
    worker = Worker(user_home(), link, args[1], limits, project_limits(os.environ))
    try:
        asyncio.run(worker.run())
    finally:
        link.close()
    return 0
