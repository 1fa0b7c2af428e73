"""Reading the chat's input lines on the event loop, so that Ctrl-C is handled by the loop
(a thread blocked in ``input()`` could neither be interrupted nor left behind at exit)."""

from __future__ import annotations

import asyncio
import os


class LineReader:
    """Lines from a file descriptor; a terminal or pipe is watched by the loop, a regular
    file (which the loop cannot watch) is read in a worker thread."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = b""
        self._eof = False

    async def readline(self) -> str | None:
        """The next line without its newline; None at end of input."""
        while b"\n" not in self._buffer and not self._eof:
            chunk = await self._read()
            if not chunk:
                self._eof = True
            self._buffer += chunk
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(self.fd, wake)
        except (PermissionError, ValueError, OSError):
            return await asyncio.to_thread(os.read, self.fd, 65536)
        try:
            await ready
        finally:
            loop.remove_reader(self.fd)
        try:
            return os.read(self.fd, 65536)
        except OSError:
            return b""
