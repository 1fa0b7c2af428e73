"""JSON-RPC 2.0 over a child process's stdio, one message per line.

`RpcProcess` owns one long-lived hook process:

* spawned from an argv without a shell, in its own process group, with stdin, stdout and stderr
  as pipes; stderr is logged line by line on ``hookwright.rpc`` with the hook's name;
* started lazily by the first `call`/`notify` (or eagerly by `start`), with a ``hook.hello``
  handshake (id 1 of each spawned process) that must answer within `hello_timeout`; its result is
  ignored, a JSON-RPC error or an exit fails it;
* requests get ids from a per-process counter that never repeats; a pending map lets several
  requests be in flight; notifications carry no id;
* a stdout line that is not JSON, not an object, a request from the hook, or a response whose id
  is not a positive integer or matches nothing is logged and skipped (the matching call then
  times out); a line longer than `max_line` is discarded up to its newline without stalling;
* when the process exits every pending call fails at once; the next call after the backoff
  window of `RestartPolicy` spawns it again, calls before that fail immediately;
* `aclose` closes stdin, waits `close_timeout`, then sends SIGTERM and finally SIGKILL to the
  process group.

All process I/O runs on one private event loop thread shared by every `RpcProcess`, so the
public coroutines can be awaited from any event loop (a host's, the engine's sync facade, an
observer thread) and `notify_nowait` can be called from any thread without blocking it.
Cancelling an awaiting caller (a timeout) cancels its request; a response arriving later
matches nothing and is dropped.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import itertools
import json
import logging
import os
import signal
import threading
import time
import weakref
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger("hookwright.rpc")

T = TypeVar("T")

#: Longest stdout line accepted (PicoClaw's scanner limit).
MAX_LINE = 1 << 20
READ_CHUNK = 1 << 16
STDERR_TAIL_LINES = 50


class RpcError(Exception):
    """A call did not produce a result."""


class RpcRemoteError(RpcError):
    """The hook answered with a JSON-RPC error object."""

    def __init__(self, code: Any, message: str, data: Any = None) -> None:
        super().__init__(f"JSON-RPC error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data


class RpcProcessError(RpcError):
    """The process is not running, exited, or could not be started."""


class RpcUnavailable(RpcProcessError):
    """The process crashed and its restart backoff has not elapsed yet."""


@dataclass(frozen=True, slots=True)
class RestartPolicy:
    """When a crashed process is spawned again.

    After the n-th consecutive failure (exit, failed spawn or failed handshake) the process is
    restarted by the first call made at least ``min(initial_backoff * multiplier**(n-1),
    max_backoff)`` seconds later. A successful call resets the count. `enabled=False` keeps a
    crashed process down for good (PicoClaw's behaviour).
    """

    enabled: bool = True
    initial_backoff: float = 1.0
    max_backoff: float = 30.0
    multiplier: float = 2.0
    max_restarts: int | None = None

    def backoff(self, failures: int) -> float:
        if failures <= 0:
            return 0.0
        return float(
            min(self.initial_backoff * self.multiplier ** (failures - 1), self.max_backoff)
        )


# The shared I/O loop -------------------------------------------------------------------------


class _IoThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="hookwright-rpc", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()


_io: _IoThread | None = None
_io_lock = threading.Lock()


def io_loop() -> asyncio.AbstractEventLoop:
    """The event loop every RpcProcess does its I/O on (started on first use)."""
    global _io
    with _io_lock:
        if _io is None:
            _io = _IoThread()
        return _io.loop


async def _on_io(coro: Coroutine[Any, Any, T]) -> T:
    loop = io_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


# Reading lines in chunks ---------------------------------------------------------------------


async def read_lines(stream: asyncio.StreamReader, max_line: int) -> AsyncIterator[bytes | None]:
    """Yield each line of `stream` without its newline; None for a line longer than `max_line`,
    which is skipped up to its newline without ever being held in memory whole."""
    buf = bytearray()
    discarding = False
    while True:
        chunk = await stream.read(READ_CHUNK)
        if not chunk:
            break
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            if newline < 0:
                if not discarding:
                    buf += chunk[start:]
                    if len(buf) > max_line:
                        buf.clear()
                        discarding = True
                break
            if discarding:
                discarding = False
                yield None
            else:
                buf += chunk[start:newline]
                if len(buf) > max_line:
                    yield None
                else:
                    yield bytes(buf)
            buf.clear()
            start = newline + 1
    if discarding:
        yield None
    elif buf:
        yield bytes(buf) if len(buf) <= max_line else None


def encode_message(message: Mapping[str, Any]) -> bytes:
    """One JSON-RPC message as a compact UTF-8 line."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


# One spawned process ------------------------------------------------------------------------

_live: weakref.WeakSet[_Connection] = weakref.WeakSet()


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Reports the child's exit as soon as it happens: `Process.wait()` also waits for the
    pipes to close, which a grandchild holding them can delay forever."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=2 * READ_CHUNK, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        self.exited.set()


async def spawn(
    argv: Sequence[str], cwd: str | None, env: Mapping[str, str] | None
) -> tuple[asyncio.subprocess.Process, _Protocol, asyncio.SubprocessTransport]:
    """Start `argv` without a shell, in a new session (its own process group), all three
    standard streams piped."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _Protocol(loop),
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    return asyncio.subprocess.Process(transport, protocol, loop), protocol, transport


def _expire(future: asyncio.Future[Any], timeout: float) -> None:
    if not future.done():
        future.set_exception(TimeoutError(f"no response within {timeout:g}s"))


class _Connection:
    """A spawned child and its pipes. Lives on the I/O loop."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        protocol: _Protocol,
        transport: asyncio.SubprocessTransport,
        name: str,
        max_line: int,
    ) -> None:
        self.proc = proc
        self.protocol = protocol
        self.transport = transport
        self.name = name
        self.max_line = max_line
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.ids = itertools.count(1)
        self.write_lock = asyncio.Lock()
        self.lost: RpcProcessError | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self.reader = asyncio.ensure_future(self._read_stdout())
        self.stderr_reader = asyncio.ensure_future(self._read_stderr())
        self.exited = asyncio.ensure_future(self._wait_exit())
        _live.add(self)

    @property
    def alive(self) -> bool:
        return self.lost is None

    def check_alive(self) -> None:
        if self.lost is not None:
            raise RpcProcessError(str(self.lost))

    async def request(self, method: str, params: Any, timeout: float | None = None) -> Any:
        """Send one request and wait for its response. The timeout is a timer on the pending
        future rather than `asyncio.wait_for`, which would cost a task per call."""
        self.check_alive()
        msg_id = next(self.ids)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self.pending[msg_id] = future
        timer = loop.call_later(timeout, _expire, future, timeout) if timeout is not None else None
        try:
            await self.write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            return await future
        finally:
            if timer is not None:
                timer.cancel()
            self.pending.pop(msg_id, None)

    async def write(self, message: Mapping[str, Any]) -> None:
        self.check_alive()
        stdin = self.proc.stdin
        assert stdin is not None
        data = encode_message(message)
        async with self.write_lock:
            try:
                stdin.write(data)
                await stdin.drain()
            except (ConnectionError, RuntimeError, OSError) as exc:
                raise RpcProcessError(f"hook {self.name}: cannot write to process: {exc}") from exc

    async def _read_stdout(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        with contextlib.suppress(ConnectionError, OSError):
            async for line in read_lines(stdout, self.max_line):
                if line is None:
                    log.warning(
                        "hook %s: stdout line over %d bytes discarded", self.name, self.max_line
                    )
                else:
                    self._handle_line(line)

    def _handle_line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except ValueError:
            log.warning("hook %s: non-JSON stdout line skipped: %.200r", self.name, line)
            return
        if not isinstance(message, dict):
            log.warning("hook %s: non-object message skipped: %.200r", self.name, line)
            return
        if "method" in message:
            log.warning(
                "hook %s: messages from the hook are not served (method %.100r)",
                self.name,
                message.get("method"),
            )
            return
        msg_id = message.get("id")
        if type(msg_id) is not int or msg_id <= 0:
            log.warning("hook %s: response with invalid id %.50r skipped", self.name, msg_id)
            return
        future = self.pending.get(msg_id)
        if future is None or future.done():
            log.warning("hook %s: response id %d matches no pending request", self.name, msg_id)
            return
        error = message.get("error")
        if error is not None:
            if isinstance(error, dict):
                future.set_exception(
                    RpcRemoteError(
                        error.get("code"), str(error.get("message", "")), error.get("data")
                    )
                )
            else:
                future.set_exception(RpcRemoteError(None, str(error)))
        else:
            future.set_result(message.get("result"))

    async def _read_stderr(self) -> None:
        stderr = self.proc.stderr
        assert stderr is not None
        with contextlib.suppress(ConnectionError, OSError):
            async for line in read_lines(stderr, self.max_line):
                text = (
                    "<line too long>" if line is None else line.decode("utf-8", "replace").rstrip()
                )
                self.stderr_tail.append(text)
                log.warning("hook %s stderr: %s", self.name, text, extra={"hook": self.name})

    async def _wait_exit(self) -> int:
        await self.protocol.exited.wait()
        code = self.transport.get_returncode()
        # Responses written just before exiting are still in the pipe: read them first.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.reader), 0.5)
        # Whatever the hook left running in its group goes with it.
        _signal_group(self.proc.pid, signal.SIGKILL)
        self._fail(RpcProcessError(f"hook {self.name}: process exited with code {code}"))
        return code if code is not None else -1

    def _fail(self, error: RpcProcessError) -> None:
        if self.lost is None:
            self.lost = error
        for future in self.pending.values():
            if not future.done():
                future.set_exception(RpcProcessError(str(error)))

    def stderr_text(self) -> str:
        return "\n".join(self.stderr_tail)

    async def shutdown(self, close_timeout: float, term_timeout: float) -> None:
        """Close stdin, wait, then SIGTERM and SIGKILL the process group; reap the child."""
        if self.lost is None:
            self.lost = RpcProcessError(f"hook {self.name}: process closed")
        stdin = self.proc.stdin
        if stdin is not None:
            with contextlib.suppress(Exception):
                stdin.close()
        steps = ((None, close_timeout), (signal.SIGTERM, term_timeout), (signal.SIGKILL, 5.0))
        for sig, grace in steps:
            if sig is not None:
                _signal_group(self.proc.pid, sig)
            try:
                await asyncio.wait_for(asyncio.shield(self.exited), grace)
                break
            except TimeoutError:
                continue
        await self._finish()
        self._fail(self.lost)

    async def kill(self) -> None:
        _signal_group(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.exited), 5.0)
        await self._finish()

    async def _finish(self) -> None:
        """Let the readers drain, then close the pipes whoever still holds them."""
        for task in (self.reader, self.stderr_reader):
            if not task.done():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(task), 0.5)
            task.cancel()
        await asyncio.gather(self.reader, self.stderr_reader, return_exceptions=True)
        self.transport.close()


