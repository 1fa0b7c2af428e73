"""The daemon's HTTP/1.1 front for Claude Code `http` hooks, on 127.0.0.1 only.

A request is answered only when it carries the daemon's token (`Authorization: Bearer`,
otherwise 401) and names a loopback host (`Host`, otherwise 403: a web page that rebinds a
name of its own to 127.0.0.1 cannot reach the daemon). Connections are kept alive, as Claude
Code's HTTP client keeps them.

Any local process can connect to 127.0.0.1, so the front expects hostile peers:

* Each request head is parsed strictly (`http_head`: llhttp through httptools); this module
  decides what to read, when, and for how long, and writes the answers.
* A request head is taken from the socket up to its blank line and not one byte further
  (`http_wire`):
  Host, token, path, method and Content-Length are judged before any of the body is read,
  and every refusal answers with `Connection: close` and closes after a short lingering
  read (`linger`) that drops what the peer still sends, the body never parsed. A request
  whose head is byte for byte the one the connection had answered last (what a client sends
  with every event) is taken whole, with its body, and answered from the event loop's
  readiness report (`_Connection.quick`): the same bytes, the same outcome.
* Deadlines (`Limits`): a connection waits `idle` seconds for a request to begin (a fresh one
  too), a head must be complete `head` seconds after its first byte, and the body must arrive,
  and the answer be taken, within `body` seconds each.
* At most `Limits.connections` connections are open at once: one more is accepted and closed
  at once with 503, never queued. When the process is out of descriptors, a descriptor held
  in reserve is let go to accept the next connection and answer it 503 ("out of
  descriptors") rather than leave it waiting in the listening queue. A connection opened by
  another local user is closed at once (the kernel names the uid owning the connecting
  socket, see `tcp_peer`), so other users cannot take those places. Connections are
  accepted a few per wake-up, so a flood cannot keep the event loop from the Unix front.

No failure is answered 200: an event whose hook failed where nothing blocked is answered 500
(`claude_hook.unanswered`), a connection the front cannot serve is closed or refused with 503,
so Claude Code reports a hook error and, with `onFailure: "block"`, blocks the action.
"""

from __future__ import annotations

import asyncio
import contextvars
import errno
import functools
import hmac
import math
import os
import socket
import sys
from collections.abc import Callable, Coroutine, Mapping, MutableMapping
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from hookwright.bridges import tcp_peer
from hookwright.bridges.endpoint import HOOK_PATH, HOST, Endpoint
from hookwright.bridges.http_head import Refusal, RequestHead, parse_head
from hookwright.bridges.http_wire import Wire
from hookwright.bridges.in_place import Suspended, first_step, resumed
from hookwright.bridges.projects import Reply

MAX_BODY_BYTES = 16 * 1024 * 1024
LOOPBACK_NAMES = frozenset({b"127.0.0.1", b"localhost"})
#: Connections accepted per wake-up of the listening socket; the rest wait for the next turn
#: of the event loop, after the Unix front's.
ACCEPT_BATCH = 16
#: How long accepting pauses when the process is out of descriptors (or memory).
ACCEPT_PAUSE = 0.5
BACKLOG = 128
_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: The connection cap stays below this share of the descriptor limit: the rest is the Unix
#: front's, the hooks' pipes' and files'.
DESCRIPTOR_SHARE = 4
#: After a refusal, how long (seconds) and how much (bytes) of what the peer still sends is
#: read and dropped before the close: a socket closed with bytes unread resets the
#: connection, and a client still sending its request would see a broken pipe instead of
#: the answer (the "lingering close" of HTTP servers).
LINGER_SECONDS = 2.0
LINGER_BYTES = 256 * 1024
_JSON = b"application/json"
_TEXT = b"text/plain; charset=utf-8"

Answer = Callable[[bytes, Path | None, str | None], Coroutine[Any, Any, Reply]]
_Number = TypeVar("_Number", int, float)


@dataclass(frozen=True, slots=True)
class Limits:
    """How long the front waits for a peer (seconds) and how many connections it keeps."""

    idle: float = 5.0
    head: float = 5.0
    body: float = 10.0
    connections: int = 128


DEFAULT_LIMITS = Limits()
#: The environment variable that sets each limit.
LIMIT_VARIABLES = {
    "idle": "HOOKWRIGHT_DAEMON_HTTP_IDLE",
    "head": "HOOKWRIGHT_DAEMON_HTTP_HEAD",
    "body": "HOOKWRIGHT_DAEMON_HTTP_BODY",
    "connections": "HOOKWRIGHT_DAEMON_HTTP_CONNECTIONS",
}


