"""The connection-level guards of `hookwright serve`: uvicorn's protocols with hard bounds.

uvicorn alone keeps a TCP connection that never sends a request head open for good, accepts any
number of connections, answers a never-reading client's pings into a buffer that only grows,
and waits without end to flush a close to a peer that does not read. Each of those lets one
local client pin descriptors or memory, so the protocols here add:

- a cap on open connections (HTTP and WebSocket together): at the cap a new connection replaces
  the one that has waited longest for a request head, and when none is waiting it is answered
  ``503`` with ``Connection: close`` at once, before anything is read;
- a deadline for each request head (``HEAD_TIMEOUT``): a connection that has not sent a whole
  head by then, first or after a keep-alive response, is answered ``408`` and closed;
- an outbound bound on WebSockets: a client that lets more than ``OUTBOUND_LIMIT`` bytes pile up
  unread while sending pings is dropped;
- a grace period (``CLOSE_GRACE``) for a WebSocket to go away once the app is done with it or
  its keepalive ping went unanswered; a peer still there after it is cut off (no flush).

The refusals are logged, at most one line per ``LOG_EVERY`` seconds with the count, so a flood
cannot flood the log either.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from hookwright.server.runner import ServerSettings

__all__ = [
    "BUSY",
    "CLOSE_GRACE",
    "HEAD_TIMEOUT",
    "OUTBOUND_LIMIT",
    "SLOW_HEAD",
    "GuardedHttpProtocol",
    "GuardedWebSocketProtocol",
    "ServeConfig",
    "ws_max_size",
]

logger = logging.getLogger("hookwright.server")

HEAD_TIMEOUT = 10.0
OUTBOUND_LIMIT = 4 * 1024 * 1024
CLOSE_GRACE = 5.0
LOG_EVERY = 10.0
FRAME_SLACK = 64 * 1024
GRACEFUL_SHUTDOWN = 5


def _closing_response(status: str, text: str) -> bytes:
    """A whole HTTP/1.1 response that ends the connection; sent before any request is read."""
    body = f"{text}\n".encode()
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


BUSY = _closing_response(
    "503 Service Unavailable", "hookwright serve: too many open connections; try again later"
)
SLOW_HEAD = _closing_response(
    "408 Request Timeout", f"hookwright serve: no complete request within {HEAD_TIMEOUT:g} s"
)


def ws_max_size(max_frame_bytes: int) -> int:
    """The largest frame uvicorn reads in: a bit over the app's limit, so a frame just over it
    still gets the app's error frame; anything larger is refused (close code 1009) unread."""
    return max_frame_bytes + FRAME_SLACK


class _RefusalLog:
    """Counts the connections one guard ended; logs at most one line per `LOG_EVERY` seconds."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.total = 0
        self.logged_at: float | None = None

    def note(self, detail: str) -> None:
        self.total += 1
        now = time.monotonic()
        if self.logged_at is not None and now - self.logged_at < LOG_EVERY:
            return
        self.logged_at = now
        logger.warning("%s a connection: %s (%d so far)", self.what, detail, self.total)


_REFUSED = _RefusalLog("refused")
_TIMED_OUT = _RefusalLog("closed")
_DROPPED = _RefusalLog("dropped")
_EVICTED = _RefusalLog("closed")


class ServeConfig(uvicorn.Config):
    """uvicorn's config with the guarded protocols and the limits from ``settings``."""

    def __init__(self, app: Any, settings: ServerSettings, **options: Any) -> None:
        super().__init__(
            app,
            host=settings.host,
            http=GuardedHttpProtocol,
            ws=GuardedWebSocketProtocol,
            ws_max_size=ws_max_size(settings.max_frame_bytes),
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN,
            **options,
        )
        self.max_connections = settings.max_connections


def _max_connections(config: uvicorn.Config) -> int | None:
    return config.max_connections if isinstance(config, ServeConfig) else None


class GuardedHttpProtocol(H11Protocol):
    """h11 with a connection cap and a deadline for every request head.

    At the cap, a new connection takes the place of the one that has waited longest for a
    request head (a fresh connection, or a keep-alive one between requests), so connections that
    send nothing cannot crowd out a page that does; only when every open connection is busy
    (a request being answered, or a WebSocket) is the new one refused.
    """

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._waiting_since = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limit = _max_connections(self.config)
        if limit is not None and len(self.connections) > limit and not self._evict_idle():
            _REFUSED.note(f"{limit} busy connections were open (--max-connections)")
            self._end(BUSY)
            return
        self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_deadline()

    def handle_websocket_upgrade(self, event: Any) -> None:
        self._cancel_head_deadline()
        super().handle_websocket_upgrade(event)

    def _waiting_for_head(self) -> bool:
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return False
        return self.cycle is None or self.cycle.response_complete

    def _evict_idle(self) -> bool:
        """End the other connection that has waited longest for a request head, if there is one."""
        idle = [
            other
            for other in self.connections
            if isinstance(other, GuardedHttpProtocol)
            and other is not self
            and other._waiting_for_head()
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda other: other._waiting_since)
        _EVICTED.note("the cap was reached; it had sent no request head")
        oldest._end(BUSY)
        return True

    def _end(self, response: bytes) -> None:
        """Answer ``response`` and close; the connection stops counting at once."""
        self._cancel_head_deadline()
        self.connections.discard(self)
        self.transport.write(response)
        self.transport.close()

    def _arm_head_deadline(self) -> None:
        self._cancel_head_deadline()
        self._waiting_since = time.monotonic()
        self._head_deadline = self.loop.call_later(HEAD_TIMEOUT, self._head_too_slow)

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        """Close unless a request is being answered (its end arms the next deadline)."""
        self._head_deadline = None
        if self._waiting_for_head():
            _TIMED_OUT.note(f"no complete request head within {HEAD_TIMEOUT:g} s")
            self._end(SLOW_HEAD)


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """websockets (sans-I/O) that drops a peer it cannot write to instead of buffering for it."""

    def handle_ping(self) -> None:
        unread = self.transport.get_write_buffer_size()
        if unread > OUTBOUND_LIMIT:
            _DROPPED.note(f"{unread} bytes were waiting unread (a client that does not read)")
            self.transport.abort()
            return
        super().handle_ping()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        self._cut_off_later()

    def on_task_complete(self, task: asyncio.Task[None]) -> None:
        super().on_task_complete(task)
        self._cut_off_later()

    async def send(self, message: Any) -> None:
        await super().send(message)
        # A refused handshake (the app's HTTP answer) is complete once its body is sent;
        # uvicorn would otherwise log an error for every refusal.
        if message["type"] == "websocket.http.response.body" and not message.get("more_body"):
            self.handshake_complete = True

    def _cut_off_later(self) -> None:
        self.loop.call_later(CLOSE_GRACE, self._cut_off)

    def _cut_off(self) -> None:
        if not self.disconnected:
            self.transport.abort()
