"""The reading side of one connection of the daemon's http front: a request head taken from
the socket up to its blank line and not one byte further, then exactly its body, each within
its deadline.

Waiting is what costs in a busy front, so a connection keeps its descriptor watched across
requests and keeps one timer, set again only when a deadline comes before the one it is set
for: a timer that fires early (its deadline was pushed back since) sets itself for the new
one. A wake-up with nobody waiting stops the watch until the next wait (bytes left unread
never spin the loop). The loop reports a descriptor readable as it was when it last polled,
which may be before the last read: the first report after a read is passed over, and the
descriptor, still watched, is reported again at the next poll if bytes are there.

While a connection waits for its next request, a readiness report may be handled in place
(`Wire.quick`, set by the front): a request that came whole is then taken and answered in
the report's own callback, and the wait goes on without the waiting task waking."""

from __future__ import annotations

import asyncio
import math
import re
import socket
from collections.abc import Callable

from hookwright.bridges.http_head import Refusal

MAX_HEADER_BYTES = 16 * 1024
#: Where a head ends (a line may end in a bare LF: such a head is taken whole, then refused).
HEAD_END = re.compile(rb"\n\r?\n")


class Wire:
    """One accepted (non-blocking) connection's reading side, with its deadlines."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self._fd = conn.fileno()
        self._loop = asyncio.get_running_loop()
        self._waiter: asyncio.Future[bool] | None = None
        self._watched = False
        self._deadline = math.inf
        self._timer: asyncio.TimerHandle | None = None
        #: Reads made, and the count when the last readiness report came.
        self._reads = 0
        self._reported = 0
        #: The bytes of the head `read_head` returned that are still in the socket (a head
        #: that came whole is judged from a peek, and taken with its body), and how many
        #: bytes the peek saw.
        self._unread = 0
        self._visible = 0
        #: The part of a body `take_body` took when not all of it was there.
        self._first = b""
        #: Called with each real readiness report while a task waits (`readable`): True when
        #: it dealt with the report itself (the wait goes on), False to wake the task.
        self.quick: Callable[[], bool] | None = None

    def clock(self) -> float:
        return self._loop.time()

    def readable(self, deadline: float) -> asyncio.Future[bool]:
        """Wait until bytes (or the end) can be read: True; False once `deadline` (the event
        loop's clock) passed first. A True may come without bytes: read, and wait again. The
        future itself is awaited (no coroutine of its own: one frame less per request), and
        whoever settles it lets it go."""
        if self._loop.time() >= deadline:
            passed: asyncio.Future[bool] = self._loop.create_future()
            passed.set_result(False)
            return passed
        if not self._watched:
            self._loop.add_reader(self._fd, self._on_readable)
            self._watched = True
        self._deadline = deadline
        if self._timer is None or self._timer.when() > deadline:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self._loop.call_at(deadline, self._on_timer)
        waiter: asyncio.Future[bool] = self._loop.create_future()
        self._waiter = waiter
        return waiter

    def _on_readable(self) -> None:
        waiter = self._waiter
        if waiter is None or waiter.done():
            self._loop.remove_reader(self._fd)
            self._watched = False
        elif self._reported != self._reads:
            self._reported = self._reads  # polled before the last read, maybe
        elif self.quick is None or not self.quick():
            self._waiter = None
            waiter.set_result(True)

    def wait_on(self, seconds: float) -> None:
        """Move the deadline of the wait under way to `seconds` from now (the timer, set for
        an earlier one, sets itself again when it fires)."""
        self._deadline = self._loop.time() + seconds

    def _on_timer(self) -> None:
        self._timer = None
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        if self._loop.time() >= self._deadline:
            self._waiter = None
            waiter.set_result(False)
        else:
            self._timer = self._loop.call_at(self._deadline, self._on_timer)

    def close(self) -> None:
        """Stop watching the descriptor (before it is closed)."""
        if self._watched:
            self._loop.remove_reader(self._fd)
            self._watched = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _take_head(self, head: bytearray) -> bytes | None:
        """The bytes waiting up to the end of a request head and none past it (b"" at the end
        of the stream, None when nothing is waiting), one past `MAX_HEADER_BYTES` at most;
        `head` is what was taken before (a blank line may straddle two reads). A whole head
        waiting at the start of a request is only peeked (`_unread`)."""
        try:
            waiting = self.conn.recv(MAX_HEADER_BYTES + 1 - len(head), socket.MSG_PEEK)
            if not waiting:
                return b""
            if not head:
                end = HEAD_END.search(waiting)
                if end is not None and end.end() <= MAX_HEADER_BYTES:
                    self._unread, self._visible = end.end(), len(waiting)
                    return waiting[: end.end()]
            carried = bytes(head[-2:])
            end = HEAD_END.search(carried + waiting)
            count = len(waiting) if end is None else max(1, end.end() - len(carried))
            self._reads += 1
            return self.conn.recv(count)
        except (BlockingIOError, InterruptedError):
            return None

    def take_head(self) -> bool:
        """Take the head `read_head` left in the socket, and nothing more (before a refusal is
        answered: its body, if any, stays unread); False if it was not all there."""
        unread, self._unread = self._unread, 0
        if not unread:
            return True
        try:
            taken = self.conn.recv(unread)
        except (BlockingIOError, InterruptedError):
            return False
        self._reads += 1
        return len(taken) == unread

    async def read_head(self, idle: float, within: float) -> bytes | None:
        """The next request's head, its bytes up to and with its blank line (parsed by the
        caller); None when the peer closed, or sent nothing for `idle` seconds. Raises
        `Refusal` for a head too large, or not complete `within` seconds of its first byte.
        What is waiting is tried at once: after an answer, the front waits for the next
        request's bytes first (`readable`) and answers it in place when it can."""
        head = bytearray()
        deadline = self._loop.time() + idle
        while True:
            taken = self._take_head(head)
            if taken is None:
                if await self.readable(deadline):
                    continue
                if not head:
                    return None
                raise Refusal(408, "the request head did not arrive in time")
            if not taken:
                if not head:
                    return None
                raise Refusal(400, "the request head ended early")
            if self._unread:
                return taken  # the usual case: a whole head, left in the socket for now
            if not head:
                deadline = self._loop.time() + within
            head += taken
            if len(head) > MAX_HEADER_BYTES:
                raise Refusal(431, f"a request head is at most {MAX_HEADER_BYTES} bytes")
            if HEAD_END.search(head, max(0, len(head) - len(taken) - 2)):
                return bytes(head)

    def take_body(self, length: int) -> bytes | None:
        """Exactly `length` bytes of body when one read takes them whole, after the head
        `read_head` left in the socket (taken in the same read when the whole body was seen
        waiting behind it): the usual case, with no coroutine. None when the rest must be
        waited for (`read_body` reads it, after what was taken here); raises `Refusal` when
        the body cannot come."""
        unread = self._unread
        if unread and (not length or self._visible < unread + length):
            if not self.take_head():
                raise Refusal(400, "the request head ended early")
            unread = 0
        self._unread = 0
        self._first = b""
        if not length:
            return b""
        try:
            taken = self.conn.recv(unread + length)
        except (BlockingIOError, InterruptedError):
            if unread:  # the peeked head is gone: nothing left is this request's
                raise Refusal(400, "the request head ended early") from None
            return None
        self._reads += 1
        first = taken[unread:] if unread else taken
        if not first:
            raise Refusal(400, "the body ended early")
        if len(first) == length:
            return first
        self._first = first
        return None

    async def read_body(self, length: int, within: float) -> bytes:
        """Exactly `length` bytes of body (nothing of a next request), within `within`
        seconds: what `take_body` took (call it first), then the rest as it comes; raises
        `Refusal` when it does not come."""
        first, self._first = self._first, b""
        data = bytearray(length)
        view, got = memoryview(data), len(first)
        view[:got] = first
        deadline = self._loop.time() + within
        while got < length:
            try:
                count = self.conn.recv_into(view[got:])
            except (BlockingIOError, InterruptedError):
                if not await self.readable(deadline):
                    raise Refusal(408, "the body did not arrive in time") from None
                continue
            self._reads += 1
            if not count:
                raise Refusal(400, "the body ended early")
            got += count
        return bytes(data)


__all__ = ["HEAD_END", "MAX_HEADER_BYTES", "Wire"]