def _setting(environ: Mapping[str, str], name: str, kind: type[_Number]) -> _Number:
    variable, default = LIMIT_VARIABLES[name], getattr(DEFAULT_LIMITS, name)
    raw = environ.get(variable)
    if raw is None:
        return kind(default)
    try:
        value: _Number | None = kind(raw)
    except ValueError:
        value = None
    if value is None or not 0 < value < math.inf:
        sys.stderr.write(
            f"hookwright daemon: {variable}={raw!r} is not a positive number; using {default}\n"
        )
        return kind(default)
    return value


def limits_from(environ: Mapping[str, str], descriptors: int) -> Limits:
    """The limits the environment sets (a bad value is named on stderr and the default
    kept), with the connection cap below a quarter of the `descriptors` the process may open."""
    connections = _setting(environ, "connections", int)
    return Limits(
        idle=_setting(environ, "idle", float),
        head=_setting(environ, "head", float),
        body=_setting(environ, "body", float),
        connections=max(1, min(connections, descriptors // DESCRIPTOR_SHARE)),
    )


#: The status line of each status, as h11 wrote them.
_STATUS_LINES = {
    code.value: f"HTTP/1.1 {code.value} {code.phrase}\r\n".encode() for code in HTTPStatus
}


def _response(
    status: int, body: bytes, keep_alive: float | None, *, bodiless: bool = False
) -> bytes:
    """The bytes of one answer; `keep_alive` is the idle time a kept connection announces,
    None closes it. A HEAD request's answer has no body."""
    head = _head(status, len(body), keep_alive)
    return head if bodiless else head + body


@functools.lru_cache(maxsize=256)
def _head(status: int, length: int, keep_alive: float | None) -> bytes:
    """The head of an answer (made once per status, length and idle time: a hook's answers
    mostly have one length)."""
    kind = _JSON if status == 200 else _TEXT
    last = b"Connection: close" if keep_alive is None else b"Keep-Alive: " + _hint(keep_alive)
    return b"%sContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n\r\n" % (
        _STATUS_LINES[status],
        kind,
        length,
        last,
    )


@functools.lru_cache(maxsize=8)
def _hint(idle: float) -> bytes:
    """A `Keep-Alive` timeout under the real one, so clients drop a connection before the
    daemon closes it rather than send on it as it closes."""
    return b"timeout=%d" % max(1, math.floor(idle) - 1)


def _refusal(status: int, text: str) -> bytes:
    """An answer sent before any request was read."""
    return _response(status, f"hookwright: {text}\n".encode(), None)


BUSY = _refusal(503, "too many open connections")
OUT_OF_DESCRIPTORS = _refusal(503, "out of descriptors, try again")
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


async def linger(conn: socket.socket) -> None:
    """End our side of `conn` and drop what the peer still sends, until it ends its side,
    `LINGER_BYTES` have come or `LINGER_SECONDS` have passed; the caller closes `conn`."""
    try:
        conn.shutdown(socket.SHUT_WR)
        loop = asyncio.get_running_loop()
        dropped = 0
        async with asyncio.timeout(LINGER_SECONDS):
            while dropped < LINGER_BYTES:
                count = len(await loop.sock_recv(conn, 64 * 1024))
                if not count:
                    return
                dropped += count
    except (OSError, TimeoutError):
        return


def loopback_host(value: bytes | None, port: int) -> bool:
    name, sep, given = (value or b"").partition(b":")
    return name.lower() in LOOPBACK_NAMES and (not sep or given == str(port).encode())


def authorized(request: RequestHead, token: str) -> bool:
    given = request.single(b"authorization") or b""
    return hmac.compare_digest(given, _bearer(token))


@functools.lru_cache(maxsize=4)
def _bearer(token: str) -> bytes:
    """The `Authorization` value that carries `token` (made once per token)."""
    return f"Bearer {token}".encode()


@functools.lru_cache(maxsize=64)
def _target(target: bytes) -> tuple[str, str]:
    """The path of a request target and its `project` (the first one given; "" without
    one); no path for a target that is no URL. Cached: a client sends the same target with
    every event."""
    try:
        parts = urlsplit(target.decode("latin-1"))
    except ValueError:
        return "", ""
    named = parse_qs(parts.query).get("project")
    return parts.path, named[0] if named else ""


def judge(request: RequestHead, endpoint: Endpoint, length: int) -> Refusal | None:
    """Why the request is refused, from its head alone (`length`: its body's); None when
    its body may be read."""
    path, project = _target(request.target)
    if not loopback_host(request.single(b"host"), endpoint.port):
        return Refusal(403, "not a loopback Host")
    if not authorized(request, endpoint.token):
        return Refusal(401, "missing or wrong token")
    if path != HOOK_PATH:
        return Refusal(404, "no such path")
    if request.method != b"POST":
        return Refusal(405, "POST only")
    if "\0" in project:
        return Refusal(400, "the project names no folder")
    if request.single(b"transfer-encoding") is not None:
        return Refusal(411, "a body needs a Content-Length")
    if length > MAX_BODY_BYTES:
        return Refusal(413, f"a body is at most {MAX_BODY_BYTES} bytes")
    return None


def body_length(request: RequestHead) -> int:
    """The Content-Length the parser checked (digits, one value), 0 without one."""
    return int(request.single(b"content-length") or b"0")


def _sent(conn: socket.socket, data: bytes) -> int:
    """How much of `data` the socket takes at once (an answer: almost always all of it)."""
    try:
        return conn.send(data)
    except (BlockingIOError, InterruptedError):
        return 0


async def _send_rest(conn: socket.socket, data: bytes, sent: int, seconds: float) -> None:
    """Send what is left of `data` after its first `sent` bytes, within `seconds`."""
    async with asyncio.timeout(seconds):
        await asyncio.get_running_loop().sock_sendall(conn, memoryview(data)[sent:])


async def _send(conn: socket.socket, data: bytes, seconds: float) -> None:
    """Send `data` whole within `seconds`; what the socket takes at once (an answer, almost
    always) is sent without arming a deadline."""
    sent = _sent(conn, data)
    if sent < len(data):
        await _send_rest(conn, data, sent, seconds)


@functools.lru_cache(maxsize=64)
def _folder(name: str) -> Path | None:
    return Path(name) if name else None


@dataclass(frozen=True, slots=True)
class Admitted:
    """What the front needs of a request head it answers (`admit`)."""

    length: int
    #: The folder the target's `project` names (None without one).
    folder: Path | None
    keep_alive: bool
    expects_continue: bool


#: Heads admitted before, by their exact bytes, with the endpoint they were judged for: a
#: client sends the same head with every event, so it is parsed and judged once. Only heads
#: that carried the token are kept (a peer without it cannot fill this), at most
#: `ADMITTED_KEPT`, each at most `ADMITTED_BYTES`; when full, it is emptied. A lookup
#: compares bytes only once the hashes matched, and a peer cannot make a head whose hash
#: matches one holding a token it does not know: its time tells nothing of the token.
_ADMITTED: dict[bytes, tuple[Endpoint, Admitted]] = {}
ADMITTED_KEPT = 64
ADMITTED_BYTES = 4096


def admit(head: bytes, endpoint: Endpoint) -> Admitted:
    """The request `head` (its bytes up to and with its blank line) as the front answers it;
    raises `Refusal` for a head that is malformed (`parse_head`) or refused from its fields
    (`judge`). The same bytes always get the same outcome: an admitted head is remembered."""
    known = _ADMITTED.get(head)
    if known is not None and known[0] is endpoint:
        return known[1]
    request = parse_head(head)
    length = body_length(request)
    refusal = judge(request, endpoint, length)
    if refusal is not None:
        refusal.bodiless = request.method == b"HEAD"
        raise refusal
    admitted = Admitted(
        length=length,
        folder=_folder(_target(request.target)[1]),
        keep_alive=request.keep_alive,
        expects_continue=bool(length) and request.expects_continue(),
    )
    if len(head) <= ADMITTED_BYTES:
        if len(_ADMITTED) >= ADMITTED_KEPT:
            _ADMITTED.clear()
        _ADMITTED[head] = (endpoint, admitted)
    return admitted


def _answer_bytes(reply: Reply, request: Admitted, limits: Limits) -> bytes:
    kept = limits.idle if request.keep_alive else None
    if reply.exit == 0:
        return _response(200, reply.stdout, kept)
    return _response(500 if reply.failed else 400, reply.stderr.encode(), kept)


async def _reply(conn: socket.socket, request: Admitted, reply: Reply, limits: Limits) -> bool:
    """Send the answer to `request`; True when the connection must close."""
    out = _answer_bytes(reply, request, limits)
    sent = _sent(conn, out)  # the usual case: taken whole, no coroutine and no deadline
    if sent < len(out):
        await _send_rest(conn, out, sent, limits.body)
    return not request.keep_alive


async def _exchange(wire: Wire, request: Admitted, answer: Answer, limits: Limits) -> bool:
    """Answer one admitted request; True when the connection must close."""
    conn = wire.conn
    try:
        if request.expects_continue:
            await _send(conn, CONTINUE, limits.body)
        body = wire.take_body(request.length)  # the usual case: no coroutine to wait on
        if body is None:
            body = await wire.read_body(request.length, limits.body)
    except Refusal as exc:
        text = f"hookwright: {exc}\n".encode()
        await _send(conn, _response(exc.status, text, None), limits.body)
        return True
    return await _reply(conn, request, await answer(body, request.folder, None), limits)


#: Where a connection is: a request to read at once, the next to wait for, the end of the
#: connection (idle or gone), or an answer sent after which it must close (lingering).
_READ, _NEXT, _GONE, _CLOSE = range(4)
#: Answer heads a connection keeps, by length (a hook's answers mostly have one or a few).
_HEADS_KEPT = 16


@dataclass(frozen=True, slots=True)
class _Pending:
    """What an answer begun in place (`_Connection.in_place`) leaves the connection's task:
    an answer that suspended, or the part of the answer's bytes the socket did not take."""

    request: Admitted
    suspended: Suspended[Reply] | None = None
    out: bytes = b""
    sent: int = 0


class _Connection:
    """The requests of one connection. A head the connection sent and had answered, sent
    again whole with its body (what a client does with every event), is answered from the
    readiness report itself (`quick`): its bytes are the head admitted before, so its
    outcome is the same, and the request is taken in one read, answered (`in_place`) and its
    answer sent without waking the connection's task. Anything else (another head, a head or
    body still coming, an answer that suspends or that the socket does not take whole) wakes
    the task, which reads, judges and answers as for a first request."""

    def __init__(
        self,
        conn: socket.socket,
        endpoint: Endpoint,
        answer: Answer,
        limits: Limits,
        context: contextvars.Context,
    ) -> None:
        self.wire = Wire(conn)
        self.endpoint = endpoint
        self.answer = answer
        self.limits = limits
        self.context = context
        #: The last head answered on this connection and what it admitted, when a request
        #: with those bytes can be answered in place (kept alive, no `100 Continue`).
        self.known: tuple[bytes, Admitted] | None = None
        #: What an answer begun in place left the task to do, or what it raised.
        self.pending: _Pending | BaseException | None = None
        self.task: asyncio.Task[None] | None = None
        #: The head of a kept-alive 200 answer, by its body's length (`in_place`).
        self.heads: dict[int, bytes] = {}

    def head_of(self, length: int) -> bytes:
        if len(self.heads) >= _HEADS_KEPT:
            self.heads.clear()
        head = self.heads[length] = _head(200, length, self.limits.idle)
        return head

    async def run(self) -> None:
        self.task = asyncio.current_task()
        wire = self.wire
        found = _READ
        try:
            while found in (_READ, _NEXT):
                if found == _READ:
                    found = await self.one_request()
                else:
                    found = await self.next_request()
            if found == _CLOSE:
                wire.close()
                await linger(wire.conn)
        finally:
            wire.close()

    async def one_request(self) -> int:
        """Read, judge and answer one request (`_NEXT`; `_GONE` when none came, `_CLOSE`
        when the connection must close: after a refusal, or an answer that closes it)."""
        wire, limits = self.wire, self.limits
        try:
            head = await wire.read_head(limits.idle, limits.head)
            if head is None:
                return _GONE
            request = admit(head, self.endpoint)
        except Refusal as exc:
            wire.take_head()
            text = f"hookwright: {exc}\n".encode()
            answer_bytes = _response(exc.status, text, None, bodiless=exc.bodiless)
            await _send(wire.conn, answer_bytes, limits.body)
            return _CLOSE
        if await _exchange(wire, request, self.answer, limits):
            return _CLOSE
        kept = request.keep_alive and not request.expects_continue
        self.known = (head, request) if kept and len(head) <= ADMITTED_BYTES else None
        return _NEXT

    async def next_request(self) -> int:
        """Wait for the next request (`_READ` once bytes came; `_GONE` when none came within
        the idle time), answering in place each that comes whole as the last one; what an
        answer begun in place left is done here (`_CLOSE` when it must close)."""
        wire = self.wire
        while True:
            wire.quick = self.quick if self.known is not None else None
            try:
                ready = await wire.readable(wire.clock() + self.limits.idle)
            except asyncio.CancelledError as exc:
                pending, self.pending = self.pending, None
                if not isinstance(pending, _Pending) or pending.suspended is None:
                    raise
                if not await self.finish(pending, exc):  # cancelled as it took over
                    return _CLOSE
                continue
            finally:
                wire.quick = None
            pending, self.pending = self.pending, None
            if not ready:
                return _GONE
            if pending is None:
                return _READ
            if isinstance(pending, BaseException):
                raise pending
            if not await self.finish(pending):
                return _CLOSE

    async def finish(self, pending: _Pending, thrown: BaseException | None = None) -> bool:
        """Do what an answer begun in place left (`pending`); False when the connection must
        close."""
        conn, request, limits = self.wire.conn, pending.request, self.limits
        if pending.suspended is not None:
            reply = await resumed(pending.suspended, thrown)
            return not await _reply(conn, request, reply, limits)
        await _send_rest(conn, pending.out, pending.sent, limits.body)
        return request.keep_alive

    def quick(self) -> bool:
        """Answer in place the request waiting, when it is the last head answered followed
        by its whole body (True); False to leave it to the task (and what an answer begun
        here left, `pending`)."""
        assert self.known is not None
        head, request = self.known
        conn, size = self.wire.conn, len(head) + request.length
        try:
            waiting = conn.recv(size, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return True  # nothing to read after all: wait on
        except OSError:
            return False
        if len(waiting) < size or not waiting.startswith(head):
            return False
        try:
            taken = conn.recv(size)
        except OSError as exc:
            self.pending = exc
            return False
        if len(taken) != size:
            self.pending = ConnectionError("a peeked request was not there to take")
            return False
        return self.in_place(taken[len(head) :], request)

    def in_place(self, body: bytes, request: Admitted) -> bool:
        """Answer `body` in the callback (True), or leave the rest to the task (False,
        with `pending` set)."""
        assert self.task is not None
        coro = self.answer(body, request.folder, None)
        try:
            stepped = first_step(coro, self.task, self.context)
        except BaseException as exc:  # the task raises it, as when it awaits the answer
            self.pending = exc
            return False
        if isinstance(stepped, Suspended):
            self.pending = _Pending(request, suspended=stepped)
            return False
        reply = stepped[0]
        if reply.exit == 0:  # kept alive: the head of a 200 of this length, made once
            heads, length = self.heads, len(reply.stdout)
            head = heads.get(length) or self.head_of(length)
            out = head + reply.stdout
        else:
            out = _answer_bytes(reply, request, self.limits)
        sent = _sent(self.wire.conn, out)
        if sent < len(out):
            self.pending = _Pending(request, out=out, sent=sent)
            return False
        self.wire.wait_on(self.limits.idle)
        return True


async def serve_connection(
    conn: socket.socket, endpoint: Endpoint, answer: Answer, limits: Limits
) -> None:
    """Answer the requests of one accepted (non-blocking) connection until the peer closes
    it, idles or misbehaves. Raises OSError or TimeoutError when the peer stops taking
    what is sent. The connection is served by a task of its own, in a context of its own
    (answers begun in place run in it, `in_place`)."""
    context = contextvars.copy_context()
    served = _Connection(conn, endpoint, answer, limits, context)
    await asyncio.get_running_loop().create_task(served.run(), context=context)


def no_delay(conn: socket.socket) -> None:
    """Send each answer at once (`TCP_NODELAY`), as asyncio's own transports do: an answer
    sent in two writes (a `100 Continue`, then the answer; or one larger than the socket
    takes at once) would otherwise hold its tail until the client acknowledges the head,
    which a client delaying its acknowledgements does up to 40 ms later."""
    try:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        return


def _reserve() -> int | None:
    try:
        return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


class HttpFront:
    """The listening socket on 127.0.0.1 and the connections it serves."""

    def __init__(
        self,
        listener: socket.socket,
        endpoint: Endpoint,
        answer: Answer,
        limits: Limits,
        counts: MutableMapping[str, int],
    ) -> None:
        self._listener = listener
        self._endpoint = endpoint
        self._answer = answer
        self.limits = limits
        self._counts = counts
        self._uid = os.getuid()
        self._open: set[asyncio.Task[None]] = set()
        #: Refused connections being closed (`linger`); not counted as open.
        self._lingering: set[asyncio.Task[None]] = set()
        self._loop = asyncio.get_running_loop()
        self._closed = False
        #: A descriptor held in reserve: when the process runs out, it is let go for the time
        #: of accepting one connection and answering it 503, so a peer is never left waiting.
        self._spare: int | None = _reserve()
        self._loop.add_reader(listener.fileno(), self._accept)

    @classmethod
    def listen(
        cls,
        endpoint: Endpoint,
        answer: Answer,
        limits: Limits,
        counts: MutableMapping[str, int],
        *,
        reuse_port: bool = False,
    ) -> HttpFront:
        """Listen on the endpoint's port (raises OSError when it cannot); with `reuse_port`,
        beside the other sockets of this user bound to it the same way (`daemon_pool`)."""
        listener = socket.create_server(
            (HOST, endpoint.port), backlog=BACKLOG, reuse_port=reuse_port
        )
        listener.setblocking(False)
        return cls(listener, endpoint, answer, limits, counts)

    @property
    def open_connections(self) -> int:
        return len(self._open)

    def _accept(self) -> None:
        for _ in range(ACCEPT_BATCH):
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _OUT_OF_RESOURCES and not self._refuse_one():
                    self._pause()
                    return
                continue
            self._take(conn)

    def _refuse_one(self) -> bool:
        """Answer the next waiting connection 503 with the reserved descriptor; False when
        there is none to use (or none waiting)."""
        if self._spare is None:
            return False
        os.close(self._spare)
        self._spare = None
        try:
            conn, _ = self._listener.accept()
        except OSError:
            return False
        else:
            self._refuse(conn, OUT_OF_DESCRIPTORS)
            return True
        finally:
            self._spare = _reserve()

    def _pause(self) -> None:
        """Stop accepting for a moment: a listening socket that stays readable while no
        descriptor is free would otherwise wake the loop without end."""
        self._loop.remove_reader(self._listener.fileno())
        self._loop.call_later(ACCEPT_PAUSE, self._resume)

    def _resume(self) -> None:
        if not self._closed:
            self._loop.add_reader(self._listener.fileno(), self._accept)

    def _take(self, conn: socket.socket) -> None:
        uid = tcp_peer.peer_uid(conn)
        if uid is not None and uid != self._uid:
            self._refuse(conn, b"")
        elif len(self._open) >= self.limits.connections:
            self._refuse(conn, BUSY)
        else:
            conn.setblocking(False)
            no_delay(conn)
            self._counts["http_connections"] += 1
            task = self._loop.create_task(self._serve(conn))
            self._open.add(task)
            task.add_done_callback(self._open.discard)

    def _refuse(self, conn: socket.socket, answer: bytes) -> None:
        """Send `answer` and close after a lingering read (`linger`), so a peer still sending
        its request reads the answer; without an answer, or with `Limits.connections`
        refused connections already lingering, close at once."""
        self._counts["http_refused"] += 1
        conn.setblocking(False)
        try:
            if answer:
                conn.send(answer)
        except OSError:
            answer = b""
        if not answer or len(self._lingering) >= self.limits.connections:
            conn.close()
            return
        task = self._loop.create_task(self._close_refused(conn))
        self._lingering.add(task)
        task.add_done_callback(self._lingering.discard)

    async def _close_refused(self, conn: socket.socket) -> None:
        try:
            await linger(conn)
        finally:
            conn.close()
            if self._spare is None and not self._closed:
                self._spare = _reserve()

    async def _serve(self, conn: socket.socket) -> None:
        try:
            await serve_connection(conn, self._endpoint, self._answer, self.limits)
        except (OSError, TimeoutError):
            return
        finally:
            conn.close()

    def close(self) -> None:
        """Stop listening; connections being answered finish."""
        if not self._closed:
            self._closed = True
            self._loop.remove_reader(self._listener.fileno())
            self._listener.close()
            if self._spare is not None:
                os.close(self._spare)
                self._spare = None
