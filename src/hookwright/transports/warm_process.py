"""A hook process forked by a warm Python template server (`warm.WarmPython`), as
`process.run_process` supervises it: its pipes on the event loop and its exit as the server or
the process itself reports it. Loaded with the first warm run (it needs asyncio; building a
`WarmPython` does not)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hookwright.transports.groups import nothing_started_since

if TYPE_CHECKING:
    from hookwright.transports.warm import _Server

log = logging.getLogger("hookwright.transports.warm")


class WarmProcess:
    """A hook process forked by a template server, as `run_process` supervises it: the same
    surface as `asyncio.subprocess.Process` (pid, returncode, stdin, stdout, stderr) plus
    `exited`, resolved when the run's exit is known, and `close`.

    The exit is known when the server reports the wait status, or earlier, when the process
    reported its exit code on the status board and closed its std descriptors as its last
    step (`reported`): the pipes reach EOF while the kernel is still tearing the process down.
    A process that dies without reporting (a signal, ``os._exit`` in the hook) gets its wait
    status from the server."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.pid = 0
        self.returncode: int | None = None
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self.exited: asyncio.Future[None] = loop.create_future()
        self._channel: socket.socket | None = None
        self._transports: list[asyncio.BaseTransport] = []
        self._files: list[Any] = []
        #: The stdin bytes still to write (what did not fit the pipe before the fork).
        self.unsent = b""
        #: Whether a shell would have stood between the engine and the interpreter.
        self.wrapped = False
        #: What that shell would have added to stderr (a death by signal), unless we killed it.
        self.shell_note = ""
        self._watch: asyncio.Task[None] | None = None
        #: The server and board slot the exit code may be reported in.
        self.report: tuple[_Server, list[int]] | None = None
        #: The exit came from the process's own report: it may still be exiting.
        self.reported = False
        self._eofs = 0

    def started(self, pid: int, channel: socket.socket, pending: bytes) -> None:
        """The server forked `pid`; its wait status will come on `channel`."""
        self.pid = pid
        self._channel = channel
        loop = asyncio.get_running_loop()
        self._watch = loop.create_task(self._wait_status(loop, channel, pending))

    async def attach(self, loop: asyncio.AbstractEventLoop, fds: tuple[int, int, int]) -> None:
        """Connect our ends of the stdin, stdout and stderr pipes to the loop (this object
        owns the three descriptors from now on). When the whole stdin is already in its pipe
        (`unsent` is empty), our end is closed at once: the process reads the same bytes,
        then EOF."""
        stdin = open(fds[0], "wb", buffering=0)  # noqa: SIM115 - closed by close()
        self._files = [stdin]
        self._files += [open(fd, "rb", buffering=0) for fd in fds[1:]]  # noqa: SIM115
        if not self.unsent:
            stdin.close()
        self.stdout = await self._reader(loop, self._files[1])
        self.stderr = await self._reader(loop, self._files[2])
        if not self.unsent:
            return
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.streams.FlowControlMixin(loop), stdin
        )
        self._transports.append(transport)
        self.stdin = asyncio.StreamWriter(transport, protocol, None, loop)

    async def _reader(self, loop: asyncio.AbstractEventLoop, pipe: Any) -> asyncio.StreamReader:
        reader = asyncio.StreamReader(limit=1 << 16, loop=loop)
        transport, _ = await loop.connect_read_pipe(
            lambda: _OutputProtocol(reader, loop, self._output_closed), pipe
        )
        self._transports.append(transport)
        return reader

    def _output_closed(self) -> None:
        """At EOF on both output pipes: the exit code, if the process reported it."""
        self._eofs += 1
        if self._eofs < 2 or self.report is None or self.exited.done():
            return
        server, slot = self.report
        code = server.reported(slot)
        if code is not None:
            self.returncode = code
            self.reported = True
            self.exited.set_result(None)

    def left_nothing(self) -> bool:
        """After the process reported its exit: make sure it exits (SIGKILL; nothing it does
        after the report is observable, and a hook that wrote a report without exiting is
        stopped here), then whether no process started since it is left but the server's
        standbys. Then nothing of the run is left, in its group or out of it, and the
        leftover hunt has nothing to look for."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except OSError:
            return False
        if self.report is None:
            return False
        return nothing_started_since(self.pid, self.report[0].forked_since())

    async def _wait_status(
        self, loop: asyncio.AbstractEventLoop, channel: socket.socket, data: bytes
    ) -> None:
        """The server's last word on the channel: the wait status, or nothing if it died
        (then the process is reported killed, as for a run we ended)."""
        try:
            while not data.endswith(b"\n"):
                chunk = await loop.sock_recv(channel, 256)
                if not chunk:
                    break
                data += chunk
            status = json.loads(data)["status"]
            if self.exited.done():
                return
            self.returncode = os.waitstatus_to_exitcode(status)
            if self.wrapped:
                self.shell_note = _shell_note(status)
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("warm Python server lost hook process %d", self.pid)
        finally:
            if not self.exited.done():
                self.exited.set_result(None)

    @property
    def attached(self) -> bool:
        """Whether `attach` took our ends of the pipes (then `close` closes them)."""
        return bool(self._files)

    def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        for transport in self._transports:
            transport.close()
        for pipe in self._files:
            pipe.close()
        if self._channel is not None:
            self._channel.close()


class _OutputProtocol(asyncio.StreamReaderProtocol):
    """A stdout or stderr pipe's reader protocol that also tells when the pipe reached EOF."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        loop: asyncio.AbstractEventLoop,
        at_eof: Callable[[], None],
    ) -> None:
        super().__init__(reader, loop=loop)
        self._at_eof = at_eof

    def eof_received(self) -> bool:
        keep_open = bool(super().eof_received())
        self._at_eof()
        return keep_open


def _shell_note(status: int) -> str:
    """What sh (dash) prints when the command it waited for died of a signal."""
    if not os.WIFSIGNALED(status):
        return ""
    number = os.WTERMSIG(status)
    if number in (signal.SIGINT, signal.SIGPIPE):
        return ""
    name = signal.strsignal(number) or f"Signal {number}"
    return name + (" (core dumped)" if os.WCOREDUMP(status) else "") + "\n"