@atexit.register
def _kill_leftovers() -> None:
    for conn in list(_live):
        if not conn.transport.is_closing():
            _signal_group(conn.proc.pid, signal.SIGKILL)


# The supervised process ---------------------------------------------------------------------


class RpcProcess:
    """One hook process: lazy start, handshake, calls, restart with backoff, shutdown."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        hello_params: Mapping[str, Any] | None = None,
        hello_timeout: float = 5.0,
        close_timeout: float = 2.0,
        term_timeout: float = 1.0,
        restart: RestartPolicy | None = None,
        max_line: int = MAX_LINE,
        max_pending_notifications: int = 64,
    ) -> None:
        if not argv:
            raise ValueError(f"hook {name}: command is required")
        self.name = name
        self.argv = list(argv)
        self.cwd = os.fspath(cwd) if cwd is not None else None
        self.env = dict(env) if env is not None else None
        self.hello_params: dict[str, Any] = (
            dict(hello_params) if hello_params is not None else {"name": name, "version": 1}
        )
        self.hello_timeout = hello_timeout
        self.close_timeout = close_timeout
        self.term_timeout = term_timeout
        self.restart = restart if restart is not None else RestartPolicy()
        self.max_line = max_line
        self.max_pending_notifications = max_pending_notifications
        #: Processes spawned successfully after the first one.
        self.restarts = 0
        #: Consecutive failures since the last successful call.
        self.failures = 0
        self.spawned = 0
        self.dropped_notifications = 0
        self.last_error: str | None = None
        self._conn: _Connection | None = None
        self._starting: asyncio.Future[_Connection] | None = None
        self._next_start = 0.0
        self._closed = False
        self._notify_lock = threading.Lock()
        self._inflight_notifications = 0

    # Public API (any loop) -------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        conn = self._conn
        return conn.proc.pid if conn is not None and conn.alive else None

    @property
    def running(self) -> bool:
        conn = self._conn
        return conn is not None and conn.alive

    @property
    def closed(self) -> bool:
        return self._closed

    def stderr_tail(self) -> str:
        conn = self._conn
        return conn.stderr_text() if conn is not None else ""

    async def start(self) -> None:
        """Spawn the process and complete the handshake now rather than on first use."""
        await _on_io(self._ensure())

    async def call(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """Send a request and return its `result`; raises RpcError subclasses or TimeoutError."""
        return await _on_io(self._call(method, {} if params is None else params, timeout))

    async def notify(self, method: str, params: Any = None, timeout: float | None = None) -> None:
        await _on_io(self._notify(method, {} if params is None else params, timeout))

    def notify_nowait(self, method: str, params: Any = None, timeout: float | None = None) -> bool:
        """Queue a notification from any thread without waiting; False when it was dropped
        (closed, or `max_pending_notifications` already queued)."""
        with self._notify_lock:
            if self._closed or self._inflight_notifications >= self.max_pending_notifications:
                self.dropped_notifications += 1
                return False
            self._inflight_notifications += 1
        asyncio.run_coroutine_threadsafe(
            self._queued_notify(method, {} if params is None else params, timeout), io_loop()
        )
        return True

    async def aclose(self) -> None:
        """Stop the process (idempotent). Later calls fail with RpcProcessError."""
        await _on_io(self._close())

    # I/O loop side ---------------------------------------------------------------------------

    async def _call(self, method: str, params: Any, timeout: float | None) -> Any:
        conn = await self._ensure()
        result = await conn.request(method, params, timeout)
        self.failures = 0
        return result

    async def _notify(self, method: str, params: Any, timeout: float | None) -> None:
        conn = await self._ensure()
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if timeout is None:
            await conn.write(message)
        else:
            await asyncio.wait_for(conn.write(message), timeout)

    async def _queued_notify(self, method: str, params: Any, timeout: float | None) -> None:
        try:
            await self._notify(method, params, timeout)
        except (RpcError, TimeoutError) as exc:
            self.dropped_notifications += 1
            log.debug("hook %s: notification %s dropped: %s", self.name, method, exc)
        except Exception:
            self.dropped_notifications += 1
            log.exception("hook %s: notification %s failed", self.name, method)
        finally:
            with self._notify_lock:
                self._inflight_notifications -= 1

    async def _ensure(self) -> _Connection:
        if self._closed:
            raise RpcProcessError(f"hook {self.name}: closed")
        conn = self._conn
        if conn is not None and conn.alive:
            return conn
        if self._starting is None:
            self._check_may_start()
            task = asyncio.ensure_future(self._spawn())
            task.add_done_callback(_consume_exception)
            self._starting = task
        return await asyncio.shield(self._starting)

    def _check_may_start(self) -> None:
        if self.spawned == 0 and self.failures == 0:
            return
        why = f" (last error: {self.last_error})" if self.last_error else ""
        policy = self.restart
        if not policy.enabled:
            raise RpcProcessError(f"hook {self.name}: process is down, restart disabled{why}")
        if policy.max_restarts is not None and self.restarts >= policy.max_restarts:
            raise RpcProcessError(f"hook {self.name}: process is down, restart limit reached{why}")
        wait = self._next_start - time.monotonic()
        if wait > 0:
            raise RpcUnavailable(f"hook {self.name}: process is down, restart in {wait:.2f}s{why}")

    async def _spawn(self) -> _Connection:
        try:
            conn = await self._spawn_and_greet()
        except BaseException as exc:
            self._record_failure(exc)
            self._starting = None
            if isinstance(exc, RpcProcessError):
                raise
            if isinstance(exc, Exception):
                raise RpcProcessError(f"hook {self.name}: {self.last_error}") from exc
            raise
        if self.spawned > 0:
            self.restarts += 1
        self.spawned += 1
        self._conn = conn
        self._starting = None
        conn.exited.add_done_callback(lambda _: self._on_exit(conn))
        return conn

    async def _spawn_and_greet(self) -> _Connection:
        env = None if self.env is None else {**os.environ, **self.env}
        try:
            proc, protocol, transport = await spawn(self.argv, self.cwd, env)
        except OSError as exc:
            raise RpcProcessError(
                f"hook {self.name}: cannot start {self.argv[0]!r}: {exc}"
            ) from exc
        conn = _Connection(proc, protocol, transport, self.name, self.max_line)
        try:
            await asyncio.wait_for(
                conn.request("hook.hello", self.hello_params), self.hello_timeout
            )
        except TimeoutError:
            await conn.kill()
            raise RpcProcessError(
                f"hook {self.name}: no hook.hello answer within {self.hello_timeout:g}s"
            ) from None
        except RpcError as exc:
            await conn.kill()
            raise RpcProcessError(f"hook {self.name}: hook.hello failed: {exc}") from exc
        except BaseException:
            await conn.kill()
            raise
        return conn

    def _record_failure(self, exc: BaseException) -> None:
        self.failures += 1
        self.last_error = str(exc) or type(exc).__name__
        self._next_start = time.monotonic() + self.restart.backoff(self.failures)

    def _on_exit(self, conn: _Connection) -> None:
        if self._conn is not conn:
            return
        self._conn = None
        if self._closed:
            return
        self._record_failure(conn.lost or RpcProcessError("process exited"))
        if self.restart.enabled:
            log.warning(
                "hook %s: %s; restart allowed in %.2fs",
                self.name,
                self.last_error,
                self.restart.backoff(self.failures),
            )
        else:
            log.warning("hook %s: %s; not restarting", self.name, self.last_error)

    async def _close(self) -> None:
        self._closed = True
        starting = self._starting
        if starting is not None:
            starting.cancel()
            with contextlib.suppress(BaseException):
                await starting
        conn = self._conn
        self._conn = None
        if conn is not None:
            await conn.shutdown(self.close_timeout, self.term_timeout)


def _consume_exception(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
